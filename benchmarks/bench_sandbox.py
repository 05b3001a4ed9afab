"""Sandbox throughput: trivial tests (start-up cost) and every MBPP reference solution.

    .venv/bin/python benchmarks/bench_sandbox.py [--trivial 200] [--workers 2] [--no-mbpp]

Prints executions per second for a one-assert program, the cost of one sandbox start, how
many of MBPP's 974 reference `code` fields pass their `test_list` (naming any that fail and
why), and how many wrong programs (the function under test returning None) fail. MBPP is
read from /work/shared/data/mbpp/mbpp.jsonl (next to the repository). Run it under
`flock /tmp/heavy.lock` so the figures are not shared with other heavy jobs.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from labeling.datasets.mbpp import problem_from_record
from labeling.schema import Problem
from verifiers.sandbox.program import prepare_job
from verifiers.sandbox.runner import Sandbox, SandboxConfig

MBPP = Path(__file__).resolve().parents[2] / "shared" / "data" / "mbpp" / "mbpp.jsonl"


def bench_trivial(sandbox: Sandbox, n: int, workers: int) -> None:
    problem = Problem("trivial", "code", "bench", "", tests=("assert f() == 1",))
    pairs = [(problem, "def f():\n    return 1\n")] * n
    sandbox.run_many(pairs[:4], workers)  # warm the page cache
    start = time.monotonic()
    results = sandbox.run_many(pairs, workers)
    elapsed = time.monotonic() - start
    assert all(r.passed for r in results), "a trivial program failed"
    single = sorted(sandbox.run(problem, pairs[0][1]).duration_s for _ in range(20))[10]
    print(
        f"trivial: {n / elapsed:.1f} executions/s with {workers} workers "
        f"({n} runs in {elapsed:.2f}s); one run alone: {single * 1000:.1f} ms (median)"
    )


def bench_mbpp(sandbox: Sandbox, workers: int) -> None:
    if not MBPP.exists():
        print(f"mbpp: {MBPP} not found, skipped")
        return
    rows = [json.loads(line) for line in MBPP.read_text().splitlines() if line.strip()]
    pairs = [(problem_from_record(r), r["code"]) for r in rows]
    start = time.monotonic()
    results = sandbox.run_many(pairs, workers)
    elapsed = time.monotonic() - start
    passed = sum(r.passed for r in results)
    print(
        f"mbpp: {passed}/{len(rows)} reference solutions pass ({len(rows) / elapsed:.1f}/s, "
        f"{elapsed:.1f}s)"
    )
    for (problem, _), r in zip(pairs, results, strict=True):
        if not r.passed:
            print(f"  task {problem.problem_id}: {r.error} {r.test_status}")
    wrong = [(p, wrong_program(p)) for p, _ in pairs]
    start = time.monotonic()
    results = sandbox.run_many(wrong, workers)
    elapsed = time.monotonic() - start
    failed = sum(not r.passed for r in results)
    print(f"mbpp: {failed}/{len(rows)} wrong programs fail ({elapsed:.1f}s)")
    for (problem, _), r in zip(wrong, results, strict=True):
        if r.passed:
            print(f"  task {problem.problem_id}: a wrong program passed")


def wrong_program(problem: Problem) -> str:
    """The function under test, answering None to everything."""
    subject = prepare_job(problem, "").subject or "f"
    return f"def {subject}(*args, **kwargs):\n    return None\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trivial", type=int, default=200, help="trivial runs to time")
    parser.add_argument("--workers", type=int, default=2, help="sandboxes in parallel")
    parser.add_argument("--no-mbpp", action="store_true", help="skip the MBPP pass")
    args = parser.parse_args()
    sandbox = Sandbox(SandboxConfig())
    bench_trivial(sandbox, args.trivial, args.workers)
    if not args.no_mbpp:
        bench_mbpp(sandbox, args.workers)


if __name__ == "__main__":
    main()
