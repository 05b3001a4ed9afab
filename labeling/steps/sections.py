"""Reasoning traces cut into sections at the turns of the reasoning, within a budget and a cap.
Pure functions on strings (`split.mode=sections`, through `labeling.steps.splitters`).

A thinking model's trace has hundreds of paragraphs (DeltaBench's: 78-362) where people see
8-38 sections. The cut:
1. The trace's parts (`labeling.steps.thinking`): the thinking is cut into paragraphs at blank
   lines; what follows `</think>` is the final section, whole, starting at the closing tag
   (so a Monte Carlo prefix that ends before it continues inside the thinking). A trace
   without tags is all thinking, and its final section starts at the last paragraph that
   states an answer (`\\boxed`, "final answer", 答案), or is its last paragraph. A thinking
   that never closed has no final section.
2. Every paragraph start gets how strongly the reasoning turns there (`turn_strengths`): the
   strength of the cue it opens with (`labeling.steps.cues`: a new attempt, a check, a
   correction, a conclusion, a new part; 3, 2, 1 or 0), plus `CLOSED_BONUS` when the
   paragraph before it draws a result ("So n = 4 is bad."), twice that when it states an
   answer (`\\boxed`, "the answer is"): a thought, or a whole attempt, ended there.
3. Every paragraph starts as a section of its own; boundaries are then merged away, the
   weakest turn first (ties: the pair with the fewest tokens, then the earliest), never by
   spacing cuts evenly. First the boundaries that mark no turn (below `SECTION_COST`: no cue,
   a weak cue, a closed thought alone) and those of sections under the floor (`SMALL_SHARE`
   of the budget, or of the trace's length over the cap if less: a cue right after another
   does not make a two-line section) go, as long as the joined section stays within `tokens`
   (approximate tokens: words, numbers, symbols, CJK characters; a paragraph longer than the
   budget is a section of its own, never cut). What remains is the trace's own structure:
   its turns, and the weak boundaries where the budget needs them. Then, while more than
   `max_sections` remain (the final section included), the weakest boundary left is merged,
   whatever the size: the cap wins over the budget, and the strongest turns are what stay.
   A heap over the boundaries: O(n log n) in the paragraphs, the same for the same text.

Every section is a span of the text (`Span`), from the start of its first paragraph to the
end of its last: the text between two sections is whitespace only. What this does not do:
understand the reasoning (see `labeling.steps.cues`); cut inside a paragraph.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable
from dataclasses import dataclass

from labeling.steps.cues import CUES_VERSION, closure, cue
from labeling.steps.thinking import parse_trace

Span = tuple[int, int]

# How strongly the reasoning must turn for a boundary to stand where the budget does not ask
# for one: a medium or strong cue (2, 3) does, and so does a paragraph after a stated answer;
# a weak cue (1) or a closed thought alone does not, the two together do.
SECTION_COST = 1.5
# What a closed thought ("So n = 4 is bad.") adds to the turn at the next paragraph: a new
# sub-goal often starts there without a cue word ("our task is to find ...").
CLOSED_BONUS = 1.0
# Sections below SMALL_SHARE of the budget (or of the trace's length over the cap, if that is
# less) are merged into a neighbour: a cue right after another does not make a two-line section.
SMALL_SHARE = 0.1
_BLANK = re.compile(r"\n[ \t]*\n")
_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]|[^\W\d_]+|\d+|[^\w\s]")
_ANSWER = re.compile(r"\\boxed|\\fbox|final answer|the answer is|答案", re.I)


@dataclass(frozen=True, slots=True)
class SectionOptions:
    """The parameters of the cut (`split.section_tokens`, `split.max_sections`)."""

    tokens: int = 400
    # DeltaBench's annotators drew sections of any length, unrelated to the trace's, so the
    # cap decides the count (every dev trace reaches it). 32 keeps the median count within
    # twice theirs and hits more of their boundaries than a smaller cap (docs/benchmarks.md,
    # "Reasoning traces": bench_traces.py split --max-sections N).
    max_sections: int = 32

    def __post_init__(self) -> None:
        if self.tokens < 1 or self.max_sections < 1:
            raise ValueError(f"section budget and cap must be >= 1, got tokens={self.tokens}, "
                             f"max_sections={self.max_sections}")

    def record(self) -> dict[str, object]:
        """What a manifest records of this cut."""
        return {"section_tokens": self.tokens, "max_sections": self.max_sections,
                "section_cost": SECTION_COST, "cues_version": CUES_VERSION}


def approx_tokens(text: str) -> int:
    """A tokenizer-free token count: words, digit runs, symbols and CJK characters each count
    one. A model's tokenizer gives somewhat more, and more still on digit-heavy text if it
    splits numbers into digits (docs/benchmarks.md, "Reasoning traces")."""
    return len(_TOKEN.findall(text))


def paragraphs(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Spans of the paragraphs of `text[start:end]` (blank-line separated), each stripped of
    surrounding whitespace; empty paragraphs never appear."""
    end = len(text) if end is None else end
    out: list[Span] = []
    pos = start
    for m in [*_BLANK.finditer(text, start, end), None]:
        stop = end if m is None else m.start()
        a, b = pos, stop
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            out.append((a, b))
        if m is not None:
            pos = m.end()
    return out


