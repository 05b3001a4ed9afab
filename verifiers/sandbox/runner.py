"""Run untrusted Python against unit tests, one sandboxed process tree per execution.

Public names: `SandboxConfig`, `ExecutionResult`, `SandboxUnavailableError`, `Sandbox`,
`run_tests(problem, code)` and `run_tests_many(pairs, workers)`. The Monte Carlo driver calls
the last two as its outcome check for code problems.

What a run looks like: `bwrap` starts the interpreter's `-S -P -B -c <harness>` in fresh pid,
net, ipc, uts (and cgroup) namespaces with a read-only view of the interpreter only, a
private /tmp and /dev/shm, and the seccomp filter of `seccomp.py`. The harness (the five
files of `script/` joined, see `script/5_harness.py`) forks the program's process and the test
process, each dropping to its own random unprivileged uid with rlimits; the program arrives
on stdin, the tests on their own pipe, and only the test process writes the nonce-tagged
result lines. The wall clock is enforced here by killing bwrap's process group, which tears
down the pid namespace and with it every process the solution started. Memory for the whole
tree is planned in `memory.py` (a delegated cgroup v2, else bounded rlimits), and a run
starts only in one of its node's sandbox slots (`memory.node_slot`). How tests are
rewritten and results read lives in `program.py`.
"""

from __future__ import annotations

import functools
import logging
import os
import resource
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from labeling.schema import Problem
from verifiers.sandbox.memory import TEST_PROCESSES, node_slot, run_cgroup
from verifiers.sandbox.memory import plan as memory_plan
from verifiers.sandbox.program import Job, interpret, interpreter_layout, prepare_job
from verifiers.sandbox.result import (
    SANDBOX_WORKERS,
    ExecutionResult,
    SandboxConfig,
    SandboxUnavailableError,
)
from verifiers.sandbox.seccomp import SeccompUnavailableError, filter_bpf, filter_fd

log = logging.getLogger(__name__)

ISOLATION = ("bwrap", "none")
# The sandboxed program's text: the files of script/ joined in the order their names give
# (see script/5_harness.py). They are script text, never imported: a name that starts with a
# digit is not a module name. Shipped as package data (setup.py).
_SCRIPT_DIR = Path(__file__).with_name("script")
_HARNESS = tuple(sorted(_SCRIPT_DIR.glob("[0-9]_*.py")))
_RECORDS_CAP = 1 << 20  # bytes of result lines we accept; a real job writes a few KB


def _cap(buf: bytearray, data: bytes, limit: int) -> None:
    if len(buf) < limit:
        buf += data[: limit - len(buf)]


