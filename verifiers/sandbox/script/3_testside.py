"""Sandbox text, part 3 of 4: the test process of a run (see 4_harness.py for the whole).

It shares nothing with the program but two pipes: its own interpreter, builtins,
`sys.modules`, setup data and tests. The program's names that the tests use are bound here
as follows: a name of a builtin (except the function under test) and a name of a standard
library module are this process's own; other names the program defines become copies of
their plain value or `Remote` proxies. A proxy forwards calls, attributes, items, iteration
and arithmetic to the program's process and brings back plain data or another proxy; any
comparison, truth test or membership test of a proxy is `untrusted` (the test fails), so
only plain data, compared by this process's own built-in types, can make a test pass.
Arguments the program mutated in place are copied back into the test's own objects.

Records go to the result fd as `<nonce>\\t<kind>\\t<index>\\t<status>\\t<detail>` lines;
the program's process never has that fd or the nonce.
"""

# ruff: noqa: F821 - names from 1_channel.py and 4_harness.py, joined into one program
import contextlib
import marshal
import os
import sys
import time


class Untrusted(BaseException):  # noqa: N818 - BaseException: `except Exception` can't eat it
    """A test compared or truth-tested a value that is not plain data."""


class ProgramGone(BaseException):  # noqa: N818
    """The program's process died or broke the channel."""


class ProgramError(Exception):
    """The program raised an exception that is not a built-in one."""


_OPAQUE = "unverifiable value"


def make_remote(rpc, state):
    """The proxy class: `rpc(op, proxy, args, kwargs=None)` forwards one request."""

    class Remote:
        """A value that stays in the program's process (see the module docstring)."""

        __slots__ = ("_prm_h", "_prm_t")

        def __init__(self, hid, tname):
            object.__setattr__(self, "_prm_h", hid)
            object.__setattr__(self, "_prm_t", tname)

        def __call__(self, *args, **kwargs):
            return rpc("call", self, args, kwargs)

        def __getattr__(self, name):
            if name[:2] == "__" and name[-2:] == "__":
                raise AttributeError(name)
            return rpc("getattr", self, (name,))

        def __setattr__(self, name, value):
            rpc("setattr", self, (name, value))

        def __getitem__(self, key):
            return rpc("getitem", self, (key,))

        def __setitem__(self, key, value):
            rpc("setitem", self, (key, value))

        def __iter__(self):
            return rpc("unary", self, ("iter",))

        def __next__(self):
            return rpc("unary", self, ("next",))

        def __hash__(self):
            return id(self) >> 4

        def __round__(self, ndigits=None):
            return rpc("binary", self, ("round", ndigits))

        def _untrusted(self, *_):
            state["untrusted"] = self._prm_t
            raise Untrusted(self._prm_t)

        __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _untrusted
        __bool__ = __contains__ = _untrusted

    def typed(op, kind, fallback=None):
        def method(self):
            out = rpc("unary", self, (op,))
            if type(out) is kind:
                return out
            if fallback is not None:
                return fallback(self)
            raise TypeError(f"{op}() of a program object gave a {type(out).__name__}")

        return method

    for op, kind in (("len", int), ("int", int), ("float", float), ("index", int)):
        setattr(Remote, f"__{op}__", typed(op, kind))
    Remote.__complex__ = typed("complex", complex)
    for op in ("str", "repr"):
        setattr(Remote, f"__{op}__", typed(op, str, lambda s: f"<program {s._prm_t}>"))
    for op in ("neg", "pos", "abs", "invert"):
        setattr(Remote, f"__{op}__", lambda self, _op=op: rpc("unary", self, (_op,)))
    for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow"):
        setattr(Remote, f"__{op}__", lambda s, o, _op=op: rpc("binary", s, (_op, o)))
        setattr(Remote, f"__r{op}__", lambda s, o, _op=op: rpc("rbinary", s, (_op, o)))

    return Remote


