"""How prm-report's statistics scale: time and peak memory over N synthetic chains.

    .venv/bin/python benchmarks/bench_report.py --rows 1000000

Writes one shard of `--shard-rows` realistic rows (5 steps, calc/mc/outcome verdicts, human
labels) with the real shard writer, hard-links it as many times as needed, and lists the
copies in a manifest. Each size runs in a fresh process, so peak RSS (ru_maxrss) is that of
the statistics alone; bounded memory shows as a peak that barely moves with N. Copies share
problem ids, so `n_unique(problem_id)` (the one per-key aggregate) does not grow here.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def make(root: Path, rows: int, shard_rows: int) -> None:
    from labeling.shards import DatasetDir, summarize_units

    def verdicts(i: int) -> list[dict]:
        return [{"source": s, "step": k, "status": "correct" if (i + k) % 4 else "incorrect",
                 "label": bool((i + k) % 4), "score": ((i * 7 + k) % 9) / 8, "rollouts": 8,
                 "evidence": "x"} for s in ("answer", "calc", "mc") for k in range(5)]  # fmt: skip

    batch = [
        {"prompt": f"q{i}", "completions": [f"s{k}" for k in range(5)],
         "labels": [bool((i + k) % 4) for k in range(5)], "problem_id": f"p{i // 4}",
         "chain_id": f"c{i}", "chain_index": i % 4, "domain": "math",
         "source_dataset": "gsm8k" if i % 2 else "math", "first_error_step": -1,
         "calc_labels": [bool((i + k) % 3) for k in range(5)],
         "mc_scores": [((i * 7 + k) % 9) / 8 for k in range(5)], "mc_rollouts": [8] * 5,
         "human_labels": [bool((i + k) % 5) for k in range(5)], "human_first_error": 2,
         "verdicts": verdicts(i), "sample_tokens": 300, "rollout_tokens": 2000, "rollouts": 40,
         "model": "m", "label_policy": "verifier_first", "config_hash": "h"}
        for i in range(shard_rows)
    ]  # fmt: skip
    out = DatasetDir(root)
    rec = out.write_unit(0, "k", batch, [], {"rows": shard_rows}, {}, 0.0)
    records = [rec]
    for unit in range(1, -(-rows // shard_rows)):
        os.link(out.shard_path(0), out.shard_path(unit))
        records.append(replace(rec, unit=unit, shard=f"shards/part-{unit:05d}.parquet"))
    out.write_manifest({**summarize_units(records), "counts": {}})


def measure(root: str) -> None:
    from labeling.report.stats import dataset_stats

    t = time.perf_counter()
    stats = dataset_stats(root)
    took = time.perf_counter() - t
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"rows": stats["rows"], "seconds": round(took, 2),
                      "peak_rss_mb": round(peak_mb)}))  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--shard-rows", type=int, default=50_000)
    ap.add_argument("--measure", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        measure(args.measure)
        return 0
    for n in args.rows:
        with tempfile.TemporaryDirectory(prefix="prm-bench-report-") as tmp:
            make(Path(tmp), n, min(n, args.shard_rows))
            subprocess.run([sys.executable, __file__, "--measure", tmp], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