def _exited(pid: int) -> bool:
    """Has `pid` exited? Leaves it unreaped, so its process group id cannot be reused yet."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


class Sandbox:
    """A configured sandbox. Construction checks that isolation works (or that unsafe mode
    was asked for) and raises `SandboxUnavailableError` naming the fix; `run` never raises for
    anything the solution does. Thread-safe: every run is its own process tree."""

    def __init__(self, config: SandboxConfig | None = None) -> None:
        self.config = config = config or SandboxConfig()
        if config.isolation not in ISOLATION:
            raise ValueError(f"unknown isolation {config.isolation!r}; choose one of {ISOLATION}")
        python = config.python or getattr(sys, "_base_executable", sys.executable)
        self.python = os.path.realpath(python)
        self.layout = interpreter_layout(self.python)
        self.harness = "\n".join(p.read_text(encoding="utf-8") for p in _HARNESS)
        self.as_root = os.geteuid() == 0
        self.memory = memory_plan(config)
        self.prefix_argv = self._bwrap_argv() if config.isolation == "bwrap" else []
        self.seccomp = b""
        if config.isolation == "bwrap":
            try:
                self.seccomp = filter_bpf()
            except SeccompUnavailableError as exc:
                raise SandboxUnavailableError(str(exc)) from exc
        if config.isolation == "bwrap":
            self._probe()

    # --- set-up ------------------------------------------------------------------------

    def _bwrap_argv(self) -> list[str]:
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise SandboxUnavailableError(
                "bubblewrap (bwrap) is not installed: `apt-get install bubblewrap`, or set "
                "SandboxConfig(isolation='none') to run model code WITHOUT isolation (unsafe)"
            )
        if self.as_root:
            # Not --unshare-all: as root that adds a user namespace mapping uid 0 to 0, where
            # RLIMIT_NPROC is not enforced. Instead the harness drops to a fresh uid, which
            # needs CAP_SETUID/SETGID until it does (bwrap drops every other capability).
            ns = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
            ns += ["--unshare-cgroup-try", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        else:
            ns = ["--unshare-all", "--unshare-user", "--disable-userns"]
        argv = [bwrap, *ns, "--die-with-parent", "--new-session", "--clearenv"]
        for path in ("/usr", "/lib", "/lib64", "/bin"):
            if os.path.islink(path):  # merged-/usr systems: /lib -> usr/lib
                argv += ["--symlink", os.readlink(path), path]
            elif os.path.isdir(path):
                argv += ["--ro-bind", path, path]
        prefix = self.layout.prefix
        if not any(prefix == p or prefix.startswith(p + "/") for p in ("/usr", "/lib", "/bin")):
            # Parents created for the mount would copy the host's modes (/root is 0700).
            parts = Path(prefix).parents
            for parent in reversed([str(p) for p in parts if str(p) != "/"]):
                argv += ["--perms", "0755", "--dir", parent]
            argv += ["--ro-bind", prefix, prefix]
        for hidden in self.layout.site_dirs:  # an empty read-only tmpfs over site-packages
            argv += ["--size", "4096", "--tmpfs", hidden, "--remount-ro", hidden]
        argv += ["--proc", "/proc", "--dev", "/dev"]
        # multiprocessing's semaphores live in /dev/shm; bwrap's own is read-only.
        argv += ["--size", str(self.config.shm_mb << 20), "--perms", "1777", "--tmpfs", "/dev/shm"]
        argv += ["--size", str(self.config.tmp_mb << 20), "--perms", "1777", "--tmpfs", "/tmp"]
        argv += ["--chdir", "/tmp"]
        for key, value in self._env().items():
            argv += ["--setenv", key, value]
        return argv

    @staticmethod
    def _env() -> dict[str, str]:
        # A fixed hash seed: set iteration order, and so test outcomes, repeat across runs.
        # Few malloc arenas: each thread's 64 MB arena reservation counts against RLIMIT_AS.
        env = {"PYTHONHASHSEED": "0", "MALLOC_ARENA_MAX": "2"}
        return env | {"LANG": "C.UTF-8", "HOME": "/tmp", "PATH": "/usr/bin:/bin"}

    def _probe(self) -> None:
        probe = Problem("probe", "code", "probe", "", tests=("assert 1 + 1 == 2",))
        result = self._execute(prepare_job(probe, "pass"), probe=True)
        if not result.passed:
            raise SandboxUnavailableError(
                "bwrap is installed but a trivial sandboxed run failed "
                f"({result.error}; stderr: {result.stderr[:300]!r}). Namespaces may be "
                "disabled here; fix that, or set SandboxConfig(isolation='none') (unsafe)"
            )

    def _limits(self, processes: int) -> list[tuple[int, int, int]]:
        c = self.config
        mb, memory = 1 << 20, self.memory.process_mb
        return [
            (resource.RLIMIT_CPU, c.cpu_s, c.cpu_s + 1),  # SIGXCPU first, SIGKILL a second later
            (resource.RLIMIT_AS, memory * mb, memory * mb),
            (resource.RLIMIT_NPROC, processes, processes),
            (resource.RLIMIT_FSIZE, c.max_file_mb * mb, c.max_file_mb * mb),
            (resource.RLIMIT_NOFILE, c.max_open_files, c.max_open_files),
            (resource.RLIMIT_CORE, 0, 0),
            (resource.RLIMIT_MSGQUEUE, mb // 4, mb // 4),  # POSIX message queues, per uid
        ]

    # --- running -----------------------------------------------------------------------

    def run(self, problem: Problem, code: str) -> ExecutionResult:
        """Run `code` against `problem`'s tests. Raises ValueError only for bad tests."""
        return self._execute(prepare_job(problem, code))

    def run_many(
        self, pairs: Sequence[tuple[Problem, str]], workers: int = SANDBOX_WORKERS
    ) -> list[ExecutionResult]:
        """`run` over many (problem, code) pairs, `workers` at a time, results in order."""
        jobs = [prepare_job(p, c) for p, c in pairs]  # bad tests raise before anything runs
        if workers <= 1 or len(jobs) <= 1:
            return [self._execute(j) for j in jobs]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(self._execute, jobs))

    def _execute(self, job: Job, probe: bool = False) -> ExecutionResult:
        """One run, once one of the node's sandbox slots is free (`memory.node_slot`): the
        wall clock starts when the run does."""
        with node_slot(self.memory):
            return self._execute_now(job, probe)

    def _execute_now(self, job: Job, probe: bool) -> ExecutionResult:
        c = self.config
        start = time.monotonic()
        nonce, token = secrets.token_hex(16), secrets.token_hex(8)
        # Unsafe mode keeps the caller's uid: a dropped uid may not even reach the stdlib.
        drop = self.as_root and c.isolation == "bwrap"
        uid = c.uid_low + secrets.randbelow(50_000) if drop else 0
        test_uid = uid + 50_000 if drop else 0  # never the program's uid
        writes = {
            "program": job.program_payload(uid, self._limits(self.memory.processes), token),
            "tests": job.tests_payload(
                nonce, test_uid, self._limits(TEST_PROCESSES), token, c.cpu_s
            ),
        }
        rfd, wfd = os.pipe()
        tests_r, tests_w = os.pipe()
        keep = [wfd, tests_r]
        tmp = None
        if c.isolation == "none":
            if not probe:
                log.warning("UNSAFE sandbox mode: running model code without isolation")
            tmp = tempfile.mkdtemp(prefix="prm-unsafe-")
            os.chmod(tmp, 0o1777)  # the harness may have dropped to another uid
            argv, cwd = [self.python], tmp
        else:
            keep.append(filter_fd(self.seccomp))
            argv, cwd = [*self.prefix_argv, "--seccomp", str(keep[-1]), self.python], None
        argv += ["-S", "-P", "-B", "-c", self.harness, str(wfd), str(tests_r)]
        try:
            with run_cgroup(self.memory, f"prm-{nonce}", self.memory.processes + 8) as procs:
                if procs:  # join the run's cgroup before bwrap starts: nothing escapes it
                    argv = ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', procs, *argv]
                try:
                    proc = subprocess.Popen(
                        argv,
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        pass_fds=tuple(keep),
                        start_new_session=True,
                        cwd=cwd,
                        env=self._env(),
                    )
                finally:
                    for fd in keep:
                        os.close(fd)
                assert proc.stdin is not None
                pending = {proc.stdin.fileno(): writes["program"], tests_w: writes["tests"]}
                tests_w = -1  # _communicate closes it
                out, err, records, timed_out = self._communicate(proc, pending, rfd, start)
        finally:
            os.close(rfd)
            if tests_w >= 0:
                os.close(tests_w)
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
        return interpret(
            job,
            nonce,
            records,
            out,
            err,
            timed_out,
            proc.returncode,
            bwrap=c.isolation == "bwrap",
            limit=c.output_bytes,
            duration=time.monotonic() - start,
            isolation=c.isolation,
        )

    def _communicate(
        self, proc: subprocess.Popen, pending: dict[int, bytes], rfd: int, start: float
    ) -> tuple[bytes, bytes, bytes, bool]:
        """Feed both payloads, drain three pipes with caps, kill the group at the deadline."""
        assert proc.stdin and proc.stdout and proc.stderr
        deadline = start + self.config.timeout_s
        ofd, efd = proc.stdout.fileno(), proc.stderr.fileno()
        bufs = {ofd: bytearray(), efd: bytearray(), rfd: bytearray()}
        limits = {rfd: _RECORDS_CAP}
        stdin_fd = proc.stdin.fileno()

        def close_writer(fd: int) -> None:
            views[fd] = None
            if fd == stdin_fd:
                proc.stdin.close()  # type: ignore[union-attr]
            else:
                os.close(fd)

        sel = selectors.DefaultSelector()
        views: dict[int, memoryview | None] = {fd: memoryview(d) for fd, d in pending.items()}
        for fd in (*views, *bufs):
            os.set_blocking(fd, False)
        for fd in views:
            sel.register(fd, selectors.EVENT_WRITE)
        for fd in bufs:
            sel.register(fd, selectors.EVENT_READ)
        timed_out = False
        try:
            while len(sel.get_map()) > 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
                for key, _ in sel.select(min(left, 0.5)):
                    fd = key.fd
                    view = views.get(fd)
                    if view is not None:
                        try:
                            view = view[os.write(fd, view[:65536]) :]
                        except BrokenPipeError:
                            view = view[:0]
                        views[fd] = view
                        if not view:
                            sel.unregister(fd)
                            close_writer(fd)
                        continue
                    data = os.read(fd, 65536)
                    if not data:
                        sel.unregister(fd)
                    else:
                        _cap(bufs[fd], data, limits.get(fd, self.config.output_bytes))
                if b"\tdone\t" in bufs[rfd] and _exited(proc.pid):
                    break  # only strays keep the pipes open (unsafe mode); they die below
        finally:
            sel.close()
            for fd in [fd for fd, rest in views.items() if rest is not None]:
                close_writer(fd)
            try:  # the whole group: bwrap, and in unsafe mode whatever stayed in the group
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            proc.wait()
            proc.stdout.close()
            proc.stderr.close()
        return bytes(bufs[ofd]), bytes(bufs[efd]), bytes(bufs[rfd]), timed_out


@functools.lru_cache(maxsize=8)
def default_sandbox(config: SandboxConfig | None = None) -> Sandbox:
    """One `Sandbox` per config per process (its set-up probes bwrap once)."""
    return Sandbox(config)


def run_tests(problem: Problem, code: str, config: SandboxConfig | None = None) -> ExecutionResult:
    """Run `code` against `problem.tests` in the sandbox; see `ExecutionResult`."""
    return default_sandbox(config).run(problem, code)


def run_tests_many(
    pairs: Sequence[tuple[Problem, str]],
    workers: int = SANDBOX_WORKERS,
    config: SandboxConfig | None = None,
) -> list[ExecutionResult]:
    """`run_tests` for many (problem, code) pairs, `workers` sandboxes at a time, in order."""
    return default_sandbox(config).run_many(pairs, workers)
