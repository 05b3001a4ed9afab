"""The judge's model (`verifiers.judge.JudgeModel`), implemented with an engine pool.

Each `EngineRequest` of the judge (the critic prompt as the user message, no assistant
prefix, `n` samples) goes to the engine as it is; one `critique()` call sends them all at
once, spread over every actor of the pool (`EnginePool.generate`). The pool is the judge's
own when its model differs from the sampler's, else the sampler's (see
`pipelines/label/job.py`).
"""

from __future__ import annotations

from collections.abc import Sequence

from labeling.engine_request import EngineRequest
from labeling.engine_result import Completion
from pipelines.engine.pool import EnginePool


class EngineJudge:
    def __init__(self, pool: EnginePool, model_name: str = "") -> None:
        self.pool = pool
        self.model_name = model_name

    def critique(self, requests: Sequence[EngineRequest]) -> list[list[Completion]]:
        if not requests:
            return []
        # A prompt too long for the context comes back as one empty `PROMPT_TOO_LONG`
        # sample: an `error` verdict naming the reason, never a vote.
        return [list(res.completions) for res in self.pool.generate(list(requests))]
