"""Training chains streamed from prm-label's Parquet shards, in bounded memory.

What this promises:
- Memory is bounded by `read_batch_rows + shuffle_buffer` rows, whatever the dataset size.
- The order is a pure function of (files, seed, epoch): the same config replays the same
  stream, which is what makes resuming exact (`ChainStream.skip`).
- The validation split is by problem: a hash of (seed, problem_id) decides, so all chains of
  a problem land on the same side, in every process, without a pass over the data.
- With `world` data-parallel workers, the global stream is dealt in rounds of `world` chains
  (the last incomplete round of an epoch is dropped), so every worker sees the same number of
  chains per epoch and none waits on the others at the end of an epoch.
What it does not do: every worker reads every shard (I/O is `world` times, memory is not).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from labeling import registry
from labeling.combine import consensus_reason
from labeling.rows import verdicts_from_structs
from labeling.shards import input_shards
from pipelines.cli import UserError
from pipelines.train.config import LABEL_SOURCES, PRMDataConfig


def source_name(cfg: PRMDataConfig) -> str:
    """The label source as a plain string (the config holds an enum member, tests a str)."""
    return str(getattr(cfg.label_source, "value", cfg.label_source))


def target_column(cfg: PRMDataConfig) -> str:
    """The column the targets come from."""
    return source_name(cfg)


def is_soft(cfg: PRMDataConfig) -> bool:
    """Soft targets: a source's `<name>_scores` column (a rate in [0, 1])."""
    return target_column(cfg) in {s.scores_column for s in registry.specs() if s.scores}


def _owner(column: str) -> str | None:
    """The source whose boolean labels `column` holds (its verdicts hold them too)."""
    return next((s.name for s in registry.specs() if s.labels_column == column), None)


@dataclass(frozen=True, slots=True)
class Example:
    """One chain ready for `tokenize_row`: targets are bool/float per step, None = masked."""

    problem_id: str
    chain_id: str
    prompt: str
    steps: list[str]
    targets: list[Any]


def is_validation(problem_id: str, seed: int, fraction: float) -> bool:
    """Deterministic per-problem split (BLAKE2b, not Python's salted hash())."""
    digest = hashlib.blake2b(f"{seed}\x1f{problem_id}".encode(), digest_size=8).hexdigest()
    return int(digest, 16) / 2**64 < fraction


def _consensus(row: dict[str, Any]) -> bool:
    """Whether the chain passes the `consensus` policy's agreement rule over every
    consensus-capable source it carries (labeling.combine.consensus_reason): `answer` does
    not locate errors, so it takes no part."""
    vs = verdicts_from_structs(row.get("verdicts"), len(row["completions"]))
    sources = [s for s in registry.consensus_sources() if s in vs]
    return not consensus_reason(vs, sources)


def _values(row: dict[str, Any], column: str) -> list[Any] | None:
    """The column's values, or (a source's labels in a shard written before its column
    existed, e.g. `mc_labels`) that source's verdicts."""
    if row.get(column) is not None:
        return row[column]
    owner = _owner(column)
    if owner is None or not row.get("verdicts"):
        return None
    vs = verdicts_from_structs(row["verdicts"], len(row["completions"])).get(owner)
    return None if vs is None else [v.label for v in vs]


def row_targets(row: dict[str, Any], cfg: PRMDataConfig) -> list[Any] | None:
    """Per-step targets of a shard row after the config's filters; None = drop the chain.

    Pure: reads only `row`. Soft targets (mc_scores) are floats in [0, 1]; others are bools.
    """
    source = source_name(cfg)
    if source not in LABEL_SOURCES:
        raise ValueError(f"data.label_source={source!r}; choose one of {', '.join(LABEL_SOURCES)}")
    if cfg.domains and row.get("domain") not in cfg.domains:
        return None
    if cfg.consensus_only and not _consensus(row):
        return None
    steps = row["completions"]
    column = target_column(cfg)
    values = _values(row, column)
    if values is None:
        return None
    if len(values) != len(steps):
        raise ValueError(
            f"chain {row.get('chain_id')}: {column} has {len(values)} entries for "
            f"{len(steps)} steps; re-run prm-label or fix the shard writer"
        )
    if is_soft(cfg):
        targets: list[Any] = [None if s is None else float(s) for s in values]
    else:
        targets = list(values)
    if cfg.min_rollouts > 0:
        rollouts = row.get("mc_rollouts") or [None] * len(steps)
        targets = [
            t if r is not None and r >= cfg.min_rollouts else None
            for t, r in zip(targets, rollouts, strict=True)
        ]
    return targets if any(t is not None for t in targets) else None


def _columns(cfg: PRMDataConfig, present: list[str]) -> list[str]:
    """Columns to read from a file whose columns are `present`."""
    cols = {"prompt", "completions", "problem_id", "domain", "chain_id"}
    column = target_column(cfg)
    if column in present:
        cols.add(column)
    elif _owner(column):
        cols.add("verdicts")  # shards from before the column: the verdicts hold the labels
    if cfg.min_rollouts > 0:
        cols.add("mc_rollouts")
    if cfg.consensus_only:
        cols.add("verdicts")
    return sorted(cols)


