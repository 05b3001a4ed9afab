"""The markers' guard (tests/tiers.py): a planted test file run by pytest in a subprocess, whose
unmarked starts must fail and whose marked ones must pass."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.tiers import KINDS, SLOW_AFTER_S, _command_kind, _scripts

ROOT = Path(__file__).resolve().parents[1]

# A console script's name at a path that does not exist: the guard judges the command by its
# name before the OS looks for it, so a marked test sees FileNotFoundError and nothing runs.
PLANTED = '''
import subprocess

import pytest

MISSING = "/nonexistent/prm-label"


def test_unmarked_ray_start():
    import ray

    try:
        ray.init(num_cpus=1, include_dashboard=False)
    finally:
        ray.shutdown()


def test_unmarked_app():
    subprocess.run([MISSING])


def test_unmarked_app_swallowed():
    try:
        subprocess.run([MISSING])
    except Exception:
        pass


@pytest.mark.app
def test_marked_app():
    with pytest.raises(FileNotFoundError):
        subprocess.run([MISSING])


@pytest.fixture(scope="module")
def started_app():
    with pytest.raises(FileNotFoundError):
        subprocess.run([MISSING])


@pytest.mark.app
def test_marked_fixture_user(started_app):
    pass


def test_unmarked_fixture_user(started_app):
    pass
'''


def _outcomes(report: Path) -> dict[str, tuple[str, str]]:
    """{test name: (passed | failed | error, message)} from a junit XML report."""
    out = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        outcome = "passed" if bad is None else bad.tag.replace("failure", "failed")
        out[case.get("name", "")] = (outcome, "" if bad is None else bad.get("message", ""))
    return out


def test_guard_fails_unmarked_starts_and_passes_marked_ones(tmp_path):
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"][
        "ini_options"]["markers"]
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\naddopts = --strict-markers\nmarkers =\n"
        + "".join(f"    {m}\n" for m in markers))
    (tmp_path / "test_planted.py").write_text(PLANTED)
    report = tmp_path / "report.xml"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.tiers", "-p", "no:cacheprovider",
         f"--junitxml={report}", "test_planted.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert report.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    got = _outcomes(report)
    assert {name: outcome for name, (outcome, _) in got.items()} == {
        "test_unmarked_ray_start": "failed",
        "test_unmarked_app": "failed",
        "test_unmarked_app_swallowed": "failed",
        "test_marked_app": "passed",
        "test_marked_fixture_user": "passed",
        "test_unmarked_fixture_user": "error",
    }, proc.stdout[-3000:]
    assert "without @pytest.mark.ray" in got["test_unmarked_ray_start"][1]
    assert "without @pytest.mark.app" in got["test_unmarked_app_swallowed"][1]
    assert "['app']" in got["test_unmarked_fixture_user"][1]


def test_every_kind_is_a_registered_marker():
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"][
        "ini_options"]["markers"]
    assert set(KINDS) <= {m.split(":")[0] for m in markers}


@pytest.mark.parametrize(("args", "shell", "kind"), [
    (["/venv/bin/prm-label", "dataset=gsm8k"], False, "app"),
    ("prm-train --help", True, "app"),
    ([sys.executable, "-m", "pipelines.report.app", "dir=x"], False, "app"),
    ([sys.executable, "-m", "pytest", "x.py"], False, None),
    ([sys.executable, "-c", "print(1)"], False, None),
    (["/venv/bin/ray", "start", "--head"], False, "ray"),
    (["vllm", "serve", "ckpt"], False, "engine"),
    ([sys.executable, "-m", "pipelines.serve.vllm_cli", "serve", "ckpt"], False, "engine"),
    (["/usr/bin/chromium", "--headless"], False, "browser"),
    (["bwrap", "--unshare-all"], False, "sandbox"),
    (["bash", "-c", "prm-label dataset=gsm8k"], False, None),  # a script's text is not read
    (["git", "ls-files"], False, None),
])
def test_commands_are_judged_by_their_program(args, shell, kind):
    found = _command_kind(args, shell, _scripts())
    assert (found[0] if found else None) == kind


# The slow guard with a limit of half a CPU second (`slow_after_s`): the planted tests work
# past it (a sleep would not count: the guard reads CPU time).
PLANTED_SLOW = '''
import time

import pytest

PAST = 0.7


def work(seconds=PAST):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_unmarked_long():
    work()


def test_unmarked_short():
    pass


def test_unmarked_waiting():
    time.sleep(PAST)  # waits without working: a loaded machine looks like this


@pytest.mark.slow
def test_marked_slow():
    work()


@pytest.mark.app
def test_marked_by_what_it_starts():
    work()


@pytest.fixture(scope="module")
def long_setup():
    work()


def test_unmarked_long_fixture_user(long_setup):
    pass
'''


def test_slow_guard_fails_an_unmarked_long_test(tmp_path):
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"][
        "ini_options"]["markers"]
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\naddopts = --strict-markers\nslow_after_s = 0.5\nmarkers =\n"
        + "".join(f"    {m}\n" for m in markers))
    (tmp_path / "test_planted_slow.py").write_text(PLANTED_SLOW)
    report = tmp_path / "report.xml"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.tiers", "-p", "no:cacheprovider",
         f"--junitxml={report}", "test_planted_slow.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert report.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    got = _outcomes(report)
    assert {name: outcome for name, (outcome, _) in got.items()} == {
        "test_unmarked_long": "failed",
        "test_unmarked_short": "passed",
        "test_unmarked_waiting": "passed",
        "test_marked_slow": "passed",
        "test_marked_by_what_it_starts": "passed",
        "test_unmarked_long_fixture_user": "error",
    }, proc.stdout[-3000:]
    assert "without @pytest.mark.slow" in got["test_unmarked_long"][1]


def test_the_slow_limit_is_the_markers_minute():
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"][
        "ini_options"]["markers"]
    slow = next(m for m in markers if m.startswith("slow:"))
    assert "a minute or more" in slow and SLOW_AFTER_S == 60.0