def turn_strengths(paras: list[str]) -> list[float]:
    """How strongly the reasoning turns at the start of each paragraph: its cue's strength
    (`labeling.steps.cues`, 0 without one) plus `CLOSED_BONUS` when the paragraph before it
    draws a result, twice that when it states an answer (`closure`). The first paragraph's
    value is never used."""
    out: list[float] = []
    for k, para in enumerate(paras):
        found = cue(para)
        strength = float(found.strength) if found else 0.0
        if k:
            strength += CLOSED_BONUS * closure(paras[k - 1])
        out.append(strength)
    return out


class _Sections:
    """The sections of a run of paragraphs as a linked list of their first paragraphs, merged
    one boundary at a time. Boundary k (k >= 1) is the start of the section opening at
    paragraph k; removing it joins that section to the one before."""

    def __init__(self, tokens: list[int], strength: list[float]) -> None:
        n = len(tokens)
        self.strength, self.n, self.count = strength, n, n
        self.prev = list(range(-1, n - 1))
        self.next = list(range(1, n + 1))
        self.size = list(tokens)
        self.alive = [True] * n

    def merged(self, k: int) -> int:
        return self.size[self.prev[k]] + self.size[k]

    def key(self, k: int) -> tuple[float, int, int]:
        # The weakest turn goes first; ties: the pair with the fewest tokens, then the earliest.
        return self.strength[k], self.merged(k), k

    def remove(self, k: int) -> list[int]:
        """Join section k to the one before; returns the boundaries whose key changed."""
        p, q = self.prev[k], self.next[k]
        self.size[p] += self.size[k]
        self.next[p] = q
        if q < self.n:
            self.prev[q] = p
        self.alive[k] = False
        self.count -= 1
        return [b for b in (p, q) if 1 <= b < self.n]

    def starts(self) -> list[int]:
        return [k for k in range(self.n) if self.alive[k]]


def _merge_weakest(sections: _Sections, removable: Callable[[int], bool]) -> None:
    """Remove boundaries weakest first (`_Sections.key`) while `removable(k)` allows. A
    boundary that is not removable now never becomes so (sections only grow and the count only
    falls), so one pass over a heap with stale entries skipped is exact."""
    heap = [(sections.key(k), k) for k in range(1, sections.n)]
    heapq.heapify(heap)
    while heap:
        key, k = heapq.heappop(heap)
        if not sections.alive[k] or key != sections.key(k) or not removable(k):
            continue
        for b in sections.remove(k):
            heapq.heappush(heap, (sections.key(b), b))


def _cut(tokens: list[int], strength: list[float], budget: int, cap: int) -> list[int]:
    """Indices of the paragraphs that open a section (0 always), at most `cap` of them.
    First the boundaries that do not mark a turn (strength below `SECTION_COST`) and those of
    sections below the floor are merged, weakest first, where the joined section stays within
    `budget`; then, while more than `cap` sections remain, the weakest boundary is merged
    whatever the size: the cap wins over the budget."""
    cuts = _Sections(tokens, strength)
    floor = SMALL_SHARE * min(budget, sum(tokens) / cap)

    def structural(k: int) -> bool:
        if cuts.merged(k) > budget:
            return False
        small = min(cuts.size[cuts.prev[k]], cuts.size[k]) < floor
        return strength[k] < SECTION_COST or small

    _merge_weakest(cuts, structural)
    if cuts.count > cap:
        _merge_weakest(cuts, lambda k: cuts.count > cap)
    return cuts.starts()


def section_spans(text: str, options: SectionOptions | None = None) -> list[Span]:
    """The sections of a reasoning trace as character spans of `text`, in order (see the
    module docstring). An empty text has none."""
    opts = options or SectionOptions()
    trace = parse_trace(text)
    final: Span | None = None
    if trace.has_thinking:
        lo, hi = trace.thinking  # type: ignore[misc]
        paras = paragraphs(text, lo, hi)
        if trace.close is not None:
            tail = text[trace.close :].rstrip()
            final = (trace.close, trace.close + len(tail))
    else:
        paras = paragraphs(text)
        if paras:
            at = max((i for i, (a, b) in enumerate(paras) if _ANSWER.search(text[a:b])),
                     default=len(paras) - 1)
            final = (paras[at][0], paras[-1][1])
            paras = paras[:at]
    room = opts.max_sections - (final is not None)
    spans: list[Span] = []
    if paras and room > 0:
        tokens = [approx_tokens(text[a:b]) for a, b in paras]
        strength = turn_strengths([text[a:b] for a, b in paras])
        starts = _cut(tokens, strength, opts.tokens, room)
        ends = [*starts[1:], len(paras)]
        spans = [(paras[a][0], paras[b - 1][1]) for a, b in zip(starts, ends, strict=True)]
    elif paras:  # a cap of one: the thinking joins the final section
        final = (paras[0][0], final[1] if final else paras[-1][1])
    return [*spans, final] if final is not None else spans


__all__ = ["SECTION_COST", "SectionOptions", "Span", "approx_tokens", "paragraphs",
           "section_spans", "turn_strengths"]
