"""What the app tests are about, found from the code instead of lists kept by hand.

- The console scripts: pyproject's `[project.scripts]` (what the wheel installs).
- The Hydra apps among them: a script whose module declares `APP = HydraApp(...)`
  (`pipelines.cli`), which names its primary config `conf/<config_name>.yaml` and its schema.
  The other scripts are plain argparse tools.
- The group options: `conf/<group>/*.yaml` and the options the apps store in Hydra's
  ConfigStore (a label source's `labels/<name>` comes from its registration), and which
  groups an app picks (its primary YAML's `defaults`).

Each function takes the pyproject / conf folder, so a test can point them at a copy that
holds a toy app (tests/test_toy_registrations.py).
"""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

import yaml

from pipelines.cli import HydraApp
from pipelines.confdir import CONF_DIR

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"


def scripts(pyproject: Path = PYPROJECT) -> dict[str, str]:
    """{script name: "module:function"} of `[project.scripts]`."""
    return dict(tomllib.loads(pyproject.read_text())["project"]["scripts"])


def hydra_apps(pyproject: Path = PYPROJECT) -> dict[str, HydraApp]:
    """{script name: its HydraApp} for the scripts whose module declares `APP`."""
    out = {}
    for name, target in scripts(pyproject).items():
        app = getattr(importlib.import_module(target.split(":")[0]), "APP", None)
        if isinstance(app, HydraApp):
            out[name] = app
    return out


def tools(pyproject: Path = PYPROJECT) -> list[str]:
    """The scripts that are not Hydra apps (argparse tools)."""
    return sorted(set(scripts(pyproject)) - set(hydra_apps(pyproject)))


def primary_configs(conf_dir: str | Path = CONF_DIR) -> set[str]:
    """Names of the primary configs: the YAML files directly under conf/."""
    return {p.stem for p in Path(conf_dir).glob("*.yaml")}


def app_groups(app: HydraApp, conf_dir: str | Path = CONF_DIR) -> dict[str, bool]:
    """{group: whether it takes a list of options} for each group the app's primary YAML
    picks in `defaults` (Hydra's own groups left out)."""
    data = yaml.safe_load((Path(conf_dir) / f"{app.config_name}.yaml").read_text()) or {}
    out = {}
    for entry in data.get("defaults", []):
        if isinstance(entry, dict):
            for group, option in entry.items():
                if not group.startswith(("hydra", "override")):
                    out[group] = isinstance(option, list)
    return out


def group_options(group: str, conf_dir: str | Path = CONF_DIR) -> list[str]:
    """The options of `group`: its YAML files and its ConfigStore entries (every app's
    registration run first; the `*_schema` entries are schemas, not options)."""
    from hydra.core.config_store import ConfigStore

    for app in hydra_apps().values():
        app.register()
    store = ConfigStore.instance()
    stored = ({n.removesuffix(".yaml") for n in store.list(group)}
              if isinstance(store.repo.get(group), dict) else set())
    files = {p.stem for p in (Path(conf_dir) / group).glob("*.yaml")}
    return sorted({n for n in stored if not n.endswith("_schema")} | files)


def compose_cases(pyproject: Path = PYPROJECT,
                  conf_dir: str | Path = CONF_DIR) -> list[tuple[str, str]]:  # fmt: skip
    """(app, override) for every app and every option of every group it picks."""
    out = []
    for name, app in sorted(hydra_apps(pyproject).items()):
        for group, is_list in app_groups(app, conf_dir).items():
            for option in group_options(group, conf_dir):
                out.append((name, f"{group}=[{option}]" if is_list else f"{group}={option}"))
    return out
