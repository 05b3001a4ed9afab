"""The traffic of one `MonteCarloVerifier.verify` call between the estimators and the engine.

Every chain's pending probes are in flight at once; when one comes back its completions are
checked, recorded, and that chain's next probe goes out at once (no rounds: a chain never
waits for another chain's slowest rollout). With an async completer a chain's first probe
goes out as soon as its own outcome is checked, while the others' are still being checked.

Speculation (only while fewer than `capacity` sequences are in flight, `capacity` coming from
the completer: the engines' batch room; a request of n rollouts is n sequences). With chunk 1
a probe asks for one rollout at a time and stops as soon as its step is settled, so a chain
near the end of the stage keeps the engine waiting on one sequence. Then the later rollouts
of the same probe (up to the step's current budget) go out early, each with the seed of its
own rollout index. While the engine runs well below its room, the requests of the probes that
may come next go out too
(`Estimator.lookahead`: binary search's midpoints on either side; `posterior`'s choices
after each outcome of its pending probe, `depth` probes deep and at most `AHEAD_ROLLOUTS` a chain;
the depth is the engines' own, `pipelines.engine.device.look_ahead`),
to shorten the chain of waits at the end of a stage: a `posterior` chain searches one probe
at a time.

Rollouts are kept by their index at a step, not by the request that brought them: rollout i
of a step has the seed `driver.rollout_seed(.., i)` in any request (an engine gives the
j-th completion of a request seeded s the seed s + j, as vLLM does), so a probe of n
rollouts is served by whatever requests hold its n indices, and only the indices no request
holds go out. A request sent early for a probe that then asks fewer rollouts (a top-up of
the undecided ones) is not lost: its first rollouts serve the top-up, the rest wait for the
step's next probe. With room, a probe at a step whose rollouts have come back undecided goes
out with the rollouts its top-ups would ask for (`Estimator.extra`), so the end of a stage is
not a chain of one-rollout rounds. Results are recorded strictly in index order, a whole
probe at a time, only once the step is probed, so the labels, seeds and recorded rollouts
are exactly those of the sequential schedule; what no probe needed is counted as
`wasted_*` and dropped.

Pure Python: no engine, no threads of its own (the completer's futures call back).
"""

from __future__ import annotations

import functools
import queue
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol

from labeling.engine_request import EngineRequest
from labeling.mc import Estimator, Probe
from verifiers.mc.protocol import Completion, RolloutStats

# Rollouts of probes that may come next go out only while fewer than capacity / AHEAD_SHARE
# sequences are in flight: with all the engines' room open to them the stage took longer
# (more sequences per step, some of them wasted), and so it did with a sixteenth
# (docs/benchmarks.md, the MC stage's tail).
AHEAD_SHARE = 4


class Rollouts(Protocol):
    """The seam between the schedule and the driver (`verifiers.mc.driver`): what the schedule
    asks of the driver for one `verify` call, chains named by their index in it. The schedule
    decides when and which rollouts go out; the driver knows what a request holds, how a
    rollout is judged, and the engine."""

    def request(self, chain: int, step: int, index: int, n: int) -> EngineRequest:
        """The request of rollouts `index`..`index + n - 1` from prefix `step` of `chain`
        (each rollout's seed is a function of its index: the same in any request)."""
        ...

    def check(self, chain: int, step: int, text: str) -> bool | None:
        """Whether the rollout `text` from prefix `step` of `chain` reached the answer; None
        when the check decides nothing. Never raises on model output."""
        ...

    def submit(self, requests: Sequence[EngineRequest]) -> list[Future[list[Completion]]]:
        """One future per request, in order (`verifiers.mc.protocol.futures`)."""
        ...


