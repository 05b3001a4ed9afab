"""Sandbox text, part 1 of 5: the runner joins 1_channel.py, 2_hooks.py, 3_remote.py,
4_testside.py and 5_harness.py (in the order their names give) into the program it runs with
`python -S -c`; the project never imports these files (a name starting with a digit is no
module name).

What both processes of a run share: length-prefixed `marshal` frames on a pipe, and the
definition of plain data. Plain data is exactly: int, float, complex, str, bytes, bool, None
(by exact type, never a subclass) and list, tuple, dict, set, frozenset of plain data, at
most `MAX_DEPTH` deep and `MAX_ITEMS` containers in all. The test process accepts nothing
else from the program's process: whatever arrives is checked again after decoding.
"""

import marshal
import os

SCALARS = (int, float, complex, str, bytes, bool, type(None))
MAX_DEPTH = 100
MAX_ITEMS = 1_000_000  # containers walked per value; beyond that the value is not plain
MAX_MESSAGE = 64 << 20  # bytes per frame


class ChannelClosedError(Exception):
    """The other side closed the pipe or sent a frame that is not ours."""


def make_is_plain():
    """is_plain(value) -> bool, bound to the real built-in types at start-up."""
    scalars = frozenset(SCALARS)
    seqs = frozenset((list, tuple, set, frozenset))
    _type, _dict, items = type, dict, dict.items
    max_depth, max_items = MAX_DEPTH, MAX_ITEMS

    def is_plain(value):
        stack, n = [(value, 0)], 0
        while stack:
            x, depth = stack.pop()
            t = _type(x)
            if t in scalars:
                continue
            n += 1
            if n > max_items or depth >= max_depth:
                return False  # also ends a cycle: it would be infinitely deep
            if t in seqs:
                stack.extend((e, depth + 1) for e in x)
            elif t is _dict:
                for k, v in items(x):
                    stack.append((k, depth + 1))
                    stack.append((v, depth + 1))
            else:
                return False
        return True

    return is_plain


def make_channel(rfd, wfd, wait=None):
    """(send, recv) over two pipe ends. `wait()` is called before every read (the test
    process uses it to notice that the program died). recv raises ChannelClosedError."""
    dumps, loads, write, read = marshal.dumps, marshal.loads, os.write, os.read
    closed, cap, _len, _memoryview = ChannelClosedError, MAX_MESSAGE, len, memoryview
    from_bytes = int.from_bytes

    def send(obj):
        data = dumps(obj)
        view = _memoryview(_len(data).to_bytes(4, "little") + data)
        pos, total = 0, _len(view)
        while pos < total:
            pos += write(wfd, view[pos:])

    def read_exact(n):
        parts, got = [], 0
        while got < n:
            if wait is not None:
                wait()
            chunk = read(rfd, min(n - got, 1 << 20))
            if not chunk:
                raise closed("the other side closed the channel")
            parts.append(chunk)
            got += _len(chunk)
        return b"".join(parts)

    def recv():
        n = from_bytes(read_exact(4), "little")
        if n > cap:
            raise closed(f"a frame of {n} bytes is over the cap")
        try:
            return loads(read_exact(n))
        except (ValueError, EOFError, TypeError) as exc:
            raise closed("a frame that does not decode") from exc

    return send, recv
