"""A look before spending: `dry_run=true` reads and checks the input, plans the units against
the output dir and `output.previous`, prints what it would label and reuse with an estimate,
and stops without an engine or a written file. A run says the same at start, and its
progress lines count units and problems of the totals with an ETA from the first line."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_app

PROBLEMS = [{"problem": f"What is {i} + {i + 1}?", "gold": str(2 * i + 1)} for i in range(12)]


def dump(path, problems):
    path.write_text("\n".join([json.dumps(p) for p in problems] + ["not json"]) + "\n")
    return path


def label(tmp_path, data, out, *extra):
    return run_app("prm-label", ["dataset=generic", "dataset.fields.question=problem",
                                 "dataset.fields.answer=gold", f"dataset.path={data}",
                                 "engine=simulated", "ray=inprocess", "output.report=false",
                                 "output.problems_per_unit=4", f"output.dir={out}", *extra],
                   tmp_path)


@pytest.mark.app
def test_a_dry_run_plans_and_estimates_without_starting_anything(tmp_path):
    out = tmp_path / "v1"
    proc = label(tmp_path, dump(tmp_path / "d1.jsonl", PROBLEMS), out, "dry_run=true")
    assert proc.returncode == 0, proc.stderr[-3000:]
    said = proc.stdout
    assert "input: 13 records: 12 problems, 1 quarantined at load (line is not valid JSON" in said
    assert "units: 4 of at most 4 problems: 0 already done" in said
    assert "4 to label with 12 problems" in said
    assert "estimate: 48 chains, at most" in said and "no time estimate" in said
    assert "engine: starting" not in said + proc.stderr
    assert not out.exists()  # neither the dataset, its lock nor Hydra's folder


@pytest.mark.app
def test_a_dry_run_of_a_refresh_says_what_it_reuses_with_the_measured_speed(tmp_path):
    first = label(tmp_path, dump(tmp_path / "d1.jsonl", PROBLEMS[:8]), tmp_path / "v1")
    assert first.returncode == 0, first.stderr[-3000:]
    proc = label(tmp_path, dump(tmp_path / "d2.jsonl", PROBLEMS), tmp_path / "v2",
                 f"output.previous={tmp_path / 'v1'}", "dry_run=true")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"copied whole and 0 in part from {tmp_path / 'v1'}" in proc.stdout
    assert "to label with 4 problems" in proc.stdout
    assert "estimate: 16 chains, ~" in proc.stdout
    assert f"tok/s measured by the run in {tmp_path / 'v1'}" in proc.stdout
    assert not (tmp_path / "v2").exists()


@pytest.mark.app
def test_progress_counts_units_and_problems_of_the_totals_from_the_first_line(tmp_path):
    proc = label(tmp_path, dump(tmp_path / "d1.jsonl", PROBLEMS), tmp_path / "v1",
                 "debug.log_every_s=3600")
    assert proc.returncode == 0, proc.stderr[-3000:]
    log = proc.stdout + proc.stderr
    assert "units: 4 of at most 4 problems: 0 already done" in log  # said at start
    first = next(line for line in log.splitlines() if " units, " in line)
    assert "1/4 units, " in first and "/13 problems" in first and "ETA" in first
