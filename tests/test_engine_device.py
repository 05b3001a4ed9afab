"""Engine settings per device: dtype auto, threads, the environment vLLM starts with."""

from __future__ import annotations

import os

import pytest

from pipelines.engine import device

EPYC = frozenset({"avx512f", "avx512_vnni", "avx512_bf16"})  # bf16 without AMX
XEON_NO_BF16 = frozenset({"avx512f", "avx512_vnni"})
SAPPHIRE = frozenset({"avx512f", "avx512_bf16", "amx_bf16", "amx_tile"})


@pytest.mark.parametrize(
    ("flags", "faster"),
    [(EPYC, "bfloat16"), (SAPPHIRE, "bfloat16"), (XEON_NO_BF16, "float32"),
     (frozenset({"fp", "asimd", "bf16"}), "bfloat16"), (frozenset(), "float32")],
)  # fmt: skip
def test_auto_picks_float32_on_every_cpu_and_names_bf16_where_it_is_faster(flags, faster):
    """Reproducible by default: bf16 on CPU is not batch-invariant, so auto is float32; where
    the CPU has native bf16 the reason names the faster opt-in."""
    chosen, reason = device.choose_dtype("auto", False, flags, None, "AuthenticAMD")
    assert chosen == "float32"
    assert device.fastest_cpu_dtype(flags, "AuthenticAMD")[0] == faster
    if faster == "bfloat16":
        assert "native bf16" in reason and "model.dtype=bfloat16 is faster" in reason
    else:
        assert "no native bf16" in reason


def test_an_intel_cpu_with_avx512_bf16_but_no_amx_is_fastest_in_float32():
    # Measured there: bf16 decoded batches of 32-256 at 0.64-0.78x float32's rate; with AMX,
    # or on AMD's avx512_bf16, bf16 was the faster.
    chosen, reason = device.fastest_cpu_dtype(EPYC, "GenuineIntel")
    assert chosen == "float32" and "no AMX" in reason
    assert device.fastest_cpu_dtype(SAPPHIRE, "GenuineIntel")[0] == "bfloat16"
    assert device.fastest_cpu_dtype(EPYC, "AuthenticAMD")[0] == "bfloat16"


def test_only_batch_invariant_numerics_count_as_reproducible():
    assert device.batch_invariant("float32", False, None)
    assert not device.batch_invariant("bfloat16", False, None)
    assert device.batch_invariant("bfloat16", True, (8, 0))
    assert not device.batch_invariant("float16", True, (7, 5))
    opt_in = device.choose("bfloat16", 0, threads=1, flags=SAPPHIRE)
    assert not opt_in.batch_invariant and "NOT reproducible" in opt_in.describe()
    assert device.choose("auto", 0, threads=1, flags=SAPPHIRE).batch_invariant


def test_gpu_gets_bf16_unless_it_is_older_than_ampere():
    assert device.choose_dtype("auto", True, frozenset(), (8, 0))[0] == "bfloat16"
    assert device.choose_dtype("auto", True, frozenset(), None)[0] == "bfloat16"
    assert device.choose_dtype("auto", True, frozenset(), (7, 5))[0] == "float16"


def test_a_set_dtype_is_kept():
    assert device.choose_dtype("bfloat16", False, XEON_NO_BF16, None) == (
        "bfloat16", "set by model.dtype")  # fmt: skip


def test_cpu_flags_read_x86_and_arm_files(tmp_path):
    x86 = tmp_path / "x86"
    x86.write_text("processor\t: 0\nflags\t\t: fpu avx512f avx512_bf16\n\nflags\t: other\n")
    arm = tmp_path / "arm"
    arm.write_text("processor\t: 0\nFeatures\t: fp asimd bf16\n")
    assert device.cpu_flags(str(x86)) == {"fpu", "avx512f", "avx512_bf16"}
    assert "bf16" in device.cpu_flags(str(arm))
    assert device.cpu_flags(str(tmp_path / "missing")) == frozenset()


def test_choose_on_cpu_runs_the_core_in_process_with_the_cores_it_may_use():
    cores = device.visible_cores()
    c = device.choose("auto", 0, threads=0, flags=EPYC, vendor="AuthenticAMD")
    assert (c.device, c.dtype, c.in_process, c.threads) == ("cpu", "float32", True, cores)
    assert device.choose("auto", 0, threads=1, flags=EPYC).threads == 1
    assert device.choose("auto", 0, threads=10_000, flags=EPYC).threads == cores  # capped
    text = c.describe()
    assert "float32" in text and "in-process" in text and f"{cores} threads" in text
    # KV blocks of 32 tokens on CPU (prefix caching shares whole blocks) unless set.
    assert c.block_size == 32 and "KV blocks of 32 tokens" in text
    assert device.choose("auto", 0, threads=0, flags=EPYC, block_size=64).block_size == 64


def test_choose_on_gpu_keeps_vllms_own_core_process():
    c = device.choose("auto", 1, threads=0, flags=XEON_NO_BF16)
    assert (c.device, c.dtype, c.in_process, c.threads) == ("gpu", "bfloat16", False, 0)
    assert c.block_size == 0  # vLLM's own default on GPU


@pytest.mark.parametrize(("flags", "gpus", "depth"), [
    (EPYC, 0, 1), (frozenset({"avx2", "fma"}), 0, 1), (SAPPHIRE, 0, 2),
    (EPYC, 1, 2),
])
def test_mc_searches_look_two_probes_ahead_only_where_extra_sequences_are_cheap(flags, gpus,
                                                                               depth):
    # An AMX CPU or a GPU waits on the weights at small batches; other CPUs pay per sequence.
    c = device.choose("auto", gpus, threads=1, flags=flags)
    assert device.look_ahead(c, flags) == depth


def test_apply_sets_the_environment_before_vllm_starts(monkeypatch):
    import torch

    for key in ("VLLM_ENABLE_V1_MULTIPROCESSING", "VLLM_LOGGING_LEVEL", "OMP_NUM_THREADS"):
        monkeypatch.delenv(key, raising=False)
    before = torch.get_num_threads()
    try:
        device.apply(device.DeviceChoice("cpu", "float32", 1, True, "test", 32))
        assert os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] == "0"
        assert os.environ["VLLM_LOGGING_LEVEL"] == "ERROR"
        assert torch.get_num_threads() == 1
        monkeypatch.delenv("VLLM_BATCH_INVARIANT", raising=False)
        device.apply(device.DeviceChoice("gpu", "bfloat16", 0, False, "test", 0), verbose=True)
        assert os.environ["VLLM_LOGGING_LEVEL"] == "INFO"
        assert os.environ["VLLM_BATCH_INVARIANT"] == "1"  # reproducible on the GPU too
    finally:
        torch.set_num_threads(before)


def test_startup_clock_orders_phases_from_the_process_start():
    import time

    from pipelines.engine.actor import StartupClock, describe_startup, process_started_at

    began = process_started_at()
    assert began is not None and began <= time.time()
    clock = StartupClock()
    clock.mark("vllm")
    phases = [p for p, _ in clock.marks]
    assert phases == ["process", "actor", "vllm"]
    times = [t for _, t in clock.marks]
    assert times == sorted(times)
    line = describe_startup(clock.marks, clock.marks[1][1])
    assert line.startswith("process -") and ", actor +0.0s, vllm +" in line
