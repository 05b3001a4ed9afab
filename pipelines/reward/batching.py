"""Dynamic batching for the reward server: concurrent requests share one scoring call.

`Batcher.submit(items)` waits for the items' results. One task collects waiting requests
into a batch of at most `max_batch` items (a request is never split; one larger than
`max_batch` is scored alone), waiting at most `max_wait_s` after the first arrives for
others to join, and runs `score(batch)` in one worker thread, so the event loop keeps
answering (health checks, new requests) while the model runs, and requests that arrive during
a call form the next batch. `max_queue` bounds the items waiting: beyond it `submit` raises
`QueueFullError` at once (the server answers 503), so memory and latency stay bounded under load.

Given `size` (an item's cost, e.g. its characters), batches are length-aware: the shortest
waiting requests go first, and a request much longer than the batch's shortest (more than
`SPREAD` times, past `FLOOR`) waits for a batch of its own kind, so a short completion is
never scored in the shadow of a 16k-character one. A request passed over `PATIENCE` times
goes first in the next batch, so long requests are delayed, never starved.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

SPREAD = 4  # a batch holds requests up to this many times the size of its shortest
FLOOR = 2048  # below this size (characters) requests always share a batch
PATIENCE = 3  # batches a request may be passed over before it goes first


class QueueFullError(Exception):
    """More items are waiting than `max_queue` allows; retry later."""


class Batcher:
    def __init__(self, score: Callable[[list[Any]], Sequence[Any]], max_batch: int = 64,
                 max_wait_s: float = 0.005, max_queue: int = 2048,
                 size: Callable[[Any], int] | None = None) -> None:  # fmt: skip
        self.score, self.max_batch = score, max_batch
        self.max_wait_s, self.max_queue = max_wait_s, max_queue
        self.size = size
        # (items, future, size of its longest item, batches it was passed over), by arrival
        self.waiting: list[list[Any]] = []
        self.queued = 0  # items waiting (not yet in a batch being scored)
        self.batches = 0
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task | None = None
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prm-reward-score")

    def start(self) -> None:
        """Start the collecting task on the running loop (the server's startup)."""
        self._wake = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        for _, future, *_ in self.waiting:
            if not future.done():
                future.set_exception(QueueFullError("the server is shutting down"))
        self.waiting.clear()
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def submit(self, items: list[Any]) -> list[Any]:
        """The results of `items`, in order. Raises QueueFullError when the queue has no room, and
        whatever `score` raised for the batch these items were in."""
        if not items:
            return []
        if self.queued + len(items) > self.max_queue:
            raise QueueFullError(f"{self.queued} completions are waiting; the queue holds "
                            f"{self.max_queue}")  # fmt: skip
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        longest = max(self.size(x) for x in items) if self.size is not None else 0
        self.waiting.append([items, future, longest, 0])
        self.queued += len(items)
        assert self._wake is not None, "Batcher.start() was not called"
        self._wake.set()
        return await future

    def _order(self) -> list[list[Any]]:
        """Waiting requests in the order they may join a batch: arrival order without `size`;
        with it, the overdue (passed over PATIENCE times) first, then shortest first."""
        if self.size is None:
            return list(self.waiting)
        return sorted(self.waiting, key=lambda w: (w[3] < PATIENCE, w[2]))  # stable: arrival

    def _take(self) -> list[tuple[list[Any], asyncio.Future]]:
        """Requests for one batch: at most max_batch items (at least one request, whatever
        its size), in `_order`; with `size`, none longer than SPREAD x the first's."""
        jobs: list[tuple[list[Any], asyncio.Future]] = []
        taken: list[list[Any]] = []
        count, cap = 0, 0.0
        for entry in self._order():
            items, future, longest, _ = entry
            if jobs and (count + len(items) > self.max_batch
                         or (self.size is not None and longest > cap)):  # fmt: skip
                if self.size is None:
                    break  # arrival order: nobody overtakes
                continue
            if not jobs:
                cap = SPREAD * max(longest, FLOOR)
            jobs.append((items, future))
            taken.append(entry)
            count += len(items)
        self.waiting = [w for w in self.waiting if not any(w is t for t in taken)]
        for w in self.waiting:
            w[3] += 1
        self.queued -= count
        return jobs

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        assert self._wake is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            if not self.waiting:
                continue
            deadline = loop.time() + self.max_wait_s
            while self.queued < self.max_batch and (left := deadline - loop.time()) > 0:
                try:  # wait for more requests to join, not longer than the deadline
                    await asyncio.wait_for(self._wake.wait(), timeout=left)
                    self._wake.clear()
                except TimeoutError:
                    break
            jobs = [(i, f) for i, f in self._take() if not f.cancelled()]
            if self.waiting:
                self._wake.set()  # what did not fit is the next batch
            if not jobs:
                continue
            flat = [item for items, _ in jobs for item in items]
            self.batches += 1
            try:
                results = await loop.run_in_executor(self._pool, self.score, flat)
                if len(results) != len(flat):
                    raise RuntimeError(f"{len(results)} results for {len(flat)} items")
            except Exception as exc:  # every request of the batch learns why
                for _, future in jobs:
                    if not future.done():
                        future.set_exception(exc)
                continue
            at = 0
            for items, future in jobs:
                if not future.done():  # a client that went away cancelled its future
                    future.set_result(list(results[at : at + len(items)]))
                at += len(items)
