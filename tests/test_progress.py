"""Progress lines from the engine's counters, and the manifest's engine figures."""

from __future__ import annotations

from pipelines.progress import engine_line, engine_throughput


def snapshot(sample=(16, 4, 5120, 1280, 900), rollout=None, live=2000, busy=10.0, actors=1):
    def tag(t):
        return dict(zip(("requests", "done", "budget", "done_budget", "tokens"), t, strict=True))

    tags = {"sample": tag(sample)}
    if rollout:
        tags["rollout"] = tag(rollout)
    return {"tags": tags, "busy_s": busy, "steps": 100, "live_tokens": live, "actors": actors}


def test_engine_line_shows_requests_rate_and_eta():
    before = snapshot(live=1000)
    now = snapshot(rollout=(40, 10, 2560, 640, 500), live=2000)
    line = engine_line(now, before, dt=10.0)
    assert line.startswith("engine: rollout 10/40 requests, sample 4/16 requests; 100 tok/s")
    # queued: each stage's pending requests at its finished requests' mean length
    # (12 x 900/4 + 30 x 500/10), minus the ~600 tokens already in progress
    assert line.endswith(f"queued work ~{(12 * 225 + 30 * 50 - 600) / 100:.0f}s at this rate")


def test_no_queued_estimate_before_a_stage_has_finished_requests():
    """A stage with nothing finished has no measured length: no guess (the old max_tokens
    bound said 3132 s for a one-minute MC stage)."""
    before = snapshot(live=1000)
    now = snapshot(rollout=(40, 0, 2560, 0, 0), live=2000)
    line = engine_line(now, before, dt=10.0)
    assert "rollout 0/40" in line and "queued" not in line


def test_engine_line_is_silent_when_the_engine_is_idle():
    idle = snapshot(sample=(16, 16, 5120, 5120, 3000), live=3000)
    assert engine_line(idle, idle, dt=10.0) is None
    assert engine_line(idle, None, dt=10.0) is not None  # the first look reports the work
    first = engine_line(snapshot(), None, dt=10.0)
    assert "sample 4/16" in first and "queued" not in first  # ... but no ETA yet


class Pool:
    def __init__(self, stats):
        self._stats = stats
        self.actors = [object()] * stats["actors"]

    def stats(self):
        return self._stats


def test_engine_throughput_is_per_engine_hour():
    figures = engine_throughput(
        Pool(snapshot(actors=2)), wall=1800.0, counts={"steps_labeled": 500}
    )
    assert figures["engine_hours"] == 1.0 and figures["labeled_steps_per_engine_hour"] == 500.0
    assert figures["engine_actors"] == 2 and figures["requests"] == {"sample": 16}
    # Two single-thread CPU engines on one 2-core node are one node-hour per hour.
    cpu = engine_throughput(Pool(snapshot(actors=2) | {"units": 1.0}), wall=1800.0,
                            counts={"steps_labeled": 500})  # fmt: skip
    assert cpu["engine_hours"] == 0.5 and cpu["labeled_steps_per_engine_hour"] == 1000.0
    assert figures["prefix_cache_hit_rate"] is None  # no prompt tokens counted
    stats = snapshot(rollout=(40, 10, 2560, 640, 500))
    stats["tags"]["sample"] |= {"prompt_tokens": 1000, "cached_tokens": 0}
    stats["tags"]["rollout"] |= {"prompt_tokens": 3000, "cached_tokens": 2400}
    hit = engine_throughput(Pool(stats), wall=10.0, counts={})["prefix_cache_hit_rate"]
    assert hit == 0.6
    assert engine_throughput(None, 10.0, {})["labeled_steps_per_engine_hour"] is None


def test_no_queued_estimate_once_pending_requests_outrun_the_finished_ones():
    # 2 of 16 sampling requests done (the short ones, 300 tokens each); the 14 running ones
    # have already produced 6000 tokens, more than 14 x 150: the mean no longer estimates.
    before = snapshot(sample=(16, 2, 5120, 640, 300), live=5000)
    now = snapshot(sample=(16, 2, 5120, 640, 300), live=6300)
    line = engine_line(now, before, dt=10.0)
    assert "sample 2/16" in line and "queued" not in line


def test_every_pool_is_reported_the_ones_of_their_own_by_model(caplog):
    """A completer (or judge) of its own runs on a pool of its own: its work has lines too,
    named by its model, so a job whose rollouts run there is not silent."""
    import time

    from pipelines.progress import Progress

    class Pool:
        def __init__(self, rollout):
            self.rollout, self.calls = rollout, 0

        def stats(self):
            self.calls += 1
            done = min(self.calls * 5, 40)
            return snapshot(rollout=(40, done, 2560, 64 * done, 30 * self.calls) if
                            self.rollout else None, live=1000 * self.calls)

    sampler, completer = Pool(False), Pool(True)
    progress = Progress("prm-label", 0.05, None)
    with caplog.at_level("INFO", logger="prm-label"):
        progress.watch(lambda: [("", sampler), ("Qwen2.5-Coder-0.5B-Instruct", completer)])
        time.sleep(0.4)
        progress.close()
    lines = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("engine: sample") for m in lines)
    assert any(m.startswith("engine Qwen2.5-Coder-0.5B-Instruct: rollout") for m in lines)
