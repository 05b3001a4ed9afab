"""Which problems go into which work unit: cut by content, not by input order.

A unit's members are problem ids (content hashes), so the order of the input file does not
matter, and a refresh keeps the previous version's units:
- a fresh run sorts the ids and cuts them into units of at most `size`;
- a refresh (a previous version's unit memberships given) keeps every previous unit with the
  members that are still in the input (a deleted problem only shrinks its unit, whose other
  rows can be copied, not relabeled), and cuts the problems the previous version did not have
  into new units of at most `size`, numbered after the previous ones.
So inserting k problems anywhere labels about k / size new units and reuses every previous
unit; deleting problems labels nothing. Units never grow beyond `size`; they may shrink over
many refreshes (a fresh run, without `output.previous`, compacts them again).

Pure functions on ids; reading and writing shards is the job driver's part.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class PlannedUnit:
    """One unit: its number, its members (sorted ids) and, on a refresh, how it relates to
    the previous version's unit of the same number."""

    unit: int
    members: tuple[str, ...]
    previous: frozenset[str] = field(default_factory=frozenset)  # empty: a new unit

    @property
    def kind(self) -> str:
        """`new` (nothing to reuse), `same` (copy the previous unit whole) or `shrunk`
        (copy the previous unit's rows of the members still here)."""
        if not self.previous:
            return "new"
        return "same" if set(self.members) == self.previous else "shrunk"


def _chunks(ids: Sequence[str], size: int, start: int) -> list[PlannedUnit]:
    return [PlannedUnit(start + i, tuple(ids[k:k + size]))
            for i, k in enumerate(range(0, len(ids), size))]


def plan_units(
    ids: Iterable[str],
    size: int,
    previous: Mapping[int, Iterable[str]] | None = None,
) -> list[PlannedUnit]:
    """Units for the unique `ids` (any order), each of at most `size` members.

    `previous` maps a previous version's unit numbers to their members (any cutting: units cut
    in input order by older versions work the same). Previous units whose members all left
    disappear; their numbers are not reused."""
    if size < 1:
        raise ValueError(f"unit size must be at least 1, got {size}")
    current = sorted(set(ids))
    if not previous:
        return _chunks(current, size, 0)
    here = set(current)
    units: list[PlannedUnit] = []
    seen: set[str] = set()
    for number in sorted(previous):
        old = frozenset(previous[number])
        seen |= old
        kept = sorted(old & here)
        if kept:
            units.append(PlannedUnit(number, tuple(kept), old))
    new = [i for i in current if i not in seen]
    start = max(previous) + 1
    return units + _chunks(new, size, start)


def refresh_cost(units: Sequence[PlannedUnit]) -> dict[str, int]:
    """How many units a plan labels (`new`), copies whole (`same`) or copies in part
    (`shrunk`), and how many problems it labels."""
    out = {"new": 0, "same": 0, "shrunk": 0, "problems_labeled": 0}
    for u in units:
        out[u.kind] += 1
        if u.kind == "new":
            out["problems_labeled"] += len(u.members)
    return out
