"""DeltaBench (arXiv 2502.19361) jsonl: long chains of thought from reasoning models, cut into
sections by people, with the sections that hold an error marked. Chains are given: nothing
is sampled.

Fields read: `question`, `answer` (the reference; mixed forms), `long_cot` (the trace),
`sections` (section k is `sections[k-1]`: `start`/`end` are 1-based inclusive indices into
`long_cot.split("\\n\\n")`, `content` its text), `sections_labeled_info` (per section,
`reasoning_correctness` "1" = the section has an error, "0" = it has none, "" = not
labeled), `reason_error_section_numbers` (1-based error sections), `final_correct`.

The chain's steps are the human sections (their `content`: `long_cot` is cut at 32,767
characters in some records), so the human labels line up with the steps: an error section is
False, a section labeled without error True, an unlabeled one None; `human_first_error` is
the first error section (0-based). Paragraphs after the last section (the final answer in
some records) become one more step, unlabeled. "Unuseful" sections
(`reason_unuseful_section_numbers`) are not errors and are not marked: DeltaBench's own
scoring counts them with the errors, a step label does not. To cut `long_cot` with this
tool's own sections instead, read the file with the generic adapter
(`dataset.fields.response=long_cot`).

Bad records are quarantined with the reason: not math (`task_l1`; code records have no tests
here), sections that do not fit the trace, labels that contradict the error list.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from labeling.datasets._io import need_str
from labeling.datasets.common import convert, make_problem
from labeling.first_error import first_error
from labeling.schema import GivenChain, Problem, Quarantined

MATH_TASKS = ("math", "")
SECTIONS = True  # its chains are reasoning-trace sections (labeling.datasets.gives_sections)


def load(options: dict[str, Any]) -> Iterator[Problem | Quarantined]:
    name = options.get("name") or "deltabench"
    return convert(options["path"], name, lambda d, index: _problem(d, index, name))


def _sections(d: dict[str, Any]) -> list[dict[str, Any]]:
    sections = d.get("sections")
    if not isinstance(sections, list) or not sections:
        raise ValueError("field 'sections' should be a non-empty list")
    last = 0
    for k, s in enumerate(sections, 1):
        if not isinstance(s, dict):
            raise ValueError(f"section {k} is not an object")
        start, end = s.get("start"), s.get("end")
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (start, end)) \
                or not last < start <= end:  # type: ignore[operator]
            raise ValueError(f"section {k} has span {start}..{end}, which does not follow "
                             f"the previous section's end {last}")
        last = end  # type: ignore[assignment]
    return sections


def _labels(d: dict[str, Any], n: int) -> list[bool | None]:
    """Per human section: False (error), True (labeled, no error), None (not labeled)."""
    info = d.get("sections_labeled_info") or []
    errors = d.get("reason_error_section_numbers") or []
    if not isinstance(info, list) or not isinstance(errors, list):
        raise ValueError("fields 'sections_labeled_info' and 'reason_error_section_numbers' "
                         "should be lists")
    if any(isinstance(e, bool) or not isinstance(e, int) or not 1 <= e <= n for e in errors):
        raise ValueError(f"reason_error_section_numbers {errors} is not a list of sections "
                         f"1..{n}")
    flags = [str((x or {}).get("reasoning_correctness", "")) if isinstance(x, dict) else ""
             for x in info]
    if any(flags[n:]):
        raise ValueError(f"sections_labeled_info labels {len(flags)} sections, the record has "
                         f"{n}")
    labels: list[bool | None] = [
        False if f == "1" else True if f == "0" else None for f in flags[:n]
    ] + [None] * max(0, n - len(flags))
    for e in errors:
        if labels[e - 1] is True:
            raise ValueError(f"section {e} is in reason_error_section_numbers but labeled "
                             "without error")
        labels[e - 1] = False
    return labels


def _problem(d: dict[str, Any], index: int, name: str) -> Problem:
    task = str(d.get("task_l1") or "")
    if task.lower() not in MATH_TASKS:
        raise ValueError(f"task_l1 {task!r}: only math records are read (no tests or checkable "
                         "answers for the others here)")
    question = need_str(d, "question")
    cot = need_str(d, "long_cot")
    sections = _sections(d)
    paragraphs = cot.split("\n\n")
    steps = []
    for s in sections:
        content = s.get("content")
        text = content if isinstance(content, str) and content.strip() else \
            "\n\n".join(paragraphs[s["start"] - 1 : s["end"]])
        if not text.strip():
            raise ValueError(f"section {s['start']}..{s['end']} has no text")
        steps.append(text.strip())
    labels = _labels(d, len(sections))
    tail = "\n\n".join(paragraphs[sections[-1]["end"] :]).strip()
    if tail:
        steps.append(tail)
        labels.append(None)
    reference = str(d.get("answer") or "").strip()
    outcome = d.get("final_correct")
    if outcome is not None and (isinstance(outcome, bool) or outcome not in (0, 1)):
        raise ValueError("field 'final_correct' should be 0 or 1")
    chain = GivenChain(
        steps=tuple(steps),
        model=str(d.get("model") or "deltabench"),
        human_first_error=first_error(labels),
        human_labels=tuple(labels),
        outcome_correct=None if outcome is None else bool(outcome),
    )
    return make_problem("math", name, question, reference, given=(chain,),
                        id_salt=str(d.get("id", index)))
