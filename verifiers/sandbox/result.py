"""The sandbox's plain data: its limits (`SandboxConfig`), what a run showed
(`ExecutionResult`) and the one error it raises. Kept apart from the process handling so the
runner and the program rewriter both import it without a circle."""

from __future__ import annotations

from dataclasses import dataclass

# The defaults every user of the sandbox starts from (the apps' `sandbox.*` section reads them
# too, so each is written once): one run's wall clock, the runs at once per verifier, and the
# share of a node's RAM that all runs at once on it may hold together.
SANDBOX_TIMEOUT_S = 10.0
SANDBOX_WORKERS = 2
NODE_MEMORY_SHARE = 0.25


class SandboxUnavailableError(RuntimeError):
    """No isolation could be set up and unsafe mode was not requested."""


@dataclass(frozen=True, slots=True)
class SandboxConfig:
    """Limits for one execution. Frozen and hashable: it keys the cached sandbox setup."""

    timeout_s: float = SANDBOX_TIMEOUT_S  # wall clock for the whole job (start-up, solution,
    # all tests)
    cpu_s: int = 10  # RLIMIT_CPU: CPU seconds per process (the program's, the tests')
    memory_mb: int = 1024  # RLIMIT_AS per process (lowered when the whole tree could exceed
    # tree_memory_mb without a cgroup; see verifiers/sandbox/memory.py)
    max_processes: int = 16  # RLIMIT_NPROC for the program's uid (threads count as processes)
    max_file_mb: int = 16  # RLIMIT_FSIZE: largest file the solution may write
    max_open_files: int = 64  # RLIMIT_NOFILE
    tmp_mb: int = 32  # size of the private, writable /tmp (a tmpfs)
    shm_mb: int = 16  # size of the private, writable /dev/shm (multiprocessing's semaphores)
    tree_memory_mb: int = 0  # memory of the whole process tree; 0 = what max_processes x
    # memory_mb plus the tmpfs add up to, at most this run's part of the node's share below
    node_memory_share: float = NODE_MEMORY_SHARE  # share of the node's RAM that all sandboxes
    # running at once on it may hold together (the engines' plan takes 0.8 of what Ray reports)
    node_slots: int = 2  # sandboxes that may run at once on the node (a node-wide semaphore
    # enforces it); each gets node_memory_share x RAM / node_slots
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

    `passed` is True only when the test process reported, over its private nonce-tagged
    pipe, that every test ran and passed: exit status, stdout and anything the program
    printed count for nothing. `test_status` has one entry per test: pass | fail | error |
    memory | untrusted (compared or truth-tested a value that is not plain data) | skipped
    (its asserts did not all run) | not_run.

    What the sandbox covers: the verdict is made in a separate test process under its own
    uid, with its own interpreter, builtins, `sys.modules` and test data; the program's
    process (another uid) never sees the tests, the result pipe or the nonce, and cannot
    signal, trace or read the test process. The tests reach the program over two pipes:
    calls go out as plain data, answers come back as plain data (exact int, float, complex,
    str, bytes, bool, None and list/tuple/dict/set/frozenset of them; subclasses of these,
    such as Counter or namedtuple, as their base type's content) or as a proxy whose
    comparison, truth and membership tests are `untrusted`. Builtin names (except the
    function under test) and standard-library module names in the tests are the test
    process's own. So always-equal objects, mock.ANY, UserList/UserString/UserDict
    wrappers, numeric types holding hostile objects, borrowed special methods, edits of
    built-in types (gc, ctypes), shadowed builtins, patched or fake modules, shrunk test
    data, exiting early, SystemExit, fake output and forged records all fail. A program
    that kills itself is a crash (`error` says so), its CPU limit a timeout.
    Host side: own pid, net, ipc, uts and cgroup namespaces; only the interpreter's standard
    library visible (read-only) plus a private size-capped /tmp and /dev/shm; unprivileged
    uids without capabilities, no_new_privs, nosuid mounts; a seccomp filter (see
    verifiers/sandbox/seccomp.py) denying keyring calls, io_uring, bpf, perf_event_open,
    userfaultfd, ptrace and process_vm_*, pidfd_getfd, mounts, setns, namespace flags of
    unshare/clone (clone3 gets ENOSYS), SysV IPC, memfd and socket families other than
    AF_UNIX/AF_INET/AF_INET6; rlimits on CPU seconds, address space, processes, file size,
    open files and POSIX message queues; the whole tree's memory bounded (a cgroup v2 where
    the host delegates one, else per-process limits whose product stays within the budget,
    see verifiers/sandbox/memory.py); a wall-clock kill of the whole tree; capped output.

    What it does NOT cover: names the tests take from the program other than builtins and
    stdlib modules (its functions, classes, `from x import y` names) are the program's, and
    so are their answers; a non-plain honest answer (Fraction, Decimal, deque, an object)
    cannot pass a comparison, and a Counter compares as a dict; only plain data, builtins
    and proxies can be passed to the program, and in-place changes come back only for
    list/dict/set positional arguments of calls without proxies; the test process decodes
    the program's frames with CPython's `marshal` (checked after decoding, but a memory-
    safety bug in that reader would be an exploit); kernel exploits and side channels;
    public host facts (/proc/cpuinfo, /proc/meminfo, kernel version, /usr); kernel memory
    spent on the program's behalf (page cache, pipes, page tables); the seccomp filter is a
    deny list; the session keyring is not replaced (its calls are denied). Without root
    (bwrap's user namespace) both processes share one uid: the test process is made
    non-dumpable, but the program can kill it (a failure, never a pass). Unsafe mode
    (`isolation="none"`) has none of the namespace, uid, seccomp or filesystem protections.
    """

    passed: bool
    tests_passed: int
    tests_total: int
    timed_out: bool = False
    started: bool = True  # False: the harness never reported ready (a setup failure, not a verdict)
    memory_exceeded: bool = False
    killed_by_signal: int | None = None
    exit_code: int | None = None
    error: str = ""  # one line: why it did not pass ("" when it passed)
    test_status: tuple[str, ...] = ()
    stdout: str = ""
    stderr: str = ""
    duration_s: float = 0.0
    isolation: str = "bwrap"
