"""Any jsonl/json/parquet file, with a field mapping in config.

`dataset.fields` maps our names to the file's: `question` (required), `answer` (math
reference), `steps` (a list of strings: the chain is given and not sampled), `tests` (a list
of assert lines: a code problem), `test_setup`, `entry_point`, `first_error` (human label).
`dataset.domain` is math or code (code when a `tests` field is mapped).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from labeling.datasets._io import need_str
from labeling.datasets.common import convert, make_problem
from labeling.datasets.mbpp import str_list
from labeling.datasets.processbench import parse_steps
from labeling.schema import GivenChain, Problem, Quarantined


def load(options: dict[str, Any]) -> Iterator[Problem | Quarantined]:
    name = options.get("name", "generic")
    fields = {"question": "question", "answer": "answer"} | dict(options.get("fields") or {})
    domain = options.get("domain") or ("code" if fields.get("tests") else "math")
    return convert(options["path"], name, lambda d, index: _problem(d, index, name, fields, domain))


def _given(d: dict[str, Any], fields: dict[str, str]) -> tuple[GivenChain, ...]:
    if not fields.get("steps"):
        return ()
    steps = parse_steps(d.get(fields["steps"]))
    fe = d.get(fields["first_error"]) if fields.get("first_error") else None
    if fe is not None and (isinstance(fe, bool) or not isinstance(fe, int)):
        raise ValueError(f"field {fields['first_error']!r} should be an integer")
    return (GivenChain(steps, "given", human_first_error=fe),)


def _problem(
    d: dict[str, Any], index: int, name: str, fields: dict[str, str], domain: str
) -> Problem:
    question = need_str(d, fields["question"])
    given = _given(d, fields)
    salt = str(index) if given else ""
    if domain == "code":
        tests = str_list(d.get(fields.get("tests") or "tests"), "tests")
        setup = str(d.get(fields.get("test_setup") or "test_setup") or "")
        entry = str(d.get(fields.get("entry_point") or "entry_point") or "")
        return make_problem("code", name, question, tests=tests, test_setup=setup,
                            entry_point=entry, given=given, id_salt=salt)
    answer_field = fields.get("answer")
    reference = ""
    if answer_field and d.get(answer_field) is not None:
        reference = need_str(d, answer_field)
    elif not given:
        raise ValueError(f"missing field {answer_field!r} (the reference answer)")
    return make_problem("math", name, question, reference, given=given, id_salt=salt)
