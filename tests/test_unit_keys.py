"""Unit keys come from the fields' own metadata (`pipelines.config_fields`): a field that
changes only speed never relabels, one that changes rows always does. Checked field by
field on the hash, and through real resumes of the driver (simulated engine, fake search
backends)."""

from __future__ import annotations

import dataclasses
import typing
from enum import Enum
from typing import Any

import pytest

from pipelines.config_fields import ROWS, config_hash, section_type
from pipelines.label.app import run
from pipelines.search.job import SearchJob
from tests.conftest import compose
from tests.search_fakes import FakeGenerator, FakePRM
from tests.test_search_strategies import job_cfg


def _label_config_with_every_source() -> Any:
    from pipelines.label import config as lc
    from pipelines.label import source_configs as sc

    cfg = lc.LabelJobConfig()
    labels = cfg.labels
    labels.answer, labels.calc, labels.tests = (sc.AnswerSourceConfig(), sc.CalcSourceConfig(),
                                                sc.SyntaxSourceConfig())  # fmt: skip
    labels.mc, labels.judge = sc.MCSourceConfig(), sc.JudgeSourceConfig()
    return cfg


def _search_config() -> Any:
    from pipelines.search.config import SearchConfig

    return SearchConfig()


def _leaves(obj: Any, prefix: str = "") -> list[tuple[str, Any, str, Any]]:
    """(key, parent, field name, type) of every leaf of a config object."""
    out = []
    hints = typing.get_type_hints(type(obj))
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value):
            out += _leaves(value, f"{prefix}{f.name}.")
        elif section_type(hints[f.name]) is None:
            out.append((prefix + f.name, obj, f, hints[f.name]))
    return out


def _other(value: Any, tp: Any, bounds: Any) -> Any:
    """A value of type `tp` that differs from `value` and lies in `bounds`."""
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    if value is None:
        tp = args[0]
        if isinstance(tp, type) and issubclass(tp, Enum):
            return next(iter(tp))
        return {int: 1, float: 0.5, str: "x"}.get(tp, ["x"])
    if isinstance(value, bool):
        return not value
    if isinstance(value, Enum):
        return next(m for m in type(value) if m != value)
    if isinstance(value, int | float):
        for v in (value + 1, value / 2, value + 0.05, value - 1):
            v = type(value)(v)
            if v != value and (bounds is None or bounds.admits(v)):
                return v
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return value[:-1] if len(value) > 1 else [*value, value[0] if value else "x"]
    if isinstance(value, dict):
        return {**value, "x": "y"}
    raise AssertionError(f"no other value for {value!r} ({tp})")


@pytest.mark.parametrize("make", [_label_config_with_every_source, _search_config],
                         ids=["prm-label", "prm-search"])
def test_each_field_changes_the_key_exactly_when_it_changes_rows(make):
    base = make()
    key = config_hash(base)
    checked = {True: 0, False: 0}
    for path, _, f, tp in _leaves(base):
        cfg = make()
        parent = cfg
        for part in path.split(".")[:-1]:
            parent = getattr(parent, part)
        setattr(parent, f.name, _other(getattr(parent, f.name), tp, f.metadata.get("range")))
        rows = f.metadata["affects"] == ROWS
        assert (config_hash(cfg) != key) == rows, (path, f.metadata["affects"])
        checked[rows] += 1
    assert checked[True] > 20 and checked[False] > 10, checked


def test_switching_a_source_on_changes_the_key():
    from pipelines.label import config as lc
    from pipelines.label import source_configs as sc

    cfg = lc.LabelJobConfig()
    key = config_hash(cfg)
    cfg.labels.tests = sc.SyntaxSourceConfig()  # a section with no fields of its own
    assert config_hash(cfg) != key


# --- through the driver: prm-label ---------------------------------------------------------

def _label(tmp_path, *overrides):
    cfg = compose(["engine=simulated", "ray=inprocess", "labels=[answer,tests]",
                   "dataset.limit=6", "sampler.n=2", "output.problems_per_unit=3",
                   f"output.dir={tmp_path / 'out'}", *overrides])
    return run(cfg)


SPEED_ONLY = ["sandbox.workers=7", "sandbox.node_memory_share=0.5", "model.kv_cache_gib=5",
              "model.gpu_memory_utilization=0.6", "engine.batch_size=3",
              "output.row_group_size=7", "debug.log_every_s=1"]  # fmt: skip


def test_speed_only_fields_reuse_every_unit_and_row_fields_relabel(tmp_path):
    first = _label(tmp_path)
    assert first["units"] == 2 and first["units_reused"] == 0
    again = _label(tmp_path, *SPEED_ONLY)
    assert again["units_reused"] == again["units"] == 2
    assert again["config_hash"] == first["config_hash"]
    assert [s["sha256"] for s in again["shards"]] == [s["sha256"] for s in first["shards"]]
    other = _label(tmp_path, *SPEED_ONLY, "answer_check.timeout_s=9")
    assert other["units_reused"] == 0 and other["config_hash"] != first["config_hash"]


# --- through the driver: prm-search --------------------------------------------------------

def test_search_rows_of_the_simulated_engine_are_not_resumed_by_a_vllm_run(tmp_path):
    sim = job_cfg(tmp_path / "out")
    sim.engine.kind = sim.engine.kind.simulated
    first = SearchJob(sim, FakeGenerator(), FakePRM()).run()
    assert first["units"] == 2 and first["units_reused"] == 0
    speed = job_cfg(tmp_path / "out")
    speed.engine.kind = speed.engine.kind.simulated
    speed.engine.batch_size, speed.prm.batch_size, speed.prm.device = 3, 5, "cuda"
    again = SearchJob(speed, FakeGenerator(), FakePRM()).run()
    assert again["units_reused"] == 2
    real = job_cfg(tmp_path / "out")  # engine.kind=vllm, the default
    third = SearchJob(real, FakeGenerator(), FakePRM()).run()
    assert third["units_reused"] == 0 and third["config_hash"] != first["config_hash"]
