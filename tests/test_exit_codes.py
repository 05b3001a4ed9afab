"""Exit statuses a scheduler can act on (docs/nightly.md keeps the table): 0 done, 2 the
configuration, 3 too many problems quarantined, 130 interrupted with a line saying what is
kept, 1 anything else with its reason as the last line."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import run_app

QUICK = ["engine=simulated", "output.report=false"]


def dump(tmp_path: Path, good: int, bad: int) -> Path:
    path = tmp_path / "dump.jsonl"
    lines = [json.dumps({"question": f"What is {i} + 2?", "answer": str(i + 2)})
             for i in range(good)] + ["not json"] * bad
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.app
def test_a_run_whose_every_problem_is_quarantined_exits_3(tmp_path):
    out = tmp_path / "out"
    proc = run_app("prm-label", [*QUICK, "ray=inprocess", "dataset=generic",
                                 f"dataset.path={dump(tmp_path, 0, 2)}", f"output.dir={out}"],
                   tmp_path)
    assert proc.returncode == 3, proc.stderr[-2000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("prm-label: error: all 2 problems were quarantined"), last
    assert json.loads((out / "manifest.json").read_text())["counts"]["problems_quarantined"] == 2


@pytest.mark.app
@pytest.mark.parametrize(("most", "status"), [("0.2", 3), ("0.5", 0)])
def test_the_quarantined_share_a_run_may_have_is_the_users(tmp_path, most, status):
    proc = run_app("prm-label", [*QUICK, "ray=inprocess", "dataset=generic",
                                 f"dataset.path={dump(tmp_path, 2, 1)}",
                                 f"output.dir={tmp_path / 'out'}",
                                 f"output.max_quarantined_share={most}"], tmp_path)
    assert proc.returncode == status, proc.stderr[-2000:]
    if status:
        assert "1 of 3 problems quarantined (33%), above output.max_quarantined_share=0.2" in \
            proc.stderr.strip().splitlines()[-1]


@pytest.mark.app
@pytest.mark.parametrize(("sig", "ray"), [
    (signal.SIGINT, "ray=inprocess"), (signal.SIGTERM, "ray=inprocess"),
    pytest.param(signal.SIGTERM, "ray=local", marks=pytest.mark.ray),  # ray.init's own handler
])
def test_an_interrupted_run_exits_130_with_one_line_and_resumes(tmp_path, sig, ray):
    out = tmp_path / "out"
    args = [*QUICK, ray, "ray.num_cpus=2", "dataset.limit=null", "dataset.count=400", "sampler.n=8",
            "output.problems_per_unit=8", f"output.dir={out}"]
    proc = subprocess.Popen([str(Path(sys.executable).with_name("prm-label")), *args],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 120
    while not list((out / "units").glob("*.json")) and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err
    kept = len(list((out / "units").glob("*.json")))
    assert 0 < kept < 50  # stopped before the end: 400 problems are 50 units
    last = err.strip().splitlines()[-1]
    unit = "unit is" if kept == 1 else "units are"
    assert last == (f"prm-label: interrupted: {kept} finished {unit} kept in {out}; "
                    "run the same command to resume"), last
    again = run_app("prm-label", args, tmp_path)
    assert again.returncode == 0, again.stderr[-2000:]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["units_reused"] == kept and manifest["units"] == 50


@pytest.mark.app
def test_anything_else_exits_1_with_its_reason_last(tmp_path):
    broken = tmp_path / "broken.parquet"
    broken.write_text("not parquet")
    proc = run_app("prm-label", [*QUICK, "ray=inprocess", "dataset=generic",
                                 f"dataset.path={broken}",
                                 f"output.dir={tmp_path / 'out'}"], tmp_path)
    assert proc.returncode == 1, proc.stderr[-2000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("prm-label: error: ArrowInvalid: "), last
