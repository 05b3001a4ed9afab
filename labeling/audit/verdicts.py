"""Reviewer verdict files, read and checked: the review page's export (or a file a team
writes from its own tool, docs/audit.md) and Label Studio's JSON export, as `Verdict` and
`ChainVerdict` records. Pure: text in, records and problems out.

A record answers one of three kinds of question (its `mode`; steps count from 0):
- `step` (also a record without `mode`, as files of format /1 have): a question about one
  step, named by its `claim` (`labeling.audit.claims`): `step` "is this step itself
  right?", `arithmetic` "does its arithmetic hold?", `syntax`, `check`.
  `{"item": "<chain_id>#<step>", "claim": "arithmetic", "verdict": "correct" | "incorrect" |
  "neutral"}`; a check's question takes no `neutral`. A record without `claim` (files the
  page wrote before claims, or a team's tool) answers the step question, as it did then
  (`Verdict.named` is False: the importer says so once per file).
- `chain` (ProcessBench's protocol): where does the chain first go wrong? The `prefix`
  claim's question. `{"mode": "chain", "chain": "<chain_id>", "first_error": k}`, -1 when
  every step is right. It implies a verdict on every step up to k (right before, wrong at
  k) and nothing about the steps after k.
- `sections` (DeltaBench's annotation, for reasoning traces whose sections are judged each
  on its own): `{"mode": "sections", "chain": "<chain_id>", "wrong": [k, ...]}`, every
  wrong step, [] when every one is right. It implies a verdict on every step (wrong if
  listed, right otherwise). One chain or sections answer per chain.

A file that is not one of the two formats raises ValueError (the whole file is unusable).
A record inside it that cannot be used becomes a `Problem` with one sentence, never dropped:
a malformed record, an unknown mode, claim or verdict word, a step or chain the review pack
does not hold, a claim the pack did not ask about that step (its sampled labels claim
something else: calc's True is not answered by "the step is correct"), a neutral answer to
a check's question, a first error outside the chain, a duplicate (the same answer again)
or a conflict (different answers for one question or chain, or a step verdict that
contradicts a chain answer: every one of them is set aside and nothing is overwritten).
`skip` is not a verdict: it is counted and leaves the question unanswered.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from labeling.audit.claims import STEP_CLAIMS, TEXTS, Claim, chain_answer_steps, question
from labeling.schema import Neutral, rating_label

RATINGS = {"correct": 1, "incorrect": -1, "neutral": 0}  # human_ratings' three values
SKIP = "skip"
PAGE_FORMAT = "prm-audit-verdicts/2"
FORMATS = ("prm-audit-verdicts/1", PAGE_FORMAT)  # /1: step records only


class Mode(StrEnum):
    """What a verdict record answers (its `mode` field)."""

    step = "step"  # one step's own verdict
    chain = "chain"  # the chain's first wrong step, or -1
    sections = "sections"  # every wrong step (a trace's section) of the chain, each on its own


@dataclass(frozen=True, slots=True)
class Verdict:
    """A step verdict."""

    item: str  # step key, "<chain_id>#<step>"
    verdict: str  # correct | incorrect | neutral
    reviewer: str
    review_id: str
    index: int  # record position in its file
    origin: str = ""  # the file it came from
    claim: str = Claim.step  # the question it answers (`labeling.audit.claims.Claim`)
    named: bool = True  # False: the record named no claim and is read as the step question

    @property
    def rating(self) -> int:
        return RATINGS[self.verdict]

    @property
    def chain(self) -> str:
        return self.item.rsplit("#", 1)[0]

    @property
    def step(self) -> int:
        return int(self.item.rsplit("#", 1)[1])

    @property
    def question(self) -> tuple[str, str]:
        """What it answers: (step key, claim); one answer per question."""
        return self.item, str(self.claim)


@dataclass(frozen=True, slots=True)
class ChainVerdict:
    """A chain answer: the first wrong step (-1: every step right); or, with `wrong` (a
    `sections` answer), every wrong step, each judged on its own: the others are right."""

    chain: str
    first_error: int
    n_steps: int
    reviewer: str
    review_id: str
    index: int
    origin: str = ""
    wrong: tuple[int, ...] | None = None

    @property
    def item(self) -> str:
        return self.chain

    @property
    def question(self) -> tuple[str, str]:
        return self.chain, str(Claim.prefix)

    @property
    def said(self) -> str:
        if self.wrong is not None:
            return "wrong: steps " + ", ".join(map(str, self.wrong)) if self.wrong else (
                "every step correct, each on its own")
        return "all steps correct" if self.first_error < 0 else (
            f"first error at step {self.first_error}")

    def steps(self) -> tuple[bool | None, ...]:
        """The verdict it implies on each step (None: nothing said)."""
        if self.wrong is not None:
            return tuple(i not in self.wrong for i in range(self.n_steps))
        return chain_answer_steps(self.first_error, self.n_steps)


@dataclass(frozen=True, slots=True)
class Problem:
    index: int
    item: str
    reason: str
    raw: str
    origin: str = ""


def _raw(record: Any) -> str:
    return json.dumps(record, sort_keys=True, default=str)[:500]


def _page_records(data: Mapping[str, Any]) -> Iterable[tuple[int, Any, str, str]]:
    reviewer = str(data.get("reviewer") or "anonymous")
    for i, r in enumerate(data["verdicts"]):
        yield i, r, reviewer, f"page:{i}"


def _ls_answer(ann: Any) -> Any:
    """The one value an annotation holds: a choice (step task) or a number (chain task)."""
    values = [
        v for res in ann.get("result") or () if isinstance(res, dict)
        for v in [*((res.get("value") or {}).get("choices") or ()),
                  *([res["value"]["number"]] if "number" in (res.get("value") or {}) else [])]
    ]  # fmt: skip
    return values[0] if len(values) == 1 else values or None


def _ls_records(data: list[Any]) -> Iterable[tuple[int, Any, str, str]]:
    """Label Studio export: tasks, each with `annotations` whose `result` holds a choices
    value (step tasks, `data.item`) or a number (chain tasks, `data.chain_id`). One record
    per annotation; cancelled annotations are skips."""
    index = 0
    for task in data:
        anns = task.get("annotations") if isinstance(task, dict) else None
        tdata = (task.get("data") or {}) if isinstance(task, dict) else {}
        chain = tdata.get("chain_id") if isinstance(tdata, dict) else None
        item = tdata.get("item") if isinstance(tdata, dict) else None
        if not isinstance(anns, list):
            yield index, {"task": task}, "", ""
            index += 1
            continue
        claim = tdata.get("claim") if isinstance(tdata, dict) else None
        for ann in anns:
            rec: dict[str, Any] = ({"mode": Mode.chain.value, "chain": chain} if chain
                                   else {"item": item})  # fmt: skip
            if claim is not None and not chain:
                rec["claim"] = claim
            answer = _ls_answer(ann) if isinstance(ann, dict) else None
            if isinstance(ann, dict) and ann.get("was_cancelled"):
                rec["verdict"] = SKIP
            elif chain:
                rec["first_error"] = answer
            else:
                rec["verdict"] = answer
            who = ann.get("completed_by") if isinstance(ann, dict) else None
            if isinstance(who, dict):
                who = who.get("email") or who.get("id")
            rid = ann.get("id") if isinstance(ann, dict) else None
            yield index, rec, f"labelstudio:{who}", f"labelstudio:{rid}"
            index += 1


def _records(text: str) -> list[tuple[int, Any, str, str]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at line {exc.lineno})") from None
    if isinstance(data, dict) and isinstance(data.get("verdicts"), list):
        fmt = data.get("format")
        if fmt is not None and fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}; this version reads {', '.join(FORMATS)}")
        return list(_page_records(data))
    if isinstance(data, list):
        return list(_ls_records(data))
    raise ValueError("neither a review page export (an object with 'verdicts') nor a "
                     "Label Studio JSON export (a list of tasks)")


def _chain_record(rec: dict[str, Any], chains: Mapping[str, int], reviewer: str, rid: str,
                  index: int, origin: str) -> ChainVerdict | Problem | None:  # fmt: skip
    chain = rec.get("chain")
    if not isinstance(chain, str):
        return Problem(index, "", "malformed chain record: no 'chain'", _raw(rec), origin)
    sections = rec.get("mode") == Mode.sections
    # a sections answer judges every step itself (the step claim); a chain answer the prefix
    want = Claim.step if sections else Claim.prefix
    if "claim" in rec and rec["claim"] != want:
        why = (f"a {rec.get('mode')} answer for {chain} answers the {want} claim, not "
               f"{rec['claim']!r}")
        return Problem(index, chain, why, _raw(rec), origin)
    if rec.get("verdict") == SKIP:
        return None
    fe = rec.get("first_error")
    if chain not in chains:
        why = f"answer for chain {chain}, which the review pack and the dataset do not hold"
        return Problem(index, chain, why, _raw(rec), origin)
    n = chains[chain]
    if sections:
        wrong = rec.get("wrong")
        if not isinstance(wrong, list) or any(
                isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < n for k in wrong
        ) or len(set(wrong)) != len(wrong):  # fmt: skip
            why = (f"wrong {wrong!r} for chain {chain} is not a list of its steps: expected "
                   f"distinct integers from 0 to {n - 1} (steps count from 0; [] for all right)")
            return Problem(index, chain, why, _raw(rec), origin)
        return ChainVerdict(chain, min(wrong, default=-1), n, reviewer,
                            str(rec.get("review_id") or rid), index, origin,
                            tuple(sorted(wrong)))  # fmt: skip
    if isinstance(fe, bool) or not isinstance(fe, int) or not -1 <= fe < n:
        why = (f"first_error {fe!r} for chain {chain} is not a step of it: expected an "
               f"integer from -1 (every step correct) to {n - 1} (steps count from 0)")
        return Problem(index, chain, why, _raw(rec), origin)
    return ChainVerdict(chain, fe, n, reviewer, str(rec.get("review_id") or rid), index, origin)


def _step_record(rec: dict[str, Any], known: Mapping[str, Collection[str]], reviewer: str,
                 rid: str, index: int, origin: str) -> Verdict | Problem | None:  # fmt: skip
    """One step record checked against the questions the pack asks about its step."""
    item, word = rec["item"], rec.get("verdict")
    named = "claim" in rec
    claim = rec.get("claim", Claim.step.value)
    if not isinstance(claim, str) or claim not in {str(c) for c in STEP_CLAIMS}:
        why = (f"unknown claim {claim!r} for {item}; a step record answers one of "
               f"{', '.join(STEP_CLAIMS)} (the prefix claim is a chain record's)")
        return Problem(index, item, why, _raw(rec), origin)
    if word == SKIP:
        return None
    if not isinstance(word, str) or word not in RATINGS:  # a list: several choices
        choices = ", ".join([*RATINGS, SKIP])
        return Problem(index, item, f"unknown verdict {word!r} for {item}; expected one of "
                       f"{choices}", _raw(rec), origin)  # fmt: skip
    if item not in known:
        why = f"verdict for step {item}, which the review pack and the dataset do not hold"
        return Problem(index, item, why, _raw(rec), origin)
    asked = known[item]
    step = item.rsplit("#", 1)[1]
    if claim not in asked:
        ask = " and ".join(f"'{question(c, step=step)}'" for c in STEP_CLAIMS if c in asked)
        instead = (f"it asks {ask} instead" if ask else "its labels there claim only that the "
                   "chain has gone wrong by it, which its chain's first wrong step answers")
        why = (f"verdict on '{question(claim, step=step)}' for {item}, which the pack does not "
               f"ask there ({instead}" + (
                   "; the record names no claim, so it answers the step question" if not named
                   else "") + "); not used")  # fmt: skip
        return Problem(index, item, why, _raw(rec), origin)
    if word == "neutral" and not TEXTS[Claim(claim)].neutral:
        why = (f"'neutral' does not answer '{question(claim, step=step)}' for {item}; "
               "expected correct, incorrect or skip")
        return Problem(index, item, why, _raw(rec), origin)
    return Verdict(item, word, reviewer, str(rec.get("review_id") or rid), index, origin,
                   Claim(claim), named)  # fmt: skip


def parse(
    text: str, known: Mapping[str, Collection[str]], origin: str = "",
    chains: Mapping[str, int] | None = None,
) -> tuple[list[Verdict | ChainVerdict], list[Problem], int]:  # fmt: skip
    """(verdicts, problems, skips) of one verdict file, before `resolve`; `known` maps each
    step key a step verdict may name to the claims the pack asks about it (its `asks`),
    `chains` the chains a chain answer may name (with their step counts). Raises ValueError
    when the file is neither format."""
    chains = chains or {}
    seen: list[Verdict | ChainVerdict] = []
    problems: list[Problem] = []
    skips = 0
    for index, rec, reviewer, rid in _records(text):
        mode = rec.get("mode", Mode.step.value) if isinstance(rec, dict) else None
        if isinstance(rec, dict) and (not isinstance(mode, str) or mode not in set(Mode)):
            modes = ", ".join(Mode)
            problems.append(Problem(index, str(rec.get("item") or rec.get("chain") or ""),
                                    f"unknown mode {mode!r}; expected one of {modes}",
                                    _raw(rec), origin))  # fmt: skip
            continue
        if mode in (Mode.chain, Mode.sections):
            got = _chain_record(rec, chains, reviewer, rid, index, origin)
        elif not isinstance(rec, dict) or not isinstance(rec.get("item"), str):
            got = Problem(index, "", "malformed verdict record: no step 'item'", _raw(rec),
                          origin)  # fmt: skip
        else:
            got = _step_record(rec, known, reviewer, rid, index, origin)
        if got is None:
            skips += 1
        elif isinstance(got, Problem):
            problems.append(got)
        else:
            seen.append(got)
    return seen, problems, skips


def _one_each(records: list[Any], answer: Any, what: tuple[str, str]
              ) -> tuple[list[Any], list[Problem]]:  # fmt: skip
    """One record per question: a repeat of the same answer is a duplicate (the first
    stays), different answers are a conflict (all set aside)."""
    by_question: dict[tuple[str, str], list[Any]] = {}
    for r in records:
        by_question.setdefault(r.question, []).append(r)
    kept, out = [], []
    for (item, claim), rs in by_question.items():
        # "conflicting arithmetic verdicts for step ...": a check's question is its own
        words = what if claim in (Claim.step, Claim.prefix) else (
            f"{claim} {what[0]}", f"{claim} {what[1]}")
        if len({answer(r) for r in rs}) > 1:
            said = ", ".join(f"{answer(r)} by {r.reviewer}" for r in rs)
            out += [Problem(r.index, item, f"conflicting {words[0]} {item} ({said}); none is "
                            "used", _raw(answer(r)), r.origin) for r in rs]  # fmt: skip
            continue
        kept.append(rs[0])
        out += [Problem(r.index, item, f"duplicate {words[1]} {item} ({answer(r)} again)",
                        _raw(answer(r)), r.origin) for r in rs[1:]]  # fmt: skip
    return kept, out


def resolve(
    verdicts: list[Verdict | ChainVerdict], problems: list[Problem],
    neutral: Neutral | str = Neutral.positive,
) -> tuple[list[Verdict | ChainVerdict], list[Problem]]:  # fmt: skip
    """One answer per question (a step and a claim) and per chain (duplicates and conflicts
    as `_one_each`), then every chain answer against the step-question verdicts of its
    chain (a check's answer is about something else): a step verdict whose boolean
    under `neutral` contradicts what the chain answer implies for that step sets both aside
    (a neutral before the first error agrees with it unless neutral counts as wrong)."""
    steps, out = _one_each([v for v in verdicts if isinstance(v, Verdict)], lambda v: v.verdict,
                           ("verdicts for step", "verdict for step"))
    chains, more = _one_each([v for v in verdicts if isinstance(v, ChainVerdict)],
                             lambda c: c.said, ("chain answers for", "chain answer for"))
    out += problems + more
    dropped: set[int] = set()
    kept_chains: list[ChainVerdict] = []
    for c in chains:
        implied = c.steps()
        clash = [v for v in steps if v.chain == c.chain and v.claim == Claim.step
                 and implied[v.step] is not None
                 and rating_label(v.rating, neutral) not in (None, implied[v.step])]  # fmt: skip
        if not clash:
            kept_chains.append(c)
            continue
        shown = ", ".join(f"step {v.step} {v.verdict}" for v in clash)
        out.append(Problem(c.index, c.chain, f"chain answer '{c.said}' for {c.chain} "
                           f"contradicts its step verdicts ({shown}); none is used",
                           _raw(c.said), c.origin))  # fmt: skip
        for v in clash:
            dropped.add(id(v))
            out.append(Problem(v.index, v.item, f"verdict {v.verdict} for step {v.item} "
                               f"contradicts the chain answer '{c.said}'; none is used",
                               _raw(v.verdict), v.origin))  # fmt: skip
    kept = [v for v in steps if id(v) not in dropped] + kept_chains
    return (sorted(kept, key=lambda v: (v.origin, v.index)),
            sorted(out, key=lambda p: (p.origin, p.index)))  # fmt: skip
