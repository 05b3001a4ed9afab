"""The label-source registry: no source half-exists, and a source registered in one place
(here, a toy one inside the test) runs through a whole label job like a built-in one."""

from __future__ import annotations

import dataclasses
import typing

import polars as pl
import pytest

from labeling import registry
from labeling.combine import combine
from labeling.registry import Role, SourceSpec
from labeling.schema import LABELED_SCHEMA, Status, StepVerdict, labeled_schema
from pipelines.config_fields import ROWS, option, section_type
from pipelines.label import sources
from pipelines.label.app import run, typed
from pipelines.label.config import labels_config
from pipelines.train.config import LABEL_SOURCES
from tests.conftest import compose


def _section_fields(labels: type) -> set[str]:
    """`labels`' fields that are a source's section (an optional dataclass)."""
    out = set()
    for f in dataclasses.fields(labels):
        default = f.default if f.default is not dataclasses.MISSING else ...
        if default is None and section_type(typing.get_type_hints(labels)[f.name]):
            out.add(f.name)
    return out


def check_source(name: str) -> None:
    """A registered source is whole: a builder and its section (one registration), the
    section in the labels schema, `labels=[<name>]` composing it from the command line, and
    its columns in the shard schema."""
    spec = registry.get(name)
    how = sources.how_to_run(name)  # KeyError naming the known ones if it has no builder
    assert name in _section_fields(labels_config()), f"no labels.{name} section"
    cfg = typed(compose([f"labels=[{name}]", "engine=simulated"]))
    assert cfg.labels.enabled() == [name] and isinstance(getattr(cfg.labels, name), how.section)
    assert {f.name for f in spec.fields()} <= set(labeled_schema().names)


@pytest.mark.parametrize("name", registry.configurable())
def test_every_configurable_source_has_a_section_and_a_builder(name):
    check_source(name)


def test_every_section_is_a_registered_source():
    assert set(registry.configurable()) == _section_fields(labels_config())


def test_schema_and_trainer_choices_come_from_the_registry():
    for spec in registry.specs():
        for field in spec.fields():
            assert LABELED_SCHEMA.field(field.name).type == field.type
        assert spec.labels_column in LABEL_SOURCES
        if spec.scores_column:
            assert spec.scores_column in LABEL_SOURCES


def test_a_source_cannot_take_a_name_or_column_already_taken():
    with pytest.raises(ValueError, match="already registered"):
        registry.register(SourceSpec("calc", Role.locating, "again"))
    with pytest.raises(ValueError, match="mc_rollouts"):
        registry.register(SourceSpec("x", Role.locating, "clash",
                                     extra=(LABELED_SCHEMA.field("mc_rollouts"),)))
    with pytest.raises(KeyError, match="no label source 'nobody'"):
        sources.runs("nobody", ToySourceConfig)(lambda cfg, section, ctx: ToyVerifier("7"))
    with pytest.raises(ValueError, match="must be a dataclass"):
        sources.register(SourceSpec("toy", Role.locating, "x"), dict, build_toy)
    assert "toy" not in registry.names()  # a refused registration leaves no half behind


# --- a toy source, registered here and nowhere else -------------------------------------

MARK = "7"  # the toy calls a step wrong when it contains this digit


@dataclasses.dataclass
class ToySourceConfig:
    mark: str = option(MARK, "The digit that makes a step wrong.", ROWS)


class ToyVerifier:
    name = "toy"

    def __init__(self, mark: str) -> None:
        self.mark = mark

    def verify(self, items):
        return [
            [StepVerdict(Status.INCORRECT, False, evidence=f"contains {self.mark}")
             if self.mark in step else StepVerdict(Status.CORRECT, True) for step in c.steps]
            for _, c in items
        ]


def build_toy(cfg, section, ctx):
    return ToyVerifier(section.mark)


TOY = SourceSpec("toy", Role.locating, "flags steps with a digit", domains=("math",),
                 scores=True)  # fmt: skip


@pytest.fixture
def toy():
    """The toy source, registered in one call (declaration, section and builder)."""
    with sources.registered(TOY, ToySourceConfig, build_toy):
        yield TOY


