"""Progress of a long job: a tqdm bar on a terminal, a log line every few seconds otherwise.

Shows problems done (of the total when known), chains/s, sampled tokens/s and the ETA.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import TYPE_CHECKING

from tqdm import tqdm

from labeling.shards import UnitRecord

if TYPE_CHECKING:
    from pipelines.label.config import LabelJobConfig

log = logging.getLogger("prm-label")


class Progress:
    def __init__(self, cfg: LabelJobConfig, total: int | None) -> None:
        self.every = float(cfg.debug.log_every_s)
        self.t0 = self.last = time.monotonic()
        self.problems = self.chains = self.tokens = self.reused = 0
        self.total = total
        self.bar = (
            tqdm(total=total, unit="problem", desc="prm-label", dynamic_ncols=True)
            if sys.stderr.isatty()
            else None
        )

    def update(self, rec: UnitRecord, reused: bool = False) -> None:
        n = rec.counts.get("problems_in", 0)
        self.problems += n
        self.chains += rec.counts.get("chains", 0)
        self.tokens += rec.tokens.get("sample", 0) + rec.tokens.get("rollout", 0)
        self.reused += n if reused else 0
        dt = max(time.monotonic() - self.t0, 1e-9)
        stats = {"chains/s": f"{self.chains / dt:.2f}", "tok/s": f"{self.tokens / dt:.0f}"}
        if self.bar is not None:
            self.bar.update(n)
            self.bar.set_postfix(stats, refresh=False)
        elif time.monotonic() - self.last >= self.every:
            self.last = time.monotonic()
            eta = ""
            fresh = self.problems - self.reused
            if self.total and fresh:
                rate = fresh / dt
                eta = f", ETA {max(self.total - self.problems, 0) / rate:.0f}s"
            log.info(
                "%d problems%s (%d reused), %s chains/s, %s tok/s%s",
                self.problems, f"/{self.total}" if self.total else "", self.reused,
                stats["chains/s"], stats["tok/s"], eta,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
