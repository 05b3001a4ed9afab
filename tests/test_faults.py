"""Faults a nightly job meets: a killed driver, dead actors, a full disk.

(Corrupt/truncated shards and fuzzed input rows are in test_label_job.py.)
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import polars as pl
import psutil
import pytest

from pipelines.label.app import run
from tests.conftest import ROOT, compose, require

JOB = ["engine=simulated", "labels=[answer]", "sampler.n=2"]


def _cli(out: Path, *overrides: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "pipelines.label.app", *JOB, "ray=inprocess",
           f"output.dir={out}", *overrides]
    return subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _assert_exactly_once(out: Path, problems: int, n: int) -> pl.DataFrame:
    manifest = json.loads((out / "manifest.json").read_text())
    files = [out / s["path"] for s in manifest["shards"]]
    df = pl.read_parquet(files)
    c = manifest["counts"]
    assert c["problems_in"] == problems == c["problems_labeled"] + c["problems_quarantined"]
    # every problem is labeled or quarantined (e.g. as a duplicate), and each appears once
    assert df["problem_id"].n_unique() == c["problems_labeled"] > 0.9 * problems
    assert df.height == c["problems_labeled"] * n == df["chain_id"].n_unique()  # exactly once
    return df


@pytest.mark.app
def test_sigkill_driver_then_resume(tmp_path):
    args = ("dataset.limit=3000", "dataset.count=3000", "output.problems_per_unit=100",
            "engine.simulated_delay_s=0.05")
    clean = _cli(tmp_path / "clean", *args)
    assert clean.wait(timeout=300) == 0, clean.stderr.read().decode()[-2000:]

    out = tmp_path / "killed"
    proc = _cli(out, *args)
    deadline = time.monotonic() + 120
    while len(list((out / "units").glob("unit-*.json"))) < 5:
        assert proc.poll() is None, "the job ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (out / "manifest.json").exists()
    done_before = len(list((out / "units").glob("unit-*.json")))
    assert 5 <= done_before < 30

    again = _cli(out, *args)
    assert again.wait(timeout=300) == 0, again.stderr.read().decode()[-2000:]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["units_reused"] >= done_before - 1  # the unit being written may be redone
    _assert_exactly_once(out, 3000, 2)
    ref = json.loads((tmp_path / "clean" / "manifest.json").read_text())
    assert [s["sha256"] for s in manifest["shards"]] == [s["sha256"] for s in ref["shards"]]
    assert not list(out.rglob(".*.tmp-*"))  # nothing half-written is left behind


def _killer(out: Path, targets: list[str], killed: list[str]) -> threading.Thread:
    """A thread that SIGKILLs one process per target (by its Ray process title), the first
    after one finished unit and each next one three units later."""

    def kill() -> None:
        deadline = time.monotonic() + 120
        while targets and time.monotonic() < deadline:
            if len(list((out / "units").glob("unit-*.json"))) >= 1 + len(killed) * 3:
                for p in psutil.process_iter(["cmdline"]):
                    cmd = " ".join(p.info["cmdline"] or [])
                    if cmd.startswith(targets[0]):
                        os.kill(p.pid, signal.SIGKILL)
                        killed.append(targets.pop(0))
                        break
            time.sleep(0.05)

    thread = threading.Thread(target=kill, daemon=True)
    thread.start()
    return thread


@pytest.mark.ray
def test_dead_engine_and_label_actors_are_restarted(tmp_path, ray_runtime):
    out = tmp_path / "out"
    cfg = compose([*JOB, "ray=local", "ray.num_cpus=2", "dataset.limit=600",
                   "output.problems_per_unit=50", "engine.simulated_delay_s=0.3",
                   f"output.dir={out}"])
    killed: list[str] = []
    thread = _killer(out, ["ray::SimulatedEngine", "ray::UnitLabeler"], killed)
    run(cfg)
    thread.join(timeout=5)
    assert killed == ["ray::SimulatedEngine", "ray::UnitLabeler"]
    _assert_exactly_once(out, 600, 2)


@pytest.mark.ray
def test_a_restarted_labeler_finds_the_engines_for_its_rollouts(tmp_path, ray_runtime):
    """A labeler's copy of the engine pool carries the engines' names, not their handles;
    the restarted labeler looks them up again and its rollouts go on."""
    out = tmp_path / "out"
    # The absolute rule probes whatever the completer's self-confidence (the simulated
    # engine never reaches the answer, so `fall` would rightly make no rollouts at all).
    cfg = compose(["engine=simulated", "labels=[answer,mc]", "labels/mc=absolute",
                   "labels.mc.k=2", "sampler.n=2",
                   "ray=local", "ray.num_cpus=2", "ray.label_actors=1", "dataset.limit=100",
                   "output.problems_per_unit=25", "engine.simulated_delay_s=0.02",
                   f"output.dir={out}"])  # fmt: skip
    killed: list[str] = []
    thread = _killer(out, ["ray::UnitLabeler"], killed)
    manifest = run(cfg)
    thread.join(timeout=5)
    assert killed == ["ray::UnitLabeler"]
    assert manifest["retries"]["labelers_restarted"] == 1
    df = _assert_exactly_once(out, 100, 2)
    assert df["mc_rollouts"].list.sum().min() > 0  # every chain got rollouts, after too


def _mount_tmpfs(path: Path, size: str) -> bool:
    path.mkdir()
    ok = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                        capture_output=True).returncode == 0
    return ok


@pytest.mark.app
def test_disk_full_fails_cleanly(tmp_path):
    disk = tmp_path / "disk"
    require(_mount_tmpfs(disk, "600k"), "a small tmpfs mount for the disk-full test",
            "run as root (CI does)")
    try:
        out = disk / "out"
        proc = _cli(out, "dataset.limit=4000", "dataset.count=4000", "output.problems_per_unit=200")
        assert proc.wait(timeout=300) == 2
        err = proc.stderr.read().decode()
        assert "no space left on the device" in err and "Traceback" not in err
        assert not (out / "manifest.json").exists()
        assert not list(out.rglob(".*.tmp-*"))
        # Every unit that has a record is whole: a resume can trust it.
        from labeling.shards import DatasetDir

        d = DatasetDir(out)
        records = d.done_units()
        assert records, "no unit finished before the disk filled; make the disk larger"
        assert all(d.verify_unit(r) == "" for r in records.values())
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
