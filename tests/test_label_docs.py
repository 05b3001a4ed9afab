"""docs/labels.md's table of examples is executable: every row is checked against
labeling.combine, so the documented semantics and the code cannot drift apart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from labeling.combine import combine
from labeling.schema import Status, StepVerdict

DOC = Path(__file__).resolve().parents[1] / "docs" / "labels.md"
CODES = {
    "c": StepVerdict(Status.CORRECT, True),
    "i": StepVerdict(Status.INCORRECT, False),
    "-": StepVerdict.unverifiable(),
    "t": StepVerdict(Status.TIMEOUT, None, None, "ran out of time"),
}
LABELS = {"T": True, "F": False, "-": None}


def _rows() -> list[list[str]]:
    text = DOC.read_text()
    table = text.split("<!-- examples:start -->")[1].split("<!-- examples:end -->")[0]
    lines = [ln for ln in table.strip().splitlines() if ln.startswith("|")][2:]  # no header
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]


def _verdicts(cell: str) -> dict[str, list[StepVerdict]]:
    return {name: [CODES[c] for c in codes]
            for name, codes in re.findall(r"(\w+) `([ci\-t]+)`", cell)}  # fmt: skip


def _options(cell: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for part in filter(None, (p.strip() for p in cell.split(","))):
        key, value = part.split("=")
        out[key] = tuple(value.split("+")) if key == "consensus" else value
    return out


def test_the_table_has_examples():
    assert len(_rows()) >= 20


@pytest.mark.parametrize("row", _rows(), ids=lambda r: f"{r[0]}:{r[2]}")
def test_documented_example(row):
    policy, options, verdicts, labels, first, kept = row
    vs = _verdicts(verdicts)
    n = len(next(iter(vs.values())))
    result = combine(vs, n, policy, **_options(options))
    assert result.labels == [LABELS[x] for x in labels.strip("`")]
    assert result.first_error_step == (None if first == "null" else int(first))
    assert result.keep == (kept == "yes")
