"""What prm-train does with chains longer than `model.max_length`, and its account of them.

The policy (`tokenize_row`): the question and as many whole steps as fit, from the first;
the first step that does not fit and all after it are dropped, never trained against cut
text. This module says so the first time it happens, stops a run in which no label fits at
all, and writes the summary's `long_chains` section.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from pipelines.cli import UserError

log = logging.getLogger("prm-train")
_KEYS = ("chains", "chains_cut", "steps", "steps_dropped", "labels", "labels_dropped",
         "prompts_cut")  # fmt: skip


def say_first_cut(first: tuple[str, dict[str, int]] | None, max_length: int) -> None:
    """Warn about one cut chain (chain id, its `cut_counts`); nothing when `first` is None."""
    if first is None:
        return
    chain_id, counts = first
    log.warning(
        "chain %s is longer than model.max_length=%d tokens: trained on the question and "
        "its first %d of %d steps (whole steps only); the other %d steps (%d labeled) are "
        "dropped, never trained against cut text. Every such chain is counted in "
        "summary.json's `long_chains`", chain_id, max_length,
        counts["steps"] - counts["steps_dropped"], counts["steps"], counts["steps_dropped"],
        counts["labels_dropped"])  # fmt: skip


def check_something_fits(cut: Counter, model: Any) -> None:
    """After the first step: a run in which no label of any chain fits `max_length` would
    train on nothing; stop it with the fix instead (`model` is the config's model section)."""
    if cut["labels"] and cut["labels_dropped"] == cut["labels"]:
        raise UserError(
            f"no label of the first {cut['chains']} chains fits model.max_length="
            f"{model.max_length}: each chain's first labeled step ends past it (the prompt "
            f"keeps up to model.max_prompt_length={model.max_prompt_length} tokens); raise "
            "model.max_length or lower model.max_prompt_length")


def long_chains(cut: Counter, fmt: Any, world: int, val_cut: Counter) -> dict[str, Any]:
    """The summary's account of chains longer than `max_length` (the policy, and what it
    dropped among the chains this worker saw: a chain seen in two epochs counts twice), and
    one warning line when any chain was cut."""
    long = {
        "policy": "the question (its last model.max_prompt_length tokens) and as many whole "
                  "steps as fit, from the first; the first step that does not fit and all "
                  "after it are dropped",
        "max_length": fmt.max_length,
        "counted_on": "rank 0" + (f" of {world} workers" if world > 1 else ""),
        **{k: cut.get(k, 0) for k in _KEYS},
        "steps_trained": cut.get("steps", 0) - cut.get("steps_dropped", 0),
        "validation": {k: val_cut.get(k, 0) for k in ("chains", "chains_cut", "steps_dropped",
                                                      "labels_dropped")},
    }  # fmt: skip
    if long["chains_cut"] or val_cut["chains_cut"]:
        log.warning(
            "%d of %d chains seen were longer than model.max_length=%d: %d of %d steps "
            "dropped (%d of %d labels), validation %d of %d chains cut; see summary.json",
            long["chains_cut"], long["chains"], fmt.max_length, long["steps_dropped"],
            long["steps"], long["labels_dropped"], long["labels"], val_cut["chains_cut"],
            val_cut["chains"])  # fmt: skip
    return long
