"""Defensive record readers shared by the adapters.

Input files are untrusted: a line may not decode, may not be JSON, may not be an object.
Readers never raise on a bad record; they yield it with a reason so the adapter can quarantine
it. They do raise, with one clear sentence, when the file itself cannot be opened.

A record's `raw` (kept for the quarantine) is always writable: a lone surrogate that a JSON
`\\udXXX` escape put in it is written back as that escape (`labeling.text.unicode`). Whether its
*fields* can be written is decided where they are read (`need_str`) and, for every text of
the finished Problem, in `common.convert`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from labeling.text.unicode import check, escape

RAW_LIMIT = 2000  # characters of a bad record kept in the quarantine


@dataclass(frozen=True, slots=True)
class Record:
    index: int
    data: dict[str, Any] | None  # None when the record is unusable
    raw: str
    error: str = ""

    def __post_init__(self) -> None:
        # The quarantine writes `raw` to Parquet: it must encode, whatever the record held.
        object.__setattr__(self, "raw", escape(self.raw))


def open_path(path: str | Path) -> Path:
    p = Path(path).expanduser()
    if not p.exists():
        raise FileNotFoundError(f"dataset path {str(p)!r} does not exist; set dataset.path")
    if p.is_dir():
        raise IsADirectoryError(f"dataset path {str(p)!r} is a directory; point to a file")
    return p


def iter_jsonl(path: str | Path) -> Iterator[Record]:
    """One Record per non-empty line, streamed (constant memory)."""
    with open(open_path(path), "rb") as f:
        index = -1
        for line in f:
            if not line.strip():
                continue
            index += 1
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raw = line[:RAW_LIMIT].decode("utf-8", "replace")
                yield Record(index, None, raw, f"line is not valid UTF-8 ({exc.reason})")
                continue
            try:
                data = json.loads(text)
            except ValueError as exc:
                yield Record(index, None, text[:RAW_LIMIT], f"line is not valid JSON ({exc})")
                continue
            if not isinstance(data, dict):
                yield Record(index, None, text[:RAW_LIMIT], "line is not a JSON object")
                continue
            yield Record(index, data, text[:RAW_LIMIT])


def iter_json_array(path: str | Path) -> Iterator[Record]:
    """Records of a file holding one JSON array of objects (ProcessBench's format)."""
    p = open_path(path)
    try:
        items = json.loads(p.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{p} is not a UTF-8 JSON array ({exc})") from exc
    if not isinstance(items, list):
        raise ValueError(f"{p} does not hold a JSON array of records")
    for index, item in enumerate(items):
        raw = json.dumps(item, ensure_ascii=False)[:RAW_LIMIT]
        if isinstance(item, dict):
            yield Record(index, item, raw)
        else:
            yield Record(index, None, raw, "record is not a JSON object")


def iter_parquet(path: str | Path, batch_size: int = 4096) -> Iterator[Record]:
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(open_path(path))
    index = 0
    for batch in pf.iter_batches(batch_size=batch_size):
        for row in batch.to_pylist():
            yield Record(index, row, json.dumps(row, default=str)[:RAW_LIMIT])
            index += 1


def iter_records(path: str | Path) -> Iterator[Record]:
    """By extension: .jsonl/.json (array or lines) or .parquet."""
    p = Path(path)
    if p.suffix == ".parquet":
        return iter_parquet(p)
    if p.suffix == ".json":
        head = open_path(p).read_bytes()[:64].lstrip()
        if head.startswith(b"["):
            return iter_json_array(p)
    return iter_jsonl(p)


def need_str(data: dict[str, Any], key: str, allow_empty: bool = False) -> str:
    """The string field `key`, or ValueError with the sentence the quarantine will show."""
    if key not in data or data[key] is None:
        raise ValueError(f"missing field {key!r}")
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"field {key!r} should be text, got {type(value).__name__}")
    text = check(str(value), key)
    if not allow_empty and not text.strip():
        raise ValueError(f"field {key!r} is empty")
    return text
