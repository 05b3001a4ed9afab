"""Every third-party package the code imports is declared in pyproject.toml.

An import that works only because another dependency happens to pull its package in
(`filelock` through Ray, `jinja2` through torch) breaks the day that dependency drops it.
The scan reads the imports of every module (with `ast`, so nothing is imported), maps each
top-level name to the installed distributions that provide it
(`importlib.metadata.packages_distributions`) and asks that one of them is declared: in
`dependencies` for the code, or in an extra (`dev` for tests and benchmarks).
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT

CODE = ("labeling", "verifiers", "pipelines")  # what the wheel ships: no `dev` package counts
SCANNED = (*CODE, "benchmarks", "tests")
OWN = {"labeling", "verifiers", "pipelines", "benchmarks", "tests", "prm_conf"}


def normalized(name: str) -> str:
    """A distribution name as PEP 503 compares them (`PyYAML` = `pyyaml`, `a_b` = `a-b`)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared(skip: tuple[str, ...] = ()) -> set[str]:
    """Distribution names in `dependencies` and every extra but `skip`, without versions."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for name, extra in project.get("optional-dependencies", {}).items():
        if name not in skip:
            reqs += extra
    names = set()
    for req in reqs:
        found = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
        assert found, f"cannot read the requirement {req!r}"
        names.add(normalized(found.group(1)))
    return names


def imported(path: Path) -> set[str]:
    """Top-level names of the absolute imports in one module; a name that is a module beside
    it (a benchmark importing its sibling script) is local, not a package."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return {n for n in names if not (path.parent / f"{n}.py").exists()}


def third_party_imports(folders: tuple[str, ...] = SCANNED) -> dict[str, list[str]]:
    """{top-level module: files importing it} over `folders`, stdlib and own packages left
    out."""
    out: dict[str, list[str]] = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for name in imported(path):
                if name not in sys.stdlib_module_names and name not in OWN:
                    out.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return out


def test_the_scan_sees_the_imports_it_must_judge():
    """The scan is not vacuous: it finds packages the code is known to import directly."""
    found = third_party_imports()
    assert {"ray", "polars", "yaml", "filelock", "pytest"} <= set(found)
    assert "calc_corpora" not in found  # a sibling script of benchmarks/, not a package


@pytest.mark.parametrize(("folders", "skip"), [(SCANNED, ()), (CODE, ("dev",))],
                         ids=["with extras", "code without dev"])
def test_every_imported_package_is_declared(folders, skip):
    providers = importlib.metadata.packages_distributions()
    wanted = declared(skip)
    missing = []
    for module, files in sorted(third_party_imports(folders).items()):
        dists = providers.get(module)
        if not dists:
            missing.append(f"{module} (no installed distribution provides it; {files[0]})")
        elif not {normalized(d) for d in dists} & wanted:
            missing.append(f"{module} (from {' or '.join(dists)}; imported by {files[0]})")
    assert not missing, "imported but not declared in pyproject.toml: " + "; ".join(missing)


@pytest.mark.parametrize(("name", "same"), [("PyYAML", "pyyaml"), ("huggingface_hub",
                                                                    "huggingface-hub")])
def test_names_compare_as_pep_503_says(name, same):
    assert normalized(name) == normalized(same) == same
