"""Label quality from reviewed steps: precision per (source, status, claim), first-error
agreement, and the dataset-wide accuracy of each source's labels, each with a 95% interval
and the number of reviews behind it. Pure functions on plain data.

Every label is scored against the claim it makes (`labeling.audit.claims`): a `step` claim
against the reviewer's verdict on that step, a check's claim (`arithmetic`: calc's True is
right when the arithmetic holds, whether or not the step is) against the reviewer's answer
to that check's own question, a `prefix` claim against the chain's first error as the
reviewer's answers place it. Only steps a stratum drew count for that stratum
(see `labeling.audit.sample`): queue steps are chosen for doubt and would bias a precision
downwards. A drawn label whose claim the answers do not decide (the step skipped, a neutral
under `labels.neutral=mask`, an earlier step of a prefix left unreviewed) is not a review.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from labeling.audit.claims import Claim, check_claim, claim_right, prefix_right
from labeling.audit.intervals import Interval, clopper_pearson, stratified, wilson
from labeling.audit.sample import parse_stratum, step_key


class Method(StrEnum):
    """Which 95% interval a binomial share gets (`audit.interval`)."""

    wilson = "wilson"
    exact = "exact"  # Clopper-Pearson


@dataclass(frozen=True, slots=True)
class Reviewed:
    """A sampled step as the estimate needs it (one line of the pack's samples file)."""

    key: str
    chain_id: str
    step: int
    strata: tuple[str, ...]  # the strata that drew it ("source:status:claim")
    labels: Mapping[str, bool | None]  # every source's label at sampling time
    first_errors: Mapping[str, int | None]  # each source's first False step in the chain


@dataclass(frozen=True, slots=True)
class Quality:
    source: str
    measure: str  # precision_incorrect | precision_correct | first_error | accuracy
    claim: str  # step | arithmetic | syntax | check | prefix ("" for the chain-wide rows)
    estimate: float | None
    low: float
    high: float
    reviews: int  # drawn labels whose claim the reviewers' answers decide
    population: int  # steps (or chains) the figure speaks for

    def row(self) -> dict[str, Any]:
        return asdict(self)


def _interval(k: int, n: int, method: Method, population: int = 0) -> Interval:
    """`population`: the stratum the reviews were drawn from (0: unknown or not a simple
    draw); Wilson applies the finite-population correction, the exact interval stays
    conservative without it."""
    if method == Method.exact:
        return clopper_pearson(k, n)
    return wilson(k, n, population=population if population >= n > 0 else None)


def _steps(human: Mapping[str, bool | None], chain_id: str, upto: int) -> list[bool | None]:
    return [human.get(step_key(chain_id, j)) for j in range(upto + 1)]


ORDER = {"incorrect": 0, "correct": 1, **{str(c): i for i, c in enumerate(Claim)}}


def _decided_strata(sizes: Mapping[str, int], source: str) -> list[tuple[str, str, str]]:
    """(name, status, claim) of the source's decided strata: incorrect before correct, in
    `Claim` order; for each status without a stratum of the source's own claim (its check's,
    or `step`), an empty one (it reports no reviews)."""
    found = {(st, str(c)): name for name in sizes
             for s, st, c in [parse_stratum(name)] if s == source and c is not None}  # fmt: skip
    own = str(check_claim(source) or Claim.step)
    for status in ("incorrect", "correct"):
        if not any(st == status and c != Claim.prefix for st, c in found):
            found[(status, own)] = f"{source}:{status}:{own}"
    return [(found[k], *k) for k in sorted(found, key=lambda k: (ORDER[k[0]], ORDER[k[1]]))]


def estimate(
    items: Sequence[Reviewed],
    human: Mapping[str, bool | None],
    sizes: Mapping[str, int],
    method: Method | str = Method.wilson,
    checked: Mapping[str, Mapping[str, bool | None]] | None = None,
) -> list[Quality]:
    """Quality figures per source from the reviewed `items`. `human` maps a step key to the
    reviewer's boolean for every reviewed step of the dataset (absent or None: not reviewed;
    a chain answer reviews every step up to its first error); `checked` maps a check's claim
    (`arithmetic`, ...) to {step key: the reviewer's answer to that question}; `sizes` maps
    a stratum name to its size in the dataset."""
    method = Method(method)
    checked = checked or {}
    sources = sorted({parse_stratum(name)[0] for name in sizes})
    out: list[Quality] = []
    by_chain: dict[str, list[Reviewed]] = {}
    for it in items:
        by_chain.setdefault(it.chain_id, []).append(it)
    for source in sources:
        counts = []
        strata_of = _decided_strata(sizes, source)
        for name, status, claim in strata_of:
            want = status == "correct"
            answers = checked.get(claim, {})
            got = [claim_right(want, claim, _steps(human, it.chain_id, it.step), it.step,
                               answers.get(it.key))
                   for it in items if name in it.strata]  # fmt: skip
            got = [g for g in got if g is not None]
            k, size = sum(got), sizes.get(name, 0)
            counts.append((k, len(got), size))
            iv = _interval(k, len(got), method, size)
            out.append(Quality(source, f"precision_{status}", claim, iv.estimate, iv.low,
                               iv.high, iv.n, size))  # fmt: skip
        # First-error agreement: the source's first False step is where the reviewers'
        # answers place the chain's first error (wrong there, every earlier step right).
        # Its first False is drawn by the source's incorrect strata that are not prefix
        # claims ("calc:incorrect" in packs written before claims).
        drawn_by = {name for name, status, claim in strata_of
                    if status == "incorrect" and claim != Claim.prefix} | {
                        f"{source}:incorrect"}  # fmt: skip
        hits = tried = 0
        for chain in by_chain.values():
            fe = chain[0].first_errors.get(source)
            if fe is None or fe < 0:
                continue
            if not any(it.step == fe and drawn_by & set(it.strata) for it in chain):
                continue
            steps = _steps(human, chain[0].chain_id, fe)
            right_before = prefix_right(steps, fe - 1) if fe else True
            if steps[fe] is None or (right_before is None and steps[fe] is False):
                continue  # the answers do not say whether the chain went wrong before
            tried += 1
            hits += steps[fe] is False and right_before is True
        iv = _interval(hits, tried, method)
        out.append(Quality(source, "first_error", str(Claim.step), iv.estimate, iv.low,
                           iv.high, tried, sum(sizes.get(n, 0) for n in drawn_by)))  # fmt: skip
        iv = stratified(counts)
        out.append(Quality(source, "accuracy", "", iv.estimate, iv.low, iv.high, iv.n,
                           sum(size for _, _, size in counts)))  # fmt: skip
    return out


def coverage(sizes: Mapping[str, int]) -> dict[str, float | None]:
    """Per source: the share of steps it labeled at all (correct or incorrect)."""
    out: dict[str, float | None] = {}
    for source in sorted({parse_stratum(name)[0] for name in sizes}):
        decided = null = 0
        for name, size in sizes.items():
            s, status, _ = parse_stratum(name)
            if s == source:
                null += size if status == "null" else 0
                decided += size if status != "null" else 0
        total = decided + null
        out[source] = round(decided / total, 4) if total else None
    return out
