"""Build the label sources a config asks for, per domain.

`labels.answer` -> `outcome` (math: final-answer equivalence; code: all tests in the sandbox),
`labels.calc` -> `calc` (math), `labels.tests` -> `syntax` (code: the first step whose prefix
can never parse), `labels.mc` -> `mc` (both domains, through the engine pool; code rollouts are
judged by the sandbox).
Imports are lazy so that a job that does not use a source does not pay for it.
"""

from __future__ import annotations

import functools
import shutil
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

            out["answer"] = AnswerVerifier(timeout_s=labels["answer"]["timeout_s"])
        else:
            out["answer"] = _code_outcome(labels)
    if labels.get("calc") is not None and domain == "math":
        from verifiers.calculator.verifier import CalculatorVerifier

        out["calc"] = CalculatorVerifier(timeout_s=labels["calc"]["timeout_s"])
    if labels.get("tests") is not None and domain == "code":
        from verifiers.code_tests import SyntaxVerifier

        # Per-step label for code: the first prefix no continuation can make parse. (The
        # tests themselves run once, as the `outcome` source.)
        out["tests"] = SyntaxVerifier()
    if labels.get("mc") is not None:
        if completer is None:
            raise ValueError("labels.mc needs an engine; it cannot run on given chains alone")
        from labeling.prompts import user_message
        from verifiers.rollout.driver import MonteCarloVerifier

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


def sandbox_config(tests: dict[str, Any] | None) -> Any:
    """The sandbox settings for `labels.tests`; unsafe mode only when asked for and needed."""
    from verifiers.sandbox.runner import SandboxConfig

    t = tests or {"timeout_s": 10.0, "allow_unsafe": False}
    unsafe = bool(t.get("allow_unsafe")) and shutil.which("bwrap") is None
    return SandboxConfig(timeout_s=t["timeout_s"], isolation="none" if unsafe else "bwrap")


def _code_outcome(labels: dict[str, Any]) -> Verifier:
    from verifiers.code_tests import CodeTestVerifier

    workers = (labels.get("tests") or {}).get("workers", 2)
    return CodeTestVerifier(
        sandbox_config(labels.get("tests")), workers=workers, syntax=False, name="answer"
    )
