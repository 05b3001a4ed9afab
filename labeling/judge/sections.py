"""The judge's protocol for reasoning traces cut into sections: every section judged on its own
(DeltaBench's protocol, arXiv 2502.19361). Pure.

A trace makes a slip and fixes it three sections later; ProcessBench's question ("the
earliest wrong paragraph") cannot say that the fix was right. Here the critic sees the
sections numbered from 1, each in `<section_i>` tags, and lists every section that holds an
error, judging each on its own merits: a section with a slip is wrong even when a later
section corrects it; a section that only carries an earlier error forward is not a new one.
Its answer:

    Conclusion: no error
or
    Conclusion: yes
    Error Section Number: 3
    Explanation: ...
    (one pair per wrong section)

The critic's text is untrusted model output. `parse_sections_answer` reads only the critic's
own words (echoed `<section_i>` blocks and `> ` quotes are dropped) after its LAST
"Conclusion:" line; a section number outside 1..n, a "yes" without a number, or no
conclusion at all is an unparsable vote with the reason, never a guess.

`section_verdicts` turns m votes into one verdict per section under the judge's vote rule
(`labels.judge.vote`): a section is `incorrect` when the votes naming it reach the quorum
(a strict majority of ALL m votes for `majority`, all of them for `unanimous`), `correct`
when the parsed votes that do not name it reach it, else `unverifiable` ("no quorum").
`plurality` labels a section by whichever side more parsed votes take (a tie labels nothing),
once the parsed votes reach a strict majority of all votes. Score of a section = share of
all m votes that do not name it (abstentions count against). No parsable vote: every
section is `error` with the first vote's reason. The chain's generated tokens are reported
on section 0.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from labeling.judge.protocol import (
    MAX_EVIDENCE,
    JudgeVote,
    quorum,
    shorten,
    tokens_on_first,
    unparsed_verdicts,
)
from labeling.schema import Status, StepVerdict

_INTRO = (
    "Below is a math problem and a model's reasoning about it, cut into sections numbered "
    "from 1; each section is enclosed in tags."
)
_TASK = (
    "Judge every section on its own: does what it states, derives or computes hold? A section "
    "that makes an error counts as wrong even when a later section notices and corrects it. "
    "A section that only carries forward an error made earlier is not a new error. Style, "
    "repetition and exploration that leads nowhere are not errors.\n\n"
    "If no section has an error, answer with the line:\nConclusion: no error\n"
    "Otherwise answer with the line\nConclusion: yes\nthen, for every section with an error, "
    "the two lines\nError Section Number: <the section's number>\nExplanation: <why, in one "
    "sentence>"
)
_ECHOED = re.compile(r"<section_(\d+)>.*?</section_\1>", re.S)
_QUOTED_LINE = re.compile(r"^[ \t]*>.*$", re.M)
_CONCLUSION = re.compile(r"^[ \t*#]*conclusion[ \t*]*:[ \t*]*(.*)$", re.I | re.M)
_NUMBER_LINE = re.compile(r"^[ \t*#-]*error[ \t]+section[ \t]+numbers?[ \t*]*:[ \t*]*(.*)$",
                          re.I | re.M)
_EXPLANATION = re.compile(r"^[ \t*#-]*explanation[ \t*]*:[ \t*]*(.*)$", re.I | re.M)
_INTS = re.compile(r"[+-]?\d+")


def tag_sections(sections: Sequence[str]) -> str:
    """The sections as `<section_i>` blocks, numbered from 1."""
    return "\n\n".join(f"<section_{i}>\n{s.strip()}\n</section_{i}>"
                       for i, s in enumerate(sections, 1))


def build_sections_prompt(question: str, sections: Sequence[str]) -> str:
    """The critic's user message for one trace."""
    return (f"{_INTRO}\n\n[Math Problem]\n\n{question.strip()}\n\n[Reasoning]\n\n"
            f"{tag_sections(sections)}\n\n{_TASK}")