def make_link(send, recv, token, state):
    """(Remote, request_globals): the test side of the channel."""
    is_plain, scalars = make_is_plain(), frozenset(SCALARS)
    errors = _builtin_errors()
    builtin_names, builtin_fn = _builtins_by_name(), type(len)

    remote_type = make_remote(lambda *a: rpc(*a), state)

    def encode(x, depth):
        t = type(x)
        if t in scalars:
            return x
        if t is remote_type:
            return (token, x._prm_h)
        if t in (type, builtin_fn) and builtin_names.get(getattr(x, "__name__", None)) is x:
            return (token, x.__name__)  # `int`, `len`...: the program's own builtin of that name
        if depth > MAX_DEPTH:
            raise TypeError("too deeply nested a value to pass to the program")
        if t in (list, tuple, set, frozenset):
            return t(encode(e, depth + 1) for e in x)
        if t is dict:
            return {encode(k, depth + 1): encode(v, depth + 1) for k, v in x.items()}
        raise TypeError(f"a {t.__name__} cannot be passed to the program (plain data only)")

    def exchange(request):
        if state["gone"]:
            raise ProgramGone(state["gone"])
        try:
            send(request)
            reply = recv()
        except (ChannelClosedError, OSError) as exc:
            state["gone"] = str(exc) or "the channel broke"
            raise ProgramGone(state["gone"]) from None
        if type(reply) is not tuple or not reply:
            state["gone"] = "the program sent a malformed reply"
            raise ProgramGone(state["gone"])
        return reply

    def rpc(op, target, args, kwargs=None):
        kwargs = kwargs or {}
        refs = not (is_plain(args) and is_plain(kwargs))
        if refs:
            args, kwargs = encode(args, 0), encode(kwargs, 0)
        mut = (
            ()
            if refs or op != "call"
            else tuple(i for i, a in enumerate(args) if type(a) in _MUTABLE)
        )
        reply = exchange((op, target._prm_h, args, kwargs, mut, refs))
        tag, size = reply[0], len(reply)
        if tag == "e" and size == 4 and all(type(x) is str for x in reply):
            raise_error(errors, reply[1], reply[2], reply[3], args[0] if op == "unary" else op)
        if tag == "v" and size >= 2:
            value = reply[1] if is_plain(reply[1]) else remote_type(0, _OPAQUE)
        elif tag == "h" and size >= 3 and type(reply[1]) is int and type(reply[2]) is str:
            value = remote_type(reply[1], reply[2][:80])
        else:
            state["gone"] = "the program sent a malformed reply"
            raise ProgramGone(state["gone"])
        if mut and size in (3, 4):
            copy_back(reply[-1], mut, args, is_plain)
        return value

    def request_globals(names):
        reply = exchange(("globals", 0, names, None, (), False))
        out = reply[1] if reply[0] == "g" and len(reply) == 2 and type(reply[1]) is list else []
        return out

    return remote_type, request_globals


def raise_error(errors, name, detail, kind, op):
    """Raise, in the test, what the program raised: built-in exceptions as themselves,
    others as ProgramError, StopIteration only where an iterator's `next` gave it."""
    msg = detail.split(": ", 1)[1] if detail.startswith(name + ": ") else ""
    if kind == "memory":
        raise MemoryError(msg)
    if kind == "stop" and op == "next":
        raise StopIteration
    error = errors.get(name)
    if error is None:  # not built in, or StopIteration from a call (PEP 479's rule)
        raise ProgramError(detail)
    raise error(msg)


def copy_back(muts, mut, args, is_plain):
    """Apply the program's report of in-place changes to the test's own arguments."""
    if type(muts) is not tuple:
        return
    for entry in muts:
        if type(entry) is tuple and len(entry) == 2 and entry[0] in mut and is_plain(entry[1]):
            merge(args[entry[0]], entry[1])


def _builtins_by_name():
    import builtins

    return dict(vars(builtins))


def _builtin_errors():
    import builtins

    return {
        name: e
        for name, e in vars(builtins).items()
        if isinstance(e, type)
        and issubclass(e, Exception)
        and e is not StopIteration
        and e is not StopAsyncIteration
    }


def make_waiter(pid, rfd):
    """wait(): block until the channel has data; ChannelClosedError once the program exited
    (its children may keep the pipe open, so EOF alone would not tell)."""
    import select

    poller = select.poll()
    poller.register(rfd, select.POLLIN)
    try:
        poller.register(os.pidfd_open(pid), select.POLLIN)
    except (AttributeError, OSError):  # kernels before 5.3: EOF still ends the wait
        pass

    def wait():
        for fd, _ in poller.poll():
            if fd == rfd:
                return
        raise ChannelClosedError("the program's process exited")

    return wait


def death(pid, cpu_s):
    """(status, detail, signal) of the program's process once the channel broke."""
    for _ in range(30):  # the pipe closes a moment before the exit status is there
        try:
            wpid, status, usage = os.wait4(pid, os.WNOHANG)
        except ChildProcessError:
            return "crashed", "the program's process is gone", 0
        if wpid:
            break
        time.sleep(0.01)
    else:
        return "closed", "the program broke its channel to the tests", 0
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        cpu = usage.ru_utime + usage.ru_stime
        if sig == 24 or (sig == 9 and cpu >= cpu_s - 0.1):  # SIGXCPU, or SIGKILL at the hard limit
            return "cpu", f"CPU limit ({cpu:.1f} s)", sig
        return "crashed", f"killed by signal {sig}", sig
    return "exited", f"exit code {os.WEXITSTATUS(status)} before the tests finished", 0


