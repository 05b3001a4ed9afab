"""One home for the answer check and the sandbox: `answer_check.timeout_s` bounds every final
answer comparison (the `answer` source and MC rollouts alike), and `sandbox.*` is what every
part that runs code uses, whichever sources are on. Old spellings keep working for a release
with one warning line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

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


def _job_config(app: str, args: list[str], cwd: Path) -> tuple[dict, list[str]]:
    """The composed job config (`--cfg job`: nothing runs) and the stderr lines."""
    proc = subprocess.run([str(Path(sys.executable).with_name(app)), *args, "--cfg", "job"],
                          capture_output=True, text=True, timeout=120, cwd=cwd)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    return yaml.safe_load(proc.stdout), [x for x in proc.stderr.splitlines() if x.strip()]


@pytest.mark.parametrize(
    ("app", "old", "path", "value"),
    [
        ("prm-label", "labels.tests.workers=3", ("sandbox", "workers"), 3),
        ("prm-label", "labels.tests.timeout_s=4", ("sandbox", "timeout_s"), 4.0),
        ("prm-label", "labels.tests.node_memory_share=0.5", ("sandbox", "node_memory_share"), 0.5),
        ("prm-label", "labels.tests.allow_unsafe=true", ("sandbox", "allow_unsafe"), True),
        ("prm-label", "labels.answer.timeout_s=6", ("answer_check", "timeout_s"), 6.0),
        ("prm-search", "answer_timeout_s=6", ("answer_check", "timeout_s"), 6.0),
        ("prm-train", "output_dir=o/prm", ("output", "dir"), "o/prm"),
        ("prm-eval", "output_dir=o/eval", ("output", "dir"), "o/eval"),
        ("prm-eval", "checkpoint.output_dir=o/eval", ("output", "dir"), "o/eval"),
        ("prm-audit", "audit.out=o/v2", ("output", "dir"), "o/v2"),
        ("prm-report", "out=o/page.html", ("output", "name"), "page.html"),
    ],
)  # fmt: skip
def test_an_old_spelling_works_with_one_warning_line(tmp_path, app, old, path, value):
    needs = {"prm-report": ["dir=d"], "prm-audit": ["audit.dir=d"]}.get(app, [])
    cfg, err = _job_config(app, [*needs, old], tmp_path)
    assert cfg[path[0]][path[1]] == value
    key = old.split("=")[0]
    assert len(err) == 1 and err[0].startswith(f"{app}: warning: {key} is deprecated"), err
    assert ".".join(path) in err[0]
