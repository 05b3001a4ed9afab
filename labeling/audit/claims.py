"""What a label claims, and whether a reviewer's answers make it true. Pure functions.

A step label makes one of two claims:

- `step`: the source judged this step itself ("step i is right / wrong"). Every True label,
  the first False of a column when every step before it is labeled True (it is located) or
  it is the last step, every False of an exact source (`calc`, `tests`, `answer`: they check
  each step on its own), and a policy's False on a step an exact source proved wrong. Scored
  against the reviewer's verdict on that step.
- `prefix`: a False that is there only because it comes after the column's first error under
  `labels.after_error=negative` (TRL's convention): "the chain has gone wrong by here", a
  claim about steps 0..i together, not about step i. MC's own labels after its first error
  are prefix claims too: the estimator writes them by the same rule, whatever the rollouts
  from those later steps said. So is a column's first False after an unlabeled step (not the
  last step, not proven by an exact source): MC's `posterior` rule writes it where the chain
  has gone wrong by step i but the rollouts do not say where (`labeling/mc/bisection.py`).
  Scored against the chain's first error: right when a reviewer
  found a wrong step at or before i, wrong when every step up to i was reviewed right,
  undecided otherwise.

Under `after_error=mask` or `keep` no label is a prefix claim. Steps are numbered from 0
everywhere (`first_error_step`, step keys, verdict files, the review page).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum

import labeling.registry as registry
from labeling.datasets.processbench import human_step_labels
from labeling.first_error import first_error, located_first_error, prefix_claim


class Claim(StrEnum):
    """The claim a decided label makes (see the module docstring)."""

    step = "step"
    prefix = "prefix"


def column_claims(
    labels: Sequence[bool | None], after_error: str, self_judged: Sequence[bool]
) -> list[Claim | None]:
    """The claim of each label of one column (None where the label is null).
    `self_judged[i]`: the column's source judged step i itself wrong, so a False there is a
    step claim even after the first error."""
    first = first_error(labels)
    # A first False after an unlabeled step locates nothing: "wrong by here" (MC's prefix
    # claim), unless it is the last step (the chain's own answer) or judged on its own.
    located = prefix_claim(labels) is None
    out: list[Claim | None] = []
    for i, x in enumerate(labels):
        if x is None:
            out.append(None)
        elif x or (i == first and located) or after_error != "negative" or self_judged[i]:
            out.append(Claim.step)
        else:
            out.append(Claim.prefix)
    return out


def chain_claims(
    columns: Mapping[str, Sequence[bool | None]], policy: str, after_error: str
) -> dict[str, list[Claim | None]]:
    """Claims of every column of one chain: the sources' `<name>_labels` under their names,
    the policy's `labels` under `policy`. An exact source judges every step on its own; the
    policy judged step i itself where an exact source proved it wrong."""
    n = len(next(iter(columns.values()), ()))
    exact = [s for s in registry.exact_sources() if s in columns and s != policy]
    proven = [any(columns[s][i] is False for s in exact) for i in range(n)]
    out = {}
    for name, labels in columns.items():
        if name in exact:
            judged = [True] * n
        elif name == policy:
            judged = proven
        else:  # mc, judge: a False after their first error is their own after-error rule
            judged = [False] * n
        out[name] = column_claims(labels, after_error, judged)
    return out


def prefix_right(human: Sequence[bool | None], step: int) -> bool | None:
    """Is the chain still right up to and including `step`, by the reviewer's step verdicts
    (`human[j]` for step j)? False as soon as one step up to it is wrong; True when every
    one was reviewed right; None when an unreviewed (or masked) step leaves it open."""
    upto = human[: step + 1]
    if any(h is False for h in upto):
        return False
    if len(upto) == step + 1 and all(h is True for h in upto):
        return True
    return None


def claim_right(label: bool, claim: Claim | str, human: Sequence[bool | None], step: int
                ) -> bool | None:  # fmt: skip
    """Whether a decided label is right about what it claims; None when the reviewer's
    answers do not decide it. `human`: the chain's reviewed step verdicts from step 0."""
    if Claim(claim) == Claim.prefix:
        truth = prefix_right(human, step)
    else:
        truth = human[step] if step < len(human) else None
    return None if truth is None else truth == label


def answered_first_error(human: Sequence[bool | None]) -> int | None:
    """The first error that step verdicts place: the first wrong step when every step
    before it is right, -1 when every step is right, None when they leave it open
    (`located_first_error`)."""
    return located_first_error(human)


def chain_answer_steps(first_error: int, n_steps: int) -> tuple[bool | None, ...]:
    """The step verdicts a chain answer implies (ProcessBench's protocol): right before the
    first error, wrong at it, nothing said after it (-1: every step right)."""
    return human_step_labels(first_error, n_steps)


__all__ = [
    "Claim",
    "answered_first_error",
    "chain_answer_steps",
    "chain_claims",
    "claim_right",
    "column_claims",
    "prefix_right",
]
