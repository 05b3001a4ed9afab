"""Output rows: a `LabeledChain` (or a `Quarantined`) as a dict in the shard schema. Pure.

Per-source columns are filled from the verdicts of the sources that ran (null when a source
did not run). The `verdicts` column keeps every source's verdict with its evidence; an
(source, step) pair absent from it was `unverifiable` with nothing to say.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import labeling.registry as registry
from labeling.schema import LabeledChain, Quarantined, Status, StepVerdict


def _labels(vs: Sequence[StepVerdict] | None) -> list[bool | None] | None:
    return None if vs is None else [v.label for v in vs]


def verdict_structs(verdicts: dict[str, list[StepVerdict]]) -> list[dict[str, Any]]:
    out = []
    for source in sorted(verdicts):
        for step, v in enumerate(verdicts[source]):
            if v.status == Status.UNVERIFIABLE and not v.evidence and not v.rollouts:
                continue  # documented: absent == unverifiable, keeps shards small
            out.append(
                {
                    "source": source,
                    "step": step,
                    "status": v.status.value,
                    "label": v.label,
                    "score": v.score,
                    "rollouts": v.rollouts,
                    "evidence": v.evidence[:500],
                }
            )
    return out


def verdicts_from_structs(
    structs: Sequence[dict[str, Any]] | None, n_steps: int
) -> dict[str, list[StepVerdict]]:
    """The inverse of `verdict_structs`: every source's verdicts, one per step, the absent
    (source, step) pairs filled with `unverifiable`. Steps outside the chain are ignored."""
    out: dict[str, list[StepVerdict]] = {}
    for v in structs or ():
        vs = out.setdefault(v["source"], [StepVerdict.unverifiable()] * n_steps)
        if 0 <= v["step"] < n_steps:
            vs[v["step"]] = StepVerdict(
                Status(v["status"]), v["label"], v["score"], v["evidence"] or "",
                v["rollouts"] or 0,
            )
    return out


def _self_confidence(mc: Sequence[StepVerdict] | None) -> dict[str, Any] | None:
    sc = next((v.self_confidence for v in mc or () if v.self_confidence is not None), None)
    if sc is None:
        return None
    return {"successes": sc.successes, "decided": sc.decided, "rollouts": sc.rollouts,
            "tokens": sc.tokens, "source": sc.source}


def labeled_row(lc: LabeledChain, policy: str, config_hash: str) -> dict[str, Any]:
    chain, problem, vs = lc.chain, lc.problem, lc.verdicts
    mc = vs.get("mc")
    # Every registered source's columns: labels, and scores where it has them (null when the
    # source did not run).
    columns: dict[str, Any] = {}
    for spec in registry.specs():
        if spec.role == registry.Role.reviewer:
            continue  # human columns come with the chain, below
        own = vs.get(spec.name)
        columns[spec.labels_column] = _labels(own)
        if spec.scores_column:
            columns[spec.scores_column] = None if own is None else [v.score for v in own]
    human = list(chain.human_labels) if chain.human_labels else None
    rollouts = sum(v.rollouts for src in vs.values() for v in src)
    rollout_tokens = sum(v.tokens for src in vs.values() for v in src)
    return {
        "prompt": lc.prompt,
        "completions": list(chain.steps),
        "labels": list(lc.labels),
        "problem_id": problem.problem_id,
        "chain_id": chain.chain_id,
        "chain_index": chain.index,
        "domain": problem.domain,
        "source_dataset": problem.source_dataset,
        "reference_answer": problem.reference or None,
        "final_answer": lc.final_answer or None,
        "outcome_correct": lc.outcome_correct,
        "first_error_step": lc.first_error_step,
        **columns,
        "mc_rollouts": None if mc is None else [v.rollouts for v in mc],
        "mc_successes": None if mc is None else [v.successes for v in mc],
        "mc_decided": None if mc is None else [v.decided for v in mc],
        "mc_self_confidence": _self_confidence(mc),
        "human_labels": human,
        "human_ratings": list(chain.human_ratings) if chain.human_ratings else None,
        "human_first_error": chain.human_first_error,
        "verdicts": verdict_structs(vs),
        "sample_tokens": chain.tokens,
        "rollout_tokens": rollout_tokens,
        "rollouts": rollouts,
        "model": chain.model,
        "sampler_seed": chain.sampler_seed,
        "label_policy": policy,
        "config_hash": config_hash,
        "step_spans": [{"start": a, "end": b} for a, b in chain.spans] if chain.spans else None,
        "thinking_finished": chain.thinking_finished,
    }


def quarantine_row(q: Quarantined, config_hash: str) -> dict[str, Any]:
    return {
        "source_dataset": q.source_dataset,
        "record_index": q.record_index,
        "problem_id": q.problem_id or None,
        "chain_id": q.chain_id or None,
        "stage": q.stage,
        "reason": q.reason,
        "raw": q.raw,
        "config_hash": config_hash,
    }
