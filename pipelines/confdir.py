"""Where every app's YAML lives: one definition, used by all Hydra apps, tests and benchmarks.

The source of truth is the top-level `conf/` folder of the repository. A wheel carries the
same folder as the package `prm_conf` (setup.py maps `prm_conf` -> `conf/`), so an installed
`prm-label` finds its config through the package, from any working directory, without the
source tree. A user's own groups and options are added on top with Hydra's `--config-dir DIR`
or `hydra.searchpath=[file:///DIR]`; this module only names the primary directory.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

PACKAGE = "prm_conf"  # the name `conf/` has inside an installed wheel


def _source_tree() -> Path | None:
    """`conf/` beside the `pipelines/` being run: a checkout (editable install, PYTHONPATH).
    `__init__.py` marks it as ours, so an unrelated `conf/` folder of site-packages is not."""
    here = Path(__file__).resolve().parents[1] / "conf"
    ours = (here / "__init__.py").is_file() and (here / "prm-label.yaml").is_file()
    return here if ours else None


def _installed() -> Path | None:
    """The `prm_conf` package of an installed wheel (found by import, not by a path)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        if (Path(location) / "prm-label.yaml").is_file():
            return Path(location)
    return None


def find_conf_dir() -> str:
    """The absolute primary config directory. The checkout's `conf/` wins when the code runs
    from a checkout (so a worktree uses its own YAML, not another install's); otherwise the
    installed `prm_conf` package. Raises RuntimeError (a broken install) when neither exists."""
    found = _source_tree() or _installed()
    if found is None:
        raise RuntimeError(
            f"no config found: neither {Path(__file__).resolve().parents[1] / 'conf'} nor an "
            f"importable {PACKAGE} package holds prm-label.yaml; reinstall prm-labeler"
        )
    return str(found)


# Hydra's `@hydra.main(config_path=...)` needs the path when the app module is imported.
CONF_DIR = find_conf_dir()
