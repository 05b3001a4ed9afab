"""Build the label sources a config asks for, per domain. One name per source, from config
key to verifier to column (see `labeling.schema.Source` and the README's source table):

| `labels=` | verifier (module)                                   | column          |
|-----------|-----------------------------------------------------|-----------------|
| answer    | math: `AnswerVerifier` (verifiers/answer.py)        | answer_labels   |
|           | code: `CodeTestVerifier` (verifiers/code_tests.py)  |                 |
|           | outcome given with the data: `GivenOutcome` (base)  |                 |
| calc      | `CalculatorVerifier` (verifiers/calculator/)        | calc_labels     |
| tests     | `SyntaxVerifier` (verifiers/code_tests.py)          | tests_labels    |
| mc        | `MonteCarloVerifier` (verifiers/rollout/)           | mc_scores       |
| judge     | `JudgeVerifier` (verifiers/judge.py), math only     | judge_labels    |

Imports are lazy so that a job that does not use a source does not pay for it.
"""

from __future__ import annotations

import functools
import shutil
from dataclasses import asdict
from typing import Any

from labeling.schema import Source
from pipelines.label.config import LabelJobConfig, TestsSourceConfig
from verifiers.base import GivenOutcome, Verifier


def build_sources(
    cfg: LabelJobConfig, domain: str, completer: Any = None, critic: Any = None
) -> dict[str, Verifier]:
    """{source name: verifier} for the sources enabled in `cfg.labels` that apply to `domain`.
    Raises ValueError when a source cannot run (mc or judge without an engine)."""
    labels = cfg.labels
    out: dict[str, Verifier] = {}
    if labels.answer is not None:
        if domain == "math":
            from verifiers.answer import AnswerVerifier

            checker: Verifier = AnswerVerifier(timeout_s=labels.answer.timeout_s)
        else:
            checker = _code_outcome(labels.tests)
        out[Source.answer] = GivenOutcome(checker)
    if labels.calc is not None and domain == "math":
        from verifiers.calculator.verifier import CalculatorVerifier

        out[Source.calc] = CalculatorVerifier(timeout_s=labels.calc.timeout_s)
    if labels.tests is not None and domain == "code":
        from verifiers.code_tests import SyntaxVerifier

        # Per-step label for code: the first prefix no continuation can make parse. (The
        # tests themselves run once, as the `answer` source.)
        out[Source.tests] = SyntaxVerifier()
    if labels.mc is not None:
        if completer is None:
            raise ValueError("labels.mc needs an engine; it cannot run on given chains alone")
        from labeling.prompts import user_message
        from verifiers.rollout.driver import MonteCarloVerifier

        m = labels.mc
        out[Source.mc] = MonteCarloVerifier(
            completer=completer,
            domain=domain,
            estimator=m.estimator,
            k=m.k,
            chunk=m.chunk,
            confirm=m.confirm,
            threshold=m.threshold,
            max_tokens=m.max_tokens,
            temperature=m.temperature,
            max_rounds=m.max_rounds,
            after_error=labels.after_error,
            estimator_options=(
                {"probe_right": m.probe_right} if m.estimator == "binary_search" else None
            ),
            tests_cfg=asdict(labels.tests) if labels.tests is not None else None,
            seed=cfg.sampler.seed,
            # Rollouts see the problem exactly as the sampler showed it.
            prompt_fn=functools.partial(
                user_message, math_instruction=cfg.sampler.math_instruction
            ),
        )
    if labels.judge is not None and domain == "math":
        if critic is None:
            raise ValueError("labels.judge needs an engine for its critic model")
        from verifiers.judge import JudgeVerifier

        j = labels.judge
        out[Source.judge] = JudgeVerifier(
            critic, votes=j.votes, max_tokens=j.max_tokens, temperature=j.temperature,
            seed=cfg.sampler.seed, max_evidence=j.max_evidence, vote=j.vote,
        )
    return out


def sandbox_config(tests: TestsSourceConfig | None) -> Any:
    """The sandbox settings for `labels.tests`; unsafe mode only when asked for and needed."""
    from verifiers.sandbox.result import SandboxConfig

    t = tests or TestsSourceConfig()
    unsafe = t.allow_unsafe and shutil.which("bwrap") is None
    return SandboxConfig(timeout_s=t.timeout_s, isolation="none" if unsafe else "bwrap")


def _code_outcome(tests: TestsSourceConfig | None) -> Verifier:
    from verifiers.code_tests import CodeTestVerifier

    workers = tests.workers if tests is not None else 2
    return CodeTestVerifier(sandbox_config(tests), workers=workers, syntax=False, name="answer")
