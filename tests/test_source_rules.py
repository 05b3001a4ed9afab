"""A source whose rules live in code (the calculator) puts a digest of that code in every
unit's key (`pipelines.label.source_rules`): units it labeled under other rules are not
resumed or copied by a refresh, while a run under the same rules reuses them all."""

from __future__ import annotations

import sys

from pipelines.label import sources
from pipelines.label.app import run
from pipelines.label.source_rules import code_digest
from tests.conftest import compose


def test_the_digest_follows_the_code_and_the_libraries_versions(tmp_path, monkeypatch):
    pkg = tmp_path / "rules_pkg_for_digest"
    (pkg / "inner").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "inner" / "check.py").write_text("LIMIT = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    code_digest.cache_clear()
    first = code_digest("rules_pkg_for_digest")
    code_digest.cache_clear()
    assert code_digest("rules_pkg_for_digest") == first  # nothing changed, same digest
    with_sympy = code_digest("rules_pkg_for_digest", ("sympy",))
    assert with_sympy != first
    (pkg / "inner" / "check.py").write_text("LIMIT = 2\n")  # a module deep in the package
    code_digest.cache_clear()
    assert code_digest("rules_pkg_for_digest") != first
    (pkg / "inner" / "check.py").write_text("LIMIT = 1\n")
    (pkg / "inner" / "check_again.py").write_text("LIMIT = 1\n")  # a module more
    code_digest.cache_clear()
    assert code_digest("rules_pkg_for_digest") != first
    code_digest.cache_clear()
    sys.modules.pop("rules_pkg_for_digest", None)


def _label(tmp_path, out, *overrides):
    return run(compose(["engine=simulated", "ray=inprocess", "labels=[answer,calc]",
                        "dataset.limit=4", "sampler.n=2", "output.problems_per_unit=2",
                        "output.report=false", f"output.dir={tmp_path / out}", *overrides]))


def test_units_labeled_by_other_calculator_rules_are_relabeled(tmp_path, monkeypatch):
    first = _label(tmp_path, "v1")
    assert first["units"] == 2 and first["units_reused"] == 0
    same = _label(tmp_path, "v2", f"output.previous={tmp_path / 'v1'}")
    assert same["units_reused"] == 2 and same["config_hash"] == first["config_hash"]
    # An upgrade that changed the calculator's code: the same config, other rules.
    monkeypatch.setattr(sources, "code_digest", lambda *_: "rules of another release")
    upgraded = _label(tmp_path, "v3", f"output.previous={tmp_path / 'v1'}")
    assert upgraded["units_reused"] == 0 and upgraded["lineage"]["refresh"]["problems_labeled"] == 4
    assert upgraded["config_hash"] != first["config_hash"]
    resumed = _label(tmp_path, "v1")  # resuming the old dir in place relabels it too
    assert resumed["units_reused"] == 0


def test_sources_without_rules_in_code_keep_the_config_hash():
    from pipelines.config_fields import config_hash, typed_config
    from pipelines.label.config import LabelJobConfig, resolve
    from pipelines.label.job import unit_hash

    answer = resolve(typed_config(LabelJobConfig, compose(["labels=[answer]"])))
    assert sources.rules_of(answer) == {} and unit_hash(answer) == config_hash(answer)
    calc = resolve(typed_config(LabelJobConfig, compose(["labels=[answer,calc]"])))
    assert set(sources.rules_of(calc)) == {"calc"} and unit_hash(calc) != config_hash(calc)
