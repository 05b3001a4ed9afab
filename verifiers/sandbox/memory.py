"""Memory for a sandboxed run's whole process tree: a cgroup v2 where the host delegates one,
else rlimits whose product cannot exceed the budget; and a node-wide cap on how many runs
hold such a budget at once.

The node: all sandboxes running at once on a node hold at most `node_memory_share` of its
RAM together. `node_slots` runs may run at once (a semaphore of lock files shared by every
process of this uid on the node, `node_slot`; a run waits for a free slot before its clock
starts), and each run's budget is its part, share x RAM / slots. The pipelines set
`node_slots` to what their labelers start (`tests.workers` x verifier actors per node), so
nobody waits unless more actors than planned land on one node.

The run's budget (`tree_mb`) is `SandboxConfig.tree_memory_mb`, or when that is 0 what the
tree could ask for with per-process limits ((max_processes + 1) x memory_mb plus the two
tmpfs), never more than its part of the node's share.

- `cgroup` mode: this process's cgroup (v2) already enables `memory` and `pids` for its
  children and is writable (systemd `Delegate=yes`, a container runtime's delegation). Each
  run gets a child cgroup with memory.max = budget, memory.swap.max = 0, pids.max, and is
  killed through cgroup.kill; RLIMIT_AS stays at memory_mb per process.
- `rlimit` mode, everywhere else: RLIMIT_AS per process is lowered, when needed, to
  (budget - tmp - shm) / (processes + 1); RLIMIT_NPROC caps the program's uid at
  `processes` and the test process's at 1, so the tree cannot hold more than the budget
  in process memory and tmpfs. When the budget is too small for max_processes interpreters
  of 64 MiB, `processes` is lowered (with a log line) rather than refusing to start.
  Kernel memory (pipes, page tables) is not counted.

Not covered: two jobs with different settings on one node each keep to their own share
(their slot sets differ), and processes that are not sandboxes are not counted.
Nothing here enables controllers or moves processes out of cgroups it did not create.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import logging
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from verifiers.sandbox.result import SandboxConfig

log = logging.getLogger(__name__)
TEST_PROCESSES = 1  # the test process: RLIMIT_NPROC 1 for its uid
_MIN_PROCESS_MB = 64  # an interpreter with a few threads needs about this much address space


@dataclass(frozen=True, slots=True)
class MemoryPlan:
    mode: str  # "cgroup" or "rlimit"
    tree_mb: int  # the whole tree's budget
    process_mb: int  # RLIMIT_AS per process
    cgroup_dir: str = ""  # the delegated parent (cgroup mode only)
    processes: int = 0  # RLIMIT_NPROC of the program's uid (max_processes, or fewer)
    node_slots: int = 1  # runs at once on the node, each with tree_mb at most


def machine_mb() -> int:
    """Physical RAM in MiB (MemTotal)."""
    with open("/proc/meminfo", encoding="ascii") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    raise RuntimeError("no MemTotal in /proc/meminfo")


def _cgroup2_mount(mountinfo: str) -> str | None:
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        fields = left.split()
        if right.split()[:1] == ["cgroup2"] and len(fields) > 4 and fields[3] == "/":
            return fields[4]
    return None


def delegated_cgroup(proc_self: str = "/proc/self") -> str | None:
    """This process's cgroup v2 directory if it delegates memory and pids to children we can
    create; None otherwise (cgroup v1 hosts, read-only cgroupfs, controllers not enabled)."""
    try:
        own = next(
            (
                line[3:]
                for line in Path(proc_self, "cgroup").read_text().splitlines()
                if line.startswith("0::")
            ),
            None,
        )
        mount = _cgroup2_mount(Path(proc_self, "mountinfo").read_text())
        if own is None or mount is None:
            return None
        path = Path(mount) / own.lstrip("/")
        enabled = set((path / "cgroup.subtree_control").read_text().split())
    except OSError:
        return None
    if {"memory", "pids"} <= enabled and os.access(path, os.W_OK):
        return str(path)
    return None


def node_budget_mb(config: SandboxConfig, ram_mb: int | None = None) -> int:
    """One run's part of the node's share: node_memory_share x RAM / node_slots."""
    if not 0 < config.node_memory_share <= 1 or config.node_slots < 1:
        raise ValueError(
            f"sandbox node_memory_share={config.node_memory_share} must be in (0, 1] and "
            f"node_slots={config.node_slots} at least 1"
        )
    ram = machine_mb() if ram_mb is None else ram_mb
    return int(ram * config.node_memory_share) // config.node_slots


@functools.lru_cache(maxsize=16)
def plan(config: SandboxConfig) -> MemoryPlan:
    """The memory plan for `config` on this machine (see the module docstring)."""
    extra = config.tmp_mb + config.shm_mb
    part = node_budget_mb(config)
    tree = config.tree_memory_mb or min(
        (config.max_processes + TEST_PROCESSES) * config.memory_mb + extra, part
    )
    cgroup = delegated_cgroup()
    if cgroup is not None:
        return MemoryPlan("cgroup", tree, config.memory_mb, cgroup, config.max_processes,
                          config.node_slots)  # fmt: skip
    # As many processes as get _MIN_PROCESS_MB each, at most max_processes (+ the test's).
    procs = min(config.max_processes + TEST_PROCESSES, (tree - extra) // _MIN_PROCESS_MB)
    if procs < 1 + TEST_PROCESSES:
        raise ValueError(
            f"sandbox memory budget {tree} MiB leaves less than {_MIN_PROCESS_MB} MiB for each "
            f"of the program's and the test's process: raise tree_memory_mb or "
            f"node_memory_share, or lower node_slots (tests.workers x verifier actors)"
        )
    process = min(config.memory_mb, (tree - extra) // procs)
    if procs - TEST_PROCESSES < config.max_processes:
        log.info(
            "sandbox: a budget of %d MiB per run (%d at once on this node) holds %d processes "
            "of %d MiB: the program may start %d instead of max_processes=%d",
            tree, config.node_slots, procs, process, procs - TEST_PROCESSES,
            config.max_processes,
        )
    elif process < config.memory_mb:
        log.info(
            "sandbox: no delegated cgroup; RLIMIT_AS lowered to %d MiB per process so that "
            "%d processes stay within %d MiB",
            process,
            procs,
            tree,
        )
    return MemoryPlan("rlimit", tree, process, "", procs - TEST_PROCESSES, config.node_slots)


def _slot_dir(memory: MemoryPlan) -> Path:
    # One slot set per (budget, slots) and uid: runs of one configuration share it.
    return Path(tempfile.gettempdir()) / (
        f"prm-sandbox-slots-{os.getuid()}" if hasattr(os, "getuid") else "prm-sandbox-slots"
    ) / f"{memory.tree_mb}mb-x{memory.node_slots}"


@contextlib.contextmanager
def node_slot(memory: MemoryPlan, poll_s: float = 0.02) -> Iterator[int]:
    """Hold one of the node's `memory.node_slots` run slots (blocks until one is free);
    yields its index. The lock is the kernel's (flock), so a killed holder frees its slot."""
    folder = _slot_dir(memory)
    folder.mkdir(parents=True, exist_ok=True)
    while True:
        for i in range(memory.node_slots):
            fd = os.open(folder / f"slot-{i}", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            try:
                yield i
            finally:
                os.close(fd)  # releases the lock
            return
        time.sleep(poll_s)


@contextlib.contextmanager
def run_cgroup(memory: MemoryPlan, name: str, pids: int) -> Iterator[str | None]:
    """A child cgroup for one run (its cgroup.procs path), or None in rlimit mode. Killed
    and removed on exit."""
    if memory.mode != "cgroup":
        yield None
        return
    path = Path(memory.cgroup_dir) / name
    path.mkdir()
    try:
        (path / "memory.max").write_text(str(memory.tree_mb << 20))
        if (path / "memory.swap.max").exists():
            (path / "memory.swap.max").write_text("0")
        (path / "pids.max").write_text(str(pids))
        yield str(path / "cgroup.procs")
    finally:
        with contextlib.suppress(OSError):
            (path / "cgroup.kill").write_text("1")
        for _ in range(100):
            try:
                path.rmdir()
                break
            except OSError:
                time.sleep(0.01)  # its processes are still exiting