@dataclass(frozen=True, slots=True)
class SectionVote:
    """One critic answer. `errors`: 0-based indices of the sections it calls wrong (empty:
    "no error"); None when it could not be parsed (`problem` says why)."""

    text: str
    errors: frozenset[int] | None
    problem: str = ""
    tokens: int = 0
    explanations: dict[int, str] = field(default_factory=dict)


def parse_sections_answer(text: str, n_sections: int, tokens: int = 0) -> SectionVote:
    """Read one critic answer (see the module docstring). Never raises on model output;
    never guesses or clamps a section number."""
    own = _QUOTED_LINE.sub(" ", _ECHOED.sub(" ", text or ""))
    conclusions = list(_CONCLUSION.finditer(own))
    if not conclusions:
        return SectionVote(text, None, "no 'Conclusion:' line", tokens)
    last = conclusions[-1]
    said = last.group(1).strip().lower()
    rest = own[last.end():]
    if said.startswith(("no error", "no errors", "none")) or said in ("no", "no."):
        return SectionVote(text, frozenset(), "", tokens)
    if not said.startswith("yes"):
        return SectionVote(text, None, f"conclusion {said[:30]!r} is neither yes nor no error",
                           tokens)
    errors: set[int] = set()
    explanations: dict[int, str] = {}
    lines = list(_NUMBER_LINE.finditer(rest))
    for k, m in enumerate(lines):
        numbers = [int(x) for x in _INTS.findall(m.group(1))]
        if not numbers:
            return SectionVote(text, None, f"'Error Section Number: {m.group(1)[:20]}' names "
                               "no section", tokens)
        bad = [x for x in numbers if not 1 <= x <= n_sections]
        if bad:
            return SectionVote(text, None, f"section {bad[0]} is outside 1..{n_sections}",
                               tokens)
        stop = lines[k + 1].start() if k + 1 < len(lines) else len(rest)
        why = _EXPLANATION.search(rest, m.end(), stop)
        for x in numbers:
            errors.add(x - 1)
            if why:
                explanations.setdefault(x - 1, why.group(1).strip())
    if not errors:
        return SectionVote(text, None, "'Conclusion: yes' names no section", tokens)
    return SectionVote(text, frozenset(errors), "", tokens, explanations)


def section_verdicts(
    votes: Sequence[SectionVote],
    n_sections: int,
    max_evidence: int = MAX_EVIDENCE,
    rule: JudgeVote | str = JudgeVote.majority,
) -> list[StepVerdict]:
    """One verdict per section from m votes under `rule` (see the module docstring)."""
    if n_sections == 0:
        return []
    tokens = sum(v.tokens for v in votes)
    parsed = [v for v in votes if v.errors is not None]
    if not parsed:
        return tokens_on_first(unparsed_verdicts(votes, n_sections, max_evidence), tokens)
    m = len(votes)
    q = quorum(rule, m)
    note = f"; {len(parsed)} of {m} votes parsed" if len(parsed) < m else ""
    plural = JudgeVote(rule) == JudgeVote.plurality
    out: list[StepVerdict] = []
    for i in range(n_sections):
        named = [v for v in parsed if i in v.errors]  # type: ignore[operator]
        cleared = len(parsed) - len(named)
        score = cleared / m
        if plural:
            wrong = len(parsed) >= q and len(named) > cleared
            right = len(parsed) >= q and cleared > len(named)
        else:
            wrong, right = len(named) >= q, cleared >= q
        if wrong:
            why = named[0].explanations.get(i) or shorten(named[0].text, max_evidence)
            said = f"{len(named)} of {m} votes call section {i + 1} wrong{note}: "
            out.append(StepVerdict(Status.INCORRECT, False, score,
                                   shorten(said + why, max_evidence)))
        elif right:
            out.append(StepVerdict(Status.CORRECT, True, score))
        else:
            why = f"no quorum: {len(named)} of {m} votes call section {i + 1} wrong, " \
                  f"{cleared} right, {q} needed{note}"
            out.append(StepVerdict(Status.UNVERIFIABLE, None, score, why))
    return tokens_on_first(out, tokens)


__all__ = ["SectionVote", "build_sections_prompt", "parse_sections_answer",
           "section_verdicts", "tag_sections"]
