"""A million labeled chains through the real pipeline, with the simulated engine (no model).

    .venv/bin/python benchmarks/bench_million.py [--chains 1000000] [--n 4] [--ray]

Runs `prm-label` (the same `run(cfg)` the CLI calls) with `engine=simulated`, the builtin math
generator as the input stream, the `answer` source and real Parquet shards, and samples the
resident memory of the whole process tree (driver, Ray and its workers) every 0.2 s.
Prints wall time, rows/s, peak RSS (driver alone, and the tree) and the shard sizes.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


class PeakRss:
    def __init__(self) -> None:
        self.driver = self.tree = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _sample(self) -> None:
        me = psutil.Process()
        # A local Ray runtime started by ray.init() is our child too (gcs, raylet, workers).
        procs = [me, *me.children(recursive=True)]
        total = 0
        for p in {p.pid: p for p in procs}.values():
            try:
                total += p.memory_info().rss
            except psutil.Error:
                continue
        self.tree = max(self.tree, total)
        self.driver = max(self.driver, me.memory_info().rss)

    def _loop(self) -> None:
        while not self._stop.wait(0.2):
            self._sample()

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chains", type=int, default=1_000_000)
    ap.add_argument("--n", type=int, default=4, help="chains per problem")
    ap.add_argument("--per-unit", type=int, default=12_500, help="problems per unit/shard")
    ap.add_argument("--ray", action="store_true", help="run on a local Ray runtime")
    ap.add_argument("--out", default="", help="output dir (default: a temp dir)")
    args = ap.parse_args()

    from pipelines.label.app import run
    from tests.conftest import compose

    problems = args.chains // args.n
    out = args.out or tempfile.mkdtemp(prefix="prm-million-")
    cfg = compose([
        "engine=simulated", "labels=[answer]", f"dataset.limit={problems}",
        f"dataset.count={problems}", f"sampler.n={args.n}", f"output.dir={out}",
        f"output.problems_per_unit={args.per_unit}",
        "ray=local" if args.ray else "ray=inprocess", "ray.label_actors=1",
        "debug.log_every_s=30",
    ])
    t = time.perf_counter()
    with PeakRss() as rss:
        manifest = run(cfg)
    wall = time.perf_counter() - t
    sizes = [s["bytes"] for s in manifest["shards"]]
    print(json.dumps({
        "rows": manifest["counts"]["rows"],
        "steps": manifest["counts"]["steps"],
        "problems": manifest["counts"]["problems_in"],
        "wall_s": round(wall, 1),
        "rows_per_s": round(manifest["counts"]["rows"] / wall, 1),
        "peak_rss_driver_mb": round(rss.driver / 2**20),
        "peak_rss_tree_mb": round(rss.tree / 2**20),
        "shards": len(sizes),
        "shard_mb_min_max": [round(min(sizes) / 2**20, 1), round(max(sizes) / 2**20, 1)],
        "ray": args.ray,
        "out": out,
    }, indent=2))


if __name__ == "__main__":
    main()
