"""Run a function in a child process that can be killed when it overruns.

Why not `signal.alarm`: it only works on the main thread, and verifiers run inside Ray actors
and thread pools. Why not a thread with a timeout: a thread stuck in sympy or a huge `pow`
cannot be stopped. A child process can: on timeout it is killed and a fresh one started,
so one pathological input costs one timeout, never a hung worker. Inside the child, jobs run on
its main thread, so a job made of parts (a chain's steps) bounds each part with `deadline`
(a timer signal): a part stuck in Python code then costs its own limit, not the whole call's,
and the kill stays the bound for code that never returns to the interpreter.

The child is started with the `spawn` method (safe inside processes that already run threads,
such as Ray workers) and lives across calls, so imports are paid once. Given modules to
preload, it is forked instead from a fork server (a fresh single-threaded process, as safe)
that imported them once: the calculator's workers start with sympy and the second reader's
parser tables built (each spawned worker built them anew: a fifth of a job's checking time).
Its address space is capped with RLIMIT_AS so a memory bomb fails inside the child, not in
the caller.
"""

from __future__ import annotations

import multiprocessing as mp
import multiprocessing.connection
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class CheckTimeoutError(Exception):
    """The call ran past its budget: its CPU time (the child stopped it and lives on) or
    the wall clock (the child was killed)."""


class CheckCrashedError(Exception):
    """The child died (segfault, killed) before answering."""


class CheckMemoryError(Exception):
    """The call hit the child's memory cap (MemoryError inside it)."""


