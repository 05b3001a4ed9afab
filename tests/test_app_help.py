"""`<app> --help` shows that app's own groups and keys with their help text (not prm-label's
groups, not the ConfigStore's `*_schema` names)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.confdir import CONF_DIR

APPS = {
    # app: (config name, schema import, keys and help words it must show, groups it has not)
    "prm-label": ("config", "pipelines.label.config:LabelJobConfig",
                  ["labels.policy", "sampler.n", "Chains sampled per problem"], []),
    "prm-train": ("train", "pipelines.train.config:TrainAppConfig",
                  ["optim.warmup_steps", "Linear warm-up", "data.label_source", "human_labels"],
                  ["dataset", "labels"]),
    "prm-eval": ("eval", "pipelines.eval.config:EvalConfig",
                 ["mode", "checkpoint.checkpoint", "output.dir", "metrics.json"],
                 ["dataset", "sampler"]),
    "prm-search": ("search", "pipelines.search.config:SearchConfig",
                   ["search.strategies", "prm.checkpoint", "one of majority, best_of_n"],
                   ["labels"]),
    "prm-audit": ("audit", "pipelines.audit.config:AuditJobConfig",
                  ["audit.pack", "review pack"], []),
    "prm-report": ("report", "pipelines.report.config:ReportConfig",
                   ["top_reasons", "quarantine reasons"], []),
}


def _schema(spec: str):
    import importlib

    module, name = spec.split(":")
    mod = importlib.import_module(module)
    mod.register() if hasattr(mod, "register") else None
    return getattr(mod, name)


@pytest.mark.parametrize("app", sorted(APPS))
def test_help_page_shows_the_apps_own_keys(app):
    from pipelines.cli_help import help_page

    config_name, spec, present, absent = APPS[app]
    page = help_page(app, f"{app}: doc", _schema(spec), CONF_DIR, config_name, ["--help"])
    assert "_schema" not in page
    for word in present:
        assert word in page, (app, word)
    groups = {line.split()[0] for line in page.splitlines() if " now: " in line}
    assert not groups & set(absent), (app, groups)


def test_help_shows_values_after_overrides():
    from pipelines.cli_help import help_page

    page = help_page("prm-label", "doc", _schema(APPS["prm-label"][1]), CONF_DIR, "config",
                     ["dataset=gsm8k", "sampler.n=7", "--help"])
    assert "now: gsm8k" in page
    assert any(line.split("=")[0].strip() == "sampler.n" and " 7 " in line
               for line in page.splitlines())


@pytest.mark.parametrize("app", ["prm-train", "prm-eval", "prm-search"])
def test_help_flag_of_the_installed_script(tmp_path, app):
    proc = subprocess.run([str(Path(sys.executable).with_name(app)), "--help"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith(app.removeprefix("`")) or f"{app}" in proc.stdout[:80]
    assert "_schema" not in proc.stdout and "powered by Hydra" not in proc.stdout
    assert not any(tmp_path.iterdir())
