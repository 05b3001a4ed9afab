"""Split a math chain's text into steps. Pure functions on strings.

Modes:
- `blank_line`: paragraphs separated by one or more blank lines.
- `step_marker`: "Step 1:", "## Step 2.", "**Step 3**" ... each marker starts a step; text
  before the first marker is its own step.
- `line`: every non-empty line.
- `auto`: `step_marker` when the text has two or more markers, else `blank_line` when it has
  two or more paragraphs, else `line`.

Whitespace inside a step is kept (it matters for code and LaTeX); leading and trailing blank
space of each step is stripped; empty steps never appear.
"""

from __future__ import annotations

import re
from enum import StrEnum


class SplitMode(StrEnum):
    """How a math chain is cut into steps (`split.mode`)."""

    auto = "auto"
    blank_line = "blank_line"
    step_marker = "step_marker"
    line = "line"


MODES = tuple(m.value for m in SplitMode)

_BLANK = re.compile(r"\n[ \t]*\n")
_MARKER = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*)?Step[ \t]+\d+(?:\*\*)?[ \t]*[:.)]", re.M | re.I
)


def _clean(parts: list[str]) -> list[str]:
    return [p.strip() for p in parts if p.strip()]


def split_blank_line(text: str) -> list[str]:
    return _clean(_BLANK.split(text))


def split_line(text: str) -> list[str]:
    return _clean(text.splitlines())


def split_step_marker(text: str) -> list[str]:
    starts = [m.start() for m in _MARKER.finditer(text)]
    if not starts:
        return _clean([text])
    bounds = [0, *starts, len(text)] if starts[0] > 0 else [*starts, len(text)]
    return _clean([text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)])


def split_steps(text: str, mode: str = "auto") -> list[str]:
    """Steps of `text` under `mode`; raises ValueError for an unknown mode."""
    if mode == "auto":
        if len(_MARKER.findall(text)) >= 2:
            return split_step_marker(text)
        blocks = split_blank_line(text)
        return blocks if len(blocks) >= 2 else split_line(text)
    if mode == "blank_line":
        return split_blank_line(text)
    if mode == "step_marker":
        return split_step_marker(text)
    if mode == "line":
        return split_line(text)
    raise ValueError(f"unknown split mode {mode!r}; choose one of {', '.join(MODES)}")
