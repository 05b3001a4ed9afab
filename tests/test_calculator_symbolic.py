"""The symbolic checks' hostile set (issue 67): right algebra unflagged, planted slips flagged.

The table lives in `tests/data/calculator_symbolic.yaml`. Each row is a right chain written as
model solutions to competition problems write it (`$...$`, `\\( \\)`, `\\[ \\]`, `align*`, with
prose around), in one family: expansions, factorisations, fraction sums, linear derivations,
quadratics solved, functions defined then evaluated, logs, radicals, trig identities, finite
sums, binomials, systems, conditions that look like identities, tested/supposed/rejected
equations, alternatives and cases, restricted domains, approximations, geometry names and
units, inequalities, derivatives of a function the chain defined, and spellings that change only
how a formula looks (sized brackets, styles, units with braced powers). No step of a right chain may
be `incorrect` (the calculator may say `correct` or abstain). Most rows also carry a `slip`: the
same chain with one step replaced by a copy holding one planted error; that step must be
`incorrect`, with evidence that quotes the wrong relation, and the steps before it must not be
flagged.
"""

import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from verifiers.calculator.typed_symbols import typed_symbols

_PATH = Path(__file__).parent / "data" / "calculator_symbolic.yaml"
_TABLE = yaml.safe_load(_PATH.read_text(encoding="utf-8"))
FAMILIES = (
    "expansion", "factorisation", "fraction", "linear", "quadratic", "function", "log",
    "radical", "trig", "sum", "binomial", "system", "condition", "tested", "cases", "domain",
    "approximation", "geometry", "inequality", "congruence", "operation", "derivative",
    "spelling",
)  # fmt: skip
# Families whose point is abstention (a trial, a case, a domain, a rounding): a slip there is
# still required where the text claims something, but the table may hold fewer of them.
_ABSTAINING = frozenset({"tested", "domain", "approximation"})


def _id(row: dict) -> str:
    return f"{row['family']}: {row['id']}"


RIGHT = [pytest.param(row, id=_id(row)) for row in _TABLE]
# A slip the checker does not reach yet says why (`missed`) and is a strict xfail: it fails
# the run the day the checker reaches it, so the row is then promoted.
SLIPS = [
    pytest.param(
        row,
        id=_id(row),
        marks=[pytest.mark.xfail(strict=True, reason=row["missed"])] if "missed" in row else [],
    )
    for row in _TABLE
    if "slip" in row
]


def _loose(text: str) -> str:
    """The text without spaces, backslashes, braces, parentheses and sizing: `3\\sqrt{3}` and
    `3 sqrt(3)` quote the same relation, and so do `\\left(x - 1\\right)` and `(x \u2212 1)`, `\\gt`
    and `>`, `\\ge` and `>=`, typed `²θ` and `^2 \\theta`."""
    text = typed_symbols(text).replace("θ", "theta")
    text = text.replace("\u2212", "-").replace("\\gt", ">").replace("\\lt", "<")
    text = re.sub(r"\\(g|l)eq?(?![A-Za-z])", lambda m: ">=" if m[1] == "g" else "<=", text)
    text = re.sub(r"\\(?:left|right)(?![A-Za-z])", "", text)
    return re.sub(r"[\s\\{}()*]", "", text)


def _slipped(row: dict) -> list[str]:
    slip = row["slip"]
    steps = list(row["steps"])
    assert 0 <= slip["step"] < len(steps), _id(row)
    assert steps[slip["step"]] != slip["text"], "the slip must change the step"
    steps[slip["step"]] = slip["text"]
    return steps[: slip["step"] + 1]


def test_table_shape():
    ids = [_id(row) for row in _TABLE]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    assert {row["family"] for row in _TABLE} == set(FAMILIES)
    # the floor: at least 100 right symbolic steps across the families
    assert sum(len(row["steps"]) for row in _TABLE) >= 100
    for family in FAMILIES:
        rows = [row for row in _TABLE if row["family"] == family]
        slips = [row for row in rows if "slip" in row]
        assert len(rows) >= 5, family
        # a family with no planted slip could not catch a checker that never flags it
        assert slips, family
        if family not in _ABSTAINING:
            assert len(slips) >= 3, family
        for row in slips:
            assert row["slip"]["quote"] in row["slip"]["text"], _id(row)


@pytest.mark.parametrize("row", RIGHT)
def test_right_chain_not_flagged(calc, row):
    verdicts = calc.check_steps(row["steps"], row.get("question", ""))
    flagged = [
        (step, v.evidence)
        for step, v in zip(row["steps"], verdicts, strict=True)
        if str(v.status) == "incorrect"
    ]
    assert not flagged, flagged


@pytest.mark.parametrize("row", SLIPS)
def test_planted_slip_flagged(calc, row):
    steps = _slipped(row)
    verdicts = calc.check_steps(steps, row.get("question", ""))
    before = [(s, v.evidence) for s, v in zip(steps, verdicts, strict=True)][:-1]
    assert all(str(v.status) != "incorrect" for v in verdicts[:-1]), before
    last = verdicts[-1]
    assert str(last.status) == "incorrect", (steps[-1], str(last.status), last.evidence)
    assert _loose(row["slip"]["quote"]) in _loose(last.evidence), last.evidence


def test_most_planted_slips_are_reached():
    """The share of planted slips the checker reaches (rows without `missed`; each row's own
    test proves it flagged or, strictly, missed): at least 90%, what issue 67 asks."""
    slips = [row for row in _TABLE if "slip" in row]
    reached = [row for row in slips if "missed" not in row]
    assert len(reached) / len(slips) >= 0.90, f"{len(reached)} of {len(slips)}"
