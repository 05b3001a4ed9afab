"""The one way the Hydra apps turn a user's mistake into one sentence and exit code 2."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


def first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def run_or_explain(
    prog: str, run: Callable[[Any], Any], cfg: Any, explain: Callable[[Exception], str | None]
) -> None:
    """`run(cfg)`; an error `explain` turns into a sentence is printed without a traceback and
    exits with 2. Errors it returns None for (bugs) propagate with their traceback."""
    try:
        run(cfg)
    except Exception as exc:
        sentence = explain(exc)
        if sentence is None:
            raise
        print(f"{prog}: error: {sentence}", file=sys.stderr)
        sys.exit(2)
