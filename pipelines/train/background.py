"""Work kept off the training step's path: reading and tokenizing ahead, writing checkpoints.

`micro_batches` turns the chain stream into ready micro-batches (tokenized, packed or padded,
labeled index built, pinned for the GPU); `Prefetcher` runs it on a thread with a bounded
queue, so the step only waits when the data path is truly slower than the model, and says
how long it waited. `CheckpointWriter` writes a checkpoint from a host snapshot on a thread
while training goes on; one write at a time, joined before the next, at the end and on error.
What this does not do: parallel tokenizing (one thread; Parquet reads and the fast
tokenizer release the interpreter lock for most of their work).
"""

from __future__ import annotations

import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from pipelines.checkpoint.model import cut_counts, tokenize_row
from pipelines.train import packing


@dataclass
class MicroBatch:
    """One micro-batch ready for the device, and what the step's bookkeeping needs."""

    tensors: dict[str, torch.Tensor]
    chains: int
    chain_tokens: int  # tokens of the chains themselves (no pad)
    position: dict[str, int]  # stream position after its last chain (the resume point)
    cut: Counter = field(default_factory=Counter)  # what max_length dropped, summed
    first_cut: tuple[str, dict[str, int]] | None = None  # (chain_id, counts) of one cut chain


def micro_batches(stream: Any, tok: Any, fmt: Any, soft: bool, batch_size: int,
                  budget: int, pack: bool, pin: bool = False) -> Iterator[MicroBatch]:  # fmt: skip
    """Endless micro-batches from `stream` (a ChainStream): `batch_size` chains padded when
    `budget` is 0; else as many chains, in stream order, as fit in `budget` tokens (packed
    into one row when `pack`, padded otherwise). A chain that does not fit opens the next
    batch: chains are never split, skipped or reordered."""
    pad = tok.pad_token_id
    pending: tuple[dict[str, list], Any, dict[str, int]] | None = None
    while True:
        rows: list[dict[str, list]] = []
        mb = MicroBatch({}, 0, 0, {})
        while True:
            if pending is None:
                ex = next(stream)
                row = tokenize_row(ex.prompt, ex.steps, ex.targets, tok, fmt, soft)
                pending = (row, ex, dict(stream.position))
            row, ex, pos = pending
            n = len(row["input_ids"])
            if budget and rows and not packing.fits(
                    [len(r["input_ids"]) for r in rows], n, budget, pack):  # fmt: skip
                break  # `pending` opens the next batch
            pending = None
            rows.append(row)
            counts = cut_counts(row, ex.targets)
            mb.cut.update(counts)
            if counts["chains_cut"] and mb.first_cut is None:
                mb.first_cut = (ex.chain_id, counts)
            mb.chain_tokens += n
            mb.position = pos
            if not budget and len(rows) == batch_size:
                break
        mb.chains = len(rows)
        mb.tensors = packing.packed(rows, budget, pad, soft) if pack and budget else \
            packing.padded(rows, pad, soft)
        if pin:
            mb.tensors = {k: v.pin_memory() for k, v in mb.tensors.items()}
        yield mb


_DONE = object()


class Prefetcher:
    """Runs an iterator on a daemon thread, `depth` items ahead. `get()` returns the next
    item and the seconds the caller waited for it; an exception in the iterator is raised
    by `get()`. `close()` stops the thread (it may be blocked in the iterator a moment)."""

    def __init__(self, make: Callable[[], Iterator[Any]], depth: int = 4) -> None:
        self._queue: queue.Queue = queue.Queue(maxsize=max(depth, 1))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(make,), daemon=True,
                                        name="prm-train-data")  # fmt: skip
        self._thread.start()

    def _put(self, item: Any) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _run(self, make: Callable[[], Iterator[Any]]) -> None:
        try:
            for item in make():
                if not self._put(item):
                    return
        except BaseException as exc:  # handed to the consumer, who raises it
            self._put((_DONE, exc))
            return
        self._put((_DONE, None))

    def get(self) -> tuple[Any, float]:
        t0 = time.perf_counter()
        item = self._queue.get()
        waited = time.perf_counter() - t0
        if isinstance(item, tuple) and len(item) == 2 and item[0] is _DONE:
            self._queue.put(item)  # every later get() sees the same end
            if item[1] is not None:
                raise item[1]
            raise StopIteration
        return item, waited

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def to_host(obj: Any, memo: dict[Any, torch.Tensor] | None = None) -> Any:
    """A copy of `obj` (nested dicts/lists/tuples of tensors and plain values) with every
    tensor cloned to CPU memory; tensors that share storage (tied weights) share the copy."""
    memo = {} if memo is None else memo
    if isinstance(obj, torch.Tensor):
        key = (obj.data_ptr(), tuple(obj.shape), obj.dtype) if obj.numel() else id(obj)
        hit = memo.get(key)
        if hit is not None:
            return hit
        memo[key] = copy = obj.detach().to("cpu", copy=True)
        return copy
    if isinstance(obj, dict):
        return type(obj)((k, to_host(v, memo)) for k, v in obj.items())
    if isinstance(obj, list | tuple):
        return type(obj)(to_host(v, memo) for v in obj)
    return obj


class CheckpointWriter:
    """At most one background write at a time. `submit(fn, *args)` first waits for the
    previous write (and raises its error, if it failed); `join()` waits for the last one."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self.result: Any = None

    def _run(self, fn: Callable[..., Any], args: tuple) -> None:
        try:
            self.result = fn(*args)
        except BaseException as exc:  # re-raised on the training thread by join()
            self._error = exc

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        self.join()
        self._thread = threading.Thread(target=self._run, args=(fn, args),
                                        name="prm-train-save")  # fmt: skip
        self._thread.start()

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._error is not None:
            error, self._error = self._error, None
            raise error
