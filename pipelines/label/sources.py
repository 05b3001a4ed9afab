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
import math
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
            checker = _code_outcome(labels.tests, node_sandbox_slots(cfg))
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
            tests_cfg={**(asdict(labels.tests) if labels.tests is not None else {}),
                       "node_slots": node_sandbox_slots(cfg)},
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


def labelers_per_node(cfg: LabelJobConfig) -> int:
    """Verifier actors one node may hold: 1 in-process; every one on a local Ray (one node);
    on a cluster ceil(actors / live CPU nodes), as SPREAD places them. When more land on a
    node (SPREAD is best effort, or a node died), the node's sandbox slots make the extra
    runs wait rather than exceed the memory share."""
    rc = cfg.ray
    if not rc.enabled:
        return 1
    n = int(rc.label_actors)
    if rc.address:
        import ray

        if ray.is_initialized():
            nodes = sum(1 for x in ray.nodes() if x.get("Alive") and x["Resources"].get("CPU"))
            n = math.ceil(n / max(1, nodes))
    return max(1, n)


def node_sandbox_slots(cfg: LabelJobConfig) -> int:
    """Sandboxes the labelers run at once on one node: tests.workers per verifier actor."""
    workers = cfg.labels.tests.workers if cfg.labels.tests is not None else 2
    return max(1, workers) * labelers_per_node(cfg)


def sandbox_config(tests: TestsSourceConfig | None, node_slots: int = 2) -> Any:
    """The sandbox settings for `labels.tests` with `node_slots` runs at once on a node
    sharing its `node_memory_share`; unsafe mode only when asked for and needed."""
    from verifiers.sandbox.result import SandboxConfig

    t = tests or TestsSourceConfig()
    unsafe = t.allow_unsafe and shutil.which("bwrap") is None
    return SandboxConfig(timeout_s=t.timeout_s, isolation="none" if unsafe else "bwrap",
                         node_memory_share=t.node_memory_share, node_slots=node_slots)


def _code_outcome(tests: TestsSourceConfig | None, node_slots: int) -> Verifier:
    from verifiers.code_tests import CodeTestVerifier

    workers = tests.workers if tests is not None else 2
    return CodeTestVerifier(sandbox_config(tests, node_slots), workers=workers, syntax=False,
                            name="answer")
