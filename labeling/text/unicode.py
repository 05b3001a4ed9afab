"""Text that can be written: the Unicode policy of everything that enters a label job.

Parquet (and Arrow, and the report's HTML) store UTF-8. Every Python `str` can be encoded as
UTF-8 except one that holds a *lone surrogate* (U+D800..U+DFFF not part of a pair): JSON
allows them (`json.loads('"\\ud800"')` succeeds), so an input file can carry one in valid
JSON, and pyarrow then fails at shard-write time (`UnicodeEncodeError: surrogates not
allowed`), on every re-run. Everything else is valid and kept as it is: NUL bytes, control
characters, combining marks, very long lines are all ordinary UTF-8 and Parquet stores them.

The policy, by where a text comes from:
- Input records (dataset files, given steps): a broken record. A text that cannot be
  encoded quarantines its record with one sentence naming the field (`check`,
  `problem_texts`); it is never altered, since a label for altered text would be a label for
  a problem nobody posed.
- Model output (sampled chains, rollouts, judge critiques): untrusted but ours to keep. A
  lone surrogate is replaced by U+FFFD, the standard mark of an undecodable character, where
  the engine's text enters (`repair`); the mark stays visible in the text.
- Quarantine rows: their `reason` and `raw` are for people; a lone surrogate in them is
  written as its escape (`\\ud800`, `escape`), so a quarantine row can always be written.
- Last line of defence: an output row that still cannot be encoded is set aside as a
  quarantine row by the unit labeler and the shard writer instead of stopping the job
  (`unwritable_field`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")


def encoding_problem(text: str) -> str:
    """'' when `text` encodes as UTF-8, else a phrase naming the first bad character."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        return f"holds a lone surrogate (U+{code:04X}) that cannot be written as UTF-8"
    return ""


def check(text: str, field: str) -> str:
    """`text`, or ValueError with the quarantine's sentence when it cannot be written."""
    problem = encoding_problem(text)
    if problem:
        raise ValueError(f"field {field!r} {problem}")
    return text


def repair(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (model output only)."""
    if not encoding_problem(text):
        return text
    return _SURROGATE.sub(REPLACEMENT, text)


def escape(text: str) -> str:
    """`text` with every lone surrogate written as its escape (`\\ud800`): for quarantine
    rows, which people read and which must always be writable."""
    if not encoding_problem(text):
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """Every string inside `value` (rows hold strings, lists of them, and structs)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from _strings(v, f"{path}[{i}]")


def unwritable_field(value: Any, path: str = "") -> str:
    """'' when every string in `value` (a row, a list, a text) can be written, else one
    phrase: the first field that cannot, and why."""
    for where, text in _strings(value, path):
        problem = encoding_problem(text)
        if problem:
            return f"field {where!r} {problem}"
    return ""


def escape_row(row: dict[str, Any]) -> dict[str, Any]:
    """A quarantine row whose strings are all writable (see `escape`)."""
    return {k: escape(v) if isinstance(v, str) else v for k, v in row.items()}
