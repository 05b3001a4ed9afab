"""Sandbox text, part 5 of 5: start-up, and the program's side of a run.

`python -S -P -B -c <1_channel.py + ... + 4_testside.py + this> <result fd> <tests fd>` runs
inside bubblewrap (the runner joins the five files; the project never imports them).
Start-up, still with the sandbox's only privileges (as root: CAP_SETUID/SETGID), forks two
processes connected by two pipes:

- the program's process (this file): reads the program from stdin, drops to uid A, sets
  rlimits, runs the program, then answers the test process's requests (call this function,
  get this attribute, ...). Every answer is plain data (1_channel.py), sent with `marshal`
  functions bound before the program ran, or a numbered handle for anything else; instances
  of subclasses of the built-in scalars and containers go as their base type's content.
  It never sees the tests, the result fd or the run's nonce.
- the test process (4_testside.py): the one bwrap started; reads the tests from their own
  fd, drops to uid B, runs them with the program's names bound to proxies (3_remote.py), and
  writes the records. A different uid: the program can neither signal, trace nor read its memory.

Nothing in the program's process is trusted: the test process checks everything it gets.
"""

# ruff: noqa: F821 - names from 1_channel.py and 4_testside.py, joined into one program
import builtins
import os
import resource
import sys


def describe(exc):
    name = type(exc).__name__
    name = name if type(name) is str else "?"
    try:
        msg = str(exc)
    except BaseException:  # a program's exception may refuse to print itself
        msg = ""
    msg = msg if type(msg) is str else ""
    return (name + ": " + msg)[:200] if msg else name


def drop(uid, limits):
    """Become `uid` (when started as root) and apply the rlimits."""
    if uid and os.getuid() == 0:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)  # also clears the dumpable flag: /proc/<pid>/mem is closed to others
    for res, soft, hard in limits:
        resource.setrlimit(res, (soft, hard))


class NotPlainError(Exception):
    pass


def make_export():
    """export(value) -> (True, plain copy) or (False, None); see the module docstring."""
    is_plain = make_is_plain()
    scalars, _type, _issub, depth_cap = frozenset(SCALARS), type, issubclass, MAX_DEPTH
    # Subclasses of scalars: the base type's own conversion gives an exact copy.
    to_scalar = (
        (bool, bool),
        (int, int.__index__),
        (float, float.__float__),
        (complex, complex.__complex__),
        (str, str.__str__),
        (bytes, bytes.__bytes__),
    )
    # Containers are read with the base type's iterator, never the subclass's.
    to_seq = (
        (list, list.__iter__, list),
        (tuple, tuple.__iter__, tuple),
        (set, set.__iter__, set),
        (frozenset, frozenset.__iter__, frozenset),
    )
    items = dict.items

    def conv(x, depth, budget):
        t = _type(x)
        if t in scalars:
            return x
        budget[0] -= 1
        if depth >= depth_cap or budget[0] < 0:
            raise NotPlainError
        for base, fn in to_scalar:
            if _issub(t, base):
                return fn(x)
        for base, it, make in to_seq:
            if _issub(t, base):
                return make([conv(e, depth + 1, budget) for e in it(x)])
        if _issub(t, dict):
            return {conv(k, depth + 1, budget): conv(v, depth + 1, budget) for k, v in items(x)}
        raise NotPlainError

    def export(value):
        try:
            if is_plain(value):
                return True, value
            return True, conv(value, 0, [MAX_ITEMS])
        except BaseException:  # not plain, too deep, or a hostile object's own error
            return False, None

    return export


_UNARY = {
    "neg": lambda a: -a,
    "pos": lambda a: +a,
    "abs": abs,
    "invert": lambda a: ~a,
    "int": int,
    "float": float,
    "complex": complex,
    "index": lambda a: a.__index__(),
    "len": len,
    "str": str,
    "repr": repr,
    "iter": iter,
    "next": next,
}
_BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b,
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "pow": lambda a, b: a**b,
    "round": round,
}


def describe_names(ns, wanted, handle, module_type):
    """What the program's globals named in `wanted` are: a module's name, plain data or a
    handle (the test process decides which it trusts)."""
    out = []
    for name in wanted:
        if name in ns:
            value = ns[name]
            if type(value) is module_type:
                out.append((name, "m", getattr(value, "__name__", "")))
            else:
                out.append((name, *handle(value)))
    return out


