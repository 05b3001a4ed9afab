"""Calculator against human first errors: per-subset first-flag precision and recall.

    .venv/bin/python benchmarks/calc_first_flag.py [--subset math olympiadbench ...]
        [--show wrong|after|all|none] [--json out.json]

Data: the ProcessBench dev split (`shared/data/processbench_dev/`, human-labeled first
errors). Each chain goes through the calculator exactly as `prm-label dataset=processbench
labels=[answer,calc]` runs it (`check_steps(steps, problem)`; given chains are not
re-split). The calculator's *first flag* is its first `incorrect` step; with
`after_error=negative` it decides the chain's first error, so it is what is measured:

- first flag **right**: it sits on the human first error;
- first flag **wrong**: it sits before the human first error, or anywhere in a chain the
  human judged all correct (label -1): a step a human calls right;
- first flag **after**: it sits after the human first error, on a step the human did not
  judge (ProcessBench labels only the first error): neither right nor wrong, reported apart.

`first-flag precision` = right / (right + wrong). `recall` = chains with a human first error
whose first-error step the calculator flags (whatever it flagged before) / chains with a human
first error; `hits` = chains whose first flag is the human first error (right, again) over the
same denominator. Unless `--show none`, every wrong first flag is printed with its step text
and evidence for reading (`--show after` adds the "after" ones). Not a test: nothing is
asserted; compare before and after a change, and read every wrong flag.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "processbench_dev"
SUBSETS = ("gsm8k", "math", "olympiadbench", "omnimath")


def score(subset: str, data: Path = DATA) -> tuple[dict[str, int], list[dict[str, object]]]:
    """(counts, one record per flagged chain) for one subset."""
    from verifiers.calculator.verifier import CalculatorVerifier

    records = json.loads((data / f"{subset}.json").read_text())
    counts = dict.fromkeys(
        ("chains", "erroneous", "flagged", "right", "wrong", "after", "recalled"), 0
    )
    flagged: list[dict[str, object]] = []
    calc = CalculatorVerifier(timeout_s=2.0)
    try:
        for r in records:
            human = r["label"]
            verdicts = calc.check_steps(r["steps"], r["problem"])
            flags = [i for i, v in enumerate(verdicts) if v.status == "incorrect"]
            counts["chains"] += 1
            counts["erroneous"] += human >= 0
            counts["recalled"] += human >= 0 and human in flags
            if not flags:
                continue
            first = flags[0]
            kind = "right" if first == human else "after" if 0 <= human < first else "wrong"
            counts["flagged"] += 1
            counts[kind] += 1
            flagged.append(
                {
                    "subset": subset,
                    "id": r["id"],
                    "human": human,
                    "first_flag": first,
                    "kind": kind,
                    "text": r["steps"][first],
                    "evidence": verdicts[first].evidence,
                }
            )
    finally:
        calc.close()
    return counts, flagged


def _ratio(num: int, den: int) -> str:
    return f"{num / den:.3f}" if den else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subset", nargs="+", choices=SUBSETS, default=list(SUBSETS))
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--show", choices=("wrong", "after", "all", "none"), default="wrong")
    parser.add_argument("--json", type=Path, default=None, help="write every flagged chain")
    args = parser.parse_args()
    show = {"wrong": {"wrong"}, "after": {"wrong", "after"}, "all": {"wrong", "after", "right"},
            "none": set()}[args.show]
    rows, everything = [], []
    for subset in args.subset:
        counts, flagged = score(subset, args.data)
        rows.append((subset, counts))
        everything.extend(flagged)
        for f in flagged:
            if f["kind"] in show:
                print(f"[{subset} {f['id']} human {f['human']} flag {f['first_flag']} "
                      f"{f['kind']}] {str(f['text'])[:400]!r}")
                print(f"    -> {f['evidence']}")
    print(f"\n{'subset':14} {'chains':>6} {'err':>5} {'flagged':>7} {'right':>5} {'wrong':>5}"
          f" {'after':>5} {'ff_prec':>7} {'recall':>7} {'hits':>6}")
    for subset, c in rows:
        print(
            f"{subset:14} {c['chains']:>6} {c['erroneous']:>5} {c['flagged']:>7} {c['right']:>5}"
            f" {c['wrong']:>5} {c['after']:>5} {_ratio(c['right'], c['right'] + c['wrong']):>7}"
            f" {_ratio(c['recalled'], c['erroneous']):>7} {_ratio(c['right'], c['erroneous']):>6}"
        )
    if args.json is not None:
        args.json.write_text(json.dumps({"rows": dict(rows), "flags": everything}, indent=1))


if __name__ == "__main__":
    main()
