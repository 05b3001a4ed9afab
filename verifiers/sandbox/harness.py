"""The trusted side of one sandboxed execution; `verifiers/sandbox.py` runs this file's text.

It runs as `python -S -P -c <this source> <fd>` inside the sandbox, before any untrusted code,
and is not imported by the project. Steps: read the job (a `marshal`led tuple) from stdin,
drop to an unprivileged uid, set rlimits, run the solution, then the setup code, then each
test in its own namespace copy, and report every step as a line on file descriptor `fd`:
`<nonce>\\t<kind>\\t<index>\\t<status>\\t<detail>`. The host counts a test as passed only
from these lines, tagged with a nonce the solution never sees in its own namespace; stdout
and the exit status mean nothing. The job ends with `os._exit`, so atexit handlers, lingering
threads and `__del__` methods of the solution never run after the last record.

Tests were rewritten on the host: every comparison, `assert`, `not` and `and`/`or` operand
in test code goes through the hooks below, which refuse values whose type defines its own
comparison or truth methods outside the standard library (an "always equal" object is a
fail, not a pass). Only the standard library is importable here, so this file imports
nothing heavier than `resource` (start-up time is the sandbox's main cost).
"""

import builtins
import marshal
import os
import resource
import sys


class Untrusted(BaseException):  # noqa: N818 - BaseException: `except Exception` can't eat it
    """A test compared a value whose comparison methods come from the solution."""


_CMP_METHODS = (
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__contains__",
    "__bool__",
    "__len__",
)
_HEAP, _IMMUTABLE = 1 << 9, 1 << 8
_WALK_LIMIT = 2_000_000  # objects checked per compared value; beyond that, not trusted


def make_hooks(stdlib, state):
    """The functions rewritten tests call. Everything they use is bound here, before the
    solution runs, so patching `builtins` or this module later cannot change them."""
    _type, _id, _bool, _isinstance, _set, _zip, _dict = type, id, bool, isinstance, set, zip, dict
    cmp_methods, heap, immutable, walk_limit = _CMP_METHODS, _HEAP, _IMMUTABLE, _WALK_LIMIT
    untrusted_error = Untrusted
    mro_of = type.__dict__["__mro__"].__get__
    dict_of = type.__dict__["__dict__"].__get__
    flags_of = type.__dict__["__flags__"].__get__
    fn_type = _type(make_hooks)
    code_of = fn_type.__dict__["__code__"].__get__
    startswith = str.startswith
    seqs = (list, tuple, set, frozenset)
    iters = {t: t.__iter__ for t in seqs}
    dict_keys, dict_values = dict.keys, dict.values
    scalars = {int, float, complex, str, bytes, bool, _type(None)}
    safe_types = set(scalars)
    ops = {
        "==": lambda a, b: a == b,
        "!=": lambda a, b: a != b,
        "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b,
        "in": lambda a, b: a in b,
        "not in": lambda a, b: a not in b,
        "is": lambda a, b: a is b,
        "is not": lambda a, b: a is not b,
    }

    def type_trusted(t):
        if t in safe_types:
            return True
        for name in cmp_methods:
            for owner in mro_of(t):
                found = dict_of(owner).get(name)
                if found is not None:
                    break
            else:
                continue
            if not flags_of(owner) & heap or flags_of(owner) & immutable:
                continue  # a C type's slot: the solution cannot have written or patched it
            if _type(found) is fn_type and startswith(code_of(found).co_filename, stdlib):
                continue  # e.g. collections.Counter.__eq__
            return False
        if not flags_of(t) & heap or flags_of(t) & immutable:
            safe_types.add(t)  # immutable types stay trusted; heap types are rechecked
        return True

    def trusted(value):
        stack, seen, n = [value], _set(), 0
        while stack:
            x = stack.pop()
            t = _type(x)
            if t in scalars:
                continue
            n += 1
            if n > walk_limit or not type_trusted(t):
                return False
            if _id(x) in seen:
                continue
            seen.add(_id(x))
            for base in seqs:  # iterate with the base type's iterator, never the solution's
                if _isinstance(x, base):
                    stack.extend(iters[base](x))
                    break
            else:
                if _isinstance(x, _dict):
                    stack.extend(dict_keys(x))
                    stack.extend(dict_values(x))
        return True

    def check(*values):
        for v in values:
            if not trusted(v):
                name = _type(v).__name__
                state["untrusted"] = name if _type(name) is str else "?"
                raise untrusted_error(state["untrusted"])

    def cmp(op, left, right):
        if op not in ("is", "is not"):
            check(left, right)
        return _bool(ops[op](left, right))

    def chain(op_names, first, *rest):
        # `a < b < c`: operands after the first come as thunks, evaluated left to right
        # and only while the chain holds, exactly as Python does.
        left = first
        for op, thunk in _zip(op_names, rest, strict=True):
            right = thunk()
            if not cmp(op, left, right):
                return False
            left = right
        return True

    def truth(value):
        state["asserts"] += 1
        check(value)
        return _bool(value)

    def val(value):
        check(value)
        return value

    return {"__prm_cmp__": cmp, "__prm_chain__": chain, "__prm_truth__": truth, "__prm_val__": val}


