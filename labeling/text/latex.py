"""Tiny LaTeX helpers for answers, shared by dataset adapters and verifiers (pure)."""

from __future__ import annotations

MAX_ANSWER_CHARS = 400  # longer "answers" are not answers; don't feed them to a parser


def last_boxed(text: str) -> str | None:
    """Content of the last `\\boxed{...}` (or `\\fbox{...}`), braces balanced; None if absent."""
    start = max(text.rfind("\\boxed"), text.rfind("\\fbox"))
    if start < 0:
        return None
    i = text.find("{", start)
    if i < 0:
        return None
    depth = 0
    for j in range(i, min(len(text), i + 4 * MAX_ANSWER_CHARS)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1 : j].strip()
    return None
