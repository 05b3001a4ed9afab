"""The search strategies as coroutines over plain data: no engine, no model, no Ray.

A strategy is a generator that yields what it needs and receives the answer:
- `list[EngineRequest]` (continue these prefixes; the one engine request type,
  `labeling.engine_request`) -> `list[list[Completion]]` (`labeling.engine_result`), one
  list of `n` samples per request;
- `Ask` (score these step lists) -> `list[list[float]]`, already checked (one probability
  per step: `labeling.prm.search.check_scores`);
and finally returns its `Decision`s. A strategy gets its problem's `base` request (the chat,
the sampler's temperature, top_p and stop strings, the chain's token cap `max_tokens` and the
search's seed) and asks for variations of it (`dataclasses.replace`). The driver runs many of
them in lockstep, so every round's generations across problems, strategies and budgets go to
the engine together.

How the budget N is spent (generated tokens are counted, whatever the strategy):
- `sampling`: one request of max(N) chains per problem; majority, best-of-N and the
  PRM-weighted vote (those of them the config asks for) at budget N use the first N of them
  (i.i.d. samples, so that is a fair draw of N), and count only those N chains' tokens and
  PRM calls.
- `tree_search` (beam, DVTS): one round per step. A step is generated up to `stop`
  (a blank line: the prompt asks for one step per paragraph, the splitter's `blank_line`).
  A candidate is finished when its step states a final answer (\\boxed{}, "the answer is",
  "####"; not a bare number), is empty (the model ended),
  or the chain's token cap is reached; the last round (`max_depth`) completes every chain.
  The PRM scores each candidate's steps as the configured splitter cuts the whole text.
  Beam: N first steps from the root, then the best N/M unfinished candidates get M children
  each; stops once N/M candidates have finished. DVTS: N/M subtrees, M first steps each;
  each subtree continues only its best child and stops when that best child is finished.
  The answer is the finished candidate with the best aggregated score.
What this does not promise: that vLLM ends a step exactly where the splitter would cut it
(a step may hold several splitter steps; the PRM always sees the splitter's cut).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Generator
from dataclasses import dataclass, field, replace

from labeling.engine_request import EngineRequest
from labeling.engine_result import Completion, Finish
from labeling.ids import derive_seed
from labeling.prm.search import (
    Aggregation,
    aggregate,
    beam_shape,
    best_index,
    majority_vote,
    top_k,
    weighted_vote,
)


@dataclass(frozen=True, slots=True)
class Ask:
    """Score these chains (each a list of steps) of the strategy's problem."""

    chains: list[list[str]]


@dataclass(slots=True)
class Decision:
    """One output row's worth: what a strategy chose at one budget, and what it cost."""

    strategy: str
    aggregation: str  # "" for majority
    budget: int
    text: str  # the chosen chain ("" when there was none)
    answer: str | None
    score: float | None  # aggregated PRM score of the chosen chain (None: no PRM)
    tokens: int
    prm_calls: int
    candidates: int  # finished chains the choice was made among
    rounds: int  # generation rounds (1 for sampling strategies)
    seed: int = 0  # the seed of the search that made it (the row's `seed`)


@dataclass(slots=True)
class Candidate:
    text: str
    tokens: int
    finished: bool
    group: int = 0
    steps: list[str] = field(default_factory=list)
    score: float = float("-inf")  # aggregated; -inf for a chain without steps (never scored)


Split = Callable[[str], list[str]]
Extract = Callable[[str], str | None]
Ends = Callable[[str], bool]  # does this step state the final answer explicitly?
Strategy = Generator[list[EngineRequest] | Ask, object, list[Decision]]


def _score(cands: list[Candidate], split: Split, agg: Aggregation) -> Generator:
    """Score every candidate that has steps (one PRM call each); returns the call count."""
    for c in cands:
        c.steps = split(c.text)
    scorable = [c for c in cands if c.steps]
    if not scorable:
        return 0
    scores = yield Ask([c.steps for c in scorable])
    for c, s in zip(scorable, scores, strict=True):
        c.score = aggregate(s, agg)
    return len(scorable)


SAMPLING = ("majority", "best_of_n", "weighted_vote")  # the strategies `sampling` serves


