"""What a label audit reviews: steps seen through every source's label, a stratified sample
and an uncertainty queue. Pure functions on plain data; seeded and reproducible.

A step's *status* under a source is `correct` (label True), `incorrect` (label False) or
`null` (no label); a decided label also makes a *claim* (`labeling.audit.claims`): `step`
(about the step itself), a check's own (`arithmetic` for calc, `syntax` for tests: only what
it checks) or `prefix` (a False after the first error under `after_error=negative`: "the
chain has gone wrong by here"). Part one of a review sample is **stratified** by (source,
status, claim) over the decided labels ("calc:correct:arithmetic", "mc:correct:step",
"verifier_first:incorrect:prefix"), so no estimate mixes two claims: within a stratum,
steps are taken in the order of a seeded hash of their key (a uniformly random order that
is the same for every stratum, so strata share steps where they overlap and a review counts
for each stratum that drew it). A step counts for a stratum's estimate only when that
stratum drew it (`SampleItem.strata`), so the steps one stratum pulls in never bias another.
`null` steps are never sampled for precision; they count for coverage.

Part two is the **uncertainty queue**: steps where sources disagree, MC scores near the
policy's threshold, split judge votes, and steps that decide an ambiguous first error, each
weighted by how many labels of its chain a review could change (a step that moves the first
error changes every label after it). Highest first; ties in hash order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from labeling import registry
from labeling.audit.claims import STEP_CLAIMS, Claim, chain_claims, check_claim
from labeling.audit.intervals import reviews_for
from labeling.first_error import first_error
from labeling.rows import verdicts_from_structs

STATUSES = ("correct", "incorrect")  # the sampled statuses; `null` is only counted
HUMAN = "human"  # the source name of reviewer verdicts in the `verdicts` column


def step_key(chain_id: str, step: int) -> str:
    """The id of one step in samples, pages and verdict files."""
    return f"{chain_id}#{step}"


def status_of(label: bool | None) -> str:
    return "null" if label is None else "correct" if label else "incorrect"


@dataclass(frozen=True, slots=True)
class StepView:
    """One step as the audit sees it: every source's label (the policy's under its name)."""

    key: str
    problem_id: str
    chain_id: str
    step: int
    n_steps: int
    labels: Mapping[str, bool | None]
    mc_score: float | None = None
    judge_score: float | None = None
    first_error: int | None = None  # the policy's first error in this chain (-1 none)
    claims: Mapping[str, str | None] = field(default_factory=dict)  # source -> Claim

    def claim(self, source: str) -> str:
        """The claim of `source`'s label here; where none was recorded, what the source's
        labels claim on their own (`check_claim`: calc's `arithmetic`), else `step`."""
        return self.claims.get(source) or check_claim(source) or Claim.step


def _mc_labels(row: Mapping[str, Any], n: int) -> list[bool | None] | None:
    if row.get("mc_labels") is not None:
        return list(row["mc_labels"])
    # shards from before the column: the mc verdicts hold the labels
    vs = verdicts_from_structs(row.get("verdicts"), n).get("mc")
    if vs is None:
        return None if row.get("mc_scores") is None else [None] * n
    return [v.label for v in vs]


def chain_views(row: Mapping[str, Any], policy: str, after_error: str = "negative"
                ) -> list[StepView]:  # fmt: skip
    """The steps of one shard row. Sources that did not run (null columns) are left out;
    the policy's `labels` column appears under the policy's name. `after_error`: the
    dataset's `labels.after_error`, which decides which Falses are prefix claims."""
    n = len(row["completions"])
    columns: dict[str, list[bool | None]] = {policy: list(row["labels"])}
    # Asked at call time, not frozen at import: a source registered later is audited too.
    for source, column in registry.label_columns().items():
        if row.get(column) is not None:
            columns[str(source)] = list(row[column])
    mc = _mc_labels(row, n)
    if mc is not None:
        columns["mc"] = mc
    mc_scores, judge_scores = row.get("mc_scores"), row.get("judge_scores")
    claims = chain_claims(columns, policy, after_error)
    return [
        StepView(
            key=step_key(row["chain_id"], i), problem_id=row["problem_id"],
            chain_id=row["chain_id"], step=i, n_steps=n,
            labels={s: ls[i] for s, ls in columns.items()},
            mc_score=mc_scores[i] if mc_scores is not None else None,
            judge_score=judge_scores[i] if judge_scores is not None else None,
            first_error=row.get("first_error_step"),
            claims={s: None if c[i] is None else str(c[i]) for s, c in claims.items()},
        )
        for i in range(n)
    ]  # fmt: skip


def order_key(seed: int, key: str) -> str:
    return hashlib.blake2b(f"{seed}\x1f{key}".encode(), digest_size=8).hexdigest()


def strata(views: Iterable[StepView]) -> dict[str, list[StepView]]:
    """Stratum name -> its steps: "source:status:claim" for decided labels, "source:null"
    for the steps a source left unlabeled."""
    out: dict[str, list[StepView]] = {}
    for v in views:
        for source, label in v.labels.items():
            status = status_of(label)
            claim = v.claim(source) if label is not None else None
            out.setdefault(stratum_name(source, status, claim), []).append(v)
    return out


@dataclass(slots=True)
class SampleItem:
    view: StepView
    strata: list[str] = field(default_factory=list)  # "source:status:claim" strata that drew it
    queue_rank: int | None = None  # position in the uncertainty queue (0 first)
    reasons: list[str] = field(default_factory=list)  # why the queue wants it reviewed


def stratum_name(source: str, status: str, claim: str | None = Claim.step) -> str:
    """ "calc:incorrect:arithmetic", "verifier_first:incorrect:prefix"; "calc:null" (no
    claim)."""
    return f"{source}:{status}" if status == "null" or claim is None else (
        f"{source}:{status}:{claim}")


def parse_stratum(name: str) -> tuple[str, str, str | None]:
    """(source, status, claim) of a stratum name. A review pack written before claims
    existed names decided strata "source:status": those were step questions."""
    source, status, *rest = name.split(":")
    if status == "null":
        return source, status, None
    return source, status, rest[0] if rest else str(Claim.step)


def asks(strata_drawn: list[str], queued: bool = False) -> list[str]:
    """The claims a sampled step's questions answer, one question each: the claims its
    strata's labels make (`step`; a check's own, `arithmetic` for calc; `prefix`, asked as
    its chain's question), and `step` for a step the uncertainty queue holds (`queued`: its
    doubt is about the step itself)."""
    claims = {parse_stratum(name)[2] for name in strata_drawn}
    if queued or not claims:
        claims.add(str(Claim.step))
    return [str(c) for c in Claim if str(c) in claims]


def step_claims(line: Mapping[str, Any]) -> list[str]:
    """The step questions (claims) a sample line asks; `prefix` is its chain's question."""
    said = line.get("asks") or asks(line.get("strata") or [])
    return [str(c) for c in STEP_CLAIMS if str(c) in said]


def stratified_sample(
    views: Sequence[StepView],
    seed: int,
    halfwidth: float = 0.05,
    budget: int = 0,
    confidence: float = 0.95,
) -> dict[str, list[StepView]]:
    """Steps drawn per decided stratum (its name -> steps, in draw order). Without a
    budget, each stratum gets the reviews a ±`halfwidth` Wilson interval needs at the worst
    case p = 0.5 (all of it when smaller). With `budget` > 0, strata take one step each in
    turn until `budget` distinct steps are drawn (small strata run out first)."""
    groups = {
        name: sorted(vs, key=lambda v: order_key(seed, v.key))
        for name, vs in sorted(strata(views).items())
        if parse_stratum(name)[1] in STATUSES
    }
    if budget <= 0:
        need = reviews_for(halfwidth, 0.5, confidence)
        return {name: vs[:need] for name, vs in groups.items()}
    taken = {name: 0 for name in groups}
    distinct: set[str] = set()
    while len(distinct) < budget and any(taken[g] < len(vs) for g, vs in groups.items()):
        for name, vs in groups.items():
            if taken[name] < len(vs) and len(distinct) < budget:
                distinct.add(vs[taken[name]].key)
                taken[name] += 1
    return {name: vs[: taken[name]] for name, vs in groups.items()}


def uncertainty(
    view: StepView, chain: Sequence[StepView], threshold: float
) -> tuple[float, list[str]]:
    """How much reviewing `view` could change, with the reasons; 0 when nothing is in doubt."""
    reasons: list[str] = []
    score = 0.0
    # A prefix claim says nothing about the step itself: it cannot disagree with one.
    decided = {s: x for s, x in view.labels.items()
               if x is not None and view.claim(s) != Claim.prefix}  # fmt: skip
    # A check's True (calc, tests) only says the arithmetic or syntax holds, not that the
    # step is right: against a False it is a weak disagreement. Its False proves the step
    # wrong, a full disagreement with a True.
    claims = {s: x for s, x in decided.items() if not (x is True and view.claim(s) != Claim.step)}
    if len(set(decided.values())) > 1:
        score += 1.0 if len(set(claims.values())) > 1 else 0.25
        reasons.append("sources disagree: " + ", ".join(
            f"{s} {status_of(x)}" for s, x in sorted(decided.items())))  # fmt: skip
    if view.mc_score is not None and threshold < 1:
        # 1 at the threshold, 0 at the far end of [0, 1].
        span = max(threshold, 1 - threshold) or 1.0
        near = 1 - abs(view.mc_score - threshold) / span
        if near > 0.5:
            score += near - 0.5
            reasons.append(f"MC score {view.mc_score:.2f} near the threshold {threshold:g}")
    if view.judge_score is not None and 0.2 <= view.judge_score <= 0.8:
        score += 0.5 - abs(view.judge_score - 0.5)
        reasons.append(f"judge votes split ({view.judge_score:.2f})")
    # Where each source that labeled this step puts its chain's first error (a prefix
    # claim's source included: it names a place too).
    located = [first_error([v.labels.get(s) for v in chain])
               for s, x in view.labels.items() if x is not None]
    located = [x for x in located if x is not None and x >= 0]
    if len(set(located)) > 1 and min(located) <= view.step <= max(located):
        score += 0.5
        reasons.append(f"first error ambiguous: sources place it at {sorted(set(located))}")
    # A chain whose only evidence of an error is a wrong end: its first error is somewhere
    # before, unlocated, and the steps the exact checks passed are where it hides (on
    # ProcessBench dev with [answer,calc], 17% of those are wrong, against 5% of all labels).
    # The answer and the step checks disagree about the chain: as strong a doubt as any.
    ends_wrong = any(v.labels.get("answer") is False for v in chain)
    if ends_wrong and len(located) <= 1 and view.step < view.n_steps - 1:
        if any(x is True for x in decided.values()):
            score += 1.0
            reasons.append("chain ends wrong but no source located its first error")
    if not score:
        return 0.0, []
    # A review before (or at) the chain's first error can move it: every later label changes.
    fe = view.first_error
    impact = view.n_steps - view.step if fe is None or fe < 0 or view.step <= fe else 1
    return score * (1 + impact / view.n_steps), reasons


def uncertainty_queue(
    views: Sequence[StepView], seed: int, threshold: float = 0.0
) -> list[tuple[StepView, float, list[str]]]:
    """Steps with any doubt, most worth reviewing first (ties in the seeded hash order)."""
    chains: dict[str, list[StepView]] = {}
    for v in views:
        chains.setdefault(v.chain_id, []).append(v)
    scored = []
    for v in views:
        score, reasons = uncertainty(v, chains[v.chain_id], threshold)
        if score > 0:
            scored.append((v, score, reasons))
    scored.sort(key=lambda t: (-t[1], order_key(seed, t[0].key)))
    return scored


def review_plan(
    views: Sequence[StepView],
    seed: int,
    halfwidth: float = 0.05,
    budget: int = 0,
    queue: int = 100,
    threshold: float = 0.0,
    confidence: float = 0.95,
) -> list[SampleItem]:
    """Part one (stratified, in hash order) then part two (the first `queue` steps of the
    uncertainty queue that part one does not already hold; their reasons are kept either way)."""
    items: dict[str, SampleItem] = {}
    drawn = stratified_sample(views, seed, halfwidth, budget, confidence)
    for name, vs in drawn.items():
        for v in vs:
            items.setdefault(v.key, SampleItem(v)).strata.append(name)
    part_one = sorted(items.values(), key=lambda it: order_key(seed, it.view.key))
    extra: list[SampleItem] = []
    for rank, (v, _score, reasons) in enumerate(uncertainty_queue(views, seed, threshold)):
        if v.key in items:
            items[v.key].queue_rank, items[v.key].reasons = rank, reasons
        elif len(extra) < queue:
            extra.append(SampleItem(v, [], rank, reasons))
    return part_one + extra
