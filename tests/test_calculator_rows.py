"""Real step strings with the calculator's expected verdict (a regression table).

The table lives in `tests/data/calculator_rows.jsonl`, one row per line: `table`, `source`,
`text`, `expected`. Table `rows`: `gsm8k-train` lines (correct calculator annotations),
ProcessBench dev steps that humans marked as the first error and that hold a false claim
(`incorrect`), and steps of chains humans judged all-correct that carry the traps (rounding,
percentages, units, LaTeX, labels): those must never be `incorrect`. Copied from
/work/shared/data; short enough to ship.

Table `families`: the misread families found reading the flags on independent text
(GSM8K/MATH train, BiRM, OmegaPRM, Math-Shepherd, PRM800K samples) and named in issue 10.
Each family: rows that must not be `incorrect` (the text is right or cannot be read with
certainty), and rows with a real error of the same shape that must still be `incorrect`.
"birm-*", "math-train-*" and "gsm8k-train-*" rows are verbatim; "family-*" rows are written in
the style of model chains.
"""

import json
from pathlib import Path

import pytest

_PATH = Path(__file__).parent / "data" / "calculator_rows.jsonl"
_TABLE = [json.loads(line) for line in _PATH.read_text().splitlines()]
ROWS = [(r["source"], r["text"], r["expected"]) for r in _TABLE if r["table"] == "rows"]
FAMILIES = [
    (r["source"], r["text"], r["expected"]) for r in _TABLE if r["table"] == "families"
]

# What each written family stands for.
FAMILY_NOTES = {
    "family-ordinal": 'ordinal positions are not operands: "1st - 5 = 6th"',
    "family-list": 'a list in prose is not one chained equation: "1 + 2, 3 + 4 = 3, 7"',
    "family-implicit-divisor": "an implicit product right after a divisor reads two ways",
    "family-recovered-pi": "a slip the chain recovers from, with pi or roots",
    "family-scale": "a scale word in the step: the numbers are in thousands (or millions)",
    "family-display": "a display line that takes an earlier product up again is new work",
    "family-tag": 'an equation tag after an equation is not a factor: "2x = 10 (2)"',
    "family-notation": "residues and numbers in another base are not plain values",
    "family-label": 'a numbered label and a dash open a heading: "Day 3 - 5 + 2 = 7"',
    "family-truncated": "a generation cut inside a display may have cut its last number",
}


def test_table_holds_every_verdict_kind():
    # each status is exercised by some row (a table of only `correct` rows could not catch
    # a calculator that never flags anything)
    assert {row[2] for row in ROWS} == {"correct", "incorrect", "unverifiable"}


def test_every_family_has_a_true_error_still_flagged():
    families = {row[0] for row in FAMILIES if row[0].startswith("family-")}
    flagged = {row[0] for row in FAMILIES if row[2] == "incorrect"}
    assert families and families <= flagged and families <= set(FAMILY_NOTES)


@pytest.mark.parametrize(
    ("source", "text", "expected"), ROWS + FAMILIES, ids=[r[0] for r in ROWS + FAMILIES]
)
def test_real_step(calc, source, text, expected):
    verdict = calc.check_steps([text])[0]
    assert str(verdict.status) == expected, verdict.evidence
    if expected == "incorrect":
        assert "claimed" in verdict.evidence and "true" in verdict.evidence
