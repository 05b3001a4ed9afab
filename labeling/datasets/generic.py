"""Any jsonl/json/parquet file, with a field mapping in config.

`dataset.fields` maps our names (`FieldsConfig`) to the file's:
- `question` (required; default `question`), `answer` (math reference; default `answer`);
- a given chain, then nothing is sampled: `steps` (a list of strings, already split; a
  string there is taken as a `response`), or `response` (one string: a model's whole answer,
  a reasoning model's trace with or without `<think>`, cut by `split.mode` like a sampled
  chain), optionally with `reasoning` (the thinking as vLLM's reasoning parsers return it,
  `reasoning_content` or `reasoning`: joined with the response as `<think>...</think>` and
  the answer); `first_error` (a human first-error index, with `steps`); `model` (who wrote it);
- code: `tests` (a list of assert lines), `test_setup`, `entry_point`.
`dataset.domain` is math or code (code when a `tests` field is mapped). A name outside
`FIELDS` is a config error that lists them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any

from labeling.datasets._io import need_str
from labeling.datasets.common import convert, make_problem
from labeling.datasets.mbpp import str_list
from labeling.datasets.processbench import parse_steps
from labeling.schema import GivenChain, Problem, Quarantined
from labeling.steps.thinking import compose


def _field(help_text: str) -> Any:
    # "affects: rows": which field is read changes the rows (pipelines.config_fields' ROWS,
    # spelled as its value: labeling does not import pipelines).
    return field(default=None, metadata={"help": help_text, "affects": "rows"})


@dataclass
class FieldsConfig:
    """The field mapping (`dataset.fields`): our name = the file's field. Unset (None) fields
    are not read. prm-label's config types `dataset.fields` with it, so a name outside it
    fails at start with the list."""

    question: str | None = _field("The problem text (unset: `question`).")
    answer: str | None = _field("The reference answer, math (unset: `answer`).")
    steps: str | None = _field(
        "A given chain already split: a list of strings (a string is a `response`).")
    response: str | None = _field(
        "A given chain as one string (a reasoning model's trace, with or without <think>), "
        "cut by split.mode; nothing is sampled.")
    reasoning: str | None = _field(
        "The thinking as vLLM's reasoning parsers return it (reasoning_content or reasoning), "
        "joined with `response` as <think>...</think> then the answer.")
    first_error: str | None = _field("A human first-error step index (with `steps`).")
    model: str | None = _field("The model that wrote the given chain (unset: given).")
    tests: str | None = _field("Unit tests (a list of assert lines): a code problem.")
    test_setup: str | None = _field("Code run before the tests.")
    entry_point: str | None = _field("The function the tests call.")


FIELDS = tuple(f.name for f in fields(FieldsConfig))
DEFAULTS = {"question": "question", "answer": "answer"}


def field_map(given: dict[str, Any] | None) -> dict[str, str]:
    """Our name -> the file's, defaults filled in; unset (None, "") entries are left out.
    Raises ValueError naming the valid names for a name we do not know."""
    given = {k: v for k, v in (given or {}).items() if v}
    unknown = sorted(set(given) - set(FIELDS))
    if unknown:
        raise ValueError(f"dataset.fields.{unknown[0]}: no such field; map one of "
                         f"{', '.join(FIELDS)}")
    return DEFAULTS | {k: str(v) for k, v in given.items()}


def load(options: dict[str, Any]) -> Iterator[Problem | Quarantined]:
    name = options.get("name", "generic")
    fields = field_map(options.get("fields"))
    domain = options.get("domain") or ("code" if fields.get("tests") else "math")
    return convert(options["path"], name, lambda d, index: _problem(d, index, name, fields, domain))


def _text(d: dict[str, Any], key: str) -> str:
    """A response or reasoning field: a string (may be empty for a reasoning field)."""
    value = d.get(key)
    if not isinstance(value, str):
        got = "nothing" if value is None else type(value).__name__
        raise ValueError(f"field {key!r} should be a string (the whole response), got {got}")
    return value


def _given(d: dict[str, Any], fields: dict[str, str]) -> tuple[GivenChain, ...]:
    model = str(d.get(fields["model"]) or "given") if fields.get("model") else "given"
    response_key = fields.get("response")
    steps_key = fields.get("steps")
    if steps_key and isinstance(d.get(steps_key), str):
        response_key = steps_key  # one string in a `steps` field: a whole response
    elif steps_key:
        steps = parse_steps(d.get(steps_key))
        fe = d.get(fields["first_error"]) if fields.get("first_error") else None
        if fe is not None and (isinstance(fe, bool) or not isinstance(fe, int)):
            raise ValueError(f"field {fields['first_error']!r} should be an integer")
        return (GivenChain(steps, model, human_first_error=fe),)
    if not response_key:
        return ()
    text = _text(d, response_key)
    if fields.get("reasoning"):
        text = compose(_text(d, fields["reasoning"]), text)
    if not text.strip():
        raise ValueError(f"field {response_key!r} is empty")
    return (GivenChain((), model, text=text),)


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
