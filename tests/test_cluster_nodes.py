"""Two Ray nodes on this machine, one of which dies mid-run: a head (`node_a`) and a second
node (`node_b`), separate `ray start` processes with their own CPUs, ports and temp dirs.
The label job puts engines on both; the second node is killed by its own process ids while
units are in flight. The job must finish with every problem exactly once, the lost engines'
calls re-sent to the live ones and counted in the manifest, and the dead node named in the
progress lines. Every process the test started is stopped by pid in every outcome.

A real vLLM engine on each node is left out: two CPU engines (about 3.5 GB each with their
KV cache) beside the other engineers' work on a shared 24 GB machine, each starting in
30 s or more, would make this test heavy and flaky; the failover does not depend on the
engine's kind (`EnginePool` re-sends a call whatever the actor is).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.ray_nodes import RayCluster
from tests.test_faults import _assert_exactly_once

pytestmark = [pytest.mark.ray, pytest.mark.app]

PROBLEMS = 800
LOG_EVERY_S = 1.0


def job_args(address: str, out: Path, problems: int = PROBLEMS) -> list[str]:
    """The job both this test and benchmarks/bench_cluster.py run: simulated engines that
    take 0.2 s a call, so the run lasts long enough to lose a node in the middle."""
    return ["engine=simulated", "engine.simulated_delay_s=0.2", "engine.actors=4", "ray=cluster",
            f"ray.address={address}", "ray.label_actors=2", "labels=[answer]", "sampler.n=2",
            f"dataset.limit={problems}", f"dataset.count={problems}",
            "output.problems_per_unit=20", "output.report=false",
            f"debug.log_every_s={LOG_EVERY_S}", f"output.dir={out}"]  # fmt: skip


class Lines:
    """The driver's output, line by line, with the time each line arrived."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.seen: list[tuple[float, str]] = []
        self._thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self._thread.start()

    def _read(self, proc: subprocess.Popen) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            self.seen.append((time.monotonic(), line.rstrip()))

    def matching(self, pattern: str) -> list[tuple[float, str]]:
        return [(t, s) for t, s in list(self.seen) if re.search(pattern, s)]

    def text(self) -> str:
        return "\n".join(s for _, s in self.seen)


def test_second_node_dies_mid_run_and_the_job_still_finishes(tmp_path):
    cluster = RayCluster()
    driver = None
    try:
        cluster.start("a", 2, '{"node_a": 2}', head=True)
        node_b = cluster.start("b", 2, '{"node_b": 2}')
        out = tmp_path / "out"
        driver = subprocess.Popen(
            [sys.executable, "-m", "pipelines.label.app", *job_args(cluster.address, out)],
            cwd=ROOT, env=cluster.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True,
        )  # fmt: skip
        lines = Lines(driver)
        deadline = time.monotonic() + 240
        # Kill the node once a few units are written, with most of the job still to do.
        while len(list((out / "units").glob("unit-*.json"))) < 5:
            assert driver.poll() is None, lines.text()[-3000:]
            assert time.monotonic() < deadline, lines.text()[-3000:]
            time.sleep(0.05)
        killed_at = time.monotonic()
        assert node_b.kill() >= 2  # its raylet, log monitor, agents and workers
        assert driver.wait(timeout=300) == 0, lines.text()[-4000:]
        finished_at = time.monotonic()
    finally:
        if driver is not None and driver.poll() is None:
            driver.kill()
            driver.wait()
        cluster.stop()
    log = lines.text()
    manifest = json.loads((out / "manifest.json").read_text())
    _assert_exactly_once(out, PROBLEMS, 2)
    units_done_at_kill = 5
    assert manifest["units"] == PROBLEMS // 20 > 3 * units_done_at_kill

    # Engines ran on both nodes (the plan places them per node), each naming its node.
    engine_nodes = {m.group(1) for _, s in lines.matching(r"engine \d+/\d+: node (\w{8}):")
                    for m in [re.search(r"engine \d+/\d+: node (\w{8}):", s)] if m}
    assert len(engine_nodes) == 2, log[-3000:]

    retries = manifest["retries"]
    assert retries["engines_lost"] == 2  # node_b's two engines
    [lost] = retries["engine_nodes_lost"]
    assert lost[:8] in engine_nodes
    # Calls in flight on (or routed to) the dead engines went to the live ones.
    assert retries["engine_calls_resent"] >= 1 and retries["engine_requests_resent"] >= 1
    assert retries["labelers_moved_node"] <= retries["labelers_restarted"] <= 2

    # The dead node is a progress line, soon after the kill, while the job still runs.
    dead = lines.matching(rf"node {lost[:8]} \(.*\) is dead")
    assert dead, log[-3000:]
    seen_after = dead[0][0] - killed_at
    assert seen_after < finished_at - killed_at
    # Ray marks the node dead within ~2 s here (health checks every 0.5 s, 3 misses); the
    # line comes at the next progress period after that.
    assert seen_after <= 2.0 + 3 * LOG_EVERY_S, seen_after
