"""Reviewer verdict files, read and checked: the review page's export and Label Studio's
JSON export, both as `Verdict` records. Pure: text in, records and problems out.

A file that is not one of the two formats raises ValueError (the whole file is unusable).
A record inside it that cannot be used becomes a `Problem` with one sentence, never dropped:
a malformed record, an unknown verdict word, a step the review pack does not hold, a
duplicate (the same reviewer and verdict again) or a conflict (different verdicts for one
step: every one of them is set aside and the step stays unreviewed; nothing is overwritten).
`skip` is not a verdict: it is counted and leaves the step unreviewed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

RATINGS = {"correct": 1, "incorrect": -1, "neutral": 0}  # human_ratings' three values
SKIP = "skip"
PAGE_FORMAT = "prm-audit-verdicts/1"


@dataclass(frozen=True, slots=True)
class Verdict:
    item: str  # step key, "<chain_id>#<step>"
    verdict: str  # correct | incorrect | neutral
    reviewer: str
    review_id: str
    index: int  # record position in its file
    origin: str = ""  # the file it came from

    @property
    def rating(self) -> int:
        return RATINGS[self.verdict]


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


def _ls_records(data: list[Any]) -> Iterable[tuple[int, Any, str, str]]:
    """Label Studio export: tasks, each with `annotations` whose `result` holds a choices
    value. One record per annotation; cancelled annotations are skips."""
    index = 0
    for task in data:
        anns = task.get("annotations") if isinstance(task, dict) else None
        item = (task.get("data") or {}).get("item") if isinstance(task, dict) else None
        if not isinstance(anns, list):
            yield index, {"task": task}, "", ""
            index += 1
            continue
        for ann in anns:
            rec: dict[str, Any] = {"item": item}
            if not isinstance(ann, dict):
                rec["verdict"] = None
            elif ann.get("was_cancelled"):
                rec["verdict"] = SKIP
            else:
                choices = [
                    c for res in ann.get("result") or () if isinstance(res, dict)
                    for c in ((res.get("value") or {}).get("choices") or ())
                ]  # fmt: skip
                rec["verdict"] = choices[0] if len(choices) == 1 else choices or None
            who = ann.get("completed_by") if isinstance(ann, dict) else None
            if isinstance(who, dict):
                who = who.get("email") or who.get("id")
            rid = ann.get("id") if isinstance(ann, dict) else None
            yield index, rec, f"labelstudio:{who}", f"labelstudio:{rid}"
            index += 1


def parse(
    text: str, known: set[str], origin: str = ""
) -> tuple[list[Verdict], list[Problem], int]:
    """(verdicts, problems, skips) of one verdict file, before `resolve`; `known` holds the
    step keys a verdict may name. Raises ValueError when the file is neither format."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at line {exc.lineno})") from None
    if isinstance(data, dict) and isinstance(data.get("verdicts"), list):
        records = list(_page_records(data))
    elif isinstance(data, list):
        records = list(_ls_records(data))
    else:
        raise ValueError("neither a review page export (an object with 'verdicts') nor a "
                         "Label Studio JSON export (a list of tasks)")
    seen: list[Verdict] = []
    problems: list[Problem] = []
    skips = 0
    for index, rec, reviewer, rid in records:
        if not isinstance(rec, dict) or not isinstance(rec.get("item"), str):
            problems.append(Problem(index, "", "malformed verdict record: no step 'item'",
                                    _raw(rec), origin))  # fmt: skip
            continue
        item, word = rec["item"], rec.get("verdict")
        if word == SKIP:
            skips += 1
            continue
        if word not in RATINGS:
            choices = ", ".join([*RATINGS, SKIP])
            problems.append(Problem(index, item, f"unknown verdict {word!r} for {item}; "
                                    f"expected one of {choices}", _raw(rec), origin))  # fmt: skip
            continue
        if item not in known:
            why = f"verdict for step {item}, which the review pack and the dataset do not hold"
            problems.append(Problem(index, item, why, _raw(rec), origin))
            continue
        seen.append(Verdict(item, word, reviewer, str(rec.get("review_id") or rid), index,
                            origin))  # fmt: skip
    return seen, problems, skips


def resolve(
    verdicts: list[Verdict], problems: list[Problem]
) -> tuple[list[Verdict], list[Problem]]:
    """One verdict per step: a repeat of the same verdict is a duplicate (the first stays),
    different verdicts for one step are a conflict (all set aside)."""
    by_item: dict[str, list[Verdict]] = {}
    for v in verdicts:
        by_item.setdefault(v.item, []).append(v)
    kept: list[Verdict] = []
    out = list(problems)
    for item, vs in by_item.items():
        words = {v.verdict for v in vs}
        if len(words) > 1:
            said = ", ".join(f"{v.verdict} by {v.reviewer}" for v in vs)
            out += [Problem(v.index, item, f"conflicting verdicts for step {item} ({said}); "
                            "none is used", _raw(v.verdict), v.origin) for v in vs]  # fmt: skip
            continue
        kept.append(vs[0])
        out += [Problem(v.index, item, f"duplicate verdict for step {item} ({v.verdict} again)",
                        _raw(v.verdict), v.origin) for v in vs[1:]]  # fmt: skip
    return (sorted(kept, key=lambda v: (v.origin, v.index)),
            sorted(out, key=lambda p: (p.origin, p.index)))  # fmt: skip
