"""Sandbox text, part 2 of 5 (see 5_harness.py): the hooks rewritten tests call, and the
in-place copy-back of arguments the program mutated. Runs in the test process only.

`program.py` rewrites every comparison, `assert`, `not` and `and`/`or` operand in test code
into a call of these hooks. They refuse (raise `Untrusted`, a BaseException) any value that
holds a proxy of the program's objects, anywhere inside built-in containers: a proxy's own
comparison methods refuse too, but `[p] == [p]` would succeed on identity alone.
"""

# ruff: noqa: F821 - names from the other parts, joined into one program

_MUTABLE = (list, dict, set)


def make_hooks(state, remote_type):
    """The functions rewritten tests call (program.py routes comparisons through them)."""
    _type, _bool, _zip, containers = type, bool, zip, (list, tuple, set, frozenset)
    items = dict.items
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

    def find_remote(value):
        stack, n = [value], 0
        while stack:
            x = stack.pop()
            t = _type(x)
            if t is remote_type:
                return x._prm_t
            n += 1
            if n > MAX_ITEMS:
                return "too large a value"
            if t in containers:
                stack.extend(x)
            elif t is dict:
                for k, v in items(x):
                    stack.append(k)
                    stack.append(v)
        return None

    def check(*values):
        for v in values:
            name = find_remote(v)
            if name is not None:
                state["untrusted"] = name
                raise Untrusted(name)

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


def merge(old, new):
    """Make `old` equal `new` in place, keeping the identity of nested containers."""
    t = type(old)
    if type(new) is not t:
        return
    if t is list:
        for j in range(min(len(old), len(new))):
            if type(old[j]) in _MUTABLE and type(new[j]) is type(old[j]):
                merge(old[j], new[j])
                new[j] = old[j]
        old[:] = new
    elif t is dict:
        for k, v in new.items():
            if k in old and type(old[k]) in _MUTABLE and type(v) is type(old[k]):
                merge(old[k], v)
                new[k] = old[k]
        old.clear()
        old.update(new)
    elif t is set:
        old.clear()
        old.update(new)
