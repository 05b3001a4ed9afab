"""Calculator flags on independent text: reference solutions and labeled model-written chains.

    .venv/bin/python benchmarks/calc_false_flags.py [--corpus gsm8k math ...] [--limit N]
        [--quiet] [--out flags.jsonl] [--shards PRM_LABEL_OUTPUT_DIR]

Corpora and their step labels: `benchmarks/calc_corpora.py` (GSM8K and MATH train solutions,
the PRM800K, Math-Shepherd, BiRM and OmegaPRM samples in shared/data; none of it is the
ProcessBench dev split the calculator was tuned on). Each chain is checked as a labeling run
checks it (the calculator's step-to-step checks run). Per corpus it prints the text lines
scanned, the steps, the `incorrect` flags, flags per 10,000 lines, and how many flags sit on a
step that a label calls right (on reference solutions: all of them; such a flag is a misread
unless the text has a real slip, so read each one) or wrong. Unless --quiet, every flag is
printed with its step's label and the evidence. Not a test: nothing is asserted; compare
the counts before and after a change, and read the flags.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calc_corpora import CORPORA, chains  # noqa: E402  (a sibling script, not a package)


def scan(
    corpus: str, limit: int | None, shards: Path | None = None
) -> tuple[dict[str, int], list[dict[str, object]]]:
    """(counts, one record per `incorrect` step) for one corpus."""
    from verifiers.calculator.verifier import CalculatorVerifier

    calc = CalculatorVerifier(timeout_s=2.0)
    counts = dict.fromkeys(("chains", "lines", "steps", "correct", "flags"), 0)
    counts |= {"on_right": 0, "on_wrong": 0}
    out: list[dict[str, object]] = []
    try:
        for chain in chains(corpus, limit, shards):
            counts["chains"] += 1
            counts["steps"] += len(chain.steps)
            counts["lines"] += sum(1 for s in chain.steps for x in s.split("\n") if x.strip())
            verdicts = calc.check_steps(chain.steps, chain.question)
            for index, (step, label, verdict) in enumerate(
                zip(chain.steps, chain.labels, verdicts, strict=True)
            ):
                counts["correct"] += verdict.status == "correct"
                if verdict.status != "incorrect":
                    continue
                counts["flags"] += 1
                counts["on_right"] += label is True
                counts["on_wrong"] += label is False
                out.append(
                    {
                        "corpus": corpus,
                        "id": chain.id,
                        "step": index,
                        "label": label,
                        "text": step,
                        "evidence": verdict.evidence,
                    }
                )
    finally:
        calc.close()
    return counts, out


def _label(value: object) -> str:
    return {True: "label:right", False: "label:WRONG", None: "label:none"}[value]  # type: ignore[index]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="+", choices=CORPORA, default=list(CORPORA))
    parser.add_argument("--limit", type=int, default=None, help="first N chains per corpus")
    parser.add_argument("--quiet", action="store_true", help="counts only")
    parser.add_argument("--out", type=Path, default=None, help="write the flags as JSONL")
    parser.add_argument(
        "--shards", type=Path, default=None, help="also scan the model chains of a prm-label output"
    )
    args = parser.parse_args()
    if args.shards is not None:
        args.corpus = [*args.corpus, "shards"]
    everything: list[dict[str, object]] = []
    rows = []
    for name in args.corpus:
        start = time.perf_counter()
        counts, found = scan(name, args.limit, args.shards)
        took = time.perf_counter() - start
        everything.extend(found)
        rows.append((name, counts, took))
        if not args.quiet:
            print(f"--- {name}")
            for f in found:
                print(f"  [{f['id']} #{f['step']} {_label(f['label'])}] {str(f['text'])[:300]!r}")
                print(f"      -> {f['evidence']}")
    print(
        f"{'corpus':15} {'chains':>6} {'lines':>7} {'steps':>7} {'correct':>7} {'flags':>5}"
        f" {'per10k':>7} {'on_right':>8} {'on_wrong':>8} {'steps/s':>7}"
    )
    for name, c, took in rows:
        per = 10_000 * c["flags"] / max(c["lines"], 1)
        print(
            f"{name:15} {c['chains']:>6} {c['lines']:>7} {c['steps']:>7} {c['correct']:>7}"
            f" {c['flags']:>5} {per:>7.2f} {c['on_right']:>8} {c['on_wrong']:>8}"
            f" {c['steps'] / took:>7.0f}"
        )
    if args.out is not None:
        args.out.write_text("".join(json.dumps(f) + "\n" for f in everything))


if __name__ == "__main__":
    main()
