"""A completion caught in a loop: the same line written again and again.

A weak completer often falls into repeating one line ("14. 6 * 8 = 48", "15. 6 * 8 = 48",
...) until the token cap. On the first run's prefixes many of SmolLM2's capped rollouts
ran to the cap so, and what came after their fourth repeat was a large share of all rollout
tokens: compute that changes nothing but where the cap falls (docs/benchmarks.md,
"Rollouts that loop").

`LineRuns` reads text as it comes, piece by piece, and says when the same line has come
`k` times in a row. Lines are compared by their key (`line_key`): the text without a
leading enumerator ("14.", "Step 3:", "-"), whitespace squashed, case folded, so a loop
that numbers its lines is still one line over and over; blank lines neither count nor
break a run. The engine ends a rollout there (`pipelines.engine.loops`) and reads the same
runs back from its tokens to mark it, so both sides agree by construction.

Pure: no engine, no tokenizer.
"""

from __future__ import annotations

import re

# A leading enumerator: "Step 3:", "3.", "3)", "(3)", a bullet. Only the numbering of a
# line is dropped; every other character of it counts.
_ENUMERATOR = re.compile(r"^\s*(?:step\s*\d+\s*[.:)]?|\(?\d+\s*[.:)]|[-*\u2022])\s*", re.I)


def repeats_ok(k: object) -> bool:
    """Whether `k` is a valid number of repeats to end a loop at: 0 (never) or >= 2 (a line
    once is no loop). Every place that takes one (config, request, engine) asks this."""
    return isinstance(k, int) and not isinstance(k, bool) and (k == 0 or k >= 2)


def line_key(line: str) -> str:
    """What makes two lines the same line: `line` without its enumerator, whitespace
    squashed, case folded ("" for a blank line)."""
    return " ".join(_ENUMERATOR.sub("", line, count=1).split()).casefold()


class LineRuns:
    """Counts consecutive repeats of a line over text fed in pieces. `feed(piece)` is True
    once some line has come `k` times in a row (and stays True)."""

    def __init__(self, k: int) -> None:
        if not repeats_ok(k) or k == 0:
            raise ValueError(f"a loop needs a line at least twice in a row, got k={k}")
        self.k = k
        self._tail = ""  # the line being written (no newline yet)
        self._last: str | None = None
        self._run = 0
        self.hit = False

    def feed(self, piece: str) -> bool:
        if self.hit:
            return True
        if "\n" not in piece:
            self._tail += piece
            return False
        *lines, self._tail = (self._tail + piece).split("\n")
        for line in lines:
            key = line_key(line)
            if not key:
                continue
            self._run = self._run + 1 if key == self._last else 1
            self._last = key
            if self._run >= self.k:
                self.hit = True
                break
        return self.hit


# Pieces a loop's end may trail after the line that completed the run: the end-of-text
# token, and one more where the engine sees its tokens a step late (scheduling ahead).
TRAIL = 3


def ended_in_loop(pieces: list[str], k: int) -> bool:
    """Whether a completion, as its tokens' texts in order (the end-of-text token's
    included), ends where `LineRuns(k)` first hit: the engine ended it for looping. A
    completion that looped and then went on past it did not end so."""
    runs = LineRuns(k)
    for i, piece in enumerate(pieces):
        if runs.feed(piece):
            return len(pieces) - 1 - i < TRAIL
    return False


__all__ = ["TRAIL", "LineRuns", "ended_in_loop", "line_key", "repeats_ok"]
