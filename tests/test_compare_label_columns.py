"""`benchmarks/compare_label_columns.py` on run directories written by the real row and shard
code: identical runs pass, and a flipped label, a reworded evidence or a lost chain is found."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from labeling.rows import labeled_row
from labeling.schema import LABELED_SCHEMA, Chain, LabeledChain, Problem, Status, StepVerdict
from labeling.shards import atomic_write_table, rows_to_table

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "compare_label_columns.py"
_spec = importlib.util.spec_from_file_location("compare_label_columns", SCRIPT)
compare = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare)


def _row(pid: str, calc_first: bool = True, evidence: str = "2+2=4 holds") -> dict:
    problem = Problem(pid, "math", "unit", "What is 2+2?", "4")
    chain = Chain(pid, "c0", 0, "2+2 = 4\n\n\\boxed{4}", ("2+2 = 4", "\\boxed{4}"), "m", 7, 12)
    label = Status.CORRECT if calc_first else Status.INCORRECT
    verdicts = {
        "calc": [StepVerdict(label, calc_first, None, evidence), StepVerdict.unverifiable()],
        "answer": [StepVerdict.unverifiable(), StepVerdict(Status.CORRECT, True, 1.0, "ok")],
    }
    lc = LabeledChain(problem, chain, problem.question, verdicts, [calc_first, True],
                      -1 if calc_first else 0, "4", True)
    return labeled_row(lc, "verifier_first", "h")


def _run(root: Path, rows: list[dict]) -> Path:
    # Two shards, so reading "all shards" is exercised.
    for i, part in enumerate((rows[:1], rows[1:])):
        atomic_write_table(root / "shards" / f"part-{i:05d}.parquet",
                           rows_to_table(part, LABELED_SCHEMA))
    return root


def test_identical_runs_pass(tmp_path, capsys):
    a = _run(tmp_path / "a", [_row("p1"), _row("p2")])
    b = _run(tmp_path / "b", [_row("p2"), _row("p1")][::-1])
    assert compare.main([str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "2 chains (4 steps) in both" in out and out.rstrip().endswith("IDENTICAL")


def test_a_flipped_label_is_found_in_its_columns_only(tmp_path, capsys):
    a = _run(tmp_path / "a", [_row("p1"), _row("p2")])
    b = _run(tmp_path / "b", [_row("p1"), _row("p2", calc_first=False)])
    assert compare.main([str(a), str(b)]) == 1
    lines = {ln.split()[0]: ln for ln in capsys.readouterr().out.splitlines() if "differ" in ln}
    for col in ("calc_labels", "labels", "first_error_step", "verdicts"):
        assert "1 chains differ" in lines[col], col
    for col in ("answer_labels", "completions", "verdicts.evidence"):
        assert "0 chains differ" in lines[col], col


def test_reworded_evidence_and_a_lost_chain_are_reported(tmp_path, capsys):
    a = _run(tmp_path / "a", [_row("p1"), _row("p2"), _row("p3")])
    b = _run(tmp_path / "b", [_row("p1"), _row("p2", evidence="2 + 2 = 4 holds")])
    assert compare.main([str(a), str(b)]) == 1
    out = capsys.readouterr().out
    assert "1 chains only before" in out and "p3" in out
    lines = {ln.split()[0]: ln for ln in out.splitlines() if "differ" in ln}
    assert "1 chains differ" in lines["verdicts.evidence"]
    assert "0 chains differ" in lines["verdicts"] and "0 chains differ" in lines["calc_labels"]
