"""The job against an existing Ray cluster: `ray start --head`, then `ray.address=...`, and
the same job as a Ray Job submission. Token authentication is on, as Ray now defaults to, with a
token of the test's own (a fresh machine has no ~/.ray/auth_token, and `ray start` does not
make one)."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow

RAY = str(Path(sys.executable).with_name("ray"))
JOB = ["engine=simulated", "ray=cluster", "ray.label_actors=1", "labels=[answer]",
       "dataset.limit=40"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def cluster(tmp_path):
    token = tmp_path / "auth_token"
    token.write_text(secrets.token_hex(32))
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token)}
    port, dash = _free_port(), _free_port()
    head = subprocess.run(
        [RAY, "start", "--head", "--num-cpus=2", f"--port={port}", "--include-dashboard=true",
         f"--dashboard-port={dash}", "--disable-usage-stats"],
        env=env, capture_output=True, text=True, timeout=180,
    )
    assert head.returncode == 0, head.stdout[-2000:] + head.stderr[-2000:]
    try:
        yield env, f"127.0.0.1:{port}", f"http://127.0.0.1:{dash}"
    finally:
        subprocess.run([RAY, "stop", "--force"], env=env, capture_output=True, timeout=120)


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
