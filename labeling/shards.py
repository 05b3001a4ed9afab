"""The on-disk format of a labeled dataset: shards, per-unit records, the manifest.

Layout of an output directory:

    manifest.json                 written last; its presence means the run finished
    units/unit-00000.json         one per finished work unit (its "done" record)
    shards/part-00000.parquet     labeled chains of unit 0, sorted by (problem_id, chain_index)
    quarantine/part-00000.parquet rows of unit 0 that could not be used, with reasons

Every file is written to a temporary name in the same directory, flushed, fsynced and then
renamed, so a reader (or a resumed run) never sees a half-written file under a final name.
A unit counts as done only when its record exists *and* the shard's size and SHA-256 match
the record: a truncated or corrupted shard is detected and the unit is redone.

A row that Parquet cannot encode (a lone surrogate: see `labeling.text.unicode`) never stops a unit:
quarantine rows are written with such characters escaped, and a labeled row that still holds
one (the unit labeler sets them aside first, so this is a last line of defence) is moved to
the quarantine with the reason, the unit's `rows` and `chains` counts lowered to match.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from labeling.schema import QUARANTINE_SCHEMA, labeled_schema
from labeling.text.unicode import escape, escape_row, unwritable_field

MANIFEST = "manifest.json"
# The polars engine every reader of a dataset collects with: batches through the plan, bounded
# memory (a dataset may not fit in RAM).
STREAM = "streaming"
FORMAT_VERSION = 2  # of the shards and manifest, written into each manifest


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temp file + rename. Raises OSError (e.g. ENOSPC)
    with nothing left under the final name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_copy(src: Path, dst: Path) -> None:
    """Copy `src` to `dst` through a temp file + rename (same guarantees as the writers)."""
    atomic_write_bytes(dst, Path(src).read_bytes())


def atomic_write_table(path: Path, table: pa.Table, row_group_size: int = 20_000) -> None:
    """Parquet (zstd) through a temp file + rename. Deterministic bytes for equal tables."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        pq.write_table(
            table,
            tmp,
            compression="zstd",
            row_group_size=row_group_size,
            write_statistics=True,
            # No creator/timestamp metadata beyond pyarrow's own: equal input, equal bytes.
        )
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    finally:
        tmp.unlink(missing_ok=True)


def rows_to_table(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """Rows (dicts keyed by column) to a table with exactly `schema`. Missing columns -> null;
    unknown keys raise (a typo in a column name must not silently vanish)."""
    names = set(schema.names)
    for row in rows[:1]:
        extra = set(row) - names
        if extra:
            raise KeyError(f"row has columns not in the schema: {sorted(extra)}")
    columns = {name: [row.get(name) for row in rows] for name in schema.names}
    return pa.table(columns, schema=schema)


@dataclass(slots=True)
class UnitRecord:
    """What a finished work unit produced. Stored as units/unit-NNNNN.json."""

    unit: int
    key: str  # hash of (problem ids, model, sampler, label config): reuse key for refreshes
    shard: str  # relative path, "" when the unit produced no labeled rows
    shard_rows: int
    shard_bytes: int
    shard_sha256: str
    quarantine: str
    quarantine_rows: int
    quarantine_bytes: int
    quarantine_sha256: str
    counts: dict[str, int] = field(default_factory=dict)  # problems_in, chains, steps, ...
    tokens: dict[str, int] = field(default_factory=dict)  # sample, rollout
    seconds: float = 0.0
    reused_from: str = ""  # previous dataset version this unit was copied from


def set_aside_unwritable(
    rows: list[dict[str, Any]],
    quarantined: list[dict[str, Any]],
    counts: Mapping[str, int],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, int]]:
    """The rows that can be written; the others become quarantine rows (stage `write`), and
    every quarantine row is escaped so that it can be written (see the module docstring)."""
    counts = dict(counts)
    keep, moved = [], []
    for row in rows:
        why = unwritable_field(row)
        if not why:
            keep.append(row)
            continue
        moved.append({
            "source_dataset": row.get("source_dataset"), "record_index": -1,
            "problem_id": row.get("problem_id"), "chain_id": row.get("chain_id"),
            "stage": "write", "reason": f"the labeled row cannot be written: {why}",
            "raw": escape(str(row.get("prompt") or ""))[:2000],
            "config_hash": row.get("config_hash"),
        })
    if moved:
        for name in ("rows", "chains"):
            if name in counts:
                counts[name] -= len(moved)
        counts["chains_quarantined"] = counts.get("chains_quarantined", 0) + len(moved)
    return keep, [escape_row(q) for q in quarantined + moved], counts