class CheckFailedError(Exception):
    """The function raised inside the child. `kind` is the exception's type name: callers
    decide by type, never by message text (an ImportError is a broken checker, not a
    verdict on the input)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind


# With a CPU limit, the wall clock at this many times the limit ends a call that gets no CPU
# (a machine far busier than its cores).
WALL_FACTOR = 3.0


class DeadlineError(BaseException):
    """A part of a job ran past its `deadline`. Not an Exception: a check's own `except
    Exception` (an unreadable member read as unreadable) must not swallow it and go on with
    half its work done."""


@contextmanager
def deadline(
    seconds: float, what: str = "the block", cpu: bool = False, wall_factor: float = WALL_FACTOR
) -> Iterator[None]:
    """Raise `DeadlineError` inside the block once `seconds` have passed (a timer signal, so
    Python code anywhere in the block is interrupted; C code is, when it returns). Only on
    a process's main thread, where the child runs its jobs; elsewhere (a caller running a job
    in-process from another thread) the block runs unbounded and the caller's own bound
    applies. The timers and the previous handlers are restored on the way out.

    `cpu`: the seconds are the process's CPU time (ITIMER_PROF), not the wall clock, so a
    block's fate does not hang on what else the machine runs: beside other busy processes
    a check that takes 4 s of CPU takes 8 s or more of wall time, and a wall limit of 5 s
    turned the same check's verdict into a timeout on some runs and not on others. The wall
    clock at `wall_factor` times the limit still ends a block that gets no CPU at all."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    wall = seconds * (wall_factor if cpu else 1)
    timers = [(signal.SIGALRM, signal.ITIMER_REAL, wall)]
    if cpu:
        timers.append((signal.SIGPROF, signal.ITIMER_PROF, seconds))

    def overrun(signum: int, frame: Any) -> None:
        if signum == signal.SIGPROF:
            raise DeadlineError(f"{what} ran over {seconds:g}s of CPU time")
        raise DeadlineError(f"{what} ran over {wall:g}s")

    previous = [(sig, which, signal.signal(sig, overrun)) for sig, which, _ in timers]
    for _, which, after in timers:
        signal.setitimer(which, after)
    try:
        yield
    finally:
        for sig, which, handler in previous:
            signal.setitimer(which, 0)
            signal.signal(sig, handler)


def _within_cpu(fn: Callable[..., Any], seconds: float, args: tuple) -> Any:
    """`fn(*args)` stopped at `seconds` of CPU time (runs in the child, for `call(cpu=True)`).
    The overrun is raised as an Exception here, so the child reports it and lives on."""
    try:
        with deadline(seconds, getattr(fn, "__name__", "the call"), cpu=True):
            return fn(*args)
    except DeadlineError as exc:
        raise CheckTimeoutError(str(exc)) from None


def _child_main(conn: Any, memory_bytes: int) -> None:
    import resource

    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        fn, args = job
        try:
            conn.send((True, fn(*args)))
        except Exception as exc:  # model output may make any check raise; report, don't die
            conn.send((False, (type(exc).__name__, str(exc)[:300])))


class KillableWorker:
    """One child process; `call(fn, *args, timeout=s)` runs `fn(*args)` there.

    `submit` and `collect` split a call in two, so the caller works while the child does.
    `fn` must be a module-level function (it is pickled by reference). An exception raised by
    `fn` comes back as `CheckFailedError` carrying its type name (`CheckMemoryError` for a
    MemoryError); a timeout as `CheckTimeoutError`; a dead child as `CheckCrashedError`.
    Thread-safe: calls are serialised by a lock.
    """

    def __init__(
        self,
        memory_mb: int = 2048,
        warmup: Callable[[], Any] | None = None,
        warmup_timeout: float = 60.0,
        preload: tuple[str, ...] = (),
    ) -> None:
        # `warmup` runs in every new child before its first job, with its own budget: spawning
        # and importing (sympy, math-verify) take seconds on a loaded machine, and charged to
        # the first check they made it time out, the child was killed, and the next one
        # started cold again.
        self._warmup, self._warmup_timeout = warmup, warmup_timeout
        self._memory = memory_mb * 1024 * 1024
        # `preload`: modules a fork server imports once; each child is forked from it with
        # them loaded (and whatever they warmed at import), instead of importing them anew.
        if preload:
            self._ctx = mp.get_context("forkserver")
            self._ctx.set_forkserver_preload(list(preload))
        else:
            self._ctx = mp.get_context("spawn")
        self._lock = threading.Lock()
        self._proc: Any = None
        self._conn: Any = None
        # The job submitted and not yet collected: (fn, deadline, the submitting thread); its
        # outcome is kept for that thread's `collect`, whoever waited for it.
        self._pending: tuple[Callable[..., Any], float, int] | None = None
        self._done: dict[int, tuple[bool, Any]] = {}

    def _start(self) -> None:
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=_child_main, args=(child, self._memory), daemon=True)
        proc.start()
        child.close()
        self._proc, self._conn = proc, parent

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.join(timeout=5)
        if self._conn is not None:
            self._conn.close()
        self._proc = self._conn = self._pending = None

    def call(
        self, fn: Callable[..., Any], *args: Any, timeout: float = 5.0, cpu: bool = False
    ) -> Any:
        """`fn(*args)` in the child. `cpu`: `timeout` is the child's CPU time, so whether a
        slow check answers or times out does not hang on what else the machine runs (the
        same config, the same labels); the wall clock at `WALL_FACTOR` times it still kills
        a call that gets no CPU or is stuck in C code."""
        with self._lock:
            self._settle()
            self._ensure()
            if not cpu:
                return self._run(fn, args, timeout)
            self._send(_within_cpu, (fn, timeout, args))
            # A second past the child's own wall backstop, so it answers before it is killed.
            return self._receive(fn, timeout * WALL_FACTOR + 1.0)

    def submit(self, fn: Callable[..., Any], *args: Any, timeout: float = 5.0) -> None:
        """Start `fn(*args)` in the child and return at once, so the caller works meanwhile;
        `collect` gives what `call` would have (its value, or the same errors), `timeout`
        counted from now. One job at a time: a `call` or `submit` made before the `collect`
        (from any thread) first waits for the job in flight; each thread collects its own."""
        with self._lock:
            self._settle()
            self._ensure()
            self._send(fn, args)
            self._pending = (fn, time.monotonic() + timeout, threading.get_ident())

    def done(self) -> bool:
        """Whether `collect` would return at once: no job in flight, or it has answered or
        run past its time (a caller with other work does that work meanwhile)."""
        with self._lock:
            if self._pending is None or self._conn is None:
                return True
            try:
                return time.monotonic() > self._pending[1] or self._conn.poll(0)
            except (EOFError, OSError):
                return True  # the child died: `collect` says so at once

    def _waits_on(self) -> tuple[Any, float] | None:
        """(connection, deadline) of the job in flight; None when `done` would say so now."""
        with self._lock:
            if self._pending is None or self._conn is None:
                return None
            return self._conn, self._pending[1]

    def collect(self) -> Any:
        """The result of the last `submit` (raises what `call` raises)."""
        with self._lock:
            self._settle()
            done = self._done.pop(threading.get_ident(), None)
        if done is None:
            raise CheckFailedError("RuntimeError", "collect without a submitted job")
        ok, value = done
        if not ok:
            raise value
        return value

    def _settle(self) -> None:
        """Wait for the job in flight, if any, and keep its outcome for `collect`."""
        if self._pending is None:
            return
        fn, deadline, owner = self._pending
        self._pending = None
        try:
            self._done[owner] = (True, self._receive(fn, max(0.0, deadline - time.monotonic())))
        except (CheckTimeoutError, CheckCrashedError, CheckMemoryError, CheckFailedError) as exc:
            self._done[owner] = (False, exc)

    def _ensure(self) -> None:
        if self._proc is None or not self._proc.is_alive():
            self._kill()
            self._start()
            if self._warmup is not None:
                self._run(self._warmup, (), self._warmup_timeout)

    def _run(self, fn: Callable[..., Any], args: tuple, timeout: float) -> Any:
        """One job in the live child (the lock is held)."""
        self._send(fn, args)
        return self._receive(fn, timeout)

    def _send(self, fn: Callable[..., Any], args: tuple) -> None:
        try:
            self._conn.send((fn, args))
        except (BrokenPipeError, ConnectionResetError, OSError) as exc:
            self._kill()
            raise CheckCrashedError(f"worker died: {type(exc).__name__}") from exc

    def _receive(self, fn: Callable[..., Any], timeout: float) -> Any:
        try:
            if not self._conn.poll(timeout):
                self._kill()
                raise CheckTimeoutError(f"{getattr(fn, '__name__', fn)} ran over {timeout:g}s")
            ok, value = self._conn.recv()
        except (EOFError, BrokenPipeError, ConnectionResetError, OSError) as exc:
            self._kill()
            raise CheckCrashedError(f"worker died: {type(exc).__name__}") from exc
        if not ok:
            kind, message = value
            if kind == "CheckTimeoutError":  # `_within_cpu`: stopped at its CPU limit
                raise CheckTimeoutError(message)
            if kind == "MemoryError":
                raise CheckMemoryError(f"{getattr(fn, '__name__', fn)} hit the memory cap")
            raise CheckFailedError(kind, message)
        return value

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                try:
                    self._conn.send(None)
                except OSError:
                    pass
            self._kill()

    def __del__(self) -> None:  # best effort; children are daemons anyway
        try:
            self._kill()
        except Exception:
            pass


def wait_any(workers: list[KillableWorker]) -> None:
    """Block until one of `workers` is `done` (answered, died, or past its job's deadline):
    a caller with several jobs in flight takes whichever ends first."""
    waits = [w._waits_on() for w in workers]
    if not waits or any(x is None for x in waits):
        return
    left = min(deadline for _, deadline in waits) - time.monotonic()
    if left > 0:
        mp.connection.wait([conn for conn, _ in waits], timeout=left)
