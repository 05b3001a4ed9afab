"""Package layout only; everything else is in pyproject.toml.

The top-level `conf/` folder (the apps' YAML) ships inside the wheel as the package
`prm_conf` (its group folders as `prm_conf.<group>`), so an installed app finds its config
through the package from any directory. pyproject's `packages.find` cannot rename a folder,
hence this file.
"""

from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).resolve().parent
GROUPS = sorted(
    f"prm_conf.{d.name}" for d in (HERE / "conf").iterdir() if d.is_dir() and any(d.glob("*.yaml"))
)

setup(
    packages=[*find_packages(include=["labeling*", "verifiers*", "pipelines*"]), "prm_conf",
              *GROUPS],
    package_dir={"prm_conf": "conf"},
    # every config group's YAML; the review page's jinja2 template
    package_data={"": ["*.yaml"], "pipelines.audit": ["templates/*.j2"],
                  "verifiers.sandbox": ["script/*.py"]},
)
