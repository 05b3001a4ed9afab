"""Sandbox text, part 4 of 5: the test process of a run (see 5_harness.py for the whole).

It shares nothing with the program but two pipes: its own interpreter, builtins,
`sys.modules`, setup data and tests. The program's names that the tests use are bound here
as follows: a name of a builtin (except the function under test) and a name of a standard
library module are this process's own; other names the program defines become copies of
their plain value or `Remote` proxies (3_remote.py: they forward to the program's process,
and comparing or truth-testing one fails the test).

Records go to the result fd as `<nonce>\\t<kind>\\t<index>\\t<status>\\t<detail>` lines;
the program's process never has that fd or the nonce.
"""

# ruff: noqa: F821 - names from the other parts, joined into one program
import contextlib
import marshal
import os
import sys
import time


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
