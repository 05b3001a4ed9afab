"""Calculator throughput: steps checked per second on GSM8K-style steps (prints figures).

    .venv/bin/python benchmarks/bench_calculator.py [--steps 20000] [--workers 2]

Steps come from GSM8K train solutions (one line each, calculator annotations included) and
from ProcessBench GSM8K chains, cycled to `--steps`. Parse caches are cleared before each
timed run, so repeated steps are the only cache hits (as in a real labeling run, where the
same step text recurs across chains of one problem). Not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def load_steps(limit: int) -> list[str]:
    steps: list[str] = []
    with open(DATA / "gsm8k" / "train.jsonl") as f:
        for line in f:
            steps.extend(s for s in json.loads(line)["answer"].split("\n") if s.strip())
            if len(steps) >= limit // 2:
                break
    bench = DATA / "processbench_dev" / "gsm8k.json"
    if bench.exists():
        for record in json.loads(bench.read_text()):
            steps.extend(record["steps"])
    while len(steps) < limit:
        steps = steps + steps
    return steps[:limit]


def _clear_caches() -> None:
    from verifiers.calculator import evaluate as calc_eval
    from verifiers.calculator import excuses as calc_tested
    from verifiers.calculator import extract as calc_extract
    from verifiers.calculator import normalize as calc_normalize
    from verifiers.calculator import tokens as calc_tokens

    for fn in (
        calc_normalize.normalize,
        calc_tokens._scan,  # tokenize() and clause_ends() read this one cache
        calc_extract.extract_links,
        calc_extract.extract_named,
        calc_eval.exact,
        calc_eval.linear,
        calc_tested._read,  # the clauses and sentences the tested-claim checks read
    ):
        fn.cache_clear()


def check_chunk(steps: list[str]) -> tuple[int, int]:
    """(steps checked, steps flagged incorrect) for one chunk, one verifier per process."""
    from verifiers.calculator.verifier import CalculatorVerifier

    _clear_caches()
    calc = CalculatorVerifier(timeout_s=2.0)
    flagged = 0
    for step in steps:  # one step per "chain": measures per-step cost, no equation carry-over
        flagged += calc.check_steps([step])[0].status == "incorrect"
    calc.close()
    return len(steps), flagged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    steps = load_steps(args.steps)
    print(f"{len(steps)} GSM8K-style steps, mean {sum(map(len, steps)) / len(steps):.0f} chars")

    check_chunk(steps[:200])  # warm imports (sympy is not imported unless needed)
    start = time.perf_counter()
    n, flagged = check_chunk(steps)
    one = n / (time.perf_counter() - start)
    print(f"1 core : {one:8.0f} steps/s  ({flagged} flagged incorrect)")

    workers = max(1, args.workers)
    chunks = [steps[i::workers] for i in range(workers)]
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(check_chunk, [c[:200] for c in chunks]))  # start and warm the workers
        start = time.perf_counter()
        total = sum(n for n, _ in pool.map(check_chunk, chunks))
        many = total / (time.perf_counter() - start)
    print(f"{workers} cores: {many:8.0f} steps/s")


if __name__ == "__main__":
    main()
