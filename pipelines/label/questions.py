"""MC's bare-question rollouts, sent by the job with a unit's sampling requests.

They depend on the problem alone (`verifiers.mc.question`), so the job need not wait for the
chains: sent with the sampling, the engines generate both in one batch instead of starting
them once the chains are sampled, in a second batch whose tail runs nearly empty (`make run`:
the sampling's tail and the question rollouts' tail ran at a quarter to a half of the engines'
rate). The labeler gets their completions (`UnitLabeler.label(..., questions)`), which are
the ones MC's verifier would have asked for itself: same request, same seed.
"""

from __future__ import annotations

import logging
from typing import Any

from labeling.engine_request import EngineRequest
from labeling.schema import Problem
from pipelines.engine.completer import completions
from pipelines.label.job_config import JobConfig
from pipelines.label.sources import rollout_settings
from pipelines.unit_job import failure

log = logging.getLogger("prm-label")


def mc_question_requests(cfg: JobConfig, problems: list[Problem]) -> list[EngineRequest]:
    """The requests of `labels.mc`'s bare-question rollouts on `problems` (none without MC),
    the very ones its verifier would send (`verifiers.mc.question`): the job sends them with
    the unit's sampling and hands their completions to the labeler. A problem with neither a
    reference nor tests gets none: its rollouts could not be judged, and MC sees its chains
    only when the user states their outcome (then it asks itself)."""
    m = cfg.labels.mc
    if m is None or not m.self_rollouts:
        return []
    # Monte Carlo's modules load only for a job with labels.mc on.
    from verifiers.mc.question import distinct, question_request

    settings = rollout_settings(cfg, m)
    return [question_request(p, n=m.self_rollouts, **settings)
            for p in distinct(problems).values() if p.reference or p.tests]


class AskedQuestions:
    """The question rollouts of one unit, in flight on the completer's pool."""

    def __init__(self, requests: list[EngineRequest], pool: Any) -> None:
        self.requests, self.pool = requests, pool
        self.ticket = pool.submit(requests, tag="rollout")

    def collect(self) -> dict[str, list[Any]] | None:
        """The completions per problem id; None when the call failed (the labeler then asks
        again, and an engine fault that lasts surfaces there, per problem)."""
        try:
            results = self.pool.collect(self.ticket)
        except Exception as exc:
            log.warning("MC's question rollouts sent with the sampling failed (%s); the "
                        "labeler asks for them again", failure(exc))
            return None
        return {r.key: completions(r, res)
                for r, res in zip(self.requests, results, strict=True)}
