"""What a config field means besides its type: its help text, the range its value must lie in,
and whether it changes what the app writes or only how the run goes (vLLM's config habit:
limits on the field, and the hash factors declared where the field is, not in lists kept
elsewhere).

    n: int = option(4, "Chains sampled per problem.", ROWS, gt=0)
    workers: int = option(2, "Parallel sandbox runs.", SPEED, ge=1)

- `ROWS`: a different value can change what a row (a checkpoint, a metric) holds, so it is a
  factor of every hash that keys a result.
- `SPEED`: the value changes only how fast or where the run goes, what it logs, where files
  are, or which part of the input it reads: never a hash factor.

Pure (dataclasses only), so the core's own settings (the Monte Carlo methods,
`labeling.mc`) declare their fields the way the apps' configs do; `pipelines.config_fields`
checks and hashes them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import MISSING, field
from enum import StrEnum
from typing import Any


class Affects(StrEnum):
    rows = "rows"  # changes what the app writes: a hash factor
    speed = "speed"  # changes how the run goes (speed, placement, logs, paths): never hashed


ROWS = Affects.rows
SPEED = Affects.speed


@dataclasses.dataclass(frozen=True, slots=True)
class Range:
    """The values a number may take: above `gt` (or from `ge`), below `lt` (or up to `le`)."""

    gt: float | None = None
    ge: float | None = None
    lt: float | None = None
    le: float | None = None

    def admits(self, value: float) -> bool:
        return not (
            (self.gt is not None and not value > self.gt)
            or (self.ge is not None and not value >= self.ge)
            or (self.lt is not None and not value < self.lt)
            or (self.le is not None and not value <= self.le)
        )

    def __str__(self) -> str:
        low = f"({self.gt:g}" if self.gt is not None else (
            f"[{self.ge:g}" if self.ge is not None else None)
        high = f"{self.lt:g})" if self.lt is not None else (
            f"{self.le:g}]" if self.le is not None else None)
        if low and high:
            return f"in {low}, {high}"
        if low:
            return f"{'>' if low[0] == '(' else '>='} {low[1:]}"
        return f"{'<' if high and high[-1] == ')' else '<='} {(high or '')[:-1]}"


def option(
    default: Any = MISSING,
    help: str = "",  # noqa: A002
    affects: Affects | None = None,
    *,
    factory: Any = MISSING,
    gt: float | None = None,
    ge: float | None = None,
    lt: float | None = None,
    le: float | None = None,
) -> Any:
    """A dataclass field with its help text (TRL's habit), what it affects (`ROWS` or
    `SPEED`; a section leaves it out) and the range its value must lie in (None: any)."""
    meta: dict[str, Any] = {"help": help}
    if affects is not None:
        meta["affects"] = Affects(affects)
    if any(b is not None for b in (gt, ge, lt, le)):
        meta["range"] = Range(gt, ge, lt, le)
    if factory is not MISSING:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


def out_of_range(key: str, f: dataclasses.Field, value: Any) -> str | None:
    """The one sentence for a value outside field `f`'s range (a list: any item outside),
    named by `key`; None when it is inside or the field declares no range."""
    bounds = f.metadata.get("range")
    if bounds is None or value is None:
        return None
    if isinstance(value, list | tuple):
        if all(bounds.admits(v) for v in value):
            return None
        return f"{key}={list(value)}: every value must be {bounds}"
    return None if bounds.admits(value) else f"{key}={value} must be {bounds}"


__all__ = ["ROWS", "SPEED", "Affects", "Range", "option", "out_of_range"]
