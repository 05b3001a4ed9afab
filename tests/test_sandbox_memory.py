"""The sandbox's memory plan: cgroup v2 delegation detection and the rlimit budget (pure)."""

from __future__ import annotations

import dataclasses

import pytest

from verifiers.sandbox import memory
from verifiers.sandbox.result import SandboxConfig

MOUNTS = (
    "30 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n"
    "31 25 0:27 / /proc rw - proc proc rw\n"
)


def fake_host(tmp_path, cgroup_line: str, enabled: str, mounts: str = MOUNTS):
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "cgroup").write_text(cgroup_line)
    (proc / "mountinfo").write_text(mounts.replace("/sys/fs/cgroup", str(tmp_path / "cg")))
    group = tmp_path / "cg" / "svc.service" / "sandbox"
    group.mkdir(parents=True)
    (group / "cgroup.subtree_control").write_text(enabled)
    return str(proc), str(group)


def test_delegated_cgroup_found_when_memory_and_pids_are_enabled(tmp_path):
    proc, group = fake_host(tmp_path, "0::/svc.service/sandbox\n", "cpu memory pids\n")
    assert memory.delegated_cgroup(proc) == group


@pytest.mark.parametrize(
    ("line", "enabled", "mounts"),
    [
        ("0::/svc.service/sandbox\n", "memory\n", MOUNTS),  # pids not delegated
        ("4:memory:/x\n", "memory pids\n", MOUNTS),  # cgroup v1 only
        ("0::/svc.service/sandbox\n", "memory pids\n", "31 25 0:27 / /proc rw - proc proc rw\n"),
    ],
)
def test_no_delegation_means_rlimit_mode(tmp_path, line, enabled, mounts):
    proc, _ = fake_host(tmp_path, line, enabled, mounts)
    assert memory.delegated_cgroup(proc) is None


def test_rlimit_budget_is_a_part_of_the_node_share(monkeypatch):
    monkeypatch.setattr(memory, "delegated_cgroup", lambda: None)
    monkeypatch.setattr(memory, "machine_mb", lambda: 16384)
    memory.plan.cache_clear()
    wide = dict(node_memory_share=1.0, node_slots=1)
    try:
        big = memory.plan(SandboxConfig(memory_mb=2048, max_processes=16, **wide))
        small = memory.plan(SandboxConfig(memory_mb=256, max_processes=16, **wide))
        fixed = memory.plan(dataclasses.replace(SandboxConfig(), tree_memory_mb=2000))
        shared = memory.plan(SandboxConfig(memory_mb=1024, node_memory_share=0.25, node_slots=8))
        with pytest.raises(ValueError, match="raise tree_memory_mb or node_memory_share"):
            memory.plan(dataclasses.replace(SandboxConfig(), tree_memory_mb=150))
        with pytest.raises(ValueError, match="node_memory_share=0"):
            memory.plan(SandboxConfig(node_memory_share=0))
    finally:
        memory.plan.cache_clear()
    assert big.mode == "rlimit" and big.tree_mb == 16384
    assert big.process_mb * 17 + 32 + 16 <= 16384 and big.process_mb < 2048
    assert small.process_mb == 256 and small.processes == 16  # 17 x 256 fits: nothing lowered
    assert fixed.tree_mb == 2000 and fixed.process_mb == (2000 - 48) // 17
    # 8 runs at once hold a quarter of the node together: 512 MiB each, which holds 7
    # interpreters of 64 MiB (6 for the program, 1 for the tests), not 17.
    assert shared.tree_mb == 16384 // 4 // 8 and shared.node_slots == 8
    assert shared.processes == 6 and shared.process_mb == (512 - 48) // 7
    assert (shared.processes + 1) * shared.process_mb + 48 <= shared.tree_mb


def test_node_slots_bound_concurrent_runs(tmp_path, monkeypatch):
    monkeypatch.setattr(memory.tempfile, "gettempdir", lambda: str(tmp_path))
    plan = memory.MemoryPlan("rlimit", 100, 50, "", 1, 2)
    with memory.node_slot(plan) as a, memory.node_slot(plan) as b:
        assert {a, b} == {0, 1}
        waited = []

        def third():
            with memory.node_slot(plan, poll_s=0.01) as c:
                waited.append(c)

        import threading

        t = threading.Thread(target=third)
        t.start()
        t.join(timeout=0.3)
        assert t.is_alive() and not waited  # both slots held: the third run waits
    t.join(timeout=5)
    assert waited in ([0], [1])  # and starts once one is free


def test_cgroup_mode_keeps_per_process_limit(monkeypatch):
    monkeypatch.setattr(memory, "delegated_cgroup", lambda: "/sys/fs/cgroup/x")
    monkeypatch.setattr(memory, "machine_mb", lambda: 8192)
    memory.plan.cache_clear()
    try:
        p = memory.plan(SandboxConfig(memory_mb=2048, max_processes=16, node_slots=1))
    finally:
        memory.plan.cache_clear()
    assert (p.mode, p.process_mb, p.tree_mb, p.cgroup_dir) == (
        "cgroup",
        2048,
        2048,
        "/sys/fs/cgroup/x",
    )


def test_this_host_plan_is_reported():
    p = memory.plan(SandboxConfig())
    assert p.mode in ("cgroup", "rlimit") and 64 <= p.process_mb <= SandboxConfig().memory_mb


def test_run_cgroup_sets_the_tree_limits(tmp_path):
    plan = memory.MemoryPlan("cgroup", 3000, 1024, str(tmp_path))
    (tmp_path / "run1").mkdir()  # cgroupfs creates the control files; a plain dir needs them
    (tmp_path / "run1" / "memory.swap.max").write_text("max")
    with pytest.raises(FileExistsError):  # a run never reuses another run's cgroup
        with memory.run_cgroup(plan, "run1", 24):
            pass
    seen = {}
    real_mkdir = memory.Path.mkdir

    def mkdir(self, *args, **kwargs):
        real_mkdir(self, *args, **kwargs)
        (self / "memory.swap.max").write_text("max")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(memory.Path, "mkdir", mkdir)
        with memory.run_cgroup(plan, "run2", 24) as procs:
            group = tmp_path / "run2"
            seen = {
                f: (group / f).read_text() for f in ("memory.max", "memory.swap.max", "pids.max")
            }
    assert procs == str(tmp_path / "run2" / "cgroup.procs")
    assert seen == {"memory.max": str(3000 << 20), "memory.swap.max": "0", "pids.max": "24"}


def test_rlimit_mode_has_no_cgroup():
    with memory.run_cgroup(memory.MemoryPlan("rlimit", 100, 50), "x", 8) as procs:
        assert procs is None
