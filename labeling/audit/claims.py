"""What a label claims, the question a reviewer answers for it, and whether the reviewer's
answers make it true. Pure functions; the one home of the claim texts (`TEXTS`), which the
review page, Label Studio's tasks, the verdict check and the docs use.

A decided label makes one of these claims (a reasoning trace's section is its unit where a
step is named; the texts say "section" there):

- `step`: the source judged this step itself ("step i is right / wrong"). Every label of
  `answer`, `mc`, `judge` and the policy that is not a prefix claim: every True, the first
  False of a column when every step before it is labeled True (it is located) or it is the
  last step, and a policy's False on a step an exact check proved wrong. Scored against
  the reviewer's answer to "is this step itself correct?".
- a check's claim: a source that checks one aspect of a step (role `locating`) claims only
  that aspect, True or False: `calc`'s labels claim `arithmetic` ("the arithmetic in this
  step holds" / "this step's arithmetic is wrong"), `tests`' claim `syntax` ("the code up
  to this step can still become a program" / "it never can"). Scored against the
  reviewer's answer to that question, never against "is the step correct?" (a step whose
  arithmetic holds may still be the wrong move). A locating source registered without a
  text here claims `check` ("what it checks holds").
- `prefix`: a False that is there only because it comes after the column's first error
  under `labels.after_error=negative` (TRL's convention): "the chain has gone wrong by
  here", a claim about steps 0..i together, not about step i. MC's own labels after its
  first error are prefix claims too: the estimator writes them by the same rule, whatever
  the rollouts from those later steps said. So is a column's first False after an
  unlabeled step (not the last step, not proven by an exact source): MC's `posterior` rule
  writes it where the chain has gone wrong by step i but the rollouts do not say where
  (`labeling/mc/bisection.py`). Scored against the chain's first error: right when a
  reviewer found a wrong step at or before i, wrong when every step up to i was reviewed
  right, undecided otherwise.

Under `after_error=mask` or `keep` no label is a prefix claim. Steps are numbered from 0
everywhere (`first_error_step`, step keys, verdict files, the review page).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

import labeling.registry as registry
from labeling.datasets.processbench import human_step_labels
from labeling.first_error import first_error, located_first_error, prefix_claim


class Claim(StrEnum):
    """The claim a decided label makes (see the module docstring)."""

    step = "step"  # the step (a trace's section) itself is right / wrong
    arithmetic = "arithmetic"  # calc: the arithmetic the step states holds / is wrong
    syntax = "syntax"  # tests: the code so far can still become a program / never can
    check = "check"  # another locating source: what it checks in the step holds / fails
    prefix = "prefix"  # the chain has gone wrong by this step (a False only)


# What each locating source's labels claim: only the aspect it checks. A locating source
# missing here claims `check`; tests/test_audit_claim_questions.py holds every built-in one
# to a text of its own.
CHECKED: Mapping[str, Claim] = {"calc": Claim.arithmetic, "tests": Claim.syntax}

# The claims a reviewer answers about one step (the step questions); `prefix` is answered
# by the chain question (the first wrong step).
STEP_CLAIMS = (Claim.step, Claim.arithmetic, Claim.syntax, Claim.check)


@dataclass(frozen=True, slots=True)
class ClaimText:
    """How a claim reads. `{unit}` is "step" or "section", `{k}` the step's number, `{source}`
    the source's name. `question`: what the reviewer is asked; `true` / `false`: what a True /
    False label claims; `yes` / `no`: the two answers' words (`correct` / `incorrect` in the
    verdict file); `neutral`: whether a neutral answer means something here."""

    question: str
    true: str
    false: str
    yes: str = "correct"
    no: str = "incorrect"
    neutral: bool = True


TEXTS: Mapping[Claim, ClaimText] = {
    Claim.step: ClaimText(
        "Is {unit} {k} (highlighted) itself correct?",
        "this {unit} is correct", "this {unit} is wrong"),
    Claim.arithmetic: ClaimText(
        "Does the arithmetic in {unit} {k} (highlighted) hold? Check every calculation it "
        "states, as written; not whether it is the right move.",
        "the arithmetic in this {unit} holds", "this {unit}'s arithmetic is wrong",
        "holds", "wrong", neutral=False),
    Claim.syntax: ClaimText(
        "Can the code up to {unit} {k} (highlighted) still be continued into a program that "
        "parses? Syntax only; not whether the code is right.",
        "the code up to this {unit} can still become a program",
        "the code up to this {unit} can never become a program", "yes", "no", neutral=False),
    Claim.check: ClaimText(
        "Does what {source} checks in {unit} {k} (highlighted) hold? Only that check; not "
        "whether the {unit} is right.",
        "what {source} checks in this {unit} holds", "what {source} checks in this {unit} fails",
        "holds", "fails", neutral=False),
    Claim.prefix: ClaimText(
        "Which {unit} is the first wrong one?",
        "the chain is still right up to this {unit}",
        "the chain has gone wrong by this {unit} (at it or before)", neutral=False),
}  # fmt: skip

# Asked of a trace's section: on its own merits, whatever came before (traces fix slips).
SECTION_NOTE = " Judge what the section itself claims, even after an earlier error."
# The sections mode's question (DeltaBench's): every step claim of a chain in one answer.
SECTIONS_QUESTION = "Which {unit}s are wrong, each judged on its own, even after an earlier error?"


def check_claim(source: str) -> Claim | None:
    """The claim of every label of a source that checks one aspect of a step (role
    `locating`): its `CHECKED` entry, `check` when it has none; None for other sources."""
    if source in CHECKED:
        return CHECKED[source]
    return Claim.check if source in registry.locating_sources() else None


def question(claim: Claim | str, unit: str = "step", step: int | str = "{k}",
             source: str = "") -> str:  # fmt: skip
    """The question a reviewer answers for `claim` about `unit` `step` (left as `{k}` for
    the page to fill in)."""
    c = Claim(claim)
    text = TEXTS[c].question.format(unit=unit, k=step, source=source or "the source")
    return text + (SECTION_NOTE if unit == "section" and c == Claim.step else "")


def said(claim: Claim | str, label: bool, unit: str = "step", source: str = "") -> str:
    """What a label makes of its claim in words ("the arithmetic in this step holds")."""
    t = TEXTS[Claim(claim)]
    return (t.true if label else t.false).format(unit=unit, source=source or "the source")


def page_texts(unit: str) -> dict[str, dict[str, object]]:
    """Every claim's texts for one unit, as the review page reads them (`{k}` and
    `{source}` left for it to fill in); under `sections`, the sections mode's question."""
    out: dict[str, dict[str, object]] = {
        "sections": {"question": SECTIONS_QUESTION.format(unit=unit)}}
    for c, t in TEXTS.items():
        out[str(c)] = {"question": question(c, unit, source="{source}"),
                       "true": t.true.format(unit=unit, source="{source}"),
                       "false": t.false.format(unit=unit, source="{source}"),
                       "yes": t.yes, "no": t.no, "neutral": t.neutral}  # fmt: skip
    return out


