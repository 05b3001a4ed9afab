"""Progress lines for a stage of known size: `what done/total, rate, ETA`, at most every
`every_s` seconds and once at the end, so no stage that runs past a few seconds is silent.

The ETA is measured, never guessed: none until some work has finished, then the time so far
per item times the items left (a stage's first items may be slower than the rest, so early
estimates err high by that much, never by the orders of magnitude of a worst-case bound).
"""

from __future__ import annotations

import logging
import time


def duration(seconds: float) -> str:
    """`42s`, `3m07s`, `1h05m`."""
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


class Ticker:
    def __init__(self, log: logging.Logger, what: str, total: int, unit: str = "",
                 every_s: float = 10.0) -> None:  # fmt: skip
        self.log, self.what, self.total, self.unit, self.every = log, what, total, unit, every_s
        self.done = 0
        self.t0 = self.last = time.monotonic()

    def line(self, extra: str = "") -> str:
        elapsed = time.monotonic() - self.t0
        parts = [f"{self.what}: {self.done}/{self.total}{' ' + self.unit if self.unit else ''}"]
        if extra:
            parts.append(extra)
        if self.done and elapsed > 0:
            per = elapsed / self.done
            parts.append(f"{per:.2f}s each" if per >= 1 else f"{1 / per:.1f}/s")
            if self.done < self.total:
                parts.append(f"ETA {duration(per * (self.total - self.done))}")
        return ", ".join(parts)

    def tick(self, n: int = 1, extra: str = "", force: bool = False) -> None:
        """Count `n` finished items; log a line when `every_s` passed or the stage ended."""
        self.done += n
        now = time.monotonic()
        if force or now - self.last >= self.every or self.done >= self.total:
            self.last = now
            self.log.info(self.line(extra))
