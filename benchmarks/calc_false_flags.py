"""Calculator flags on reference solutions: every `incorrect` there is (almost surely) a misread.

    .venv/bin/python benchmarks/calc_false_flags.py [--dataset gsm8k|math|both] [--limit N]
        [--quiet] [--out flags.jsonl]

GSM8K train `answer`s are split into lines; MATH train `solution`s into lines and sentences
(`split_sentences`). Each solution is one chain (its problem as the question), so the
calculator's step-to-step checks run as they do in a labeling run. Reference solutions are
nearly always right, so a flag is a false flag unless its text has a real typo (GSM8K train
has a few dozen). Prints the count per dataset and, unless --quiet, each flag with its
evidence; the `correct` count shows what a fix costs in coverage. Not a test: nothing is
asserted; compare the counts before and after a change.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
# A sentence ends at . ! ? before a capital, a dollar or a backslash (the next sentence may
# open with math); "e.g. the" and "$1.5$" stay whole. Lines always end a step.
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z$\\])|\n+")


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def chains(dataset: str, limit: int | None) -> Iterator[tuple[str, str, list[str]]]:
    """(id, question, steps) per solution."""
    path = DATA / dataset / "train.jsonl"
    with open(path) as f:
        for i, line in enumerate(f):
            if limit is not None and i >= limit:
                return
            row = json.loads(line)
            if dataset == "gsm8k":
                steps = [s.strip() for s in row["answer"].split("\n") if s.strip()]
                yield f"gsm8k-train-{i}", row["question"], steps
            else:
                yield (
                    row.get("unique_id", f"math-train-{i}"),
                    row["problem"],
                    split_sentences(row["solution"]),
                )


def flags(dataset: str, limit: int | None) -> tuple[int, int, list[dict[str, object]]]:
    """(steps checked, steps `correct`, one record per `incorrect` step)."""
    from verifiers.calculator.verifier import CalculatorVerifier

    calc = CalculatorVerifier(timeout_s=2.0)
    n, correct, out = 0, 0, []
    try:
        for chain_id, question, steps in chains(dataset, limit):
            n += len(steps)
            for index, (step, verdict) in enumerate(
                zip(steps, calc.check_steps(steps, question), strict=True)
            ):
                correct += verdict.status == "correct"
                if verdict.status == "incorrect":
                    out.append(
                        {
                            "dataset": dataset,
                            "id": chain_id,
                            "step": index,
                            "text": step,
                            "evidence": verdict.evidence,
                        }
                    )
    finally:
        calc.close()
    return n, correct, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=("gsm8k", "math", "both"), default="both")
    parser.add_argument("--limit", type=int, default=None, help="first N solutions only")
    parser.add_argument("--quiet", action="store_true", help="counts only")
    parser.add_argument("--out", type=Path, default=None, help="write the flags as JSONL")
    args = parser.parse_args()
    names = ("gsm8k", "math") if args.dataset == "both" else (args.dataset,)
    everything = []
    for name in names:
        start = time.perf_counter()
        n, correct, found = flags(name, args.limit)
        everything.extend(found)
        took = time.perf_counter() - start
        print(
            f"{name}: {len(found)} flagged of {n} steps, {correct} correct ({n / took:.0f} steps/s)"
        )
        if not args.quiet:
            for f in found:
                print(f"  [{f['id']} #{f['step']}] {str(f['text'])[:300]}")
                print(f"      -> {f['evidence']}")
    if args.out is not None:
        args.out.write_text("".join(json.dumps(f) + "\n" for f in everything))


if __name__ == "__main__":
    main()
