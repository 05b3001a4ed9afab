"""The label job on two Ray nodes against the same job on one node, and on two nodes when the
second dies mid-run: wall time, with the simulated engine (0.2 s per engine call, 4 engines,
2 verifier actors). All nodes are `ray start` processes on this machine with their own
ports and temp dirs, stopped by their own pids (tests/ray_nodes.py); the one-node cluster
has as many Ray CPUs (4) as the two nodes together, so the plan holds the same engines.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_cluster.py [--problems 800] [--repeats 2]

What it shows: the cost of spreading engines and labelers over nodes (object transfer
between raylets, remote calls) and of losing one, not a speed-up: both "nodes" share this
machine's cores, and the simulated engine's time is a sleep.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.ray_nodes import RayCluster  # noqa: E402
from tests.test_cluster_nodes import job_args  # noqa: E402


def run(nodes: int, problems: int, kill_after_units: int = 0) -> dict[str, float]:
    """One job on a fresh cluster of `nodes` nodes; kill the second node once
    `kill_after_units` units are written (0: never). Wall times in seconds."""
    cluster = RayCluster()
    out = Path(tempfile.mkdtemp(prefix="bench-cluster-")) / "out"
    driver = None
    try:
        if nodes == 1:
            cluster.start("a", 4, '{"node_a": 4}', head=True)
        else:
            cluster.start("a", 2, '{"node_a": 2}', head=True)
            second = cluster.start("b", 2, '{"node_b": 2}')
        t0 = time.monotonic()
        driver = subprocess.Popen(
            [sys.executable, "-m", "pipelines.label.app", *job_args(cluster.address, out,
                                                                      problems)],
            cwd=ROOT, env=cluster.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        if kill_after_units:
            while len(list((out / "units").glob("unit-*.json"))) < kill_after_units:
                if driver.poll() is not None:
                    break
                time.sleep(0.05)
            second.kill()
        _, err = driver.communicate(timeout=600)
        if driver.returncode != 0:
            raise RuntimeError(err.decode()[-2000:])
        wall = time.monotonic() - t0
    finally:
        if driver is not None and driver.poll() is None:
            driver.kill()
        cluster.stop()
    manifest = json.loads((out / "manifest.json").read_text())
    return {"process_s": wall, "job_s": manifest["wall_time_s"],
            "calls_resent": manifest["retries"]["engine_calls_resent"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", type=int, default=800)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    cases = [("one node, 4 CPUs", 1, 0), ("two nodes, 2 CPUs each", 2, 0),
             ("two nodes, the second killed after 5 units", 2, 5)]  # fmt: skip
    print(f"{args.problems} problems, units of 20, n=2, simulated engine 0.2 s/call, "
          f"4 engines, 2 verifier actors")
    for name, nodes, kill in cases:
        runs = [run(nodes, args.problems, kill) for _ in range(args.repeats)]
        jobs = ", ".join(f"{r['job_s']:.1f}" for r in runs)
        procs = ", ".join(f"{r['process_s']:.1f}" for r in runs)
        resent = ", ".join(str(r["calls_resent"]) for r in runs)
        print(f"{name}: job wall {jobs} s (driver process {procs} s); engine calls re-sent "
              f"{resent}")


if __name__ == "__main__":
    main()