def test_the_default_policy_honours_a_registered_sources_incorrect(toy):
    bad = StepVerdict(Status.INCORRECT, False)
    none = StepVerdict.unverifiable()
    verdicts = {"toy": [none, bad, none], "mc": [StepVerdict(Status.CORRECT, True)] * 3}
    result = combine(verdicts, 3)
    assert result.labels == [True, False, False] and result.first_error_step == 1
    assert result.exact_first_error == 1
    assert "toy" in registry.consensus_sources()


def test_a_toy_source_runs_through_a_label_job(tmp_path, toy):
    cfg = typed(compose(["engine=simulated", "ray=inprocess", "labels=[answer,toy]",
                         "dataset.limit=6", "sampler.n=3", f"output.dir={tmp_path}"]))
    assert cfg.labels.enabled() == ["answer", "toy"] and cfg.labels.toy.mark == MARK
    manifest = run(cfg)
    assert manifest["counts"]["rows"] == 18
    df = pl.read_parquet(tmp_path / "shards" / "*.parquet")
    assert "toy_labels" in df.columns and "toy_scores" in labeled_schema().names
    flagged = 0
    for row in df.iter_rows(named=True):
        marked = [MARK in s for s in row["completions"]]
        assert row["toy_labels"] == [not m for m in marked]
        toy_verdicts = [v for v in row["verdicts"] if v["source"] == "toy"]
        assert len(toy_verdicts) == len(marked)
        if any(marked):  # the default policy (verifier_first) takes the toy's proof
            flagged += 1
            first = marked.index(True)
            assert row["labels"][first] is False
            assert row["first_error_step"] is not None and row["first_error_step"] <= first
    assert flagged, "no sampled step contains the mark: pick another digit"


def test_a_registration_lasts_exactly_its_block():
    spec = SourceSpec("toy", Role.locating, "flags nothing", scores=True)
    assert "toy_labels" not in labeled_schema().names
    with registry.registered(spec):
        assert {"toy_labels", "toy_scores"} <= set(labeled_schema().names)
        assert "toy" in registry.consensus_sources() and "toy" in registry.label_columns()
    assert "toy_labels" not in labeled_schema().names and "toy" not in registry.names()


def _toy_job(out, *overrides):
    return run(typed(compose(["engine=simulated", "ray=inprocess", "labels=[answer,toy]",
                              "sampler.n=3", "output.problems_per_unit=2", f"output.dir={out}",
                              "output.report=false", *overrides])))  # fmt: skip


def test_a_source_registered_after_import_keeps_its_columns_everywhere(tmp_path, toy):
    """The toy is registered after every module was imported: refresh reuse, the report's
    scan and the audit's step views ask the registry when they run, not at import."""
    from labeling.audit.sample import chain_views
    from labeling.report.stats import scan_dataset, scan_files

    _toy_job(tmp_path / "v1", "dataset.limit=6")
    # a refresh without one problem keeps the other rows of its unit, copied, not relabeled
    v2 = _toy_job(tmp_path / "v2", "dataset.limit=5",
                  f"output.previous={tmp_path / 'v1'}")  # fmt: skip
    assert v2["lineage"]["refresh"]["shrunk"] == 1 and v2["units_reused"] == 3
    old = pl.read_parquet(tmp_path / "v1" / "shards" / "*.parquet")
    new = pl.read_parquet(tmp_path / "v2" / "shards" / "*.parquet")
    kept = old.join(new.select("chain_id", pl.col("toy_labels").alias("again")), on="chain_id")
    assert kept.height == new.height > 0
    assert kept["toy_labels"].to_list() == kept["again"].to_list()
    rows, _, _ = scan_dataset(tmp_path / "v2")
    assert "toy_labels" in rows.collect_schema().names()
    assert "toy_labels" in scan_files([], labeled_schema()).collect_schema().names()
    empty = tmp_path / "empty"  # a dataset whose every problem was quarantined
    empty.mkdir()
    (empty / "manifest.json").write_text('{"shards": [], "quarantine": []}')
    assert "toy_labels" in scan_dataset(empty)[0].collect_schema().names()
    row = new.row(0, named=True)
    views = chain_views(row, "verifier_first")
    assert [v.labels["toy"] for v in views] == row["toy_labels"]
