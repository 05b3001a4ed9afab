"""Small constructors the adapters share, and the record loop every file-based adapter runs.

`convert` is where an input record's texts are checked (the Unicode policy is in
`labeling.text.unicode`): a Problem holding a text that cannot be written as UTF-8 (a lone surrogate
from a JSON `\\udXXX` escape) becomes a quarantine row naming the field, whichever field it
is and whichever adapter read it, so that no such text reaches the shard writer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from labeling.datasets._io import Record, iter_records
from labeling.ids import problem_id
from labeling.schema import GivenChain, Problem, Quarantined
from labeling.text.unicode import escape, unwritable_field


def bad(dataset: str, rec: Record, reason: str) -> Quarantined:
    return Quarantined(dataset, rec.index, escape(reason), escape(rec.raw))


def problem_texts(problem: Problem) -> dict[str, object]:
    """Every text of a Problem that the job writes or sends to a model, by field name."""
    return {
        "question": problem.question,
        "reference": problem.reference,
        "tests": problem.tests,
        "test_setup": problem.test_setup,
        "entry_point": problem.entry_point,
        "source_dataset": problem.source_dataset,
        "steps": [g.steps for g in problem.given_chains],
        "response": [g.text for g in problem.given_chains],
        "model": [g.model for g in problem.given_chains],
    }


def convert(
    path: str, dataset: str, to_problem: Callable[[dict[str, Any], int], Problem]
) -> Iterator[Problem | Quarantined]:
    """The one record loop of the file-based adapters: every record of `path`, in order,
    becomes `to_problem(fields, index)`, or a quarantine row with the reason when it cannot
    be read or `to_problem` rejects it with ValueError. Nothing is dropped."""
    for rec in iter_records(path):
        if rec.data is None:
            yield bad(dataset, rec, rec.error)
            continue
        try:
            problem = to_problem(rec.data, rec.index)
        except ValueError as exc:
            yield bad(dataset, rec, str(exc))
            continue
        problem_text = unwritable_field(problem_texts(problem))
        if problem_text:
            yield bad(dataset, rec, problem_text)
            continue
        yield problem


def make_problem(
    domain: str,
    dataset: str,
    question: str,
    reference: str = "",
    *,
    tests: tuple[str, ...] = (),
    test_setup: str = "",
    entry_point: str = "",
    given: tuple[GivenChain, ...] = (),
    id_salt: str = "",
) -> Problem:
    """A Problem whose id is the hash of its content (same text, same id, any dataset)."""
    pid = problem_id(domain, question, reference + id_salt + "\n".join(tests))
    return Problem(
        problem_id=pid,
        domain=domain,
        source_dataset=dataset,
        question=question,
        reference=reference,
        tests=tests,
        test_setup=test_setup,
        entry_point=entry_point,
        given_chains=given,
    )
