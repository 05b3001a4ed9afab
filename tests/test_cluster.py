"""The job against an existing Ray cluster: `ray start --head`, then `ray.address=...`, and
the same job as a Ray Job submission. Token authentication is on, as Ray now defaults to, with a
token of the test's own (a fresh machine has no ~/.ray/auth_token, and `ray start` does not
make one); the cluster has its own ports and temp dir and is stopped by its own process ids
(`tests/ray_nodes.py`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.ray_nodes import RAY, RayCluster

pytestmark = [pytest.mark.ray, pytest.mark.app]

JOB = ["engine=simulated", "ray=cluster", "ray.label_actors=1", "labels=[answer]",
       "dataset.limit=40"]


@pytest.fixture
def cluster():
    ray = RayCluster()
    try:
        ray.start("head", 2, "{}", head=True, extra=("--include-dashboard=true",))
        yield ray.env, ray.address, ray.dashboard
    finally:
        ray.stop()  # its own processes, by pid: never `ray stop --force`


def _rows(out: Path) -> int:
    return json.loads((out / "manifest.json").read_text())["counts"]["rows"]


def test_job_joins_a_running_cluster_and_runs_as_a_ray_job(cluster, tmp_path):
    env, address, api = cluster
    out = tmp_path / "direct"
    subprocess.run(
        [sys.executable, "-m", "pipelines.label.app", *JOB, f"ray.address={address}",
         f"output.dir={out}"],
        cwd=ROOT, env=env, check=True, capture_output=True, timeout=300,
    )
    assert _rows(out) == 160

    out = tmp_path / "submitted"
    job = subprocess.run(
        [RAY, "job", "submit", "--address", api, "--working-dir", str(ROOT),
         "--runtime-env-json", json.dumps({"excludes": [".venv", "runs", ".git"]}),
         "--", sys.executable, "-m", "pipelines.label.app", *JOB, "ray.address=auto",
         f"output.dir={out}"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert job.returncode == 0, job.stdout[-2000:] + job.stderr[-2000:]
    assert "succeeded" in job.stdout + job.stderr
    assert _rows(out) == 160
