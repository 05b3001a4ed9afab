"""Sandbox text, part 3 of 5 (see 5_harness.py): the proxies of the program's values and the
test side of the channel. Runs in the test process only.

A value the program defines that is not plain data stays in the program's process; the test
process holds a `Remote` proxy of it. A proxy forwards calls, attributes, items, iteration and
arithmetic to the program's process and brings back plain data or another proxy; any
comparison, truth test or membership test of a proxy is `untrusted` (the test fails), so only
plain data, compared by the test process's own built-in types, can make a test pass.
Exceptions the program raised are raised again in the test (built-in ones as themselves), and
arguments the program mutated in place are copied back into the test's own objects.
"""

# ruff: noqa: F821 - names from 1_channel.py and 2_hooks.py, joined into one program


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