def make_server(send, recv, token):
    """The program's request loop; the functions it uses are bound before the program runs."""
    export, objs = make_export(), {}
    unary, binary = dict(_UNARY), dict(_BINARY)
    _type, _tuple, _list, _dict = type, tuple, list, dict
    _getattr, _setattr, _memory, _stop = getattr, setattr, MemoryError, StopIteration
    _base = BaseException
    _describe, module_type = describe, type(sys)

    def handle(value):
        ok, plain = export(value)
        if ok:
            return ("v", plain)
        hid = len(objs) + 1
        objs[hid] = value
        name = _type(value).__name__
        return ("h", hid, name if _type(name) is str else "?")

    def resolve(x):  # T's handles inside arguments: (token, hid) pairs
        t = _type(x)
        if t is _tuple and len(x) == 2 and x[0] == token:
            return _getattr(builtins, x[1]) if _type(x[1]) is str else objs[x[1]]
        if t in (_list, _tuple, set, frozenset):
            return t(resolve(e) for e in x)
        if t is _dict:
            return {resolve(k): resolve(v) for k, v in x.items()}
        return x

    def run(op, target, args, kwargs, mut):
        if op == "call":
            out = target(*args, **kwargs)
            return handle(out) + (tuple((i, export(args[i])[1]) for i in mut),)
        if op == "getattr":
            return handle(_getattr(target, args[0]))
        if op == "setattr":
            _setattr(target, args[0], args[1])
            return ("v", None)
        if op == "getitem":
            return handle(target[args[0]])
        if op == "setitem":
            target[args[0]] = args[1]
            return ("v", None)
        if op == "unary":
            return handle(unary[args[0]](target))
        if op == "binary":
            return handle(binary[args[0]](target, args[1]))
        if op == "rbinary":
            return handle(binary[args[0]](args[1], target))
        raise ValueError("unknown request")

    def serve(ns):
        while True:
            op, hid, args, kwargs, mut, refs = recv()
            try:
                if op == "globals":
                    send(("g", describe_names(ns, args, handle, module_type)))
                    continue
                if refs:
                    args, kwargs = resolve(args), resolve(kwargs)
                reply = run(op, objs[hid], args, kwargs, mut)
            except _memory:
                reply = ("e", "MemoryError", "", "memory")
            except _stop:
                reply = ("e", "StopIteration", "", "stop" if op == "unary" else "other")
            except _base as exc:  # SystemExit, KeyboardInterrupt included: the test decides
                name = _type(exc).__name__
                reply = ("e", name if _type(name) is str else "?", _describe(exc), "other")
            send(reply)

    return serve


def program_side(rfd, wfd):
    """The program's process: never returns."""
    send, recv = make_channel(rfd, wfd)
    uid, limits, code, token = marshal.loads(sys.stdin.buffer.read())
    null = os.open(os.devnull, os.O_RDONLY)  # input() must see EOF, not the job pipe
    os.dup2(null, 0)
    os.close(null)
    drop(uid, limits)
    serve = make_server(send, recv, token)
    _exit, _exec, _base, _memory = os._exit, exec, BaseException, MemoryError
    streams = (sys.stdout, sys.stderr)
    sys.modules["__main__"] = type(sys)("__main__")  # `import __main__` finds nothing of ours
    ns = {"__name__": "__main__", "__builtins__": builtins}
    try:
        compiled = compile(code, "<solution>", "exec")
        status, detail = "ok", ""
    except _base as exc:  # SyntaxError, ValueError (null bytes), RecursionError
        status, detail = "syntax", describe(exc)
    if status == "ok":
        try:
            _exec(compiled, ns)
        except _memory:
            status, detail = "memory", "MemoryError"
        except _base as exc:  # includes SystemExit and KeyboardInterrupt
            status, detail = "error", describe(exc)
    for stream in streams:  # keep the program's output in order with the test process's
        try:
            stream.flush()
        except BaseException:
            pass
    try:
        send(("ready", status, detail))
        if status == "ok":
            serve(ns)
    except BaseException:
        pass
    for stream in streams:
        try:
            stream.flush()
        except BaseException:
            pass
    _exit(0)


def main():
    result_fd, tests_fd = int(sys.argv[1]), int(sys.argv[2])
    to_prog_r, to_prog_w = os.pipe()
    to_tests_r, to_tests_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        for fd in (result_fd, tests_fd, to_prog_w, to_tests_r):
            os.close(fd)
        program_side(to_prog_r, to_tests_w)
    for fd in (to_prog_r, to_tests_w):
        os.close(fd)
    test_side(pid, result_fd, tests_fd, to_tests_r, to_prog_w)


main()
