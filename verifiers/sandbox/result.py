"""The sandbox's plain data: its limits (`SandboxConfig`), what a run showed
(`ExecutionResult`) and the one error it raises. Kept apart from the process handling so the
runner and the program rewriter both import it without a circle."""

from __future__ import annotations

from dataclasses import dataclass


class SandboxUnavailableError(RuntimeError):
    """No isolation could be set up and unsafe mode was not requested."""


@dataclass(frozen=True, slots=True)
class SandboxConfig:
    """Limits for one execution. Frozen and hashable: it keys the cached sandbox setup."""

    timeout_s: float = 10.0  # wall clock for the whole job (start-up, solution, all tests)
    cpu_s: int = 10  # RLIMIT_CPU: CPU seconds per process (the program's, the tests')
    memory_mb: int = 1024  # RLIMIT_AS per process (lowered when the whole tree could exceed
    # tree_memory_mb without a cgroup; see verifiers/sandbox/memory.py)
    max_processes: int = 16  # RLIMIT_NPROC for the program's uid (threads count as processes)
    max_file_mb: int = 16  # RLIMIT_FSIZE: largest file the solution may write
    max_open_files: int = 64  # RLIMIT_NOFILE
    tmp_mb: int = 32  # size of the private, writable /tmp (a tmpfs)
    shm_mb: int = 16  # size of the private, writable /dev/shm (multiprocessing's semaphores)
    tree_memory_mb: int = 0  # memory of the whole process tree; 0 = what max_processes x
    # memory_mb plus the tmpfs add up to, at most half the machine's RAM
    output_bytes: int = 4096  # stdout/stderr kept per stream as an excerpt; the rest is read
    # and dropped, so a flood cannot block the solution or fill memory.
    isolation: str = "bwrap"  # "bwrap", or "none" = UNSAFE: no isolation, warns on every run
    python: str = ""  # interpreter run in the sandbox; "" = this process's base interpreter
    uid_low: int = 200_000  # started as root, the program gets a random uid in
    # [uid_low, uid_low + 50_000) and the tests uid + 50_000 (RLIMIT_NPROC is per uid, and
    # root is exempt from it)


@dataclass(frozen=True, slots=True)
class ExecutionResult:
    """What one sandboxed run of a solution against its tests showed.

    `passed` is True only when the harness reported, over its private nonce-tagged pipe,
    that every test ran and passed: exit status, stdout and anything the program printed
    count for nothing. `test_status` has one entry per test: pass | fail | error | memory |
    untrusted (compared an object whose comparison methods the solution defined) | skipped
    (its asserts did not all run) | not_run.

    What the sandbox covers: no network (own net namespace), no view of other processes
    (own pid namespace; everything the solution starts dies with it), no files but the
    interpreter's standard library (read-only; no site-packages, no /etc, /root, /home or
    project files) and a private size-capped /tmp; an unprivileged uid without
    capabilities, no_new_privs and nosuid mounts; rlimits on CPU seconds, address space,
    processes, file size and open files; a wall-clock kill of the whole tree; capped
    output. Generic cheats fail: exiting before or during the tests, SystemExit in a test,
    printing fake markers, always-equal objects, patching builtins or the harness module.

    What it does NOT cover: a program written against this harness can walk interpreter
    frames to the result pipe and nonce and forge records (tests and solution share one
    interpreter; the sandbox bounds damage, not claims); kernel exploits and side channels;
    reading public host facts (/proc/cpuinfo, /proc/meminfo, kernel version, /usr);
    CPU or memory used by the kernel on the solution's behalf (page cache, pipes); exact
    memory accounting (RLIMIT_AS counts address space, not resident memory). Unsafe mode
    (`isolation="none"`) has none of the namespace or filesystem protections.
    """

    passed: bool
    tests_passed: int
    tests_total: int
    timed_out: bool = False
    memory_exceeded: bool = False
    killed_by_signal: int | None = None
    exit_code: int | None = None
    error: str = ""  # one line: why it did not pass ("" when it passed)
    test_status: tuple[str, ...] = ()
    stdout: str = ""
    stderr: str = ""
    duration_s: float = 0.0
    isolation: str = "bwrap"
