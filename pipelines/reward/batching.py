"""Dynamic batching for the reward server: concurrent requests share one scoring call.

`Batcher.submit(items)` waits for the items' results. One task collects waiting requests
into a batch of at most `max_batch` items (a request is never split; one larger than
`max_batch` is scored alone), waiting at most `max_wait_s` after the first arrives for
others to join, and runs `score(batch)` in one worker thread, so the event loop keeps
answering (health checks, new requests) while the model runs, and requests that arrive during
a call form the next batch. `max_queue` bounds the items waiting: beyond it `submit` raises
`QueueFullError` at once (the server answers 503), so memory and latency stay bounded under load.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any


class QueueFullError(Exception):
    """More items are waiting than `max_queue` allows; retry later."""


class Batcher:
    def __init__(self, score: Callable[[list[Any]], Sequence[Any]], max_batch: int = 64,
                 max_wait_s: float = 0.005, max_queue: int = 2048) -> None:  # fmt: skip
        self.score, self.max_batch = score, max_batch
        self.max_wait_s, self.max_queue = max_wait_s, max_queue
        self.waiting: deque[tuple[list[Any], asyncio.Future]] = deque()
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
        for _, future in self.waiting:
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
        self.waiting.append((items, future))
        self.queued += len(items)
        assert self._wake is not None, "Batcher.start() was not called"
        self._wake.set()
        return await future

    def _take(self) -> list[tuple[list[Any], asyncio.Future]]:
        """Requests for one batch: in arrival order, at most max_batch items (at least one
        request, whatever its size)."""
        jobs, size = [], 0
        while self.waiting and (not jobs or size + len(self.waiting[0][0]) <= self.max_batch):
            items, future = self.waiting.popleft()
            jobs.append((items, future))
            size += len(items)
        self.queued -= size
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
