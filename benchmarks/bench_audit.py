"""The audit's statistics on real labels: ProcessBench's dev split labeled by the `answer` and
`calc` sources (no model), with ProcessBench's human step labels as the oracle reviewer.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_audit.py --cache /tmp/bench_audit

1. Labels: one `prm-label dataset=processbench labels=[answer,calc]` run per subset (the real
   job, Ray and all), cached under --cache (a subset is relabeled only when its dir has no
   manifest; --fresh relabels everything).
2. Interval coverage: for each (source, status) stratum with at least --min-stratum
   human-labeled steps, --reps seeded reviews of --reviews steps each, drawn by the audit's
   own sampler order (`labeling.audit_sample.order_key`; steps the oracle cannot answer are
   skipped, as a reviewer's skip); the share of 95% Wilson intervals that hold the stratum's
   precision over all its human-labeled steps.
3. Queue efficiency: a step has a label error when a source's decided label differs from the
   human label. Review order = the uncertainty queue, then the remaining labeled steps in hash
   order; the share of all label errors found in its first 10%, against the mean of --reps
   random orders of the same steps.
4. Reviews needed for a ±0.05 Wilson interval per stratum at its measured precision (381 at
   the worst case p = 0.5).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "processbench_dev"
SUBSETS = ("gsm8k", "math", "olympiadbench", "omnimath")


def label(cache: Path, fresh: bool) -> list[Path]:
    dirs = []
    for subset in SUBSETS:
        out = cache / subset
        if fresh or not (out / "manifest.json").exists():
            path = DATA / f"{subset}.json"
            cmd = [sys.executable, "-m", "pipelines.label.app", "dataset=processbench",
                   f"dataset.path={path}", f"dataset.name=processbench_{subset}",
                   "dataset.adapter=processbench", "labels=[answer,calc]", f"output.dir={out}",
                   "output.report=false", f"output.resume={str(not fresh).lower()}"]  # fmt: skip
            t = time.time()
            subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
            print(f"labeled {subset} in {time.time() - t:.0f}s -> {out}")
        dirs.append(out)
    return dirs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=Path("/tmp/bench_audit"))
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--reviews", type=int, default=200)
    ap.add_argument("--min-stratum", type=int, default=400)
    args = ap.parse_args()
    if not DATA.exists():
        sys.exit(f"no ProcessBench dev data at {DATA}")

    from labeling.audit_sample import chain_views, order_key, status_of, uncertainty_queue
    from labeling.intervals import reviews_for, wilson
    from pipelines.audit.pack import load_rows, mc_threshold, policy_of

    views, human = [], {}
    for d in label(args.cache, args.fresh):
        rows, manifest = load_rows(d)
        policy = policy_of(manifest)
        for r in rows:
            for v in chain_views(r, policy):
                views.append(v)
                h = (r["human_labels"] or [None] * v.n_steps)[v.step]
                if h is not None:
                    human[v.key] = h
    print(f"\n{len(views)} steps, {len(human)} with a human label, policy {policy}\n")

    strata: dict[tuple[str, str], list] = {}
    for v in views:
        for s, x in v.labels.items():
            if x is not None and v.key in human:
                strata.setdefault((s, status_of(x)), []).append(v)
    print("| stratum | human-labeled steps | precision | coverage of 95% Wilson "
          f"({args.reps} x {args.reviews} reviews) | reviews for ±0.05 |")
    print("|---|---|---|---|---|")
    coverages = []
    for (s, st), vs in sorted(strata.items()):
        want = st == "correct"
        p = sum(human[v.key] is want for v in vs) / len(vs)
        need = reviews_for(0.05, p) if 0 < p < 1 else 1
        cov = "–"
        if len(vs) >= args.min_stratum:
            held = 0
            for rep in range(args.reps):
                drawn = sorted(vs, key=lambda v, rep=rep: order_key(rep, v.key))[: args.reviews]
                k = sum(human[v.key] is want for v in drawn)
                iv = wilson(k, len(drawn), population=len(vs))
                held += iv.low <= p <= iv.high
            coverages.append(held / args.reps)
            cov = f"{held / args.reps:.3f}"
        print(f"| {s}:{st} | {len(vs)} | {p:.3f} | {cov} | {need} |")
    if coverages:
        print(f"\ncoverage over strata: mean {sum(coverages) / len(coverages):.3f}, "
              f"min {min(coverages):.3f}, max {max(coverages):.3f}")

    # Queue efficiency over the steps some source labeled.
    labeled = [v for v in views if any(x is not None for x in v.labels.values())]
    errors = {v.key for v in labeled if v.key in human
              and any(x is not None and x != human[v.key] for x in v.labels.values())}  # fmt: skip
    queue = [v for v, _, _ in uncertainty_queue(labeled, 0, mc_threshold(manifest))]
    in_queue = {v.key for v in queue}
    order = queue + sorted((v for v in labeled if v.key not in in_queue),
                           key=lambda v: order_key(0, v.key))  # fmt: skip
    top = max(1, len(order) // 10)
    found = len(errors & {v.key for v in order[:top]}) / len(errors)
    rng = random.Random(0)
    keys = [v.key for v in labeled]
    rand = []
    for _ in range(args.reps):
        rng.shuffle(keys)
        rand.append(len(errors & set(keys[:top])) / len(errors))
    base = sum(rand) / len(rand)
    print(f"\nqueue: {len(queue)} of {len(labeled)} labeled steps in doubt; {len(errors)} label "
          f"errors; first 10% ({top} steps) finds {found:.3f} of them, random order "
          f"{base:.3f} (mean of {args.reps}): {found / base:.2f}x")


if __name__ == "__main__":
    main()