class DatasetDir:
    """Reads and writes one output directory in the layout above."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def shard_path(self, unit: int) -> Path:
        return self.root / "shards" / f"part-{unit:05d}.parquet"

    def quarantine_path(self, unit: int) -> Path:
        return self.root / "quarantine" / f"part-{unit:05d}.parquet"

    def record_path(self, unit: int) -> Path:
        return self.root / "units" / f"unit-{unit:05d}.json"

    def write_unit(
        self,
        unit: int,
        key: str,
        rows: list[dict[str, Any]],
        quarantined: list[dict[str, Any]],
        counts: Mapping[str, int],
        tokens: Mapping[str, int],
        seconds: float,
        row_group_size: int = 20_000,
    ) -> UnitRecord:
        """Write a unit's shard and quarantine, then its record (last, so that a crash in
        between leaves the unit unfinished, never half-listed)."""
        self.record_path(unit).unlink(missing_ok=True)
        rows = sorted(rows, key=lambda r: (r["problem_id"], r["chain_index"]))
        try:
            table = rows_to_table(rows, labeled_schema()) if rows else None
            quarantined = [escape_row(q) for q in quarantined]
        except UnicodeEncodeError:  # scan only when the fast path fails
            rows, quarantined, counts = set_aside_unwritable(rows, quarantined, counts)
            table = rows_to_table(rows, labeled_schema()) if rows else None
        shard = self._write(self.shard_path(unit), table, row_group_size)
        quar = self._write(
            self.quarantine_path(unit), rows_to_table(quarantined, QUARANTINE_SCHEMA)
            if quarantined else None, 20_000,
        )
        record = UnitRecord(
            unit=unit,
            key=key,
            shard=shard[0],
            shard_rows=len(rows),
            shard_bytes=shard[1],
            shard_sha256=shard[2],
            quarantine=quar[0],
            quarantine_rows=len(quarantined),
            quarantine_bytes=quar[1],
            quarantine_sha256=quar[2],
            counts=dict(counts),
            tokens=dict(tokens),
            seconds=round(seconds, 3),
        )
        self.write_record(record)
        return record

    def write_record(self, record: UnitRecord) -> None:
        data = json.dumps(asdict(record), sort_keys=True, indent=1).encode()
        atomic_write_bytes(self.record_path(record.unit), data)

    def _write(self, path: Path, table: pa.Table | None, rg: int) -> tuple[str, int, str]:
        if table is None:
            path.unlink(missing_ok=True)
            return "", 0, ""
        atomic_write_table(path, table, rg)
        return str(path.relative_to(self.root)), path.stat().st_size, sha256_file(path)

    def read_record(self, unit: int) -> UnitRecord | None:
        try:
            data = json.loads(self.record_path(unit).read_text())
            return UnitRecord(**data)
        except (OSError, ValueError, TypeError):
            return None  # absent or unreadable: the unit is simply not done

    def verify_unit(self, record: UnitRecord) -> str:
        """'' when the unit's files match its record, else one sentence saying what is wrong."""
        for rel, size, digest in (
            (record.shard, record.shard_bytes, record.shard_sha256),
            (record.quarantine, record.quarantine_bytes, record.quarantine_sha256),
        ):
            if not rel:
                continue
            path = self.root / rel
            if not path.exists():
                return f"{rel} is missing"
            if path.stat().st_size != size:
                return f"{rel} has {path.stat().st_size} bytes, the record says {size}"
            if sha256_file(path) != digest:
                return f"{rel} does not match its recorded SHA-256 (corrupt)"
        return ""

    def done_units(self) -> dict[int, UnitRecord]:
        """Units whose records exist (not verified; call `verify_unit`)."""
        out = {}
        for p in sorted((self.root / "units").glob("unit-*.json")):
            try:
                unit = int(p.stem.split("-")[1])
            except (IndexError, ValueError):
                continue
            rec = self.read_record(unit)
            if rec is not None:
                out[unit] = rec
        return out

    def write_manifest(self, manifest: dict[str, Any]) -> Path:
        path = self.root / MANIFEST
        atomic_write_bytes(path, json.dumps(manifest, indent=2, sort_keys=True).encode())
        return path

    def read_manifest(self) -> dict[str, Any] | None:
        try:
            return json.loads((self.root / MANIFEST).read_text())
        except (OSError, ValueError):
            return None


def read_shard(path: str | Path, columns: list[str] | None = None) -> pa.Table:
    """One shard: all its columns, or the `columns` named."""
    return pq.read_table(path, columns=columns)


def shard_files(root: str | Path) -> list[Path]:
    """Labeled shards listed in a finished dataset's manifest (the only ones to trust)."""
    root = Path(root)
    manifest = json.loads((root / MANIFEST).read_text())
    return [root / s["path"] for s in manifest["shards"] if s["path"]]


def summarize_units(records: Iterable[UnitRecord]) -> dict[str, Any]:
    """Totals over unit records for the manifest."""
    counts: dict[str, int] = {}
    tokens: dict[str, int] = {}
    shards, quarantine = [], []
    for r in sorted(records, key=lambda r: r.unit):
        for k, v in r.counts.items():
            counts[k] = counts.get(k, 0) + v
        for k, v in r.tokens.items():
            tokens[k] = tokens.get(k, 0) + v
        if r.shard:
            shards.append(
                {"path": r.shard, "rows": r.shard_rows, "bytes": r.shard_bytes,
                 "sha256": r.shard_sha256, "unit": r.unit, "key": r.key,
                 "reused_from": r.reused_from}
            )
        if r.quarantine:
            quarantine.append(
                {"path": r.quarantine, "rows": r.quarantine_rows, "bytes": r.quarantine_bytes,
                 "sha256": r.quarantine_sha256, "unit": r.unit}
            )
    return {"counts": counts, "tokens": tokens, "shards": shards, "quarantine": quarantine}


def input_shards(paths: list[str]) -> list[Path]:
    """Parquet files under each path: the shards a `manifest.json` lists (a finished prm-label
    dataset), else `<dir>/shards/*.parquet`, `<dir>/*.parquet`, or the path itself."""
    files: list[Path] = []
    for raw in paths:
        p = Path(raw).expanduser()
        if p.is_file():
            files.append(p)
        elif (p / MANIFEST).is_file():  # a prm-label dataset: only the shards it lists
            files.extend(shard_files(p))
        elif (p / "shards").is_dir():
            files.extend(sorted((p / "shards").glob("*.parquet")))
        elif p.is_dir():
            files.extend(sorted(p.glob("*.parquet")))
    if not files:
        raise FileNotFoundError(
            f"no Parquet shards under {paths}; set data.shards=[<prm-label output dir>, ...]"
        )
    return files
