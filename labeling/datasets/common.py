"""Small constructors the adapters share."""

from __future__ import annotations

from labeling.datasets._io import Record
from labeling.ids import problem_id
from labeling.schema import GivenChain, Problem, Quarantined


def bad(dataset: str, rec: Record, reason: str) -> Quarantined:
    return Quarantined(dataset, rec.index, reason, rec.raw)


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
