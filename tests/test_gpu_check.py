"""`benchmarks/gpu_check.py` in its CPU mode, on an interpreter that cannot import what the
GPU machine lacks (Ray, polars, vLLM, math-verify, the HTTP server stack)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ABSENT = ("ray", "polars", "vllm", "math_verify", "fastapi", "uvicorn", "starlette",
          "latex2sympy2", "latex2sympy2_extended")  # fmt: skip

# Runs before the script: a None entry in sys.modules is how Python marks a package absent
# (`import` raises ModuleNotFoundError, `importlib.util.find_spec` answers None).
BLOCKER = f"""
import runpy, sys
for name in {ABSENT!r}:
    sys.modules[name] = None
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def _blocked(*args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCKER, *args], cwd=ROOT, timeout=timeout,
                          capture_output=True, text=True, env={"PYTHONPATH": str(ROOT),
                                                               "PATH": "/usr/bin:/bin"})


def test_what_training_and_scoring_import_needs_none_of_the_absent_packages(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import pipelines.train.app, pipelines.train.loop, pipelines.scoring\n"
                     "import pipelines.reward.prm_reward\nprint('imported')\n")
    done = _blocked(str(probe), timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "imported" in done.stdout
    # The blocker bites: importing one of them does fail.
    (tmp_path / "ray_probe.py").write_text("import ray\n")
    assert "ModuleNotFoundError" in _blocked(str(tmp_path / "ray_probe.py")).stderr


@pytest.mark.train
@pytest.mark.slow
def test_gpu_check_runs_its_tiny_shapes_on_cpu(tmp_path):
    out = tmp_path / "check.json"
    done = _blocked("benchmarks/gpu_check.py", "--tiny", "--threads", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "tiny: prm-train" in done.stdout and "tiny: scorer" in done.stdout
    result = json.loads(out.read_text())
    assert result["device"] == "cpu"
    (shape,) = result["shapes"]
    figures = [shape["prm_train"]["tokens_per_s"], shape["plain"]["tokens_per_s"],
               shape["prm_train_vs_plain"], shape["scoring"]["scorer_vs_bare"],
               shape["scoring"]["reward_vs_bare"]]  # fmt: skip
    assert all(math.isfinite(x) and x > 0 for x in figures)
    assert 0 <= shape["prm_train"]["data_wait_share"] < 1
    assert 0 <= shape["prm_train"]["pad_share"] < 0.5  # packed: most of each row is chains
