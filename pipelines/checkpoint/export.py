"""PRM checkpoints as plain Hugging Face directories that vLLM serves and transformers loads.

A checkpoint directory holds `config.json`, `model.safetensors`, the tokenizer, `README.md`
(how to score it with vLLM and with transformers, written by `pipelines.checkpoint.serving`)
and `prm_format.json` (the text format; HF loaders ignore it). No custom code is needed to
load it:
- `causal_lm`: a `*ForCausalLM`; vLLM: `--runner pooling --convert classify` with
  `classifier_from_token` = the label tokens and STEP pooling at the step tag.
- `qwen2_prm`: a `Qwen2ForProcessRewardModel` (backbone `model.*`, head `score.0`/`score.2`);
  vLLM: `--runner pooling` with STEP pooling at the step tag.

`load_checkpoint` also reads checkpoints this module did not write: Qwen2.5-Math-PRM-style and
Math-Shepherd-style directories (format read from `config.json`, overridable).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

from pipelines.checkpoint.format import FORMAT_FILE, StepFormat
from pipelines.checkpoint.model import (
    ProcessRewardModel,
    ensure_tokens,
    load_tokenizer,
    new_score_head,
    quiet_hf,
    resolve_model_path,
    token_id,
)
from pipelines.checkpoint.serving import model_card, serve_command

QWEN_PRM_ARCH = "Qwen2ForProcessRewardModel"
# Qwen2.5-Math-PRM's published usage: a chat with this system prompt, steps joined by <extra_0>.
QWEN_PRM_TEMPLATE = (
    "<|im_start|>system\nPlease reason step by step, and put your final answer within "
    "\\boxed{{}}.<|im_end|>\n<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n"
)
# Math-Shepherd's published usage: "<question> <step 1> ки\n<step 2> ки\n...", '+' good.
SHEPHERD = {
    "step_tag": "ки",
    "label_tokens": ["-", "+"],
    "prompt_template": "{prompt} ",
    "step_template": "{step} ",
}


def new_prm(path: str | Path, request: StepFormat) -> tuple[ProcessRewardModel, Any, StepFormat]:
    """A fresh PRM on the causal LM at `path` (`""` = the embedded model) in `request.format`.

    The step tag and label tokens are added to the tokenizer when missing (new label rows
    start equal, so every step starts at p = 0.5); ids are resolved into the returned format.
    """
    from transformers import AutoModel, AutoModelForCausalLM

    path = resolve_model_path(path)
    if not path.exists():
        raise FileNotFoundError(
            f"model.path {path} does not exist; run prm-prepare-model for the default "
            "SmolLM2-135M or pass model.path=<local HF directory>"
        )
    tok = load_tokenizer(path)
    wanted = [request.step_tag] + (request.label_tokens if request.format == "causal_lm" else [])
    added = ensure_tokens(tok, wanted)
    with quiet_hf():
        if request.format == "causal_lm":
            lm = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
            _grow_vocab(lm, len(tok))
            ids = [token_id(tok, t) for t in request.label_tokens]
            if set(request.label_tokens) <= set(added):  # fresh rows: no opinion at start
                emb = lm.get_output_embeddings().weight
                with torch.no_grad():
                    emb[ids] = emb[ids].mean(0, keepdim=True)
            fmt = _resolved(request, tok, ids)
            return ProcessRewardModel(fmt, lm=lm), tok, fmt
        backbone = AutoModel.from_pretrained(path, dtype=torch.float32)
    if backbone.config.model_type != "qwen2":
        raise ValueError(
            f"export.format=qwen2_prm needs a Qwen2 backbone, {path} is "
            f"{backbone.config.model_type}; use export.format=causal_lm"
        )
    _grow_vocab(backbone, len(tok))
    fmt = _resolved(request, tok, [])
    return ProcessRewardModel(fmt, backbone=backbone), tok, fmt


def _grow_vocab(model: Any, size: int) -> None:
    # Only grow: vocabularies padded past the tokenizer (Qwen) must keep their rows.
    if size > model.get_input_embeddings().weight.shape[0]:
        model.resize_token_embeddings(size, mean_resizing=False)


def _resolved(request: StepFormat, tok: Any, label_ids: list[int]) -> StepFormat:
    return replace(
        request,
        step_tag_id=token_id(tok, request.step_tag),
        label_token_ids=label_ids,
        label_tokens=list(request.label_tokens) if label_ids else [],
        bos_token_id=tok.bos_token_id,
    )


def save_checkpoint(model: ProcessRewardModel, tokenizer: Any, directory: str | Path,
                    state: dict[str, dict[str, Any]] | None = None) -> Path:
    """Write the plain HF directory (see module docstring); returns it. `state` (from
    `weights_of`, taken earlier) is written instead of the model's live weights, so a
    background writer saves the weights of the step it was asked for."""
    from safetensors.torch import save_file

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    fmt = model.fmt
    weights = state if state is not None else weights_of(model)
    if fmt.format == "causal_lm":
        model.lm.save_pretrained(directory, state_dict=weights["lm"])
    else:
        flat = {f"model.{k}": v for k, v in weights["backbone"].items()}
        flat.update({f"score.{k}": v for k, v in weights["score"].items()})
        save_file(
            {k: v.contiguous() for k, v in flat.items()},
            str(directory / "model.safetensors"),
            metadata={"format": "pt"},
        )
        config = model.backbone.config
        config.architectures = [QWEN_PRM_ARCH]
        config.num_labels = 2
        config.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    fmt.save(directory)
    (directory / "README.md").write_text(model_card(fmt, directory.name))
    return directory


def weights_of(model: ProcessRewardModel) -> dict[str, dict[str, Any]]:
    """The state dicts `save_checkpoint` writes, by part (live tensors, not copies)."""
    if model.fmt.format == "causal_lm":
        return {"lm": model.lm.state_dict()}
    return {"backbone": model.backbone.state_dict(), "score": model.score.state_dict()}


def load_checkpoint(
    directory: str | Path, dtype: torch.dtype = torch.float32, **overrides: Any
) -> tuple[ProcessRewardModel, Any, StepFormat]:
    """(model in eval mode, tokenizer, format) from any supported PRM directory.

    `overrides` (step_tag, label_tokens, prompt_template, step_template, format) replace what
    the directory says; they are how a third-party checkpoint's conventions are given.
    """
    directory = _local(directory)
    if not (directory / "config.json").exists():
        raise FileNotFoundError(f"{directory} is not a PRM checkpoint (no config.json)")
    tok = load_tokenizer(directory)
    fmt = _format_of(directory, tok, {k: v for k, v in overrides.items() if v is not None})
    from transformers import AutoModel, AutoModelForCausalLM

    with quiet_hf():
        if fmt.format == "causal_lm":
            lm = AutoModelForCausalLM.from_pretrained(directory, dtype=dtype)
            model = ProcessRewardModel(fmt, lm=lm)
        else:
            backbone = AutoModel.from_pretrained(directory, dtype=dtype)
            score = new_score_head(backbone.config.hidden_size).to(dtype)
            score.load_state_dict(_score_weights(directory))
            model = ProcessRewardModel(fmt, backbone=backbone, score=score)
    return model.eval(), tok, fmt


def _local(checkpoint: str | Path) -> Path:
    """A local directory, or (for an `org/name` that is not one) the hub's cached snapshot."""
    path = Path(checkpoint).expanduser()
    name = str(checkpoint)
    if path.exists() or name.count("/") != 1 or name.startswith((".", "/", "~")):
        return path
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(name))
    except Exception as exc:  # offline, no such repo, no access: all one answer for the user
        raise FileNotFoundError(
            f"{name} is neither a local directory nor a hub model this machine can download"
        ) from exc


