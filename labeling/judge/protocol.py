"""The critic protocol of the `judge` source: prompt, defensive parsing, votes -> verdicts. Pure.

Follows ProcessBench's critic set-up (Zheng et al., 2024): the solution's steps are shown as
paragraphs tagged `<paragraph_i>` and indexed from 0; the critic names the earliest wrong
paragraph, or -1 when every paragraph is right, inside `\\boxed{}`.

The critic's text is untrusted model output. `parse_answer` reads the answer only from the
protocol's place: the LAST `\\boxed{}` of the critic's own words, or, without one, a final
line that is nothing but an index (small critics reply "2" to "the index in \\boxed{}").
The critic's own words exclude what it quotes of the solution, so that the solution's echoed
`\\boxed{42}` is never read as a paragraph index: echoed `<paragraph_i>...</paragraph_i>`
blocks, markdown quotes (`> ` lines), spans in double quotes or backticks, and any line of
the solution that holds a box and other text, repeated verbatim. Its content must be one
integer in [-1, n_steps) (signs, `$`, spaces, `\\text{}` and a `paragraph_` prefix
tolerated); anything else (an index outside the range included: never clamped) is an
unparsable vote with the reason, never a guess (an index somewhere inside prose is not read).

`judge_verdicts` turns m such answers (votes) into one `StepVerdict` per step. An unparsable
vote is an abstention: it stays in the denominator (m), so it lowers scores and can keep a
step from its quorum; it never vanishes. With p of m votes parsed (p < m) the evidence says
"p of m votes parsed". The rule is `labels.judge.vote` (`JudgeVote`):
- `majority` (default): the quorum is a strict majority of ALL m votes (m // 2 + 1). The
  flagged first error is the earliest step f such that the votes placing the first error at
  or before f reach the quorum (so votes 1, 2, 3, -1, -1 flag step 3: three of five votes
  found an error by then). Step f: `incorrect`, label False, evidence = the rationale of a
  vote naming f; steps after f: `unverifiable`, label None (the protocol says nothing about
  them). Every other step is labeled True (`correct`) only when the votes placing the first
  error after it (-1 counts as after every step) reach the quorum; otherwise it is
  `unverifiable`, label None, and the first such step says so ("no quorum").
- `unanimous`: the same with the quorum at all m votes: only what every vote agrees on
  (abstentions included) is labeled.
- `plurality`: the rule before the quorum, kept for comparison: the first error is the index
  most parsed votes name (-1 = none; a tie goes to the earliest step, -1 counting as after
  the last), steps before it True, it False, steps after None; but only when the parsed votes
  reach a strict majority of all votes, otherwise no step is labeled.
Under every rule: score of step i = share of ALL m votes that place the first error after
step i (abstentions count against), on every step; no parsable vote at all: every step is
`error` with the first answer's reason and text as evidence.
The chain's generated tokens are reported on step 0 (`StepVerdict.tokens`), so per-step sums
count them once.
"""

from __future__ import annotations

import enum
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from labeling.schema import Status, StepVerdict
from labeling.text.latex import last_boxed

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
_ECHOED_BLOCK = re.compile(r"<paragraph_(\d+)>.*?</paragraph_\1>", re.S)
_QUOTED_LINE = re.compile(r"^[ \t]*>.*$", re.M)
_QUOTED_SPAN = re.compile(r'"[^"\n]*"|\u201c[^\u201d\n]*\u201d|`[^`\n]*`')
_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{[^{}]*\}")
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
class JudgeAnswer:
    """One vote. `first_error` is None when the text could not be parsed (`problem` says
    why); otherwise an index in [-1, n_steps)."""

    text: str
    first_error: int | None
    problem: str = ""
    tokens: int = 0


class JudgeVote(enum.StrEnum):
    """How m critic votes become labels (`labels.judge.vote`; see the module docstring)."""

    majority = "majority"  # a strict majority of all votes, abstentions included
    unanimous = "unanimous"  # every vote
    plurality = "plurality"  # the most-named index among parsed votes (needs a parsed majority)


