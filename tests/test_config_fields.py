"""Every config field knows what it means: help text, whether it changes rows or only speed,
and the range a number must lie in. The apps are found from `[project.scripts]` and each
app's schema from what its own `main()` passes to `--help`, not from a list kept here."""

from __future__ import annotations

import dataclasses
import importlib
import sys
import tomllib

import pytest

from pipelines.cli import ConfigError
from pipelines.config_fields import (
    ROWS,
    SPEED,
    Affects,
    Range,
    check_fields,
    leaf_fields,
    option,
    row_factors,
)
from tests.conftest import ROOT, app_error_line


def _scripts() -> dict[str, str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return data["project"]["scripts"]


def app_schema(app: str, monkeypatch: pytest.MonkeyPatch) -> type | None:
    """The structured config the app's `main()` composes (what its `--help` page lists), or
    None for a script that is not a Hydra app (argparse: prm-export, prm-prepare-model)."""
    import pipelines.cli_help as cli_help

    module, func = _scripts()[app].split(":")
    seen: list[type] = []

    def capture(prog, doc, schema, *args, **kwargs):
        seen.append(schema)
        return ""

    monkeypatch.setattr(cli_help, "help_page", capture)
    monkeypatch.setattr(sys, "argv", [app, "--help"])
    with pytest.raises(SystemExit):
        getattr(importlib.import_module(module), func)()
    return seen[0] if seen else None


@pytest.fixture(scope="module")
def schemas() -> dict[str, type]:
    found = {}
    with pytest.MonkeyPatch.context() as mp:
        for app in _scripts():
            schema = app_schema(app, mp)
            if schema is not None:
                found[app] = schema
    return found


def test_the_hydra_apps_are_found(schemas):
    # Every app under pipelines/ with a conf/ YAML of its own is a Hydra app with a schema.
    assert {"prm-label", "prm-search", "prm-train", "prm-eval", "prm-report",
            "prm-audit"} <= set(schemas)  # fmt: skip


def undeclared(schema: type) -> list[str]:
    """Leaves of `schema` without help text or without ROWS/SPEED."""
    bad = []
    for key, f in leaf_fields(schema):
        if not f.metadata.get("help"):
            bad.append(f"{key}: no help text")
        if f.metadata.get("affects") not in set(Affects):
            bad.append(f"{key}: neither ROWS nor SPEED")
    return bad


def test_every_field_of_every_app_says_what_it_affects(schemas):
    for app, schema in schemas.items():
        assert leaf_fields(schema), app
        assert not undeclared(schema), (app, undeclared(schema))


@dataclasses.dataclass
class Inner:
    ok: int = option(1, "Fine.", SPEED)
    bare: int = 3


@dataclasses.dataclass
class Outer:
    inner: Inner | None = option(None, "An optional section.")
    quiet: str = option("x", "No effect declared.")


def test_a_field_without_metadata_is_caught():
    assert undeclared(Outer) == ["inner.bare: no help text", "inner.bare: neither ROWS nor SPEED",
                                 "quiet: neither ROWS nor SPEED"]  # fmt: skip
    with pytest.raises(TypeError, match="field quiet of Outer declares neither"):
        row_factors(Outer())
    with pytest.raises(TypeError, match="inner.bare"):
        row_factors(Outer(inner=Inner()))


def test_every_default_lies_in_its_range(schemas):
    for app, schema in schemas.items():
        for key, f in leaf_fields(schema):
            bounds = f.metadata.get("range")
            if bounds is None or f.default in (None, dataclasses.MISSING):
                continue
            assert bounds.admits(f.default), (app, key, f.default, str(bounds))


@pytest.mark.parametrize(
    ("bounds", "text"),
    [(Range(gt=0), "> 0"), (Range(ge=0), ">= 0"), (Range(gt=0, le=1), "in (0, 1]"),
     (Range(ge=0, lt=0.5), "in [0, 0.5)"), (Range(le=2), "<= 2"), (Range(lt=2), "< 2")],
)  # fmt: skip
def test_a_range_reads_as_the_valid_values(bounds, text):
    assert str(bounds) == text


def test_check_fields_names_the_key_and_the_range():
    from pipelines.label.config import LabelJobConfig

    cfg = LabelJobConfig()
    check_fields(cfg)  # the defaults pass
    cfg.sandbox.node_memory_share = 1.5
    with pytest.raises(ConfigError, match=r"^sandbox.node_memory_share=1.5 must be in \(0, 1\]$"):
        check_fields(cfg)


@pytest.mark.app
@pytest.mark.parametrize(
    ("app", "args", "says"),
    [
        ("prm-search", ["prm.backend=none", "search.strategies=[majority]", "search.budgets=[0,4]"],
         "search.budgets=[0, 4]: every value must be > 0"),
        ("prm-search", ["prm.backend=none", "search.strategies=[majority]", "sampler.top_p=0"],
         "sampler.top_p=0.0 must be in (0, 1]"),
        ("prm-train", ["train.grad_accum=0"], "train.grad_accum=0 must be >= 1"),
        ("prm-label", ["sandbox.workers=0"], "sandbox.workers=0 must be > 0"),
        ("prm-report", ["dir=.", "mc_bins=0"], "mc_bins=0 must be > 0"),
        ("prm-audit", ["audit.dir=.", "audit.target_halfwidth=0.7"],
         "audit.target_halfwidth=0.7 must be in (0, 0.5)"),
    ],
)  # fmt: skip
def test_a_value_out_of_range_stops_the_app_with_one_sentence(tmp_path, app, args, says):
    out = {"prm-search": ["engine=simulated", "ray=inprocess", f"output.dir={tmp_path}/o"],
           "prm-label": ["engine=simulated", "ray=inprocess", f"output.dir={tmp_path}/o"],
           "prm-train": [f"output.dir={tmp_path}/o"]}.get(app, [])  # fmt: skip
    line = app_error_line(app, [*args, *out], tmp_path)
    assert line == f"{app}: error: {says}"
    assert not (tmp_path / "o").exists()


def test_affects_is_a_declared_choice():
    assert {ROWS, SPEED} == set(Affects)
    with pytest.raises(ValueError):
        option(1, "x", "fast")  # type: ignore[arg-type]
