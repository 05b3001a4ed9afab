"""Progress of a long job: a tqdm bar on a terminal, log lines every `debug.log_every_s`.

Two kinds of lines:
- per finished unit: problems done (of the total when known), chains/s, tokens/s, ETA;
- while the engine works (`watch`): requests done/sent per stage (sample, rollout, ...),
  generated tokens/s over the last period, and the time the work already queued at the
  engine needs at that rate (its requests at the mean length of the finished ones: no
  estimate before some have finished).
  Sampling the whole input is known up front; Monte Carlo probes are sent as chains need
  them, so their queue grows as the stage goes. A node holding engines that died since the
  last period gets a line of its own (its engines' calls go to the others).
`engine_throughput` gives the manifest's headline figures (labeled steps per engine-hour).
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from labeling.shards import UnitRecord

if TYPE_CHECKING:
    from pipelines.label.config import LabelJobConfig

log = logging.getLogger("prm-label")


def engine_line(now: dict[str, Any], before: dict[str, Any] | None, dt: float) -> str | None:
    """One progress line from two `EnginePool.stats()` snapshots `dt` seconds apart; None when
    the engine has nothing to do and did nothing since `before`."""
    tags = now["tags"]
    pending = sum(t["requests"] - t["done"] for t in tags.values())
    made = now["live_tokens"] - (before["live_tokens"] if before else 0)
    if not pending and made <= 0:
        return None
    parts = [f"{name} {t['done']}/{t['requests']} requests" for name, t in sorted(tags.items())
             if t["requests"]]
    rate = made / dt if dt > 0 else 0.0
    # Queued work is measured, not bounded: each stage's pending requests times the tokens its
    # finished requests averaged (max_tokens per request overstated a one-minute MC stage as
    # ~3000 s). No estimate until every stage with pending work has finished requests.
    left, measured = 0.0, True
    for t in tags.values():
        pending_t = t["requests"] - t["done"]
        if pending_t <= 0:
            continue
        if t["done"] <= 0:
            measured = False
            break
        left += pending_t * t["tokens"] / t["done"]
    finished_tokens = sum(t["tokens"] for t in tags.values())
    left = max(0.0, left - max(0, now["live_tokens"] - finished_tokens))  # already generated
    # The first look has no period behind it (its rate includes the engine's start): no ETA.
    eta = (f"; queued work ~{left / rate:.0f}s at this rate"
           if pending and measured and rate > 0 and before is not None else "")
    return f"engine: {', '.join(parts)}; {rate:.0f} tok/s{eta}"


def engine_throughput(pool: Any, wall: float, counts: dict[str, Any]) -> dict[str, Any]:
    """The manifest's engine figures: actors, busy seconds, engine-hours and labeled steps per
    engine-hour (the cost figure that compares across hardware). An engine-hour is a GPU-hour
    for GPU engines and a node-hour for CPU engines (an engine counts the share of its node's
    cores it runs on), so one node's figure does not change with how many engines share it."""
    if pool is None:
        return {"engine_actors": 0, "labeled_steps_per_engine_hour": None}
    try:
        stats = pool.stats()
    except Exception as exc:  # a figure must not fail a finished run
        log.warning("could not read the engine counters: %s", exc)
        return {"engine_actors": len(getattr(pool, "actors", [])),
                "labeled_steps_per_engine_hour": None}
    units = stats.get("units", stats["actors"])
    hours = units * wall / 3600
    steps = counts.get("steps_labeled", 0)
    tags = stats["tags"]
    prompt = sum(t.get("prompt_tokens", 0) for t in tags.values())
    cached = sum(t.get("cached_tokens", 0) for t in tags.values())
    return {
        "engine_actors": stats["actors"],
        "engine_units": units,
        "engine_hours": round(hours, 5),
        "engine_busy_s": round(stats["busy_s"], 2),
        "labeled_steps_per_engine_hour": round(steps / hours, 1) if hours else None,
        "generated_tokens_per_s": round(sum(t["tokens"] for t in tags.values()) / wall, 2)
        if wall else None,
        "requests": {name: t["requests"] for name, t in tags.items()},
        # Share of prompt tokens vLLM read from its prefix cache (rollouts reuse the chain's).
        "prefix_cache_hit_rate": round(cached / prompt, 3) if prompt else None,
    }


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
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None

    def watch(self, pool: Callable[[], Any]) -> None:
        """Report the engine's work every `every` seconds from a daemon thread, once
        `pool()` returns a pool (engines start lazily)."""
        self._watcher = threading.Thread(
            target=self._watch, args=(pool,), name="engine-progress", daemon=True
        )
        self._watcher.start()

    def _watch(self, pool: Callable[[], Any]) -> None:
        before, at = None, time.monotonic()
        while not self._stop.wait(self.every):
            p = pool()
            if p is None:
                continue
            for dead in getattr(p, "lost_nodes", list)():  # a dead node: a line, not a stall
                log.warning("engine: %s", dead)
            try:
                now = p.stats()
            except Exception:  # a slow or restarting actor: try again next period
                continue
            line = engine_line(now, before, time.monotonic() - at)
            before, at = now, time.monotonic()
            if line is None:
                continue
            if self.bar is not None:
                self.bar.set_postfix_str(line[len("engine: "):])
            else:
                log.info(line)

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
        elif time.monotonic() - self.last >= self.every or (self.total and
                                                           self.problems >= self.total):
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
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(timeout=10)
        if self.bar is not None:
            self.bar.close()