def _own_words(text: str, steps: Sequence[str]) -> str:
    """The critic's text without what it quotes of the solution (see the module docstring)."""
    text = _ECHOED_BLOCK.sub(" ", text)
    text = _QUOTED_LINE.sub(" ", text)
    text = _QUOTED_SPAN.sub(lambda m: " " if "\\" in m.group(0) else m.group(0), text)
    for step in steps:
        for line in step.splitlines():
            line = line.strip()
            # A solution line that is a box and nothing else stays: the critic's own answer
            # may look just like it.
            if _BOX.search(line) and _BOX.sub("", line).strip(" .$") and line in text:
                text = text.replace(line, " ")
    return text


def parse_answer(
    text: str, n_steps: int, tokens: int = 0, steps: Sequence[str] = ()
) -> JudgeAnswer:
    """Read one critic answer from the protocol's place (the module docstring says where);
    `steps` are the solution's, whose boxes the critic may quote. Never raises on model
    output; never guesses or clamps an index."""
    own = _own_words(text or "", steps)
    boxed = last_boxed(own)
    if boxed is None:
        lines = [line for line in own.splitlines() if line.strip()]
        final = lines[-1] if lines else ""
        if len(final) <= 16 and _INDEX.match(final):
            boxed = final  # the final line is one index: as good as boxed
        else:
            return JudgeAnswer(text, None, "no \\boxed{} answer", tokens)
    inner = boxed.replace("\\text{", "").replace("}", "").replace("{", "")
    m = _INDEX.match(inner)
    if not m:
        return JudgeAnswer(text, None, f"\\boxed{{{boxed[:40]}}} is not a paragraph index", tokens)
    index = int(m.group(1))
    if index < -1 or index >= n_steps:
        why = f"index {index} is outside -1..{n_steps - 1}"
        return JudgeAnswer(text, None, why, tokens)
    return JudgeAnswer(text, index, "", tokens)


def plurality(answers: Sequence[JudgeAnswer]) -> int | None:
    """The index most parsed answers name (-1 = none), None when none parsed. Ties go to the
    earliest step, with -1 counting as after the last step."""
    counts = Counter(a.first_error for a in answers if a.first_error is not None)
    if not counts:
        return None
    top = max(counts.values())

    def order(i: int) -> float:
        return float("inf") if i == -1 else i

    return min((i for i, c in counts.items() if c == top), key=order)


def quorum(rule: JudgeVote | str, m: int) -> int:
    """Votes (of all m, abstentions included) a label needs under `rule`."""
    return m if JudgeVote(rule) == JudgeVote.unanimous else m // 2 + 1


