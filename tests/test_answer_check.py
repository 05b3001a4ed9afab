"""One home for the answer check and the sandbox: `answer_check.timeout_s` bounds every final
answer comparison (the `answer` source and MC rollouts alike), and `sandbox.*` is what every
part that runs code uses, whichever sources are on."""

from __future__ import annotations

import pytest

from pipelines.label.app import typed
from pipelines.label.sources import build_sources
from tests.conftest import compose


class NoCompleter:
    """Stands in for the engine: building the mc source starts nothing."""


def _sources(domain, *overrides):
    cfg = typed(compose(["labels=[answer,mc]", *overrides]))
    built = build_sources(cfg, domain, completer=NoCompleter())
    return cfg, built


def test_mc_rollouts_judge_answers_with_the_configured_timeout():
    _, built = _sources("math", "answer_check.timeout_s=7")  # checkers start no process yet
    assert built["answer"].checker.checker.timeout_s == 7
    assert built["mc"].check.checker.timeout_s == 7  # was a hard-coded 5 s


@pytest.mark.sandbox
def test_code_answers_and_code_rollouts_share_the_sandbox_settings_without_the_tests_source():
    from verifiers.sandbox.result import SandboxUnavailableError

    try:
        cfg, built = _sources("code", "sandbox.timeout_s=3", "sandbox.workers=5",
                              "sandbox.node_memory_share=0.5", "sandbox.allow_unsafe=true")
    except SandboxUnavailableError:
        pytest.skip("no sandbox on this machine")
    assert "tests" not in cfg.labels.enabled()
    answer = built["answer"].checker
    assert (answer.sandbox.config.timeout_s, answer.workers) == (3, 5)
    assert answer.sandbox.config.node_memory_share == 0.5
    mc = built["mc"]
    options = mc.check._options
    assert (options["timeout_s"], options["node_memory_share"]) == (3, 0.5)
    assert options["isolation"] == answer.sandbox.config.isolation  # allow_unsafe reaches both
    assert mc.check_workers == 5
