"""A normal run prints no error line: what a user sees of `make run` is the job's own lines.

Ray's C++ core writes its errors as `[time E pid tid] file.cc:line: ...`; one of them
("constructor arguments in the object store and max_restarts > 0") came from every run with
`mc` on, because each labeler actor was created with the engine pool, whose actor handles
Ray cannot keep for a restart. The run here is the first run's shape (answer, calc and MC
rollouts on Ray with restartable labelers) on the simulated engine, in a fresh process: Ray
logs that line once per process, so an earlier test's run must not hide it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

RAY_ERROR = re.compile(r"^\[[^\]]* E \d+ \d+\]|^\S+\.cc:\d+: ", re.M)


@pytest.mark.app
@pytest.mark.ray
def test_a_run_with_rollouts_on_ray_prints_no_error_line(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "pipelines.label.app", "engine=simulated", "ray=local",
         "ray.num_cpus=2", "ray.label_actors=2", "labels=[answer,calc,mc]", "labels/mc=absolute",
         "labels.mc.k=2",
         "dataset=starter_math", "dataset.limit=4", "sampler.n=2", "output.report=false",
         f"output.dir={out}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["rollouts"] > 0  # the labelers used their copy of the pool
    assert manifest["config"]["ray"]["max_restarts"] > 0  # the case Ray warns about
    assert not RAY_ERROR.findall(proc.stderr), proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