def column_claims(
    labels: Sequence[bool | None], after_error: str, self_judged: Sequence[bool],
    checks: Claim | None = None,
) -> list[Claim | None]:  # fmt: skip
    """The claim of each label of one column (None where the label is null).
    `self_judged[i]`: the column's source judged step i itself wrong, so a False there is a
    step claim even after the first error. `checks`: the column is a locating source's,
    whose every label claims only that (`check_claim`)."""
    if checks is not None:
        return [None if x is None else checks for x in labels]
    first = first_error(labels)
    # A first False after an unlabeled step locates nothing: "wrong by here" (MC's prefix
    # claim), unless it is the last step (the chain's own answer) or judged on its own.
    located = prefix_claim(labels) is None
    out: list[Claim | None] = []
    for i, x in enumerate(labels):
        if x is None:
            out.append(None)
        elif x or (i == first and located) or after_error != "negative" or self_judged[i]:
            out.append(Claim.step)
        else:
            out.append(Claim.prefix)
    return out


def chain_claims(
    columns: Mapping[str, Sequence[bool | None]], policy: str, after_error: str
) -> dict[str, list[Claim | None]]:
    """Claims of every column of one chain: the sources' `<name>_labels` under their names,
    the policy's `labels` under `policy`. A locating source's labels claim what it checks;
    an exact source judges every step on its own; the policy judged step i itself where an
    exact source proved it wrong."""
    n = len(next(iter(columns.values()), ()))
    exact = [s for s in registry.exact_sources() if s in columns and s != policy]
    proven = [any(columns[s][i] is False for s in exact) for i in range(n)]
    out = {}
    for name, labels in columns.items():
        if name in exact:
            judged = [True] * n
        elif name == policy:
            judged = proven
        else:  # mc, judge: a False after their first error is their own after-error rule
            judged = [False] * n
        checks = check_claim(name) if name != policy else None
        out[name] = column_claims(labels, after_error, judged, checks)
    return out


def prefix_right(human: Sequence[bool | None], step: int) -> bool | None:
    """Is the chain still right up to and including `step`, by the reviewer's step verdicts
    (`human[j]` for step j)? False as soon as one step up to it is wrong; True when every
    one was reviewed right; None when an unreviewed (or masked) step leaves it open."""
    upto = human[: step + 1]
    if any(h is False for h in upto):
        return False
    if len(upto) == step + 1 and all(h is True for h in upto):
        return True
    return None


def claim_right(label: bool, claim: Claim | str, human: Sequence[bool | None], step: int,
                checked: bool | None = None) -> bool | None:  # fmt: skip
    """Whether a decided label is right about what it claims; None when the reviewer's
    answers do not decide it. `human`: the chain's reviewed step verdicts from step 0 (for
    `step` and `prefix` claims); `checked`: the reviewer's answer to a check's own question
    (`arithmetic`, `syntax`, `check`), which a step verdict never stands in for."""
    c = Claim(claim)
    if c == Claim.prefix:
        truth = prefix_right(human, step)
    elif c == Claim.step:
        truth = human[step] if step < len(human) else None
    else:
        truth = checked
    return None if truth is None else truth == label


def answered_first_error(human: Sequence[bool | None]) -> int | None:
    """The first error that step verdicts place: the first wrong step when every step
    before it is right, -1 when every step is right, None when they leave it open
    (`located_first_error`)."""
    return located_first_error(human)


def chain_answer_steps(first_error: int, n_steps: int) -> tuple[bool | None, ...]:
    """The step verdicts a chain answer implies (ProcessBench's protocol): right before the
    first error, wrong at it, nothing said after it (-1: every step right)."""
    return human_step_labels(first_error, n_steps)


__all__ = [
    "CHECKED",
    "SECTIONS_QUESTION",
    "STEP_CLAIMS",
    "TEXTS",
    "Claim",
    "ClaimText",
    "answered_first_error",
    "chain_answer_steps",
    "chain_claims",
    "check_claim",
    "claim_right",
    "column_claims",
    "page_texts",
    "prefix_right",
    "question",
    "said",
]
