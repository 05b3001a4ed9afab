"""docs/labels.md's tables of examples are executable: every row of the policies' table is
checked against labeling.combine, every row of the Monte Carlo rules' table against
labeling.mc, so the documented semantics and the code cannot drift apart."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from labeling.combine import combine
from labeling.mc import METHODS, ChainFacts, method
from labeling.schema import AfterError, Status, StepVerdict

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


# --- Monte Carlo: the rules' table ---------------------------------------------------------

OUTCOMES = {"+": True, "-": False, "?": None}


def _mc_rows() -> list[list[str]]:
    text = DOC.read_text()
    table = text.split("<!-- mc-examples:start -->")[1].split("<!-- mc-examples:end -->")[0]
    lines = [ln for ln in table.strip().splitlines() if ln.startswith("|")][2:]
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]


def _value(text: str) -> object:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def test_the_mc_table_has_examples_of_every_rule():
    rows = _mc_rows()
    assert len(rows) >= 12
    assert {r[0] for r in rows} == set(METHODS)


@pytest.mark.parametrize("row", _mc_rows(), ids=lambda r: f"{r[0]}:{r[1]}:{r[3]}")
def test_documented_mc_example(row):
    rule_name, options, confidence, rollouts, answer, expected = row
    opts = dict(part.split("=") for part in filter(None, (p.strip() for p in options.split(","))))
    after = opts.pop("after_error", "negative")
    sampled = opts.pop("sampled", "no") == "yes"  # the completer wrote the chain (posterior)
    settings = {k: _value(v) for k, v in opts.items()}
    # `posterior` chooses its own probes (its bisection); the other rules run every step
    if "estimator" in {f.name for f in dataclasses.fields(METHODS[rule_name])}:
        settings.setdefault("estimator", "per_step")
    mc = method(rule_name, **settings)
    successes, asked = (int(x) for x in confidence.split("/"))
    steps = [s.strip().replace("∅", "") for s in rollouts.strip("`").split("·")]
    outcome = answer == "right"
    # the table's self-confidence is the problem's, this chain's outcome in it when sampled
    base = (successes - int(sampled and outcome), asked - int(sampled))
    est = mc.search(ChainFacts(len(steps) + 1, outcome, base, sampled, AfterError(after)))
    used = [0] * len(steps)
    while est.pending():
        for probe in est.pending():
            got = steps[probe.step][used[probe.step]:used[probe.step] + probe.n]
            assert len(got) == probe.n, f"step {probe.step} asks for more than the table gives"
            used[probe.step] += probe.n
            est.record(probe.step, [OUTCOMES[c] for c in got])
    assert used == [len(s) for s in steps], "the rule stopped before the table's last rollout"
    assert [v.label for v in est.verdicts()] == [LABELS[x] for x in expected.strip("`")]
