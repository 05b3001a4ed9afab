"""Reasoning traces cut into sections: paragraphs merged at reasoning moves, within a budget.
Pure functions on strings (`split.mode=sections`, through `labeling.steps.splitters`).

A thinking model's trace has hundreds of paragraphs (DeltaBench's: 78-362) where people see
8-38 sections. The cut:
1. The trace's parts (`labeling.steps.thinking`): the thinking is cut into paragraphs at blank
   lines; what follows `</think>` is the final section, whole, starting at the closing tag
   (so a Monte Carlo prefix that ends before it continues inside the thinking). A trace
   without tags is all thinking, and its final section starts at the last paragraph that
   states an answer (`\\boxed`, "final answer", 答案), or is its last paragraph. A thinking
   that never closed has no final section.
2. Each paragraph that opens with a reasoning move gets that cue's strength
   (`labeling.steps.cues`: a new attempt, a check, a correction, a conclusion, a new part).
3. The cut maximises the summed strength of the paragraphs that open a section, less
   `SECTION_COST` per section and less a cost for sections under `SMALL_SHARE` of the budget
   (a cue right after another does not make a two-line section; in a trace too short to
   fill the cap with such sections, the floor is its length over the cap), among the cuts whose
   sections stay within `tokens` (approximate tokens: words, numbers, symbols, CJK
   characters; a paragraph longer than the budget is a section of its own, never cut) and
   number at most `max_sections` (the final section included). Weak cues (1) never pay for
   a section of their own: they are where the budget cuts when it must. Dynamic programming
   over (paragraph, sections so far): the best cut, exactly, the same for the same text.
   Where the budget alone needs more sections than the cap, the boundary with the weakest
   cue goes (ties: the pair with the fewest tokens, then the earliest) until it fits: the
   cap wins over the budget.

Every section is a span of the text (`Span`), from the start of its first paragraph to the
end of its last: the text between two sections is whitespace only. What this does not do:
understand the reasoning (see `labeling.steps.cues`); cut inside a paragraph.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from labeling.steps.cues import CUES_VERSION, cue
from labeling.steps.thinking import parse_trace

Span = tuple[int, int]

# What a section costs in the objective: a cue must be stronger than this to open one by
# itself (strength 2 and 3 do, 1 does not).
SECTION_COST = 1.5
# A section below SMALL_SHARE of the budget costs up to SMALL_COST more (linearly, the
# smaller the dearer): a cue word right after another does not make a two-line section.
SMALL_SHARE = 0.25
SMALL_COST = 2.0
_BLANK = re.compile(r"\n[ \t]*\n")
_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]|[^\W\d_]+|\d+|[^\w\s]")
_ANSWER = re.compile(r"\\boxed|\\fbox|final answer|the answer is|答案", re.I)


@dataclass(frozen=True, slots=True)
class SectionOptions:
    """The parameters of the cut (`split.section_tokens`, `split.max_sections`)."""

    tokens: int = 400
    max_sections: int = 24

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
    one. SmolLM2's tokenizer gives 1.16-1.30 times as many on DeltaBench's four dev traces,
    1.66 on the digit-heavy synthetic traces of tests/ (it splits numbers into digits)."""
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


def _windows(tokens: list[int], budget: int) -> list[int]:
    """For each end j (exclusive), the first paragraph a section ending at j may start at:
    sections stay within `budget` tokens, except that one paragraph is always allowed."""
    first, size, lo = [0] * (len(tokens) + 1), 0, 0
    for j in range(1, len(tokens) + 1):
        size += tokens[j - 1]
        while size > budget and lo < j - 1:
            size -= tokens[lo]
            lo += 1
        first[j] = lo
    return first


def _gain(i: int, j: int, n: int, size: int, strength: list[int], floor: float) -> float:
    """What section [i, j) adds to the objective: its opener's strength less SECTION_COST
    (the first section opens nothing), less the cost of being small (not the final one)."""
    small = SMALL_COST * (1 - size / floor) if size < floor and j < n else 0.0
    return (strength[i] - SECTION_COST if i else 0.0) - small


def _best_cut(tokens: list[int], strength: list[int], budget: int, cap: int) -> list[int]:
    """Indices of the paragraphs that open a section (0 always): the cut with at most `cap`
    sections that maximises the summed `_gain`, every section within `budget` tokens (a single
    paragraph may exceed it). Dynamic programming over (end, sections so far), exact. Ties go
    to fewer sections, then to the cut whose last section starts later: deterministic. When
    the budget alone needs more than `cap` sections, the cap wins (`_drop_weakest`)."""
    n = len(tokens)
    first = _windows(tokens, budget)
    prefix = [0]
    for t in tokens:
        prefix.append(prefix[-1] + t)
    # A short trace (a few sentences, a slip and its fix) is cut at its cues however small
    # the sections: the floor never asks for fewer sections than the cap allows.
    floor = min(budget * SMALL_SHARE, prefix[n] / cap)
    fewest = [0] * (n + 1)  # the fewest sections that can end at j
    for j in range(1, n + 1):
        fewest[j] = min(fewest[i] for i in range(first[j], j)) + 1
    if fewest[n] > cap:  # the budget cannot be kept within the cap
        return _drop_weakest(_best_cut(tokens, strength, budget, fewest[n]), tokens, strength,
                             cap)
    neg = float("-inf")
    # best[j][c]: the best objective with paragraphs 0..j-1 cut into c sections.
    best = [[neg] * (cap + 1) for _ in range(n + 1)]
    back = [[0] * (cap + 1) for _ in range(n + 1)]
    best[0][0] = 0.0
    for j in range(1, n + 1):
        row, brow = best[j], back[j]
        for i in range(j - 1, first[j] - 1, -1):
            g = _gain(i, j, n, prefix[j] - prefix[i], strength, floor)
            prev = best[i]
            for c in range(fewest[i], cap):
                if prev[c] != neg and prev[c] + g > row[c + 1]:
                    row[c + 1], brow[c + 1] = prev[c] + g, i
    top = max(range(1, cap + 1), key=lambda c: (best[n][c], -c))
    starts, j, c = [], n, top
    while j > 0:
        i = back[j][c]
        starts.append(i)
        j, c = i, c - 1
    return sorted(starts)


def _drop_weakest(starts: list[int], tokens: list[int], strength: list[int],
                  cap: int) -> list[int]:
    """`starts` with the weakest boundaries removed until at most `cap` sections remain."""
    starts = list(starts)
    while len(starts) > max(cap, 1):
        ends = [*starts[1:], len(tokens)]
        sizes = [sum(tokens[a:b]) for a, b in zip(starts, ends, strict=True)]
        # Remove boundary k (k >= 1): section k joins section k-1.
        k = min(range(1, len(starts)),
                key=lambda k: (strength[starts[k]], sizes[k - 1] + sizes[k], k))
        del starts[k]
    return starts


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
        strength = [c.strength if (c := cue(text[a:b])) else 0 for a, b in paras]
        starts = _best_cut(tokens, strength, opts.tokens, room)
        ends = [*starts[1:], len(paras)]
        spans = [(paras[a][0], paras[b - 1][1]) for a, b in zip(starts, ends, strict=True)]
    elif paras:  # a cap of one: the thinking joins the final section
        final = (paras[0][0], final[1] if final else paras[-1][1])
    return [*spans, final] if final is not None else spans


__all__ = ["SECTION_COST", "SectionOptions", "Span", "approx_tokens", "paragraphs",
           "section_spans"]
