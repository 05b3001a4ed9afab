"""tcmalloc and Intel OpenMP preloaded into CPU engine processes (pipelines/engine/preload.py)."""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

import pytest

from pipelines.engine import preload
from tests.conftest import require


def _fake_env(tmp_path, tcmalloc: bool, iomp: bool) -> str:
    lib = tmp_path / "env" / "lib"
    lib.mkdir(parents=True)
    if tcmalloc:
        (lib / "libtcmalloc_minimal.so.4").write_bytes(b"")
    if iomp:
        (lib / "libiomp5.so").write_bytes(b"")
    return str(tmp_path / "env")


def test_finds_both_in_the_environment_on_x86(tmp_path):
    prefix = _fake_env(tmp_path, tcmalloc=True, iomp=True)
    libs = preload.find_libs(prefix, machine="x86_64")
    assert libs["iomp"] == f"{prefix}/lib/libiomp5.so"
    # The environment's lib/ is searched first, so its tcmalloc wins over the system's.
    assert libs["tcmalloc"] == f"{prefix}/lib/libtcmalloc_minimal.so.4"


def test_intel_openmp_only_on_x86(tmp_path):
    prefix = _fake_env(tmp_path, tcmalloc=True, iomp=True)
    assert preload.find_libs(prefix, machine="aarch64")["iomp"] is None


def test_env_puts_tcmalloc_first_and_drops_another_openmp():
    libs = {"tcmalloc": "/a/libtcmalloc_minimal.so.4", "iomp": "/v/lib/libiomp5.so"}
    env = preload.preload_env(libs, "/t/torch/lib/libgomp.so.1:/x/libother.so:/v/lib/libiomp5.so")
    assert env["LD_PRELOAD"] == "/a/libtcmalloc_minimal.so.4:/v/lib/libiomp5.so:/x/libother.so"
    assert env["KMP_BLOCKTIME"] == preload.KMP_BLOCKTIME_MS


def test_env_keeps_gnu_openmp_without_intel_and_is_empty_without_libs():
    env = preload.preload_env({"tcmalloc": "/a/libtcmalloc.so.4", "iomp": None}, "/t/libgomp.so.1")
    assert env == {"LD_PRELOAD": "/a/libtcmalloc.so.4:/t/libgomp.so.1"}
    assert preload.preload_env({"tcmalloc": None, "iomp": None}, "/t/libgomp.so.1") == {}


def test_missing_advice_names_the_package():
    assert "libtcmalloc-minimal4" in preload.missing_advice({"tcmalloc": None, "iomp": "/i"})
    assert "intel-openmp" in preload.missing_advice({"tcmalloc": "/t", "iomp": None}, "x86_64")
    assert preload.missing_advice({"tcmalloc": "/t", "iomp": None}, "aarch64") is None
    assert preload.missing_advice({"tcmalloc": "/t", "iomp": "/i"}) is None


def test_loaded_reads_the_process_maps(tmp_path):
    maps = tmp_path / "maps"
    maps.write_text("7f00-7f01 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4\n"
                    "7f02-7f03 r-xp 0 08:01 2 /venv/lib/libiomp5.so\n")  # fmt: skip
    assert preload.loaded(str(maps)) == ["tcmalloc", "Intel OpenMP"]
    assert preload.describe(preload.loaded(str(maps))) == "tcmalloc + Intel OpenMP preloaded"
    assert preload.loaded(str(tmp_path / "missing")) == []
    assert preload.labels({"tcmalloc": "/t", "iomp": "/i"}) == ["tcmalloc", "Intel OpenMP"]
    assert preload.labels({"tcmalloc": "/t", "iomp": None}) == ["tcmalloc"]
    assert preload.describe([]) == "system malloc, GNU OpenMP"


def test_pool_env_follows_the_decision(monkeypatch):
    from pipelines.engine.placement import node_preload_env, resolve_preload

    monkeypatch.setattr(preload, "find_libs", lambda: {"tcmalloc": "/t/libtcmalloc.so.4",
                                                       "iomp": None})  # fmt: skip
    env, advice, node = resolve_preload("", True)  # what the task on each node runs
    assert env["LD_PRELOAD"].startswith("/t/libtcmalloc.so.4") and node == ""
    assert env[preload.REASON_ENV] == "set by engine.preload"
    assert advice and "Intel OpenMP" in advice
    # Off: no library, no advice, but the engine still learns why.
    env, advice, _ = resolve_preload("/x/libother.so", False)
    assert env == {preload.REASON_ENV: "set by engine.preload"} and advice is None
    # Not a vLLM engine: nothing to decide, no task runs.
    assert node_preload_env(SimpleNamespace(kind="simulated", preload=True), ["n1"]) == {}


def test_decide_prefers_a_measurement_then_the_family_rule(tmp_path):
    assert preload.decide(False, "AuthenticAMD", "avx512_bf16", "k", tmp_path).preload is False
    rule = preload.decide(None, "AuthenticAMD", "avx512_bf16", "k", tmp_path)
    assert rule.preload is True and rule.reason.startswith("rule for AuthenticAMD avx512_bf16")
    unknown = preload.decide(None, "SomeVendor", "avx2", "k", tmp_path)
    assert unknown.preload is True and "not measured" in unknown.reason
    path = preload.calibration_path("k", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"preload": {"preload": False, "with_tok_s": 300.4,
                                            "without_tok_s": 320.0, "runs": 3,
                                            "measured_at": "2026-11-25"}}))  # fmt: skip
    got = preload.decide(None, "AuthenticAMD", "avx512_bf16", "k", tmp_path)
    assert got.preload is False
    assert got.reason == ("measured on this machine 2026-11-25: 300 tok/s preloaded, 320 "
                          "without (3 runs each)")
    path.write_text("{not json")  # a broken file is no measurement: the rule decides
    assert preload.decide(None, "AuthenticAMD", "avx512_bf16", "k", tmp_path) == rule


def _report_loaded() -> list[str]:
    return preload.loaded()


@pytest.mark.ray
def test_a_ray_actor_started_with_the_env_has_them_mapped(ray_runtime):
    """What the pool does for CPU engines, on a real Ray worker process: the libraries a task
    on the engine's node finds are mapped in the actor, and an actor without the env has
    neither."""
    require(bool(preload.find_libs()["tcmalloc"]), "tcmalloc",
            "apt-get install -y libtcmalloc-minimal4")
    import ray

    from pipelines.engine.placement import node_preload_env

    node = ray.get_runtime_context().get_node_id()
    env = node_preload_env(SimpleNamespace(kind="vllm", preload=True), [node])[node]
    assert env[preload.REASON_ENV] == "set by engine.preload"
    probe = ray.remote(num_cpus=0)(_report_loaded)
    with_env = ray.get(probe.options(runtime_env={"env_vars": env}).remote())
    without = ray.get(probe.remote())
    libs = preload.find_libs()
    assert with_env == ["tcmalloc"] + (["Intel OpenMP"] if libs["iomp"] else [])
    assert with_env == preload.labels(libs)
    assert "tcmalloc" not in without
    assert "libtcmalloc" not in os.environ.get("LD_PRELOAD", "")  # the driver is untouched
