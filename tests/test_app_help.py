"""`<app> --help` of every script (found from [project.scripts]: tests/apps.py) answers with
its own page; the page's contents per app are checked in tests/test_apps.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.confdir import CONF_DIR
from tests.apps import hydra_apps, scripts

APPS = hydra_apps()


def test_help_shows_values_after_overrides():
    from pipelines.cli_help import help_page

    app = APPS["prm-label"]
    app.register()
    page = help_page(app.prog, "doc", app.current_schema(), CONF_DIR, app.config_name,
                     ["dataset=gsm8k", "sampler.n=7", "--help"])
    assert "now: gsm8k" in page
    assert any(line.split("=")[0].strip() == "sampler.n" and " 7 " in line
               for line in page.splitlines())


@pytest.mark.app
@pytest.mark.parametrize("app", sorted(scripts()))
def test_help_flag_of_the_installed_script(tmp_path, app):
    """Every script of [project.scripts] answers --help with its own page and writes
    nothing (the installed script of this environment: an editable install)."""
    proc = subprocess.run([str(Path(sys.executable).with_name(app)), "--help"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    if app in APPS:
        assert app in proc.stdout.splitlines()[0], proc.stdout[:200]
    else:
        assert f"usage: {app}" in proc.stdout, proc.stdout[:200]
    assert "_schema" not in proc.stdout and "powered by Hydra" not in proc.stdout
    assert not any(tmp_path.iterdir())
