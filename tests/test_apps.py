"""Every app, found from `[project.scripts]` and conf/ (tests/apps.py), not from a list: each
script is a declared Hydra app or an argparse tool, each primary config belongs to one app,
every app composes with every option of every group it picks, and its `--help` page shows
every key of its own schema with its help text and only its own groups."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from pipelines.cli import HydraApp
from pipelines.cli_help import field_rows, help_page
from tests.apps import (
    app_groups,
    compose_cases,
    group_options,
    hydra_apps,
    primary_configs,
    scripts,
    tools,
)
from tests.conftest import CONF_DIR, compose

APPS = hydra_apps()


def check_script(name: str, target: str, conf_dir: str | Path = CONF_DIR) -> None:
    """A script's entry point exists; a Hydra app's declaration matches its script name and
    has its primary config."""
    module, function = target.split(":")
    mod = importlib.import_module(module)
    assert callable(getattr(mod, function)), target
    app = getattr(mod, "APP", None)
    if isinstance(app, HydraApp):
        assert app.prog == name, (name, app.prog)
        assert app.config_name in primary_configs(conf_dir), f"{name}: no {app.config_name}.yaml"


@pytest.mark.parametrize("name", sorted(scripts()))
def test_every_script_has_its_entry_point(name):
    check_script(name, scripts()[name])


def test_every_primary_config_belongs_to_exactly_one_app():
    names = [a.config_name for a in APPS.values()]
    assert len(names) == len(set(names)), names
    assert set(names) == primary_configs()
    assert APPS and tools(), "both kinds of scripts are found"


def check_composes(app: HydraApp, override: str, conf_dir: str | Path = CONF_DIR) -> None:
    app.register()
    cfg = compose([override], config_name=app.config_name, conf_dir=str(conf_dir))
    # Interpolations resolve, except the `???` a user must fill (model=local, generic paths).
    OmegaConf.to_container(cfg, resolve=True)
    group, option = override.split("=", 1)
    assert option.strip("[]") in group_options(group, conf_dir)


@pytest.mark.parametrize(("app", "override"), compose_cases())
def test_every_app_composes_with_every_option_of_its_groups(app, override):
    check_composes(APPS[app], override)


def test_the_compose_cases_cover_every_group_option():
    """Each group with options (YAML under conf/, or stored by a registration) is composed by
    at least one app (no orphan group)."""
    from hydra.core.config_store import ConfigStore

    covered = {o.split("=")[0] for _, o in compose_cases()}
    dirs = {p.name for p in Path(CONF_DIR).iterdir() if p.is_dir()}
    stored = set(ConfigStore.instance().repo) - {"hydra"}  # Hydra's own groups
    groups = {g for g in dirs | stored if group_options(g)}
    assert "labels" in groups and groups == covered


def check_help(app: HydraApp, conf_dir: str | Path = CONF_DIR) -> None:
    """The app's own --help page: its doc, every key of its schema with its help text (and
    an enum's choices), only the groups its primary YAML picks, no ConfigStore names."""
    app.register()
    page = help_page(app.prog, app.doc, app.current_schema(), str(conf_dir), app.config_name,
                     ["--help"])  # fmt: skip
    assert "_schema" not in page
    assert page.startswith((app.doc or app.prog).strip().splitlines()[0])
    rows = field_rows(app.current_schema(), None)
    assert rows, app.prog
    lines = page.splitlines()
    for key, _, text in rows:
        shown = [line for line in lines if line.strip().startswith(f"{key} ")]
        assert shown, (app.prog, key)
        assert text in shown[0], (app.prog, key, text)
    groups = {line.split()[0] for line in lines if line.startswith("  ") and " now: " in line}
    assert groups == set(app_groups(app, conf_dir)), (app.prog, groups)


@pytest.mark.parametrize("app", sorted(APPS))
def test_every_app_has_its_own_help_page(app):
    check_help(APPS[app])
