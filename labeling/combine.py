"""Label policies: from every source's step verdicts to one `labels` list per chain.

Pure functions. Every source's verdicts stay in the row regardless of the policy; the
policy only decides the final `labels` column and `first_error_step`.

Sources and what their verdicts mean:
- `outcome`: the final answer (math) or the whole program against its tests (code); only
  the last step carries it.
- `calc`, `syntax`, `tests`: exact checks; an `incorrect` verdict is a proof that the step is
  wrong, a `correct` verdict only says the checked arithmetic/syntax/tests hold (not that the
  step is right).
- `mc`: Monte Carlo rollouts; `label` is the hard label, `score` the success rate.

Exact sources prove steps wrong, but only `calc` and `syntax` *locate* an error: a wrong final
answer (`outcome`) or a failing program (`tests`) is reported on the last step whatever step
went wrong first. So the consensus filter compares MC with the locating sources only; otherwise
every chain with a wrong answer and an earlier MC first error would be dropped.

Policies (`policy=`):
- `outcome`: steps of a chain with a correct outcome are all positive; in a chain with a
  wrong outcome the last step is negative and earlier steps are unlabeled (None).
- `mc`: MC hard labels only.
- `verifier_first`: a step any exact source proves wrong is negative; elsewhere the MC label;
  where MC did not measure, positive before an outcome-correct end, else unlabeled.
- `consensus`: as `verifier_first`, but a chain whose MC first error and located exact first
  error both exist and disagree is not kept (Qwen, "Lessons of developing PRMs", 2025).
  "Both exist": a source that found no error is no evidence against one (calc checks
  arithmetic only), so such chains are kept.

`after_error`: what the steps after the first error become: `negative` (TRL convention),
`mask` (None, ignored in training), or `keep` (whatever the policy gave them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from labeling.schema import AfterError, Status, StepVerdict

EXACT_SOURCES = ("calc", "tests", "answer")  # an `incorrect` verdict is a proof
LOCATING_SOURCES = ("calc", "tests")  # ... and also says where the first error is


class Policy(StrEnum):
    """How verdicts become the final `labels` column (`labels.policy`)."""

    outcome = "outcome"
    mc = "mc"
    verifier_first = "verifier_first"
    consensus = "consensus"


POLICIES = tuple(p.value for p in Policy)
AFTER_ERROR = tuple(a.value for a in AfterError)


@dataclass(frozen=True, slots=True)
class Combined:
    labels: list[bool | None]
    first_error_step: int  # -1 if no step is negative
    keep: bool = True
    reason: str = ""  # why a chain was not kept
    exact_first_error: int = -1  # first error located by calc/syntax (-1: none found)
    mc_first_error: int = -1  # first step MC labels wrong (-1: none)


def first_incorrect(verdicts: Sequence[StepVerdict] | None) -> int:
    """Index of the first `incorrect` verdict, or -1."""
    for i, v in enumerate(verdicts or ()):
        if v.status == Status.INCORRECT:
            return i
    return -1


def exact_first_error(
    verdicts: Mapping[str, Sequence[StepVerdict]], sources: Sequence[str] = LOCATING_SOURCES
) -> int:
    """Earliest step one of `sources` proves wrong, or -1. Defaults to the sources that
    locate errors (not `answer`, which only says the end is wrong)."""
    found = [first_incorrect(verdicts.get(s)) for s in sources]
    found = [i for i in found if i >= 0]
    return min(found) if found else -1


def _outcome(verdicts: Mapping[str, Sequence[StepVerdict]], n: int) -> bool | None:
    out = verdicts.get("answer")
    return out[n - 1].label if out and n else None


def _mc_first_error(mc: Sequence[StepVerdict] | None) -> int:
    for i, v in enumerate(mc or ()):
        if v.label is False:
            return i
    return -1


def combine(
    verdicts: Mapping[str, Sequence[StepVerdict]],
    n_steps: int,
    policy: str = "verifier_first",
    after_error: str = "negative",
) -> Combined:
    """Final labels for one chain. Raises ValueError on an unknown policy (a config error)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown label policy {policy!r}; choose one of {', '.join(POLICIES)}")
    if after_error not in AFTER_ERROR:
        choices = ", ".join(AFTER_ERROR)
        raise ValueError(f"unknown after_error {after_error!r}; choose one of {choices}")
    for name, vs in verdicts.items():
        if len(vs) != n_steps:
            raise ValueError(f"source {name!r} has {len(vs)} verdicts for {n_steps} steps")
    if n_steps == 0:
        return Combined([], -1)  # nothing to label; the caller decides whether to keep it

    outcome = _outcome(verdicts, n_steps)
    mc = verdicts.get("mc")
    labels: list[bool | None]

    if policy == "outcome":
        if outcome is True:
            labels = [True] * n_steps
        elif outcome is False:
            labels = [None] * (n_steps - 1) + [False]
        else:
            labels = [None] * n_steps
    elif policy == "mc":
        labels = [v.label for v in mc] if mc else [None] * n_steps
    else:
        labels = []
        for i in range(n_steps):
            if any(
                verdicts[s][i].status == Status.INCORRECT for s in EXACT_SOURCES if s in verdicts
            ):
                labels.append(False)
            elif mc and mc[i].label is not None:
                labels.append(mc[i].label)
            elif outcome is True:
                labels.append(True)
            else:
                labels.append(None)

    first_error = next((i for i, x in enumerate(labels) if x is False), -1)
    if first_error >= 0 and after_error != "keep":
        fill = False if after_error == "negative" else None
        labels = labels[: first_error + 1] + [fill] * (n_steps - first_error - 1)

    exact, by_mc = exact_first_error(verdicts), _mc_first_error(mc)
    if policy == "consensus" and exact >= 0 and by_mc >= 0 and exact != by_mc:
        reason = f"MC first error {by_mc} != exact first error {exact}"
        return Combined(labels, first_error, False, reason, exact, by_mc)
    return Combined(labels, first_error, True, "", exact, by_mc)
