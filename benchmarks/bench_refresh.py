"""What a nightly refresh relabels: units cut by content (today) against units cut in input
order (before), for 40,000 problems with 1% inserted at random places, 1% deleted, and the
input shuffled; then one small real refresh with the simulated engine.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_refresh.py            # both parts
    PYTHONPATH=. .venv/bin/python benchmarks/bench_refresh.py --no-job   # the plans only

The plans need no job: `labeling.unit_plan.plan_units` decides membership, and a unit is
relabeled exactly when the plan marks it `new` (a `same` unit is copied, a `shrunk` unit keeps
the rows of its remaining problems). The input-order figure counts units whose id list
changed, which is what the old unit key (unit number + ids in order) compared.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from labeling.unit_plan import plan_units, refresh_cost  # noqa: E402


def _ids(n: int, rng: random.Random) -> list[str]:
    return [f"p{rng.getrandbits(64):016x}" for _ in range(n)]


def changed(ids: list[str], kind: str, share: float, rng: random.Random) -> list[str]:
    k = int(len(ids) * share)
    if kind == "insert 1%":
        out = ids[:]
        for x in _ids(k, rng):
            out.insert(rng.randrange(len(out) + 1), x)
        return out
    if kind == "delete 1%":
        gone = set(rng.sample(ids, k))
        return [x for x in ids if x not in gone]
    return rng.sample(ids, len(ids))  # shuffle


def input_order_relabeled(old: list[str], new: list[str], size: int) -> tuple[int, int]:
    """Units of `new` the old input-order cutting relabeled (id list differs at that number)."""
    a = [old[i:i + size] for i in range(0, len(old), size)]
    b = [new[i:i + size] for i in range(0, len(new), size)]
    return sum(1 for i, u in enumerate(b) if i >= len(a) or a[i] != u), len(b)


def plans(n: int, size: int, seed: int) -> None:
    rng = random.Random(seed)
    ids = _ids(n, rng)
    before = {u.unit: u.members for u in plan_units(ids, size)}
    print(f"{n:,} problems, units of at most {size}: {len(before)} units before the refresh\n")
    print("| change | units relabeled (content) | problems labeled | units copied whole / "
          "in part | units relabeled (input order, before) |")
    print("|---|---|---|---|---|")
    for kind in ("insert 1%", "delete 1%", "shuffle"):
        new = changed(ids, kind, 0.01, rng)
        plan = plan_units(new, size, before)
        c = refresh_cost(plan)
        old_n, old_total = input_order_relabeled(ids, new, size)
        print(f"| {kind} | {c['new']} of {len(plan)} ({c['new'] / len(plan):.1%}) | "
              f"{c['problems_labeled']:,} | {c['same']} / {c['shrunk']} | "
              f"{old_n} of {old_total} ({old_n / old_total:.1%}) |")


def real_refresh(n: int, size: int) -> None:
    """v1 on n problems; v2 with 1% deleted, 1% inserted, shuffled (simulated engine)."""
    from hydra import compose, initialize_config_dir

    from pipelines.confdir import CONF_DIR
    from pipelines.label.app import run
    from pipelines.label.config import register

    register()
    rng = random.Random(1)
    pairs = [(a, 1000 + a) for a in range(n)]
    new = rng.sample(pairs, n - n // 100) + [(-a - 1, 5) for a in range(n // 100)]
    rng.shuffle(new)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, rows in (("a", pairs), ("b", new)):
            (root / f"{name}.jsonl").write_text("".join(
                json.dumps({"question": f"What is {x} + {y}?", "answer": str(x + y)}) + "\n"
                for x, y in rows))
        common = ["engine=simulated", "ray=inprocess", "labels=[answer]", "dataset=generic",
                  f"output.problems_per_unit={size}", "sampler.n=2", "output.report=false"]
        with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
            t = time.monotonic()
            v1 = run(compose("prm-label", [*common, f"dataset.path={root / 'a.jsonl'}",
                                        f"output.dir={root / 'v1'}"]))
            t1 = time.monotonic() - t
            t = time.monotonic()
            v2 = run(compose("prm-label", [*common, f"dataset.path={root / 'b.jsonl'}",
                                        f"output.dir={root / 'v2'}",
                                        f"output.previous={root / 'v1'}"]))
            t2 = time.monotonic() - t
    print(f"\nreal refresh (simulated engine, {n:,} problems, units of {size}): v1 "
          f"{v1['units']} units in {t1:.1f}s; v2 {v2['counts']['problems_in']:,} problems, "
          f"{v2['units']} units, units_reused {v2['units_reused']}, "
          f"lineage.refresh {v2['lineage']['refresh']} in {t2:.1f}s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", type=int, default=40_000)
    ap.add_argument("--unit", type=int, default=64, help="output.problems_per_unit")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--job-problems", type=int, default=2_000)
    ap.add_argument("--no-job", action="store_true", help="skip the real refresh")
    a = ap.parse_args()
    plans(a.problems, a.unit, a.seed)
    if not a.no_job:
        real_refresh(a.job_problems, a.unit)


if __name__ == "__main__":
    main()
