"""Memory for a sandboxed run's whole process tree: a cgroup v2 where the host delegates one,
else rlimits whose product cannot exceed the budget.

The budget (`tree_mb`) is `SandboxConfig.tree_memory_mb`, or when that is 0 what the tree
could ask for with per-process limits ((max_processes + 1) x memory_mb plus the two
tmpfs), never more than half the machine's RAM (so two runs at once cannot exceed it).

- `cgroup` mode: this process's cgroup (v2) already enables `memory` and `pids` for its
  children and is writable (systemd `Delegate=yes`, a container runtime's delegation). Each
  run gets a child cgroup with memory.max = budget, memory.swap.max = 0, pids.max, and is
  killed through cgroup.kill; RLIMIT_AS stays at memory_mb per process.
- `rlimit` mode, everywhere else: RLIMIT_AS per process is lowered, when needed, to
  (budget - tmp - shm) / (max_processes + 1); RLIMIT_NPROC caps the program's uid at
  max_processes and the test process's at 1, so the tree cannot hold more than the budget
  in process memory and tmpfs. Kernel memory (pipes, page tables) is not counted.

Nothing here enables controllers or moves processes out of cgroups it did not create.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
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


@functools.lru_cache(maxsize=16)
def plan(config: SandboxConfig) -> MemoryPlan:
    """The memory plan for `config` on this machine (see the module docstring)."""
    procs = config.max_processes + TEST_PROCESSES
    extra = config.tmp_mb + config.shm_mb
    tree = config.tree_memory_mb or min(procs * config.memory_mb + extra, machine_mb() // 2)
    cgroup = delegated_cgroup()
    if cgroup is not None:
        return MemoryPlan("cgroup", tree, config.memory_mb, cgroup)
    share = (tree - extra) // procs
    if share < _MIN_PROCESS_MB:
        raise ValueError(
            f"sandbox memory budget {tree} MiB leaves {share} MiB per process for "
            f"{procs} processes (at least {_MIN_PROCESS_MB} needed): raise tree_memory_mb "
            "or lower max_processes"
        )
    process = min(config.memory_mb, share)
    if process < config.memory_mb:
        log.info(
            "sandbox: no delegated cgroup; RLIMIT_AS lowered to %d MiB per process so that "
            "%d processes stay within %d MiB",
            process,
            procs,
            tree,
        )
    return MemoryPlan("rlimit", tree, process)


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
