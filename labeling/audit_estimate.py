"""Label quality from reviewed steps: precision per (source, status), first-error agreement,
and the dataset-wide accuracy of each source's labels, each with a 95% interval and the
number of reviews behind it. Pure functions on plain data.

Only steps a stratum drew count for that stratum (see `labeling.audit_sample`): queue steps
are chosen for doubt and would bias a precision downwards. A reviewed step whose human verdict
is null (neutral under `labels.neutral=mask`, or skipped) is not a review.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from labeling.intervals import Interval, clopper_pearson, stratified, wilson


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
    strata: tuple[str, ...]  # "source:status" strata that drew it
    labels: Mapping[str, bool | None]  # every source's label at sampling time
    first_errors: Mapping[str, int | None]  # each source's first False step in the chain


@dataclass(frozen=True, slots=True)
class Quality:
    source: str
    measure: str  # precision_incorrect | precision_correct | first_error | accuracy
    estimate: float | None
    low: float
    high: float
    reviews: int
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


def estimate(
    items: Sequence[Reviewed],
    human: Mapping[str, bool | None],
    sizes: Mapping[str, int],
    method: Method | str = Method.wilson,
) -> list[Quality]:
    """Quality figures per source from the reviewed `items`. `human` maps a step key to the
    reviewer's boolean (absent or None: not reviewed); `sizes` maps "source:status" to the
    stratum's size in the dataset."""
    method = Method(method)
    sources = sorted({name.split(":", 1)[0] for name in sizes})
    out: list[Quality] = []
    by_chain: dict[str, list[Reviewed]] = {}
    for it in items:
        by_chain.setdefault(it.chain_id, []).append(it)
    for source in sources:
        per_status: dict[str, tuple[int, int]] = {}
        for status, want in (("incorrect", False), ("correct", True)):
            name = f"{source}:{status}"
            got = [human.get(it.key) for it in items if name in it.strata]
            got = [h for h in got if h is not None]
            k = sum(h is want for h in got)
            per_status[status] = (k, len(got))
            iv = _interval(k, len(got), method, sizes.get(name, 0))
            out.append(Quality(source, f"precision_{status}", iv.estimate, iv.low, iv.high,
                               iv.n, sizes.get(name, 0)))  # fmt: skip
        # First-error agreement: the source's first False step is where a reviewer places
        # the chain's first error (wrong there, and no reviewed earlier step wrong).
        hits = tried = 0
        for chain in by_chain.values():
            fe = chain[0].first_errors.get(source)
            at = [it for it in chain if it.step == fe and f"{source}:incorrect" in it.strata]
            if fe is None or fe < 0 or not at or human.get(at[0].key) is None:
                continue
            tried += 1
            earlier = [human.get(it.key) for it in chain if it.step < fe]
            hits += human[at[0].key] is False and False not in earlier
        iv = _interval(hits, tried, method)
        out.append(Quality(source, "first_error", iv.estimate, iv.low, iv.high, tried,
                           sizes.get(f"{source}:incorrect", 0)))  # fmt: skip
        counts = [(k, n, sizes.get(f"{source}:{st}", 0)) for st, (k, n) in per_status.items()]
        iv = stratified(counts)
        out.append(Quality(source, "accuracy", iv.estimate, iv.low, iv.high, iv.n,
                           sum(size for _, _, size in counts)))  # fmt: skip
    return out


def coverage(sizes: Mapping[str, int]) -> dict[str, float | None]:
    """Per source: the share of steps it labeled at all (correct or incorrect)."""
    out: dict[str, float | None] = {}
    for source in sorted({name.split(":", 1)[0] for name in sizes}):
        decided = sizes.get(f"{source}:correct", 0) + sizes.get(f"{source}:incorrect", 0)
        total = decided + sizes.get(f"{source}:null", 0)
        out[source] = round(decided / total, 4) if total else None
    return out
