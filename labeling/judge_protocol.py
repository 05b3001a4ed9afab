"""The critic protocol of the `judge` source: prompt, defensive parsing, votes -> verdicts. Pure.

Follows ProcessBench's critic set-up (Zheng et al., 2024): the solution's steps are shown as
paragraphs tagged `<paragraph_i>` and indexed from 0; the critic names the earliest wrong
paragraph, or -1 when every paragraph is right, inside `\\boxed{}`.

The critic's text is untrusted model output. `parse_answer` accepts a `\\boxed{}` whose
content is one integer in [-1, n_steps) (signs, `$`, spaces and a `paragraph_` prefix
tolerated), or an answer that is nothing but such an integer (small critics reply "2" to
"the index in \\boxed{}"); anything else is an unparsable answer with the reason, never a
guess (an index somewhere inside prose is not read).
`judge_verdicts` turns m such answers (votes) into one `StepVerdict` per step:
- the voted first error is the index most parsed votes name (-1 = none); a tie goes to the
  earliest step (a flagged error is cheaper to re-check than a missed one);
- steps before it: `correct`, label True; the voted step: `incorrect`, label False, evidence
  = the rationale of a vote that named it (truncated); steps after it: `unverifiable` (the
  protocol says nothing about them), label None;
- score of step i = share of parsed votes that put the first error after step i (-1 counts
  as after every step), on every step;
- no parsable vote at all: every step is `error` with the first answer's text as evidence.
The chain's generated tokens are reported on step 0 (`StepVerdict.tokens`), so per-step sums
count them once.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from labeling.latex import last_boxed
from labeling.schema import Status, StepVerdict

MAX_EVIDENCE = 400  # characters of rationale kept per verdict

_INTRO = (
    "Below is a math problem and a proposed solution. The solution is split into paragraphs; "
    "each paragraph is enclosed in tags and indexed from 0."
)
_TASK = (
    "Review the solution paragraph by paragraph. If a paragraph contains an error, give the "
    "index of the earliest paragraph with an error. If every paragraph is correct, give -1."
    "\n\nPlease put your final answer (i.e., the index) in \\boxed{}."
)
_INDEX = re.compile(r"^\s*\$?\s*(?:paragraph[_\s]*)?([+-]?\d{1,4})\s*\$?\s*\.?\s*$", re.I)


def tag_steps(steps: Sequence[str]) -> str:
    """The steps as `<paragraph_i>` blocks, indexed from 0."""
    blocks = (f"<paragraph_{i}>\n{s.strip()}\n</paragraph_{i}>" for i, s in enumerate(steps))
    return "\n\n".join(blocks)


def build_prompt(question: str, steps: Sequence[str]) -> str:
    """The critic's user message for one chain."""
    return (
        f"{_INTRO}\n\n[Math Problem]\n\n{question.strip()}\n\n[Solution]\n\n{tag_steps(steps)}"
        f"\n\n{_TASK}"
    )


@dataclass(frozen=True, slots=True)
class CriticAnswer:
    """One vote. `first_error` is None when the text could not be parsed (`problem` says
    why); otherwise an index in [-1, n_steps)."""

    text: str
    first_error: int | None
    problem: str = ""
    tokens: int = 0


def parse_answer(text: str, n_steps: int, tokens: int = 0) -> CriticAnswer:
    """Read one critic answer. Never raises on model output; never guesses an index."""
    boxed = last_boxed(text or "")
    if boxed is None:
        if len(text or "") <= 16 and _INDEX.match(text or ""):
            boxed = text  # the whole answer is one index: as good as boxed
        else:
            return CriticAnswer(text, None, "no \\boxed{} answer", tokens)
    inner = boxed.replace("\\text{", "").replace("}", "").replace("{", "")
    m = _INDEX.match(inner)
    if not m:
        return CriticAnswer(text, None, f"\\boxed{{{boxed[:40]}}} is not a paragraph index", tokens)
    index = int(m.group(1))
    if index < -1 or index >= n_steps:
        why = f"index {index} is outside -1..{n_steps - 1}"
        return CriticAnswer(text, None, why, tokens)
    return CriticAnswer(text, index, "", tokens)


def vote(answers: Sequence[CriticAnswer]) -> int | None:
    """The voted first error (-1 = none) over the parsed answers, None when none parsed.
    Ties go to the earliest step, with -1 counting as after the last step."""
    counts = Counter(a.first_error for a in answers if a.first_error is not None)
    if not counts:
        return None
    top = max(counts.values())

    def order(i: int) -> float:
        return float("inf") if i == -1 else i

    return min((i for i, c in counts.items() if c == top), key=order)


def _rationale(answer: CriticAnswer, limit: int) -> str:
    text = " ".join(answer.text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def judge_verdicts(
    answers: Sequence[CriticAnswer], n_steps: int, max_evidence: int = MAX_EVIDENCE
) -> list[StepVerdict]:
    """One verdict per step from m votes (see the module docstring)."""
    if n_steps == 0:
        return []
    tokens = sum(a.tokens for a in answers)
    voted = vote(answers)
    if voted is None:
        first = answers[0] if answers else CriticAnswer("", None, "no answer")
        evidence = f"unparsable critic answer ({first.problem}): {_rationale(first, max_evidence)}"
        out = [StepVerdict(Status.ERROR, None, None, evidence)] * n_steps
        return [_with_tokens(out[0], tokens), *out[1:]]
    parsed = [a.first_error for a in answers if a.first_error is not None]
    bad = len(answers) - len(parsed)
    note = f" ({bad} of {len(answers)} votes unparsable)" if bad else ""
    out = []
    for i in range(n_steps):
        after = sum(1 for e in parsed if e == -1 or e > i) / len(parsed)
        if voted == -1 or i < voted:
            out.append(StepVerdict(Status.CORRECT, True, after))
        elif i == voted:
            named = next(a for a in answers if a.first_error == voted)
            share = f"{parsed.count(voted)}/{len(parsed)} votes name step {voted}{note}: "
            out.append(StepVerdict(Status.INCORRECT, False, after,
                                   share + _rationale(named, max_evidence)))
        else:
            out.append(StepVerdict(Status.UNVERIFIABLE, None, after))
    if voted == -1:
        out[-1] = StepVerdict(Status.CORRECT, True, out[-1].score,
                              f"{parsed.count(-1)}/{len(parsed)} votes: no wrong step{note}")
    return [_with_tokens(out[0], tokens), *out[1:]]


def _with_tokens(v: StepVerdict, tokens: int) -> StepVerdict:
    return StepVerdict(v.status, v.label, v.score, v.evidence, v.rollouts, tokens)


__all__ = ["CriticAnswer", "build_prompt", "judge_verdicts", "parse_answer", "tag_steps", "vote"]