def bind_names(request_globals, names, subject, remote_type):
    """The program's names the tests use, bound as the module docstring says."""
    import builtins

    is_plain, stdlib, own = make_is_plain(), sys.stdlib_module_names, set(vars(builtins))
    wanted = [n for n in names if n == subject or n not in own]
    bound = {}
    for entry in request_globals(wanted) if wanted else ():
        if type(entry) is not tuple or len(entry) < 3 or entry[0] not in wanted:
            continue
        name, kind = entry[0], entry[1]
        if name != subject and (name in stdlib or kind == "m"):
            module = name if name in stdlib else entry[2]
            if type(module) is str and module.split(".")[0] in stdlib:
                try:
                    __import__(module)
                    bound[name] = sys.modules[module]
                except BaseException:  # noqa: S110 - unbound: the test gets a NameError
                    pass
        elif kind == "v" and is_plain(entry[2]):
            bound[name] = entry[2]
        elif kind == "h" and len(entry) == 4 and type(entry[2]) is int:
            bound[name] = remote_type(entry[2], entry[3][:80] if type(entry[3]) is str else "?")
    return bound


def nondumpable():
    """Close /proc/<pid>/mem and friends to a program running under the same uid."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except BaseException:  # noqa: S110 - unsafe mode on an odd libc: nothing more to do
        pass


def run_unit(test, ns, pristine, hooks, needed, state):
    """(status, detail) of one test unit."""
    state["asserts"], state["untrusted"] = 0, ""
    tns = dict(ns)
    tns["__builtins__"] = dict(pristine)
    tns.update(hooks)
    try:
        exec(test, tns)
    except Untrusted:
        status, detail = "untrusted", ""
    except ProgramGone:
        status, detail = "error", "the program's process ended: " + state["gone"]
    except AssertionError as exc:
        status, detail = "fail", describe(exc)
    except MemoryError:
        status, detail = "memory", "MemoryError"
    except BaseException as exc:
        status, detail = "error", describe(exc)
    else:
        status, detail = "pass", ""
        if state["gone"]:  # the test swallowed ProgramGone
            status, detail = "error", "the program's process ended: " + state["gone"]
        elif state["asserts"] < needed:
            status, detail = "skipped", f"{state['asserts']} of {needed} asserts ran"
    if state["untrusted"] and status != "error":
        status = "untrusted"
    if status == "untrusted":
        detail = f"compared or truth-tested a {state['untrusted']} from the program"
    return status, detail


def test_side(pid, result_fd, tests_fd, rfd, wfd):
    """The test process: never returns."""
    import builtins

    with os.fdopen(tests_fd, "rb") as stream:
        job = marshal.loads(stream.read())
    nonce, uid, limits, setup, tests, needed, names, subject, token, cpu_s = job
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    wait = make_waiter(pid, rfd)
    drop(uid, limits)
    if not uid:
        nondumpable()
    send, recv = make_channel(rfd, wfd, wait)

    def emit(kind, index, status, detail=""):
        detail = detail.replace("\t", " ").replace("\n", " ")[:300]
        line = f"{nonce}\t{kind}\t{index}\t{status}\t{detail}\n"
        os.write(result_fd, line.encode("utf-8", "replace"))

    def finish():
        if state["gone"]:
            status, detail, sig = death(pid, cpu_s)
            emit("solution", 0, status, detail)
            if sig:
                emit("signal", sig, "ok")
        else:  # it flushes what the tests made it print when its channel closes: let it
            with contextlib.suppress(OSError):  # already closed
                os.close(wfd)
            death(pid, cpu_s)  # its exit (`death` waits a moment): "done" may tear the sandbox down
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        emit("done", 0, "ok")
        os._exit(0)

    state = {"asserts": 0, "untrusted": "", "gone": ""}
    emit("ready", 0, "ok")
    try:
        hello = recv()
    except ChannelClosedError as exc:
        hello, state["gone"] = None, str(exc)
    if type(hello) is not tuple or len(hello) != 3 or not all(type(x) is str for x in hello):
        state["gone"] = state["gone"] or "the program sent no start-up report"
        finish()
    emit("solution", 0, hello[1], hello[2])
    if hello[1] != "ok":
        finish()
    remote_type, request_globals = make_link(send, recv, token, state)
    pristine = dict(vars(builtins))
    ns = {"__name__": "__tests__", "__builtins__": builtins}
    try:
        ns.update(bind_names(request_globals, names, subject, remote_type))
        if setup:
            exec(setup, ns)
    except BaseException as exc:
        emit("setup", 0, "error", describe(exc))
        finish()
    hooks = make_hooks(state, remote_type)
    for i, test in enumerate(tests):
        status, detail = run_unit(test, ns, pristine, hooks, needed[i], state)
        emit("test", i, status, detail)
        if state["gone"]:
            break
    finish()
