"""The oracle reviewer (`audit.reviewer=oracle`): answers a review pack from the data's own
human labels (ProcessBench's first error, PRM800K's step ratings) the way a person answers
the page, in either mode, so the audit loop runs unattended and its estimates can be checked
against known truth.

- chain mode: per sampled chain, its first wrong step (-1: every step right) as the human
  labels place it; then, as the page asks, a step question for each sampled step claim after
  that first error.
- step mode: per sampled step, a step question where its label makes a step claim, and the
  chain question once per chain where one makes a prefix claim.
- sections mode: per sampled chain, every wrong step (an `incorrect` rating; a neutral is
  not wrong), when the labels rate every step; a skip otherwise.
Where the labels say nothing (ProcessBench after the first error, a masked neutral), the
oracle skips, as a person who cannot tell would; it skips every check's own question too
("does the arithmetic hold?"): the data's labels judge steps, and a step judged wrong may
still hold its arithmetic, so answering from them would score calc by the wrong claim.
"""

from __future__ import annotations

from typing import Any

from labeling.audit.claims import Claim, answered_first_error
from labeling.audit.sample import step_claims
from labeling.audit.verdicts import PAGE_FORMAT, SKIP, Mode


def oracle_verdict(row: dict[str, Any], step: int) -> str:
    """What the data's own human labels say about a step (skip where they say nothing)."""
    ratings, bools = row.get("human_ratings"), row.get("human_labels")
    if ratings is not None and ratings[step] is not None:
        return {1: "correct", 0: "neutral", -1: "incorrect"}[int(ratings[step])]
    if bools is not None and bools[step] is not None:
        return "correct" if bools[step] else "incorrect"
    return SKIP


def oracle_first_error(row: dict[str, Any]) -> int | None:
    """The chain's first wrong step by its human labels (-1: none; None: they do not say)."""
    bools = row.get("human_labels")
    fe = answered_first_error(bools) if bools is not None else None
    return fe if fe is not None else row.get("human_first_error")


def _chain(row: dict[str, Any]) -> dict[str, Any]:
    fe = oracle_first_error(row)
    if fe is None:
        return {"mode": Mode.chain.value, "chain": row["chain_id"], "verdict": SKIP}
    return {"mode": Mode.chain.value, "chain": row["chain_id"], "first_error": fe}


def _sections(row: dict[str, Any]) -> dict[str, Any]:
    said = [oracle_verdict(row, i) for i in range(len(row["completions"]))]
    rec = {"mode": Mode.sections.value, "chain": row["chain_id"]}
    if SKIP in said:
        return {**rec, "verdict": SKIP}
    return {**rec, "wrong": [i for i, v in enumerate(said) if v == "incorrect"]}


def _steps(line: dict[str, Any], row: dict[str, Any], step_question: bool = True
           ) -> list[dict[str, Any]]:  # fmt: skip
    """The answers to a sampled step's step questions (`step_question`: the step claim's
    own too), each naming its claim."""
    return [{"mode": Mode.step.value, "item": line["key"], "claim": claim,
             "verdict": oracle_verdict(row, line["step"]) if claim == Claim.step else SKIP}
            for claim in step_claims(line) if step_question or claim != Claim.step]


def oracle_answers(lines: list[dict[str, Any]], rows: dict[str, dict[str, Any]], mode: str
                   ) -> list[dict[str, Any]]:  # fmt: skip
    """The verdict records a reviewer who knows the human labels gives in `mode`."""
    out: list[dict[str, Any]] = []
    if Mode(mode) == Mode.sections:  # one answer decides every step question of the chain
        for chain in dict.fromkeys(x["chain_id"] for x in lines):
            out.append(_sections(rows[chain]))
            out += [r for x in lines if x["chain_id"] == chain
                    for r in _steps(x, rows[chain], step_question=False)]  # fmt: skip
        return out
    if Mode(mode) == Mode.chain:
        for chain in dict.fromkeys(x["chain_id"] for x in lines):
            rec = _chain(rows[chain])
            out.append(rec)
            fe = rec.get("first_error", -1)
            for x in lines:
                if x["chain_id"] == chain:  # a step claim is asked after the first error only
                    out += _steps(x, rows[chain], 0 <= fe < x["step"])
        return out
    asked: set[str] = set()
    for x in lines:
        out += _steps(x, rows[x["chain_id"]])
        if str(Claim.prefix) in x["asks"] and x["chain_id"] not in asked:
            asked.add(x["chain_id"])
            out.append(_chain(rows[x["chain_id"]]))
    return out


def oracle_export(pack_id: str, lines: list[dict[str, Any]], rows: dict[str, dict[str, Any]],
                  mode: str) -> dict[str, Any]:  # fmt: skip
    """The oracle's answers as a verdict file (docs/audit.md)."""
    return {"format": PAGE_FORMAT, "pack": pack_id, "reviewer": "oracle",
            "verdicts": oracle_answers(lines, rows, mode)}  # fmt: skip


__all__ = ["oracle_answers", "oracle_export", "oracle_first_error", "oracle_verdict"]
