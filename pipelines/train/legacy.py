"""Read the checkpoint layout prm-train wrote before its checkpoints became HF directories.

That layout is `backbone/` (the transformer body and tokenizer), `head.pt` (a Linear(h, 2)
"classes" head or a Linear(h, 1) "scalar" head) and `prm_format.json` (separator, prompt
template, lengths, head), with the score read at the separator's last token.

It becomes the `causal_lm` format: the separator's token is the step tag, the head's rows
become the `lm_head` rows of two added label tokens (all other rows are zero: the export
scores, it does not generate), and the word embeddings are untied so the input embeddings
stay as trained. What cannot be carried over: the head's bias. Only the difference of the
two biases mattered (a constant shift of every step's logit); `lm_head` has no bias, so that
shift is dropped and reported as `dropped_logit_shift`. A constant logit shift leaves the
order of steps and chains unchanged (so thresholds tuned afterwards, min/last aggregation
and AUROC are the same); raw probabilities move. Checkpoints trained now need no conversion.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import torch

from pipelines.checkpoint.format import FORMAT_FILE, StepFormat
from pipelines.checkpoint.model import (
    ProcessRewardModel,
    ensure_tokens,
    load_tokenizer,
    quiet_hf,
    token_id,
)

LABEL_TOKENS = ["<extra_1>", "<extra_2>"]


def load_legacy(
    directory: Path, dtype: torch.dtype = torch.float32
) -> tuple[ProcessRewardModel, Any, StepFormat]:
    """The old checkpoint as a `causal_lm` PRM; `model.dropped_logit_shift` says what was lost."""
    from transformers import AutoModel, AutoModelForCausalLM

    old = json.loads((directory / FORMAT_FILE).read_text())
    tok = load_tokenizer(directory / "backbone")
    sep = tok(old.get("separator", "\n\n"), add_special_tokens=False)["input_ids"]
    if len(sep) != 1:
        raise ValueError(
            f"{directory}: the separator {old.get('separator')!r} is {len(sep)} tokens; only a "
            "one-token separator can become a step tag"
        )
    with quiet_hf():
        body = AutoModel.from_pretrained(directory / "backbone", dtype=dtype)
    head = torch.load(directory / "head.pt", weights_only=True)
    weight, bias = head["weight"].to(dtype), head["bias"].to(dtype)
    if weight.shape[0] == 1:  # scalar head: sigmoid(w.h + b) == softmax([0, w.h + b])[1]
        weight = torch.cat([torch.zeros_like(weight), weight])
        bias = torch.cat([torch.zeros_like(bias), bias])
    config = copy.deepcopy(body.config)
    config.tie_word_embeddings = False
    config.architectures = None
    ensure_tokens(tok, LABEL_TOKENS)
    with quiet_hf():
        lm = AutoModelForCausalLM.from_config(config, dtype=dtype)
    lm.base_model.load_state_dict(body.state_dict())
    if len(tok) > lm.get_input_embeddings().weight.shape[0]:
        lm.resize_token_embeddings(len(tok), mean_resizing=False)
    ids = [token_id(tok, t) for t in LABEL_TOKENS]
    with torch.no_grad():
        lm.get_output_embeddings().weight.zero_()
        lm.get_output_embeddings().weight[ids] = weight
    fmt = StepFormat(
        format="causal_lm",
        prompt_template=old.get("prompt_template", "{prompt}\n\n"),
        step_template="{step}",
        step_tag=tok.convert_ids_to_tokens(sep[0]),
        step_tag_id=sep[0],
        label_tokens=list(LABEL_TOKENS),
        label_token_ids=ids,
        bos_token_id=tok.bos_token_id,
        max_length=old.get("max_length", 1024),
        max_prompt_length=old.get("max_prompt_length", 512),
    )
    model = ProcessRewardModel(fmt, lm=lm).eval()
    model.dropped_logit_shift = float(bias[1] - bias[0])
    return model, tok, fmt
