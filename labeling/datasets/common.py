"""Small constructors the adapters share."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from labeling.datasets._io import Record, iter_records
from labeling.ids import problem_id
from labeling.schema import GivenChain, Problem, Quarantined


def bad(dataset: str, rec: Record, reason: str) -> Quarantined:
    return Quarantined(dataset, rec.index, reason, rec.raw)


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
