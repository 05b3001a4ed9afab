"""The calculator's verdicts do not depend on Python's hash seed (the order sets come in).

A set's order changes with PYTHONHASHSEED; a reading that walked a set of function
applications in that order once read `P(P(x))` on some runs and not on others, so the same
chain got different labels run to run. Every chain of the hostile set
(`tests/data/calculator_symbolic.yaml`), slips included, is checked under two seeds in
fresh interpreters (the checks' worker is spawned from each, so it inherits the seed), and
every verdict, evidence included, must be the same.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_PROGRAM = r"""
import json, sys
from pathlib import Path
import yaml
from verifiers.calculator.verifier import CalculatorVerifier

def main():
    rows = yaml.safe_load(Path(sys.argv[1]).read_text(encoding="utf-8"))
    calc = CalculatorVerifier(timeout_s=30.0)
    out = []
    for row in rows:
        chains = [list(row["steps"])]
        if "slip" in row:
            steps = list(row["steps"])
            steps[row["slip"]["step"]] = row["slip"]["text"]
            chains.append(steps)
        for steps in chains:
            verdicts = calc.check_steps(steps, row.get("question", ""))
            out.append([[str(v.status), v.evidence] for v in verdicts])
    calc.close()
    print(json.dumps(out))

if __name__ == "__main__":
    main()
"""


def _run(seed: str, program: Path) -> list:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(program), str(ROOT / "tests/data/calculator_symbolic.yaml")],
        env=env, capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    return json.loads(done.stdout.splitlines()[-1])


def test_verdicts_are_the_same_under_every_hash_seed(tmp_path):
    program = tmp_path / "label.py"
    program.write_text(_PROGRAM)
    first = _run("1", program)
    assert any(status == "incorrect" for chain in first for status, _ in chain)
    # Seeds 1 and 2 order `P(P(x))`'s applications differently: the reading that walked them
    # in set order read the hostile set's self-applied function under one and not the other.
    assert _run("2", program) == first, "PYTHONHASHSEED=2 gave other verdicts than 1"
