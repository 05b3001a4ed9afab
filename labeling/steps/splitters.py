"""Split a math chain's text into steps. Pure functions on strings.

Modes:
- `blank_line`: paragraphs separated by one or more blank lines.
- `step_marker`: "Step 1:", "## Step 2.", "**Step 3**" ... each marker starts a step; text
  before the first marker is its own step.
- `line`: every non-empty line.
- `auto`: `step_marker` when the text has two or more markers, else `blank_line` when it has
  two or more paragraphs, else `line`.
- `sections`: reasoning-model traces (`<think> ... </think>` and an answer, or a long chain
  of thought without tags): paragraphs merged into sections at reasoning moves within a token
  budget and a cap per chain, the final answer its own section (`labeling.steps.sections`, with
  `SectionOptions`). `auto` never picks it: a run says it labels traces.

Whitespace inside a step is kept (it matters for code and LaTeX); leading and trailing blank
space of each step is stripped; empty steps never appear. Every step is a substring of the
text: `split_spans` gives where (character offsets), `split_steps` the strings. A new mode
is added here, in `split_spans`, and nowhere else.
"""

from __future__ import annotations

import re
from enum import StrEnum

from labeling.steps.sections import SectionOptions, Span, section_spans


class SplitMode(StrEnum):
    """How a math chain is cut into steps (`split.mode`)."""

    auto = "auto"
    blank_line = "blank_line"
    step_marker = "step_marker"
    line = "line"
    sections = "sections"


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


def _located(text: str, steps: list[str]) -> list[Span]:
    """Where each step (a stripped piece of `text`, in order) lies in `text`."""
    spans, pos = [], 0
    for step in steps:
        at = text.find(step, pos)
        if at < 0:  # cannot happen for pieces cut from the text; fail loudly if it does
            raise ValueError(f"step not found in its text: {step[:60]!r}")
        spans.append((at, at + len(step)))
        pos = at + len(step)
    return spans


def split_spans(text: str, mode: str = "auto", options: SectionOptions | None = None
                ) -> list[Span]:
    """Character spans of the steps of `text` under `mode` (`options`: the `sections` cut's
    budget and cap, defaults when None); raises ValueError for an unknown mode."""
    if mode == "sections":
        return section_spans(text, options)
    if mode == "auto":
        if len(_MARKER.findall(text)) >= 2:
            return _located(text, split_step_marker(text))
        blocks = split_blank_line(text)
        return _located(text, blocks if len(blocks) >= 2 else split_line(text))
    if mode == "blank_line":
        return _located(text, split_blank_line(text))
    if mode == "step_marker":
        return _located(text, split_step_marker(text))
    if mode == "line":
        return _located(text, split_line(text))
    raise ValueError(f"unknown split mode {mode!r}; choose one of {', '.join(MODES)}")


def split_steps(text: str, mode: str = "auto", options: SectionOptions | None = None
                ) -> list[str]:
    """Steps of `text` under `mode` (see `split_spans`); raises ValueError for an unknown
    mode."""
    return [text[a:b] for a, b in split_spans(text, mode, options)]
