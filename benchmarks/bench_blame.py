"""How often a step that MC never blames (`labeling.mc.blame`) is a human's first error.

Over ProcessBench's dev split (`../shared/data/processbench_dev/`, human first-error labels),
per subset: the steps before the last that `may_err` spares, among the human first errors
and among the steps the human called right (before the first error, or every step of a right
chain), in all and of them those that restate the question or an earlier step (the rest name
nothing: no number, variable, formula or operation); then the spared first errors' text, so a
reader can judge what was given up. Prints a Markdown table; asserts nothing.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_blame.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeling.mc.blame import may_err, restates  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "processbench_dev"


def main() -> None:
    if not DATA.is_dir():
        sys.exit(f"no dev split at {DATA}")
    print("| subset | first errors spared (restating) | right steps spared (restating) |")
    print("|---|---|---|")
    spared_errors = []
    for path in sorted(DATA.glob("*.json")):
        first = first_spared = first_again = right = right_spared = right_again = 0
        for rec in json.loads(path.read_text()):
            steps, label = rec["steps"], rec["label"]
            flags, again = may_err(steps, rec["problem"]), restates(steps, rec["problem"])
            for i in range(len(steps) - 1):  # the last step may always err
                if i == label:
                    first += 1
                    first_spared += not flags[i]
                    first_again += again[i]
                    if not flags[i]:
                        spared_errors.append(f"{path.stem} {rec['id']} step {i}: {steps[i]!r}")
                elif label == -1 or i < label:
                    right += 1
                    right_spared += not flags[i]
                    right_again += again[i]
        print(f"| {path.stem} | {first_spared} ({first_again}) / {first} "
              f"| {right_spared} ({right_again}) / {right} |")
    print("\nSpared first errors:")
    for line in spared_errors:
        print(f"- {line[:300]}")


if __name__ == "__main__":
    main()