# shorten, unparsed_verdicts and tokens_on_first serve labeling.judge.sections as well: one
# evidence format and one token count for both ways of asking the critic.
def shorten(text: str, limit: int) -> str:
    """`text` on one line (white space folded), at most `limit` characters; a cut ends in
    "...". Evidence stays bounded whatever the critic wrote."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Vote(Protocol):
    """What `unparsed_verdicts` reads of a vote (a `JudgeAnswer`, a section vote)."""

    @property
    def text(self) -> str: ...

    @property
    def problem(self) -> str: ...


def unparsed_verdicts(votes: Sequence[_Vote], n: int, max_evidence: int) -> list[StepVerdict]:
    """n `error` verdicts, for when not one vote could be parsed: the first vote's reason and
    text are the evidence (an unreadable critic is never a verdict)."""
    problem, text = (votes[0].problem, votes[0].text) if votes else ("no answer", "")
    evidence = f"unparsable critic answer ({problem}): {shorten(text, max_evidence)}"
    return [StepVerdict(Status.ERROR, None, None, evidence)] * n


def tokens_on_first(out: list[StepVerdict], tokens: int) -> list[StepVerdict]:
    """`out` with the chain's generated tokens on its first verdict, so that per-step sums
    count them once."""
    return [replace(out[0], tokens=tokens), *out[1:]] if out else out


def judge_verdicts(
    answers: Sequence[JudgeAnswer],
    n_steps: int,
    max_evidence: int = MAX_EVIDENCE,
    rule: JudgeVote | str = JudgeVote.majority,
) -> list[StepVerdict]:
    """One verdict per step from m votes under `rule` (see the module docstring)."""
    if n_steps == 0:
        return []
    tokens = sum(a.tokens for a in answers)
    parsed = [a.first_error for a in answers if a.first_error is not None]
    if not parsed:
        return tokens_on_first(unparsed_verdicts(answers, n_steps, max_evidence), tokens)
    m, q = len(answers), quorum(rule, len(answers))
    note = ""
    if len(parsed) < m:
        why = next(a.problem for a in answers if a.first_error is None)
        note = f"; {len(parsed)} of {m} votes parsed (unparsable: {why})"
    after = [sum(1 for e in parsed if e == -1 or e > i) for i in range(n_steps)]
    scores = [a / m for a in after]
    if JudgeVote(rule) == JudgeVote.plurality:
        out = _plurality(answers, parsed, scores, m, q, note, max_evidence)
    else:
        out = _quorum(answers, parsed, after, scores, m, q, note, max_evidence)
    return tokens_on_first(out, tokens)


def _quorum(answers, parsed, after, scores, m, q, note, max_evidence) -> list[StepVerdict]:
    n_steps = len(after)
    at_or_before = [sum(1 for e in parsed if 0 <= e <= i) for i in range(n_steps)]
    flagged = next((i for i in range(n_steps) if at_or_before[i] >= q), -1)
    out: list[StepVerdict] = []
    silent = False  # the first step without a quorum says why; later ones stay quiet
    for i in range(n_steps):
        if flagged >= 0 and i > flagged:
            out.append(StepVerdict(Status.UNVERIFIABLE, None, scores[i]))
        elif i == flagged:
            named = next(a for a in answers if a.first_error == flagged)
            said = (f"{at_or_before[i]} of {m} votes put the first error at or before step "
                    f"{i} ({parsed.count(i)} name it{note}): ")
            out.append(StepVerdict(Status.INCORRECT, False, scores[i],
                                   said + shorten(named.text, max_evidence)))
        elif after[i] >= q:
            out.append(StepVerdict(Status.CORRECT, True, scores[i]))
        else:
            why = "" if silent else (f"no quorum: {after[i]} of {m} votes call step {i} right, "
                                     f"{q} needed{note}")
            silent = True
            out.append(StepVerdict(Status.UNVERIFIABLE, None, scores[i], why))
    if flagged < 0 and out[-1].label is True:
        out[-1] = StepVerdict(Status.CORRECT, True, scores[-1],
                              f"{parsed.count(-1)} of {m} votes: no wrong step{note}")
    return out


def _plurality(answers, parsed, scores, m, q, note, max_evidence) -> list[StepVerdict]:
    n_steps = len(scores)
    if len(parsed) < q:
        why = f"no quorum: {len(parsed)} of {m} votes parsed, {q} needed{note}"
        return [StepVerdict(Status.UNVERIFIABLE, None, scores[0], why)] + [
            StepVerdict(Status.UNVERIFIABLE, None, s) for s in scores[1:]
        ]
    voted = plurality(answers)
    out = []
    for i in range(n_steps):
        if voted == -1 or i < voted:
            out.append(StepVerdict(Status.CORRECT, True, scores[i]))
        elif i == voted:
            named = next(a for a in answers if a.first_error == voted)
            said = f"{parsed.count(voted)} of {m} votes name step {voted} (plurality{note}): "
            out.append(StepVerdict(Status.INCORRECT, False, scores[i],
                                   said + shorten(named.text, max_evidence)))
        else:
            out.append(StepVerdict(Status.UNVERIFIABLE, None, scores[i]))
    if voted == -1:
        out[-1] = StepVerdict(Status.CORRECT, True, scores[-1],
                              f"{parsed.count(-1)} of {m} votes: no wrong step{note}")
    return out


__all__ = [
    "JudgeAnswer",
    "JudgeVote",
    "build_prompt",
    "judge_verdicts",
    "parse_answer",
    "plurality",
    "quorum",
    "tag_steps",
]
