"""Label policies: from every source's step verdicts to one `labels` list per chain.

Pure functions. Every source's verdicts stay in the row regardless of the policy; the
policy only decides the final `labels` column and `first_error_step`.

Sources and what their verdicts mean (each source's role is declared once, in
labeling/registry.py: whole-chain `answer`, locating `calc`/`tests`, complete `mc`/`judge`):
- `answer`: the final answer (math) or the whole program against its tests (code); only
  the last step carries it.
- `calc`, `tests`: exact checks; an `incorrect` verdict is a proof that the step is wrong, a
  `correct` verdict only says the checked arithmetic/syntax holds (not that the step is right).
- `mc`: Monte Carlo rollouts; `label` is the hard label, `score` the success rate.
- `judge`: an LLM critic's voted first error under `labels.judge.vote` (a quorum of all
  votes, abstentions included; see labeling/judge/protocol.py); `score` the share of all
  votes placing the first error after the step.

Exact sources prove steps wrong, but only `calc` and `tests` *locate* an error: a wrong final
answer (`answer`) is reported on the last step whatever step went wrong first. `mc` and
`judge` judge every step, so their "no error" is a claim too; a locating exact source that
found nothing only says the arithmetic/syntax it checked holds. The label job runs the exact
sources first and hands MC the earliest step they proved wrong (`proven_error`): MC searches
only the steps before it, and its labels from it on follow `after_error` like these.

Policies (`policy=`):
- `outcome`: steps of a chain with a correct outcome are all positive; in a chain with a
  wrong outcome the last step is negative and earlier steps are unlabeled (None). This is
  outcome supervision, named as such: it calls every step of a right chain right.
- `mc`: MC hard labels only.
- `judge`: the LLM judge's labels only (voted first error negative, steps before positive).
- `verifier_first`: a step any exact source proves wrong is negative; the last step takes
  the checked final answer's label; elsewhere the MC label, where MC did not measure the
  judge's; else unlabeled (None). A step is never called right without
  evidence about that step.
- `consensus`: labels as `verifier_first`, but only chains whose `consensus` sources agree on
  the first error are kept (Qwen, "Lessons of developing PRMs", 2025: MC and an LLM judge,
  `[mc, judge]`; `[mc, calc]` by default). Each listed source that ran makes a claim: `mc`
  and `judge` judge every step, so they claim a first error or "no error"; `calc` and
  `tests` claim a first error only where they found one (finding nothing proves nothing:
  they check arithmetic or syntax, not reasoning). Two claims that differ are a
  disagreement: errors at different steps, or one source's "no error" against another's
  error. A prefix claim (MC's first False after an unlabeled step: wrong by step i, where
  not located) agrees with an error located after its last True step and at or before i.
  A listed `mc`/`judge` that gave no label at all (an unparsable judge, no decided
  rollouts) confirms nothing: the chain is dropped. Dropped chains go to the quarantine
  with the reason.

`outcome_fill` (`labels.outcome_fill`): `none` (default) leaves the unlabeled steps of a chain
whose final answer is right unlabeled. `positive` is Math-Shepherd's convention: they become
positive. Its blind spot: a wrong step in a chain that still reaches the right answer (on
ProcessBench's dev split, 208 such chains among those with a right answer) is trained as a
right step; the Qwen "Lessons" paper shows this hurts PRMs. Use it knowingly.

`after_error`: what the steps after the first error become: `negative` (TRL convention),
`mask` (None, ignored in training), or `keep` (whatever the policy gave them). `auto` (the
config's default) is resolved by `after_error_for` before labeling: reasoning traces cut into
sections keep each section's own label (a slip is False; its correction and what follows are
labeled by their own evidence, as DeltaBench marks error sections rather than prefixes),
chains cut into steps take `negative`. `combine` reads an unresolved `auto` as `negative`.

`first_error_step`: `labeling.first_error.first_error` of the final labels: the first step
labeled False; -1 only when every step is labeled True (ProcessBench reads -1 as "all steps
correct"); None when no step is labeled False but some step is unlabeled (nothing located,
nothing proven right). A first False after an unlabeled step that no exact source proved is a
prefix claim (MC's `posterior` writes one where the chain has gone wrong by a step but the
rollouts do not say where): `first_error_step` is then the step by which the chain went
wrong, not a located error (`labeling.audit.claims`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

import labeling.registry as registry
from labeling.first_error import first_error, first_flag
from labeling.schema import AfterError, ProvenError, Status, StepVerdict

# Each source's role (whole-chain, locating, complete) is declared in labeling/registry.py;
# the policies ask the registry, so a source registered later counts like a built-in one.
DEFAULT_CONSENSUS = ("mc", "calc")


class OutcomeFill(StrEnum):
    """What unlabeled steps of a chain with a right final answer become (`labels.outcome_fill`)."""

    none = "none"  # stay unlabeled: no evidence about them
    positive = "positive"  # Math-Shepherd's convention (and its blind spot, see above)


class Policy(StrEnum):
    """How verdicts become the final `labels` column (`labels.policy`)."""

    outcome = "outcome"
    mc = "mc"
    verifier_first = "verifier_first"
    consensus = "consensus"
    judge = "judge"


def after_error_for(after_error: str, sections: bool) -> str:
    """The after-error rule a run uses: `auto` is `keep` for reasoning traces cut into
    sections (`sections`) and `negative` for chains cut into steps; any other value is
    itself. Raises ValueError for an unknown value."""
    rule = AfterError(after_error)
    if rule != AfterError.auto:
        return rule.value
    return AfterError.keep.value if sections else AfterError.negative.value


POLICIES = tuple(p.value for p in Policy)
AFTER_ERROR = tuple(a.value for a in AfterError)


@dataclass(frozen=True, slots=True)
class Combined:
    labels: list[bool | None]
    # Every first error here follows labeling/first_error.py's rule (-1: every step True;
    # None: no step False and one unlabeled, or the source did not run).
    first_error_step: int | None
    keep: bool = True
    reason: str = ""  # why a chain was not kept
    exact_first_error: int = -1  # first step calc/syntax flag (-1: none flagged)
    mc_first_error: int | None = None  # MC's labels' first error
    judge_first_error: int | None = None  # the judge's labels' first error


def exact_first_error(
    verdicts: Mapping[str, Sequence[StepVerdict]], sources: Sequence[str] | None = None
) -> int:
    """Earliest step one of `sources` proves wrong, or -1. Defaults to the sources that
    locate errors (not `answer`, which only says the end is wrong)."""
    if sources is None:
        sources = registry.locating_sources()
    found = [_flag(verdicts.get(s)) for s in sources]
    found = [i for i in found if i >= 0]
    return min(found) if found else -1


def proven_error(verdicts: Mapping[str, Sequence[StepVerdict]]) -> ProvenError | None:
    """The earliest step a source that locates errors (`calc`, `tests`) proved wrong, with
    that source (the first in registry order on a tie); None when none did. What the label
    job hands Monte Carlo as its search's bound (`Chain.proven_error`): under
    `verifier_first` and `consensus` that step is False in `labels`, so the first error is
    at or before it, and MC's own labels say the same from it on."""
    flags = [(_flag(verdicts.get(s)), s) for s in registry.locating_sources()]
    found = [(i, s) for i, s in flags if i >= 0]
    if not found:
        return None
    step, source = min(found, key=lambda f: f[0])
    return ProvenError(step, source)