def iter_examples(
    cfg: PRMDataConfig, files: list[Path], split: str, seed: int, epoch: int
) -> Iterator[Example]:
    """Filtered examples of one split, files in a seeded order, shuffled through a buffer."""
    if split not in ("train", "val"):
        raise ValueError(f"split={split!r}; use 'train' or 'val'")
    rng = random.Random(f"{seed}:{epoch}:{split}")
    order = list(files)
    if split == "train":
        rng.shuffle(order)
    buffer: list[Example] = []
    for path in order:
        file = pq.ParquetFile(path)
        columns = _columns(cfg, file.schema_arrow.names)
        for batch in file.iter_batches(cfg.read_batch_rows, columns=columns):
            for row in batch.to_pylist():
                if is_validation(row["problem_id"], seed, cfg.val_fraction) != (split == "val"):
                    continue
                targets = row_targets(row, cfg)
                if targets is None:
                    continue
                ex = Example(
                    row["problem_id"], row["chain_id"], row["prompt"], row["completions"], targets
                )
                if split == "val":
                    yield ex  # validation order does not matter; keep it cheap
                elif len(buffer) < max(cfg.shuffle_buffer, 1):
                    buffer.append(ex)
                else:
                    i = rng.randrange(len(buffer))
                    yield buffer[i]
                    buffer[i] = ex
    rng.shuffle(buffer)
    yield from buffer


class ChainStream:
    """Endless training stream for one worker: epochs follow each other, dealt by rank.

    `position` (epoch, chains taken in that epoch) is the resume state; it is the same on
    every rank because each rank takes exactly one chain per round.
    """

    def __init__(self, cfg: PRMDataConfig, seed: int, rank: int = 0, world: int = 1) -> None:
        self.cfg, self.seed, self.rank, self.world = cfg, seed, rank, world
        self.files = input_shards(cfg.shards)
        self.epoch, self.taken = 0, 0
        self._it: Iterator[Example] | None = None

    @property
    def position(self) -> dict[str, int]:
        return {"epoch": self.epoch, "taken": self.taken}

    def _epoch_iter(self) -> Iterator[Example]:
        round_: list[Example] = []
        for ex in iter_examples(self.cfg, self.files, "train", self.seed, self.epoch):
            round_.append(ex)
            if len(round_) == self.world:
                yield round_[self.rank]
                round_ = []

    def skip(self, position: dict[str, int]) -> None:
        """Fast-forward to a saved `position` (reads, does not tokenize, the skipped chains)."""
        self.epoch, self.taken, self._it = position["epoch"], 0, None
        for _ in range(position["taken"]):
            next(self)

    def __iter__(self) -> ChainStream:
        return self

    def __next__(self) -> Example:
        for _ in range(2):  # a fresh epoch that is empty right away means no data at all
            if self._it is None:
                self._it = self._epoch_iter()
            try:
                ex = next(self._it)
                self.taken += 1
                return ex
            except StopIteration:
                self.epoch, self.taken, self._it = self.epoch + 1, 0, None
        raise UserError(
            f"no training chains in {self.cfg.shards} after filters (label_source="
            f"{source_name(self.cfg)}, domains={self.cfg.domains}, val_fraction="
            f"{self.cfg.val_fraction}, workers={self.world}); loosen the filters or add shards"
        )


def check_labels_present(cfg: PRMDataConfig) -> None:
    """Before a model loads or Ray starts: the shards exist and some chain carries the labels
    of `data.label_source` (reads that one column, stops at the first file that has one).
    Raises UserError naming the sources the shards do carry."""
    source = source_name(cfg)
    column = target_column(cfg)
    wanted = {column}
    carried: set[str] = set()
    for path in input_shards(cfg.shards):
        names = pq.ParquetFile(path).schema_arrow.names
        present = [c for c in LABEL_SOURCES if c in names]
        table = pq.read_table(path, columns=present)
        filled = {c for c in present if table.column(c).null_count < table.num_rows}
        if filled & wanted or _in_verdicts(path, names, _owner(column)):
            return
        carried |= filled
    have = sorted(c for c in carried if c in LABEL_SOURCES) or ["none"]
    raise UserError(
        f"data.label_source={source}: no chain in {list(cfg.shards)} carries these labels; the "
        f"shards carry {', '.join(have)} (set data.label_source to one of them)"
    )


def _in_verdicts(path: Path, names: list[str], source: str | None) -> bool:
    """Whether the file's `verdicts` hold labels of `source` (shards written before its
    column existed, or with the column left empty, keep them there)."""
    if source is None or "verdicts" not in names:
        return False
    for verdicts in pq.read_table(path, columns=["verdicts"]).column("verdicts").to_pylist():
        if any(v["source"] == source and v["label"] is not None for v in verdicts or ()):
            return True
    return False


def validation_examples(cfg: PRMDataConfig, seed: int) -> Iterator[Example]:
    """At most `val_max_chains` validation chains, in file order."""
    count = 0
    for ex in iter_examples(cfg, input_shards(cfg.shards), "val", seed, 0):
        if count >= cfg.val_max_chains:
            return
        count += 1
        yield ex
