"""The rules a label source labels by, as a digest of the code that holds them.

A unit is reused (by resume or by a refresh's `output.previous`) only when its key matches:
its problems' content and every config field that changes rows (`config_fields.config_hash`).
The calculator's verdicts also change with its own code and with sympy's version, which no
config field names: without them in the key, a nightly refresh after an upgrade would keep
last week's calculator labels beside tonight's, in one dataset, under one config hash. A
source whose rules live in code declares them (`HowToRun.rules`); the digest is of the code
itself, not a version number someone must remember to raise, so a change that moves no
verdict (a refactor) relabels too: a few CPU minutes against labels of mixed rules.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path


@functools.cache
def code_digest(package: str, distributions: tuple[str, ...] = ()) -> str:
    """A short digest of every module of `package` (its `.py` files, by path and content)
    and of the installed versions of `distributions` (the libraries its verdicts depend on;
    one not installed counts as absent)."""
    root = Path(importlib.import_module(package).__file__ or "").parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    for name in distributions:
        try:
            h.update(f"{name}=={version(name)}\0".encode())
        except PackageNotFoundError:
            h.update(f"{name} absent\0".encode())
    return h.hexdigest()[:16]
