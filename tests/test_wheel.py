"""The package is the product: a wheel built from this checkout, installed where the source
tree is not, runs every app from a directory outside the repository.

The wheel is installed with `pip install --no-deps --target T` (code, config and console
scripts; the dependencies come from the test's own environment) and every app runs with
`PYTHONPATH=T` from a temporary directory. A child process first proves where its code and
config come from (T, not this checkout nor an editable install of it), so a pass cannot come
from the source tree.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from tests.apps import hydra_apps, scripts

ROOT = Path(__file__).resolve().parents[1]
# Every script of [project.scripts]; the Hydra ones by their declaration (tests/apps.py).
APPS = tuple(sorted(scripts()))
HYDRA_APPS = {name: app.config_name for name, app in hydra_apps().items()}

pytestmark = pytest.mark.slow  # the module fixture builds and installs a wheel


def _source_files() -> list[str]:
    """The checkout's files as a clone would have them (tracked + new, not ignored)."""
    proc = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-co", "--exclude-standard"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip("not a git checkout: cannot tell which files a clone holds")
    return [f for f in proc.stdout.splitlines() if (ROOT / f).is_file()]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """Build the wheel from a copy of the checkout and install it into a target folder."""
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    for rel in _source_files():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, src / rel)
    # No build isolation: the build uses this environment's setuptools instead of fetching
    # one from an index, so the test runs offline.
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", ".", "-w", str(base / "dist")], cwd=src, check=True,
                   capture_output=True, text=True)
    wheels = list((base / "dist").glob("prm_labeler-*.whl"))
    assert len(wheels) == 1, wheels
    target = base / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                    str(target), str(wheels[0])], check=True, capture_output=True, text=True)
    return target


def _env(target: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PRM_DATA_DIR")}
    env.update(PYTHONPATH=str(target), HYDRA_FULL_ERROR="1")
    return env


def _app(target: Path, app: str, args: list[str], cwd: Path, timeout: int = 300):
    return subprocess.run([str(target / "bin" / app), *args], cwd=cwd, env=_env(target),
                          capture_output=True, text=True, timeout=timeout)


def test_wheel_holds_every_yaml(installed):
    shipped = {p.relative_to(installed / "prm_conf") for p in
               (installed / "prm_conf").rglob("*.yaml")}
    source = {p.relative_to(ROOT / "conf") for p in (ROOT / "conf").rglob("*.yaml")}
    assert source and shipped == source


def test_wheel_holds_the_templates(installed):
    source = {p.relative_to(ROOT) for p in ROOT.glob("pipelines/**/*.j2")}
    assert source and all((installed / p).is_file() for p in source)


def test_wheel_holds_the_sandbox_script(installed):
    source = {p.relative_to(ROOT) for p in ROOT.glob("verifiers/sandbox/script/*.py")}
    assert len(source) == 5 and all((installed / p).is_file() for p in source)
    # script text, not modules: nothing of it is a package or an importable name
    assert not (installed / "verifiers/sandbox/script/__init__.py").exists()


def test_code_and_config_come_from_the_wheel(installed, tmp_path):
    probe = ("import json, pipelines, labeling, verifiers; from pipelines.confdir import CONF_DIR;"
             "print(json.dumps([pipelines.__file__, labeling.__file__, verifiers.__file__,"
             " CONF_DIR]))")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=_env(installed),
                          capture_output=True, text=True, check=True)
    paths = json.loads(proc.stdout.strip().splitlines()[-1])
    for p in paths:
        assert Path(p).resolve().is_relative_to(installed.resolve()), paths
    assert Path(paths[-1]).name == "prm_conf"


@pytest.mark.ray
@pytest.mark.app
def test_prm_label_from_outside_the_repo_writes_shards(installed, tmp_path):
    out = tmp_path / "run"
    proc = _app(installed, "prm-label",
                ["debug=fast", "engine=simulated", f"output.dir={out}", "output.report=false"],
                cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    manifest = json.loads((out / "manifest.json").read_text())
    c = manifest["counts"]
    assert c["problems_in"] == 4 and c["problems_in"] == c["problems_labeled"] + \
        c["problems_quarantined"]
    shards = list((out / "shards").glob("*.parquet"))
    assert shards and c["rows"] > 0
    import pyarrow.parquet as pq

    assert sum(pq.read_metadata(s).num_rows for s in shards) == c["rows"]


@pytest.mark.app
@pytest.mark.parametrize("app", APPS)
def test_every_app_starts_from_outside_the_repo(installed, tmp_path, app):
    proc = _app(installed, app, ["--help"], cwd=tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Primary config directory not found" not in proc.stderr
    if app in HYDRA_APPS:
        # `--cfg job` composes the app's primary config from the installed package.
        job = _app(installed, app, ["--cfg", "job"], cwd=tmp_path, timeout=180)
        assert job.returncode == 0, job.stderr[-3000:]
        assert job.stdout.strip(), app
    else:
        assert f"usage: {app}" in proc.stdout


@pytest.mark.app
def test_user_config_dir_adds_a_group_option(installed, tmp_path):
    """A user's folder adds `sampler=tiny` beside the shipped options, both ways Hydra offers."""
    user = tmp_path / "myconf"
    (user / "sampler").mkdir(parents=True)
    (user / "sampler" / "tiny.yaml").write_text("n: 3\nmax_tokens: 17\n")
    for args in (["--config-dir", str(user)], [f"hydra.searchpath=[file://{user}]"]):
        proc = _app(installed, "prm-label", [*args, "sampler=tiny", "--cfg", "job"],
                    cwd=tmp_path, timeout=180)
        assert proc.returncode == 0, proc.stderr[-3000:]
        sampler = OmegaConf.create(proc.stdout).sampler
        assert (sampler.n, sampler.max_tokens) == (3, 17)
    # The shipped options stay reachable beside the user's.
    proc = _app(installed, "prm-label", ["--config-dir", str(user), "sampler=greedy", "--cfg",
                                          "job"], cwd=tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    sampler = OmegaConf.create(proc.stdout).sampler
    assert (sampler.n, sampler.temperature) == (1, 0.0)
