"""One cut, trained and served: the split rules prm-label used are recorded by prm-train in
`prm_format.json` (response strings it cut included; step lists given with the input
recorded as such), prm-export copies them, and the reward cuts completions the same way; a
reward cutting otherwise says so with a `SplitMismatchWarning`, never a log line only."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import polars as pl
import pytest

from labeling.steps.sections import SectionOptions
from pipelines.checkpoint.format import StepFormat
from pipelines.reward import PRMReward, SplitMismatchWarning
from pipelines.train.lineage import dataset_split
from tests.conftest import compose
from tests.synthetic_traces import long_trace

LINE = {"mode": "line", "code_mode": "statement", "max_steps": 40}


def _dataset(root: Path, split: dict | None, model: str = "SmolLM2", dataset: str = "gsm8k",
             cut: int | None = None, given: int | None = None) -> str:  # fmt: skip
    """Shards with a manifest saying how its chains were cut (`cut`/`given`: the label
    job's counts; None leaves them out)."""
    from tests.prm_fixtures import synthetic_rows, write_shards

    write_shards(synthetic_rows(6, 2, seed=3), root)
    manifest = json.loads((root / "manifest.json").read_text())
    config = {"split": split, "dataset": {"name": dataset, "adapter": None}} if split else {}
    block = {k: v for k, v in (("chains_cut", cut), ("chains_given_split", given)) if v is not None}
    manifest.update(model={"name": model}, config=config, split=block)
    (root / "manifest.json").write_text(json.dumps(manifest))
    return str(root)


def test_the_record_says_who_cut_the_chains(tmp_path):
    a = _dataset(tmp_path / "a", LINE)
    assert dataset_split([a, _dataset(tmp_path / "b", LINE)]) == {
        **LINE, "cut_by": "prm-label", "given": []}
    # response strings given with the input and cut by the label job: its rule, not "given"
    strings = _dataset(tmp_path / "s", LINE, model="given", cut=12, given=0)
    assert dataset_split([strings]) == {**LINE, "cut_by": "prm-label", "given": []}
    steps = _dataset(tmp_path / "d", LINE, model="given", cut=0, given=12)
    assert dataset_split([steps]) == {"mode": None, "cut_by": "given", "given": [steps]}
    assert dataset_split([a, steps])["given"] == [steps]
    mixed = dataset_split([a, _dataset(tmp_path / "c", {**LINE, "mode": "auto"})])
    assert mixed["mode"] is None and mixed["cut_by"] == "mixed" and len(mixed["rules"]) == 2
    # people's sections of reasoning traces: the machine's sections cut stands for them
    human = _dataset(tmp_path / "f", LINE, model="given", dataset="deltabench")
    assert dataset_split([human]) == {**LINE, "mode": "sections", "cut_by": "people",
                                      "given": []}  # fmt: skip
    assert dataset_split([_dataset(tmp_path / "e", None), a])["mode"] == "line"
    assert dataset_split([str(tmp_path / "missing")]) is None


def _warned(ckpt: Path, **fields) -> list[str]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        PRMReward.load(ckpt, **fields)
    return [str(w.message) for w in seen if issubclass(w.category, SplitMismatchWarning)]


@pytest.mark.parametrize(("split", "fields", "says"), [
    ({**LINE, "cut_by": "prm-label", "given": []}, {}, None),
    ({**LINE, "cut_by": "prm-label", "given": []}, {"split": {"mode": "auto"}},
     "trained on chains"),
    ({"mode": None, "cut_by": "mixed", "rules": {"a": LINE, "b": {**LINE, "mode": "auto"}},
      "given": []}, {}, "different rules"),
    ({"mode": None, "cut_by": "given", "given": ["d"]}, {}, "already split"),
    (None, {}, "records no split rules"),
])  # fmt: skip
def test_a_cut_other_than_trainings_is_a_warning(tmp_path, split, fields, says):
    from tests.reward_ckpt import tiny_prm

    ckpt = tiny_prm(tmp_path, split=split)
    got = _warned(ckpt, **fields)
    if says is None:
        assert got == []
    else:
        assert len(got) == 1 and says in got[0], got


def test_sections_cut_by_another_version_of_the_cues_is_a_warning(tmp_path):
    """A checkpoint whose sections an older cue list cut: this install cuts the same trace
    elsewhere, so the reward says so (the same budget and cap alone are not the same cut)."""
    from tests.reward_ckpt import tiny_prm

    cut = {**SectionOptions().record(), "mode": "sections", "cut_by": "prm-label", "given": []}
    assert _warned(tiny_prm(tmp_path / "now", split=cut)) == []
    got = _warned(tiny_prm(tmp_path / "old", split={**cut, "cues_version": "0"}))
    assert len(got) == 1 and "cues_version" in got[0] and "cues_version=0" in got[0], got


@pytest.mark.train
def test_a_prm_trained_on_sections_scores_the_same_sections(tmp_path):
    """prm-label cuts given R1-style traces into sections, prm-train trains on them, prm-export
    copies the record, and the reward cuts each trace into exactly the rows' sections."""
    from pipelines.checkpoint.export import export
    from pipelines.label.app import run as label
    from pipelines.train.app import run as train
    from tests.prm_fixtures import build_tiny_model

    traces = [long_trace(n, seed=s) for n, s in ((60, 1), (40, 2), (30, 3), (50, 4))]
    data = tmp_path / "t.jsonl"
    data.write_text("".join(json.dumps({"q": t.question, "a": t.reference, "output": t.text})
                            + "\n" for t in traces))  # fmt: skip
    labels = tmp_path / "labels"
    manifest = label(compose([
        "dataset=generic", f"dataset.path={data}", "dataset.fields.question=q",
        "dataset.fields.answer=a", "dataset.fields.response=output", "labels=[answer,calc]",
        "ray=inprocess", "split.mode=sections", "output.report=false",
        f"output.dir={labels}"]))  # fmt: skip
    assert manifest["model"]["name"] == "given" and manifest["split"]["chains_cut"] == 4
    rows = pl.read_parquet(labels / "shards" / "*.parquet").to_dicts()
    base = build_tiny_model(tmp_path / "base", [t.text for t in traces])
    summary = train({"model": {"path": str(base), "max_length": 1536,
                               "max_prompt_length": 64},
                     "data": {"shards": [str(labels)], "val_fraction": 0.0},
                     "optim": {"warmup_steps": 0},
                     "train": {"max_steps": 2, "batch_size": 2, "grad_accum": 1,
                               "save_every": 0, "eval_every": 0},
                     "output": {"dir": str(tmp_path / "prm")}})  # fmt: skip
    final = Path(summary["final"])
    recorded = json.loads((final / "prm_format.json").read_text())["split"]
    assert recorded["mode"] == "sections" and recorded["cut_by"] == "prm-label"
    assert recorded["max_sections"] == SectionOptions().max_sections
    assert recorded["section_tokens"] == SectionOptions().tokens
    served = tmp_path / "served"
    export(final, served)
    assert StepFormat.load(served).split == recorded
    shutil.rmtree(final)  # the reward reads the exported copy only
    assert _warned(served) == []
    reward = PRMReward.load(served)
    assert reward.cut.mode == "sections"
    got = reward.score([r["prompt"] for r in rows], [_text(r, traces) for r in rows])
    for row, result in zip(rows, got, strict=True):
        ends = [s["end"] for s in row["step_spans"]]
        assert [s.char_end for s in result.steps] == ends
        assert len(ends) == len(row["completions"]) > 3
    # told to cut otherwise, the reward says so where a script sees it
    assert any("trained on chains cut with sections" in w
               for w in _warned(served, split={"mode": "auto"}))


def _text(row: dict, traces: list) -> str:
    [t] = [t for t in traces if all(c in t.text for c in row["completions"])]
    return t.text


def test_the_label_job_says_who_cut_its_chains(tmp_path):
    """Given step lists and response strings through prm-label: its manifest counts each,
    and prm-train's record follows (a list of steps is cut by no rule)."""
    from pipelines.label.app import run as label

    t = long_trace(20, seed=5)
    records = {"steps": {"q": t.question, "a": t.reference, "s": ["3 + 4 = 7", "7 * 2 = 14"]},
               "text": {"q": t.question, "a": t.reference, "s": t.text}}
    got = {}
    for name, record in records.items():
        (tmp_path / f"{name}.jsonl").write_text(json.dumps(record) + "\n")
        got[name] = str(tmp_path / name)
        m = label(compose(["dataset=generic", f"dataset.path={tmp_path / f'{name}.jsonl'}",
                           "dataset.fields.question=q", "dataset.fields.answer=a",
                           "dataset.fields.steps=s", "labels=[answer,calc]", "ray=inprocess",
                           "split.mode=sections", "output.report=false",
                           f"output.dir={got[name]}"]))  # fmt: skip
        cut = (0, 1) if name == "steps" else (1, 0)
        assert (m["split"]["chains_cut"], m["split"]["chains_given_split"]) == cut
    assert dataset_split([got["steps"]]) == {"mode": None, "cut_by": "given",
                                             "given": [got["steps"]]}  # fmt: skip
    assert dataset_split([got["text"]])["mode"] == "sections"
    both = dataset_split([got["text"], got["steps"]])
    assert both["cut_by"] == "prm-label" and both["given"] == [got["steps"]]


def test_the_reward_cut_has_splits_names_and_falls_back_to_the_record():
    from dataclasses import fields

    from pipelines.split_config import RewardSplit, SplitConfig

    names = {f.name for f in fields(RewardSplit)}
    assert names == {f.name for f in fields(SplitConfig)} - {"max_steps"}
    cut = RewardSplit(mode=None, max_sections=24)
    record = {"mode": "line", "max_sections": 8, "section_tokens": 300}
    assert [cut.pick(n, record) for n in ("mode", "max_sections", "section_tokens")] == [
        "line", 24, 300]
    assert cut.pick("code_mode", {}) == SplitConfig().code_mode and not cut.sets_rule()
