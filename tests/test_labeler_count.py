"""How many verifier actors a label job starts when `ray.label_actors` is null (the default):
two on a local Ray for several units of problems that run no code, else one; a value set in
the config always wins."""

from __future__ import annotations

import json

import pytest

from pipelines.label.app import run
from pipelines.label.labelers import labelers
from pipelines.label.sandbox_sizing import node_sandbox_slots
from tests.conftest import compose


def _cfg(*overrides):
    return compose(["engine=simulated", "labels=[answer]", *overrides])


@pytest.mark.parametrize(("ray", "units", "domains", "expected"), [
    ("local", 3, {"math"}, 2),  # one unit's MC fills the engines while the next one's starts
    ("local", 1, {"math"}, 1),  # nothing to overlap
    ("local", 3, {"math", "code"}, 1),  # a second labeler would halve the sandbox's memory
    ("local", 3, {"code"}, 1),
    ("inprocess", 3, {"math"}, 1),  # no actors at all
    ("cluster", 3, {"math"}, 4),  # the cluster's config sets its own
])  # fmt: skip
def test_null_label_actors_resolve_by_layout_units_and_domains(ray, units, domains, expected):
    assert labelers(_cfg(f"ray={ray}"), units, domains) == expected


def test_a_value_set_in_the_config_wins():
    assert labelers(_cfg("ray=local", "ray.label_actors=1"), 5, {"math"}) == 1
    assert labelers(_cfg("ray=local", "ray.label_actors=3"), 1, {"code"}) == 3


def test_the_sandbox_slots_of_an_unresolved_config_count_one_labeler():
    # A code job resolves to one labeler, and the labelers read the resolved value; an
    # unresolved config (a direct caller) must not fail or count more than one.
    cfg = _cfg("ray=local", "sandbox.workers=2")
    assert cfg.ray.label_actors is None
    assert node_sandbox_slots(cfg) == 2


def test_the_job_writes_the_count_it_resolved_in_the_manifest(tmp_path):
    cfg = compose(["engine=simulated", "ray=inprocess", "labels=[answer]", "dataset.limit=6",
                   "output.problems_per_unit=3", f"output.dir={tmp_path}"])
    assert cfg.ray.label_actors is None
    run(cfg)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["config"]["ray"]["label_actors"] == 1


@pytest.mark.parametrize(("overrides", "cores", "expected"), [
    (("ray=inprocess", "labels=[calc]"), 2, 2),  # one labeler, two cores: a second worker
    (("ray=inprocess", "labels=[calc]"), 1, 1),
    (("ray=inprocess", "labels=[calc]"), 16, 2),  # past two they wait on each other
    (("ray=local", "ray.label_actors=2", "labels=[calc]"), 2, 1),  # a core per labeler
    (("ray=local", "ray.label_actors=2", "labels=[calc]"), 8, 2),
    (("ray=inprocess", "labels=[calc,mc]"), 16, 1),  # the engines own the cores
    (("ray=inprocess", "labels=[calc]", "labels.calc.workers=3"), 1, 3),  # a value set wins
])  # fmt: skip
def test_null_calc_workers_resolve_by_cores_labelers_and_engines(overrides, cores, expected,
                                                                monkeypatch):
    from omegaconf import OmegaConf

    import pipelines.label.sources as sources

    monkeypatch.setattr(sources, "visible_cores", lambda: cores)
    cfg = OmegaConf.to_object(_cfg(*overrides))  # the builders' JobConfig
    section = cfg.labels.calc
    assert (section.workers or sources.calc_workers(cfg)) == expected
