"""The right-answer blind spot, measured on ProcessBench's dev split with `[answer,calc]`.

    .venv/bin/python benchmarks/bench_blind_spot.py --out /tmp/blind_spot

Labels each dev subset once with `prm-label labels=[answer,calc]` (given chains, no model),
then recombines the same verdicts under `labels.outcome_fill=none` (the default) and
`positive` (Math-Shepherd's convention) with `labeling.combine`, and counts, among the chains
whose final answer is right but whose steps humans found wrong, how many have the human
error step labeled True, and how many steps each setting labels, and how often a label
agrees with the human one. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

from labeling.combine import combine
from labeling.rows import verdicts_from_structs
from labeling.shards import MANIFEST, shard_files

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "processbench_dev"
SUBSETS = ("gsm8k", "math", "olympiadbench", "omnimath")
FILLS = ("none", "positive")


def label(out: Path, data: Path) -> list[Path]:
    dirs = []
    for subset in SUBSETS:
        target = out / subset
        if not (target / MANIFEST).is_file():
            cmd = [str(Path(sys.executable).parent / "prm-label"), "dataset=processbench",
                   f"dataset.path={data / f'{subset}.json'}", "labels=[answer,calc]",
                   f"output.dir={target}"]  # fmt: skip
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        dirs.append(target)
    return dirs


def count(dirs: list[Path]) -> dict[str, Counter]:
    tally = {fill: Counter() for fill in FILLS}
    for d in dirs:
        for path in shard_files(d):
            for row in pq.read_table(path).to_pylist():
                n, human = len(row["completions"]), row["human_first_error"]
                vs = verdicts_from_structs(row["verdicts"], n)
                blind = row["outcome_correct"] is True and human is not None and human >= 0
                for fill in FILLS:
                    t = tally[fill]
                    labels = combine(vs, n, "verifier_first", "negative", outcome_fill=fill).labels
                    t["steps"] += n
                    t["labeled"] += sum(x is not None for x in labels)
                    for x, h in zip(labels, row["human_labels"], strict=True):
                        if x is not None and h is not None:
                            t["compared"] += 1
                            t["agree"] += x == h
                            t["true_labels_vs_human"] += x is True
                            t["true_but_human_false"] += x is True and h is False
                    if blind:
                        t["blind_chains"] += 1
                        t["error_step_true"] += labels[human] is True
                        t["blind_all_true"] += all(x is True for x in labels)
    return tally


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("/tmp/blind_spot"))
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args()
    tally = count(label(args.out, args.data))
    print("| outcome_fill | right-answer chains with a human error | error step labeled True "
          "| all steps True | labeled steps | labels vs human: agree | True where human False |")
    print("|---|---|---|---|---|---|---|")
    for fill, t in tally.items():
        print(f"| {fill} | {t['blind_chains']} | {t['error_step_true']} | {t['blind_all_true']} "
              f"| {t['labeled']} of {t['steps']} | {t['agree']} of {t['compared']} "
              f"| {t['true_but_human_false']} |")


if __name__ == "__main__":
    main()
