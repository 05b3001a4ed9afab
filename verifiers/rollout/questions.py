"""The bare question's rollouts (the completer's self-confidence), sent in portions.

Every problem's question request (`self_rollouts` completions each) used to go out at once,
before any chain's probe. On two CPU engines with room for 512 sequences, 32 problems' 512
question sequences ran together for the first 50 s of an 85 s stage and finished together;
only then could any search start, and the searches ran in a tail of a few dozen sequences
(bench_throughput's chains, 2026-11-26). Now at most `1 / QUESTION_SHARE` of the room holds
questions: the first problems' self-confidence is known half way, their searches run while
the later questions do, and a probe waits behind one portion of questions, not all of them.
A CPU engine is compute-bound well below its room, so the questions lose little speed.

Each problem has a future from the start (`result`, `done`); it resolves with the real
request's completions. Which problem goes out when changes no seed and no label: a
question request is seeded by its problem alone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future

from labeling.engine_request import EngineRequest
from verifiers.rollout.protocol import AsyncCompleter, Completion

# Question sequences out at once: this share of the engines' room. Smaller portions finish
# sooner, so their problems' searches start while later questions run.
QUESTION_SHARE = 2


class QuestionFeed:
    def __init__(self, completer, requests: dict[str, EngineRequest], capacity: int,
                 submit: Callable[[object, Sequence[EngineRequest]], list[Future]]) -> None:
        self.completer, self.submit = completer, submit
        self.waiting = list(requests.items())
        self.futures: dict[str, Future[list[Completion]]] = {pid: Future() for pid in requests}
        # Sent in portions only to an engine that answers each request as it finishes and
        # says how much room it has; to any other, all at once.
        throttled = isinstance(completer, AsyncCompleter) and capacity > 0
        self.limit = max(capacity // QUESTION_SHARE, 1) if throttled else 0
        self.out = 0  # question sequences sent and not back
        self.sent_requests = 0
        self.wake: Callable[[], None] = lambda: None  # the driver's loop, told of a return
        self._lock = threading.Lock()

    def send(self, busy: int = 0) -> None:
        """Send questions while they and the `busy` sequences of the searches fit the room.
        From the driver's thread only."""
        batch: list[tuple[str, EngineRequest]] = []
        with self._lock:
            load = self.out
            while self.waiting and (not self.limit or load < self.limit):
                pid, req = self.waiting.pop(0)
                batch.append((pid, req))
                load += req.n
                self.out += req.n
        self._submit(batch)

    def send_all(self) -> None:
        with self._lock:
            batch, self.waiting = self.waiting, []
            self.out += sum(req.n for _, req in batch)
        self._submit(batch)

    def _submit(self, batch: list[tuple[str, EngineRequest]]) -> None:
        if not batch:
            return
        futures = self.submit(self.completer, [req for _, req in batch])
        if len(futures) != len(batch):
            raise RuntimeError(f"Completer answered {len(futures)} of {len(batch)} requests")
        self.sent_requests += len(batch)
        for (pid, req), fut in zip(batch, futures, strict=True):
            fut.add_done_callback(lambda f, pid=pid, n=req.n: self._back(pid, n, f))

    def _back(self, pid: str, n: int, fut: Future) -> None:
        with self._lock:
            self.out -= n
        err = fut.exception()
        if err is None:
            self.futures[pid].set_result(fut.result())
        else:
            self.futures[pid].set_exception(err)
        self.wake()

    def done(self, pid: str) -> bool:
        return self.futures[pid].done()

    def result(self, pid: str) -> list[Completion]:
        """The problem's completions, waiting for them (whatever is unsent goes out first: a
        caller that waits cannot also feed)."""
        if not self.futures[pid].done():
            self.send_all()
        return self.futures[pid].result()