def _flag(verdicts: Sequence[StepVerdict] | None) -> int:
    """A source's first `incorrect` verdict, -1 for none (`first_flag`: a flag is a claim,
    its absence only "found nothing")."""
    return first_flag(v.status == Status.INCORRECT for v in verdicts or ())


def _first_error(verdicts: Sequence[StepVerdict] | None) -> int | None:
    """A labeling source's first error from its labels (`first_error`); None when it did
    not run."""
    return None if verdicts is None else first_error([v.label for v in verdicts])


def _outcome(verdicts: Mapping[str, Sequence[StepVerdict]], n: int) -> bool | None:
    """The checked final answer: the last-step label of a whole-chain source."""
    for source in registry.names(registry.Role.whole_chain):
        out = verdicts.get(source)
        if out and n and out[n - 1].label is not None:
            return out[n - 1].label
    return None


def _claim(verdicts: Mapping[str, Sequence[StepVerdict]], source: str
           ) -> tuple[int, int] | None | str:  # fmt: skip
    """A source's first-error claim for `consensus`, as the steps (lo, hi) where it puts the
    first error: (j, j) for an error located at j; (n, n) for "no error" (a claim only for
    complete sources; n = the chain's steps); (lo, i) for a prefix claim at i (a complete
    source's first False after an unlabeled step, before the last: wrong by step i, after
    its last True step lo - 1); None (abstains), or a string saying why a complete source
    gave no label at all."""
    vs = verdicts.get(source)
    if vs is None:
        return None  # did not run here (e.g. calc on a code chain)
    if source in registry.complete_sources():
        if all(v.label is None for v in vs):
            why = next((v.evidence for v in vs if v.evidence), "")
            return f"{source} gave no label" + (f" ({why[:160]})" if why else "")
        found = _first_error(vs)
        if found is None:
            # right so far, then silent (no quorum, no decided rollout): not a "no error"
            gap = next(i for i, v in enumerate(vs) if v.label is None)
            return f"{source} left step {gap} unlabeled and found no error"
        if found < 0:
            return len(vs), len(vs)
        lo = next(i for i, v in enumerate(vs) if v.label is not True)
        return (lo, found) if found < len(vs) - 1 else (found, found)
    found = _flag(vs)
    return (found, found) if found >= 0 else None