def _format_of(directory: Path, tok: Any, overrides: dict[str, Any]) -> StepFormat:
    if (directory / FORMAT_FILE).exists():
        base = StepFormat.load(directory)
    else:  # third-party: the conventions of the model family its config names
        config = json.loads((directory / "config.json").read_text())
        if QWEN_PRM_ARCH in (config.get("architectures") or []):
            base = StepFormat(
                "qwen2_prm",
                QWEN_PRM_TEMPLATE,
                "{step}",
                "<extra_0>",
                label_tokens=[],
                bos_token_id=None,
                max_length=4096,
            )
        else:
            base = StepFormat(
                "causal_lm", bos_token_id=tok.bos_token_id, max_length=4096, **SHEPHERD
            )
    fmt = replace(base, **overrides)
    label_ids = [token_id(tok, t) for t in fmt.label_tokens] if fmt.format == "causal_lm" else []
    return replace(fmt, step_tag_id=token_id(tok, fmt.step_tag), label_token_ids=label_ids)


def _score_weights(directory: Path) -> dict[str, torch.Tensor]:
    """`score.*` tensors from model.safetensors or a sharded checkpoint's files."""
    from safetensors import safe_open

    index = directory / "model.safetensors.index.json"
    files = (
        sorted(set(json.loads(index.read_text())["weight_map"].values()))
        if index.exists()
        else ["model.safetensors"]
    )
    out: dict[str, torch.Tensor] = {}
    for name in files:
        with safe_open(str(directory / name), framework="pt") as f:
            for key in f.keys():  # noqa: SIM118 (safe_open is not a dict)
                if key.startswith("score."):
                    out[key.removeprefix("score.")] = f.get_tensor(key)
    if not out:
        raise ValueError(f"{directory} names {QWEN_PRM_ARCH} but holds no score.* weights")
    return out


def export(source: str | Path, out: str | Path, fmt_name: str | None = None) -> dict[str, Any]:
    """Write `source` (a prm-train checkpoint) as a servable HF directory.

    The format stays the one the checkpoint was trained in (converting between formats would
    change the scores).
    """
    source, out = Path(source).expanduser(), Path(out).expanduser()
    if out.resolve() == source.resolve():
        raise ValueError("the output directory must differ from the checkpoint")
    model, tok, fmt = load_checkpoint(source)
    if fmt_name is not None and fmt_name != fmt.format:
        raise ValueError(
            f"{source} is a {fmt.format} checkpoint; it exports as {fmt.format} only (a "
            "conversion would change its scores); train with export.format to get another"
        )
    save_checkpoint(model, tok, out)
    report = {
        "checkpoint": str(out),
        "format": fmt.format,
        "step_tag_id": fmt.step_tag_id,
        "serve": serve_command(fmt, Path(out).resolve()),  # runs as printed, on this install
    }
    return report


def main(argv: list[str] | None = None) -> None:
    """`prm-export CHECKPOINT OUT [--format F]`: one sentence and exit 2 on a user error."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="prm-export", description=export.__doc__)
    parser.add_argument("checkpoint", help="prm-train checkpoint (final/ or step_*/)")
    parser.add_argument("out", help="directory to write the HF checkpoint to")
    parser.add_argument(
        "--format",
        choices=["causal_lm", "qwen2_prm"],
        default=None,
        help="expected format (fails if the checkpoint is another one)",
    )
    args = parser.parse_args(argv)
    try:
        report = export(args.checkpoint, args.out, args.format)
    except (FileNotFoundError, ValueError) as exc:
        print(f"prm-export: error: {str(exc).splitlines()[0]}", file=sys.stderr)
        sys.exit(2)
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
