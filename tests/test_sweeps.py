"""A sweep keeps every job: each job of `prm-label -m ...` writes its own dataset in a folder
named after its swept values, with the sweep in its manifest; `-m` may stand anywhere."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_app

QUICK = ["engine=simulated", "ray=inprocess", "dataset=starter_math", "dataset.limit=3",
         "sampler.n=2", "output.report=false"]


@pytest.mark.app
def test_each_job_of_a_sweep_writes_its_own_dataset(tmp_path):
    out = tmp_path / "sweep"
    proc = run_app("prm-label", [*QUICK, f"output.dir={out}", "-m",
                                 "sampler.temperature=0.6,1.0"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not (out / "manifest.json").exists()  # no job wrote into the sweep's own folder
    temps = {}
    for name in ("sampler.temperature=0.6", "sampler.temperature=1.0"):
        manifest = json.loads((out / name / "manifest.json").read_text())
        temps[name] = manifest["config"]["sampler"]["temperature"]
        assert manifest["sweep"]["swept"] == ["sampler.temperature"]
        assert name in manifest["sweep"]["overrides"]
        assert manifest["counts"]["rows"] == 6
    assert temps == {"sampler.temperature=0.6": 0.6, "sampler.temperature=1.0": 1.0}


@pytest.mark.app
def test_multirun_flag_may_follow_the_overrides(tmp_path):
    """`dataset.path` first: prm-label names the dataset from it and used to insert those
    overrides before `-m`, which Hydra's parser refused ("unrecognized arguments")."""
    data = tmp_path / "dump.jsonl"
    data.write_text('{"question": "What is 2 + 3?", "answer": "5"}\n')
    out = tmp_path / "sweep"
    proc = run_app("prm-label", ["dataset=generic", f"dataset.path={data}", "engine=simulated",
                                 "ray=inprocess", "output.report=false", f"output.dir={out}",
                                 "-m", "sampler.n=1,2"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = {n: json.loads((out / f"sampler.n={n}" / "manifest.json").read_text())["counts"]["rows"]
            for n in (1, 2)}
    assert rows == {1: 1, 2: 2}


@pytest.mark.app
def test_a_sweep_with_one_bad_job_stops_before_any_job_starts(tmp_path):
    out = tmp_path / "sweep"
    proc = run_app("prm-label", ["-m", *QUICK, f"output.dir={out}", "sampler.n=1,0"], tmp_path)
    lines = [x for x in proc.stderr.splitlines() if x.strip()]
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert lines == ["prm-label: error: sampler.n=0 must be > 0"]
    assert not out.exists()


def test_a_jobs_folder_is_named_by_its_swept_values_only():
    from pipelines.hydra_argv import sweep_name

    job = ["dataset=gsm8k", "sampler.temperature=0.6", "labels=[answer,mc]", "output.dir=x"]
    assert sweep_name(job, ["sampler.temperature"], 0) == "sampler.temperature=0.6"
    assert sweep_name(job, ["labels", "sampler.temperature"], 3) == \
        "labels=_answer,mc_,sampler.temperature=0.6"
    assert sweep_name(job, ["output.dir"], 2) == "job-2"  # the jobs are apart already
    assert sweep_name(["model.path=" + "m" * 200], ["model.path"], 5) == "job-5"