class Schedule:
    """The traffic of the module docstring for `chains` chains: `rollouts` is the driver's
    side of the seam, `pool` runs the checks, `max_rounds` caps a chain's waves of requests,
    `capacity` is the engines' room in sequences (0: no speculation) and `depth` how many
    probes deep speculation looks."""

    def __init__(self, rollouts: Rollouts, chains: int, stats: RolloutStats,
                 pool: ThreadPoolExecutor, *, max_rounds: int, capacity: int = 0,
                 depth: int = 1) -> None:  # fmt: skip
        self.rollouts, self.depth, self.max_rounds = rollouts, depth, max_rounds
        self.estimators: list[Estimator | None] = [None] * chains  # set as chains arrive
        self.stats, self.pool, self.capacity = stats, pool, capacity
        self.speculate = capacity > 0
        self.waves = [0] * chains
        # Per chain, rollouts by (step, index): out now, ever sent, and back (not recorded).
        self.flying: list[set[tuple[int, int]]] = [set() for _ in range(chains)]
        self.issued: list[set[tuple[int, int]]] = [set() for _ in range(chains)]
        self.ready: list[dict[int, dict[int, Completion]]] = [{} for _ in range(chains)]
        self.open: set[int] = set()  # chains with probes left (filled as they arrive)
        self.arriving = False  # no speculation until every chain's first probe is out
        self.in_flight = 0  # requests out (the run ends when none is)
        self.seqs = 0  # their sequences: what fills the engines' room
        self.done: queue.SimpleQueue = queue.SimpleQueue()  # (idx, step, index, req, future)
        self.cache: dict[tuple[int, int, str], bool | None] = {}

    def run(self, arrivals: Iterable[tuple[int, Estimator | None]], eager: bool) -> None:
        """`arrivals`: (chain, its estimator or None) as each chain's own outcome is known.
        `eager` (an async completer): each chain's first probe goes out the moment it arrives
        and results that come back meanwhile are recorded, so the engine starts while the
        outcomes are still being checked (a second or more; minutes for code in a sandbox).
        Otherwise the first probes of all chains go out as one batch."""
        self.arriving = True
        arrived = []
        for idx, est in arrivals:
            self.estimators[idx] = est
            if est is not None and not est.done:
                self.open.add(idx)
            arrived.append(idx)
            if eager:
                self.launch(arrived)
                arrived = []
                self._collect(block=False)
        self.arriving = False
        self.launch(arrived)  # and, with speculation, the spare room now that all are in
        while self.in_flight:
            self._collect(block=True)
        self.flush()

    def _collect(self, block: bool) -> None:
        """Record every finished request (waiting for one when `block`), then send what
        their chains need next: one check batch, one wave."""
        started = time.perf_counter()
        finished = []
        try:
            finished.append(self.done.get(block=block))
            while True:
                finished.append(self.done.get_nowait())
        except queue.Empty:
            pass
        self.stats.generate_seconds += time.perf_counter() - started
        if not finished:
            return
        self.in_flight -= len(finished)
        for idx, step, at, req, _ in finished:
            self.flying[idx].difference_update((step, at + j) for j in range(req.n))
            self.seqs -= req.n
        self.record([(i, step, at, req, fut.result()) for i, step, at, req, fut in finished])
        self.launch(sorted({idx for idx, *_ in finished}))

    def _est(self, idx: int) -> Estimator:
        est = self.estimators[idx]
        assert est is not None
        return est

    def launch(self, chains: Iterable[int]) -> None:
        """Send what the given chains need next, then fill spare room speculatively."""
        work: list[tuple[int, Probe, int]] = []
        for idx in chains:
            if self.estimators[idx] is None or self.waves[idx] >= self.max_rounds:
                continue
            est, held = self._est(idx), self._held(idx)
            # the rollouts of each pending probe that are neither back nor out, and with room
            # those its top-ups would ask for where its step's rollouts come back undecided
            missing = [w for p in est.pending()
                       for w in self._runs(idx, p.step, est.rollouts_at(p.step),
                                           p.n + self._extra(est, p), held)]
            if missing:
                self.waves[idx] += 1
                work += missing
        self._send(work)
        if self.speculate and not self.arriving and self.seqs < self.capacity:
            self._send(self._spare(self.capacity - self.seqs))

    def _extra(self, est: Estimator, probe: Probe) -> int:
        return est.extra(probe) if self.speculate and self.seqs < self.capacity else 0

    def _spare(self, room: int) -> list[tuple[int, Probe, int]]:
        """Requests sent early, up to `room` sequences, one per chain per turn (fair): first
        the later rollouts of pending probes, then the requests of the probes that may come
        next."""
        active = [i for i in sorted(self.open) if self.waves[i] < self.max_rounds]
        work = _fair({i: self._later(i) for i in active}, room)
        # Probes that may come next only fill an engine running well below its room (the
        # end of a stage): on a compute-bound engine every extra sequence slows the step of all
        # the others.
        room = min(room, self.capacity // AHEAD_SHARE - self.seqs) - _seqs(work)
        if room <= 0 or not self.depth:  # looking ahead costs a posterior per outcome
            return work
        ahead = _fair({i: self._early(i) for i in active}, room)
        self.stats.ahead_requests += len(ahead)
        return work + ahead

    def _later(self, idx: int) -> list[tuple[int, Probe, int]]:
        """The later rollouts of the chain's pending probes, up to each step's budget: only
        where a probe asks one rollout at a time (chunk 1), each its own request."""
        est = self._est(idx)
        if est.request != 1:
            return []
        return [(idx, Probe(p.step, 1), at) for p in est.pending()
                for at in range(est.rollouts_at(p.step), est.budget(p.step))
                if (p.step, at) not in self.issued[idx]]  # fmt: skip

    def _early(self, idx: int) -> list[tuple[int, Probe, int]]:
        """The rollouts of the probes the search may make next that were never sent (the
        probes after two outcomes may share rollouts: the same step, asked for in probes of
        different sizes)."""
        out: list[tuple[int, Probe, int]] = []
        skip = set(self.issued[idx])
        for step, at, n in self._est(idx).lookahead(self.depth):
            runs = self._runs(idx, step, at, n, skip)
            skip.update((step, a + j) for _, p, a in runs for j in range(p.n))
            out += runs
        return out

    def _held(self, idx: int) -> set[tuple[int, int]]:
        """The chain's rollouts back or on their way, as (step, index)."""
        return self.flying[idx] | {(step, i) for step, buf in self.ready[idx].items()
                                   for i in buf}  # fmt: skip

    @staticmethod
    def _runs(idx: int, step: int, at: int, n: int, skip: set[tuple[int, int]]
              ) -> list[tuple[int, Probe, int]]:  # fmt: skip
        """Rollouts at..at+n-1 of `step` not in `skip`, as requests of consecutive indices."""
        out: list[tuple[int, Probe, int]] = []
        for i in range(at, at + n):
            if (step, i) in skip:
                continue
            if out and out[-1][2] + out[-1][1].n == i:
                out[-1] = (idx, Probe(step, out[-1][1].n + 1), out[-1][2])
            else:
                out.append((idx, Probe(step, 1), i))
        return out

    def _send(self, work: list[tuple[int, Probe, int]]) -> None:
        if not work:
            return
        requests = [self.rollouts.request(i, p.step, at, p.n) for i, p, at in work]
        futures = self.rollouts.submit(requests)
        if len(futures) != len(requests):
            raise RuntimeError(f"Completer answered {len(futures)} of {len(requests)} requests")
        s = self.stats
        s.rounds += 1
        s.requests += len(requests)
        s.max_batch_requests = max(s.max_batch_requests, len(requests))
        s.max_batch_completions = max(s.max_batch_completions, sum(r.n for r in requests))
        self.in_flight += len(requests)
        self.seqs += sum(r.n for r in requests)
        s.max_in_flight = max(s.max_in_flight, self.in_flight)
        for (idx, probe, at), req, fut in zip(work, requests, futures, strict=True):
            rollouts = [(probe.step, at + j) for j in range(probe.n)]
            self.flying[idx].update(rollouts)
            self.issued[idx].update(rollouts)
            fut.add_done_callback(functools.partial(self._done, idx, probe.step, at, req))

    def _done(self, idx: int, step: int, at: int, req: EngineRequest, fut: Future) -> None:
        self.done.put((idx, step, at, req, fut))

    def record(self, results: list[tuple[int, int, int, EngineRequest, list[Completion]]]):
        s, cache = self.stats, self.cache
        for *_, req, got in results:
            if len(got) != req.n:
                raise RuntimeError(f"Completer returned {len(got)} completions, asked for {req.n}")
            s.completions += req.n
            s.tokens += sum(c.tokens for c in got)
        started = time.perf_counter()
        # All checks of what came back go to the pool at once: sandbox runs are slow, and a
        # duplicate completion of the same prefix is checked only once.
        todo = list(dict.fromkeys(
            (idx, step, c.text)
            for idx, step, _, _, got in results
            for c in got
            if (idx, step, c.text) not in cache
        ))  # fmt: skip
        oks = self.pool.map(lambda key: self.rollouts.check(*key), todo)
        for key, ok in zip(todo, oks, strict=True):
            cache[key] = ok
            s.checks += 1
            s.undecided_checks += ok is None
        for idx, step, at, _, got in results:
            buf = self.ready[idx].setdefault(step, {})
            for j, c in enumerate(got):
                buf[at + j] = c
        for idx in dict.fromkeys(idx for idx, *_ in results):
            self._deliver(idx)
        s.check_seconds += time.perf_counter() - started

    def _deliver(self, idx: int) -> None:
        """Record the chain's rollouts in index order, a whole probe at a time once its step
        is probed, until nothing more can be recorded; drop what no probe of the chain can
        need any more."""
        est, ready = self._est(idx), self.ready[idx]
        progress = True
        while progress:
            progress = False
            for step, buf in ready.items():
                if not buf:
                    continue
                if not est.may_probe(step):  # settled, outside the search, or chain done
                    self._waste(buf)
                    continue
                at = est.rollouts_at(step)
                asked = next((p.n for p in est.pending() if p.step == step), 0)
                if asked and all(i in buf for i in range(at, at + asked)):
                    got = [buf.pop(i) for i in range(at, at + asked)]
                    # None (the check decided nothing) stays None: neither success nor failure
                    results = [self.cache[(idx, step, c.text)] for c in got]
                    est.record(step, results, sum(c.tokens for c in got))
                    progress = True
        if est.done:
            self.open.discard(idx)
            for buf in ready.values():
                self._waste(buf)

    def _waste(self, buf: dict[int, Completion]) -> None:
        self.stats.wasted_rollouts += len(buf)
        self.stats.wasted_tokens += sum(c.tokens for c in buf.values())
        buf.clear()

    def flush(self) -> None:
        """Count what is still buffered (chains cut by `max_rounds`) as wasted."""
        for ready in self.ready:
            for buf in ready.values():
                self._waste(buf)


def _fair(queues: dict[int, list[tuple[int, Probe, int]]], limit: int
          ) -> list[tuple[int, Probe, int]]:  # fmt: skip
    """Queued requests of up to `limit` sequences in all, one per chain per turn, each queue
    in order."""
    out: list[tuple[int, Probe, int]] = []
    turn, left = 0, limit
    while left > 0:
        row = [q[turn] for q in queues.values() if turn < len(q)]
        if not row:
            break
        for item in row:
            if item[1].n > left:
                return out
            out.append(item)
            left -= item[1].n
        turn += 1
    return out


def _seqs(work: list[tuple[int, Probe, int]]) -> int:
    return sum(p.n for _, p, _ in work)