def _shown(claim: tuple[int, int], n: int) -> str:
    lo, hi = claim
    return "none" if lo >= n else str(hi) if lo == hi else f"by {hi}"


def consensus_reason(
    verdicts: Mapping[str, Sequence[StepVerdict]], sources: Sequence[str] = DEFAULT_CONSENSUS
) -> str:
    """Why the chain fails the consensus of `sources` ("" when it passes). Raises ValueError
    for a source that cannot locate errors (a config error)."""
    able = registry.consensus_sources()
    bad = [s for s in sources if s not in able]
    if bad:
        raise ValueError(f"consensus cannot use {', '.join(map(str, bad))}: it does not locate "
                         f"errors; choose from {', '.join(able)}")
    claims: dict[str, tuple[int, int]] = {}
    for s in sources:
        c = _claim(verdicts, s)
        if isinstance(c, str):
            return c
        if c is not None:
            claims[str(s)] = c
    # Exact sources that found nothing made no claim. The claims agree when one first error
    # fits them all: two located errors apart, or a "no error" against an error, do not; a
    # prefix claim ("wrong by step i") fits an error located at or before i, after its last
    # True step.
    if claims and max(lo for lo, _ in claims.values()) > min(hi for _, hi in claims.values()):
        n = len(next(iter(verdicts.values())))
        shown = ", ".join(f"{name} {_shown(c, n)}" for name, c in claims.items())
        return f"first errors disagree: {shown}"
    return ""


def _verifier_first(
    verdicts: Mapping[str, Sequence[StepVerdict]], n: int, outcome: bool | None
) -> list[bool | None]:
    """Labels under `verifier_first`: per step a proof of error, else (the last step) the
    checked final answer `outcome`, else MC, else the judge, else None. The answer outranks
    MC and the judge on the step that states it, so `labels` never contradicts
    `answer_labels` there."""
    exact = [verdicts[s] for s in registry.exact_sources() if s in verdicts]
    complete = [verdicts[s] for s in registry.complete_sources() if s in verdicts]
    labels: list[bool | None] = []
    for i in range(n):
        if any(vs[i].status == Status.INCORRECT for vs in exact):
            labels.append(False)
        elif i == n - 1 and outcome is not None:
            labels.append(outcome)
        else:
            labels.append(next((vs[i].label for vs in complete if vs[i].label is not None), None))
    return labels


def combine(
    verdicts: Mapping[str, Sequence[StepVerdict]],
    n_steps: int,
    policy: str = "verifier_first",
    after_error: str = "negative",
    consensus: Sequence[str] = DEFAULT_CONSENSUS,
    outcome_fill: str = "none",
) -> Combined:
    """Final labels for one chain; `consensus` lists the sources that must agree under the
    `consensus` policy. Raises ValueError on an unknown policy or a consensus source that
    cannot locate errors (config errors)."""
    fill_right = OutcomeFill(outcome_fill) == OutcomeFill.positive
    if policy not in POLICIES:
        raise ValueError(f"unknown label policy {policy!r}; choose one of {', '.join(POLICIES)}")
    if after_error not in AFTER_ERROR:
        choices = ", ".join(AFTER_ERROR)
        raise ValueError(f"unknown after_error {after_error!r}; choose one of {choices}")
    after_error = after_error_for(after_error, sections=False)  # an unresolved auto
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
    elif policy == "judge":
        judge = verdicts.get("judge")
        labels = [v.label for v in judge] if judge else [None] * n_steps
    else:
        labels = _verifier_first(verdicts, n_steps, outcome)
        if fill_right and outcome is True:
            labels = [True if x is None else x for x in labels]

    first = first_error(labels)
    if first is not None and first >= 0 and after_error != "keep":
        fill = False if after_error == "negative" else None
        labels = labels[: first + 1] + [fill] * (n_steps - first - 1)

    exact, by_mc = exact_first_error(verdicts), _first_error(mc)
    by_judge = _first_error(verdicts.get("judge"))
    reason = consensus_reason(verdicts, consensus) if policy == "consensus" else ""
    return Combined(labels, first, not reason, reason, exact, by_mc, by_judge)