def sampling(
    base: EngineRequest,
    budgets: list[int],
    split: Split,
    extract: Extract,
    aggregations: list[Aggregation],
    emit: Collection[str],
) -> Strategy:
    """The strategies of `emit` (a subset of `SAMPLING`: majority vote, best-of-N, the
    PRM-weighted vote) at every budget, over one shared sample; only those named return
    decisions, and the PRM is asked only when best-of-N or the weighted vote is. Raises
    ValueError for a name it does not serve."""
    unknown = sorted(set(emit) - set(SAMPLING))
    if unknown:
        raise ValueError(f"sampling serves {', '.join(SAMPLING)}, not {', '.join(unknown)}")
    majority = "majority" in emit
    best, vote = "best_of_n" in emit, "weighted_vote" in emit
    with_prm = best or vote
    top = max(budgets)
    seed = base.seed
    (samples,) = yield [replace(base, prefix="", n=top)]
    samples = list(samples)[:top]
    texts = [s.text for s in samples]
    answers = [extract(t) for t in texts]
    scores: list[list[float]] = [[] for _ in texts]
    if with_prm:
        scorable = [i for i, t in enumerate(texts) if split(t)]
        if scorable:
            got = yield Ask([split(texts[i]) for i in scorable])
            for i, s in zip(scorable, got, strict=True):
                scores[i] = s
    out = []
    for n in sorted(set(budgets)):
        k = min(n, len(samples))
        tokens = sum(s.tokens for s in samples[:k])
        if k == 0:
            continue
        if majority:
            c = majority_vote(answers[:k])
            out.append(Decision("majority", "", n, texts[c.index], c.answer, None, tokens,
                                0, k, 1, seed))  # fmt: skip
        if not with_prm:
            continue
        calls = sum(1 for s in scores[:k] if s)
        for agg in aggregations:
            vals = [aggregate(s, agg) if s else float("-inf") for s in scores[:k]]
            if best:
                b = best_index(vals)
                out.append(Decision("best_of_n", str(agg), n, texts[b], answers[b],
                                    _finite(vals[b]), tokens, calls, k, 1, seed))  # fmt: skip
            if vote:
                w = weighted_vote(answers[:k], [max(v, 0.0) for v in vals])
                out.append(Decision("weighted_vote", str(agg), n, texts[w.index], w.answer,
                                    _finite(vals[w.index]), tokens, calls, k, 1,
                                    seed))  # fmt: skip
    return out


def _finite(x: float) -> float | None:
    return None if x == float("-inf") else x


@dataclass(frozen=True, slots=True)
class TreeParams:
    budget: int
    width: int
    max_depth: int
    step_max_tokens: int
    stop: str  # where one step's generation stops
    aggregation: Aggregation


def _finished(sample: Completion, total: int, last: bool, cap: int, ends: Ends) -> bool:
    return last or not sample.text.strip() or total >= cap or ends(sample.text)


def tree_search(
    p: TreeParams, base: EngineRequest, dvts: bool, split: Split, extract: Extract, ends: Ends
) -> Strategy:
    """Step-level beam search (`dvts=False`) or DVTS (`dvts=True`); see the module doc.
    `base.max_tokens` caps a whole chain; `base.stop` (the sampler's stop strings) goes with
    every request, and since the engine does not say which stop string ended a generation,
    one also ends a step. `extract` reads a finished chain's answer; `ends` says whether a
    step states it (a bare number in a step must not end the chain)."""
    kept, children = beam_shape(p.budget, p.width)
    groups = kept if dvts else 1
    # Root expansions: beam search draws N first steps; each DVTS subtree draws M.
    active = [Candidate("", 0, False, g) for g in range(groups)]
    first = children if dvts else p.budget
    done: list[Candidate] = []
    open_groups = set(range(groups))
    tokens = calls = rounds = 0
    for depth in range(p.max_depth):
        last = depth == p.max_depth - 1
        gens = []
        for i, c in enumerate(active):
            room = base.max_tokens - c.tokens
            gens.append(replace(
                base, prefix=c.text, n=first if depth == 0 else children,
                seed=derive_seed(base.seed, depth, i),
                max_tokens=room if last else min(p.step_max_tokens, room),
                stop=base.stop if last else (p.stop, *base.stop),
            ))  # fmt: skip
        results = yield gens
        rounds += 1
        cands = []
        for c, samples in zip(active, results, strict=True):
            for s in samples:
                tokens += s.tokens
                total = c.tokens + s.tokens
                fin = _finished(s, total, last, base.max_tokens, ends)
                # A step cut by step_max_tokens goes on in the next round, mid-paragraph.
                cut = fin or s.finish is Finish.LENGTH
                text = c.text + s.text + ("" if cut else p.stop)
                cands.append(Candidate(text, total, fin, c.group))
        calls += yield from _score(cands, split, p.aggregation)
        active = []
        for g in sorted(open_groups):
            mine = [c for c in cands if c.group == g]
            done += [c for c in mine if c.finished]
            live = [c for c in mine if not c.finished]
            if dvts:
                best = mine[best_index([c.score for c in mine])] if mine else None
                if best is None or best.finished or not live:
                    open_groups.discard(g)
                    continue
                active.append(live[best_index([c.score for c in live])])
            else:
                if len(done) >= kept or not live:
                    open_groups.discard(g)
                    continue
                active += [live[i] for i in top_k([c.score for c in live], kept)]
        if not active:
            break
    if not done:  # cannot happen after a last round, unless the engine returned nothing
        return [Decision("dvts" if dvts else "beam", str(p.aggregation), p.budget, "", None,
                         None, tokens, calls, 0, rounds, base.seed)]  # fmt: skip
    b = done[best_index([c.score for c in done])]
    return [Decision("dvts" if dvts else "beam", str(p.aggregation), p.budget, b.text,
                     extract(b.text), _finite(b.score), tokens, calls, len(done), rounds,
                     base.seed)]  # fmt: skip