def _describe(exc):
    name = type(exc).__name__
    name = name if type(name) is str else "?"
    try:
        msg = str(exc)
    except BaseException:  # a solution's exception may refuse to print itself
        msg = ""
    msg = msg if type(msg) is str else ""
    return (name + ": " + msg)[:200] if msg else name


def main():
    # Everything used after the solution starts is bound to a local first: the solution can
    # patch `builtins` and (through sys.modules) this module's globals.
    _dict, _enumerate, _str, _type = dict, enumerate, str, type
    _base, _assertion, _memory, _untrusted = BaseException, AssertionError, MemoryError, Untrusted
    _exec, _exit, write, encode, describe = exec, os._exit, os.write, str.encode, _describe
    streams = (sys.stdout, sys.stderr)
    fd = int(sys.argv[1])
    (nonce, uid, limits, code, setup, tests, asserts_needed, stdlib) = marshal.loads(
        sys.stdin.buffer.read()
    )
    # input() must see EOF, not the job pipe.
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    if uid and os.getuid() == 0:
        # RLIMIT_NPROC is not enforced for uid 0; a fresh uid also owns nothing outside.
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    for res, soft, hard in limits:
        resource.setrlimit(res, (soft, hard))

    def finish():
        for stream in streams:  # output excerpts help debugging; os._exit skips the flush
            try:
                stream.flush()
            except BaseException:  # a closed or sabotaged stream must not cost the record
                pass
        write(fd, encode(f"{nonce}\tdone\t0\tok\t\n"))
        _exit(0)

    def emit(kind, index, status, detail=""):
        detail = detail.replace("\t", " ").replace("\n", " ")[:300]
        write(fd, encode(f"{nonce}\t{kind}\t{index}\t{status}\t{detail}\n", "utf-8", "replace"))

    state = {"asserts": 0, "untrusted": ""}
    hooks = make_hooks(stdlib, state)
    pristine = _dict(builtins.__dict__)  # tests see these even if the solution patches builtins
    # A tracer can jump over an assert line; the solution has no business tracing the tests.
    for name in ("settrace", "setprofile"):
        if hasattr(sys, name):
            delattr(sys, name)
    sys.modules["__main__"] = _type(sys)("__main__")  # `import __main__` finds nothing of ours
    emit("ready", 0, "ok")

    ns = {"__name__": "__solution__", "__builtins__": builtins}
    try:
        compiled = compile(code, "<solution>", "exec")
    except _base as exc:  # SyntaxError, ValueError (null bytes), RecursionError
        emit("solution", 0, "syntax", describe(exc))
        finish()
    for label, source in (("solution", compiled), ("setup", setup)):
        if not source:
            continue
        try:
            _exec(source, ns)
        except _memory:
            emit(label, 0, "memory", "MemoryError")
            break
        except _base as exc:  # includes SystemExit and KeyboardInterrupt
            emit(label, 0, "error", describe(exc))
            break
        emit(label, 0, "ok")
    else:
        for i, test in _enumerate(tests):
            state["asserts"], state["untrusted"] = 0, ""
            tns = _dict(ns)  # solution functions keep their own globals; this copy is the test's
            tns["__builtins__"] = _dict(pristine)
            tns.update(hooks)
            try:
                _exec(test, tns)
            except _untrusted:
                status, detail = "untrusted", ""
            except _assertion as exc:
                status, detail = "fail", describe(exc)
            except _memory:
                status, detail = "memory", "MemoryError"
            except _base as exc:
                status, detail = "error", describe(exc)
            else:
                status, detail = "pass", ""
                if state["untrusted"]:  # the solution caught our Untrusted and carried on
                    status = "untrusted"
                elif state["asserts"] < asserts_needed[i]:
                    status = "skipped"
                    detail = f"{state['asserts']} of {asserts_needed[i]} asserts ran"
            if status == "untrusted":
                detail = f"compared a {state['untrusted']} object from the solution"
            emit("test", i, status, detail)
    finish()


main()
