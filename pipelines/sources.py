"""Build the label sources a config asks for, per domain.

`labels.answer` -> `outcome` (math: final-answer equivalence; code: all tests in the sandbox),
`labels.calc` -> `calc` (math), `labels.tests` -> `tests` (code: syntax of every prefix and the
tests), `labels.mc` -> `mc` (both domains, through the engine pool).
Imports are lazy so that a job that does not use a source does not pay for it.
"""

from __future__ import annotations

import functools
from typing import Any

from verifiers.base import Verifier


def build_sources(cfg: dict[str, Any], domain: str, completer: Any = None) -> dict[str, Verifier]:
    """{source name: verifier} for the sources enabled in `cfg["labels"]` that apply to
    `domain`. Raises ValueError when a source cannot run (mc without an engine)."""
    labels = cfg["labels"]
    out: dict[str, Verifier] = {}
    if labels.get("answer") is not None:
        if domain == "math":
            from verifiers.answer import AnswerVerifier

            out["outcome"] = AnswerVerifier(timeout_s=labels["answer"]["timeout_s"])
        else:
            out["outcome"] = _code_outcome(labels)
    if labels.get("calc") is not None and domain == "math":
        from verifiers.calculator import CalculatorVerifier

        out["calc"] = CalculatorVerifier(timeout_s=labels["calc"]["timeout_s"])
    if labels.get("tests") is not None and domain == "code":
        from verifiers.code_tests import CodeTestVerifier

        t = labels["tests"]
        out["tests"] = CodeTestVerifier(
            timeout_s=t["timeout_s"], workers=t["workers"], allow_unsafe=t["allow_unsafe"]
        )
    if labels.get("mc") is not None:
        if completer is None:
            raise ValueError("labels.mc needs an engine; it cannot run on given chains alone")
        from labeling.prompts import user_message
        from verifiers.rollout import MonteCarloVerifier

        m = labels["mc"]
        out["mc"] = MonteCarloVerifier(
            completer=completer,
            domain=domain,
            estimator=m["estimator"],
            k=m["k"],
            chunk=m["chunk"],
            confirm=m["confirm"],
            threshold=m["threshold"],
            max_tokens=m["max_tokens"],
            temperature=m["temperature"],
            max_rounds=m["max_rounds"],
            after_error=labels.get("after_error", "negative"),
            tests_cfg=labels.get("tests"),
            seed=cfg["sampler"]["seed"],
            # Rollouts see the problem exactly as the sampler showed it.
            prompt_fn=functools.partial(user_message, sampler=cfg["sampler"]),
        )
    return out


def _code_outcome(labels: dict[str, Any]) -> Verifier:
    from verifiers.code_tests import CodeOutcomeVerifier

    t = labels.get("tests") or {"timeout_s": 10.0, "workers": 2, "allow_unsafe": False}
    return CodeOutcomeVerifier(
        timeout_s=t["timeout_s"], workers=t["workers"], allow_unsafe=t["allow_unsafe"]
    )
