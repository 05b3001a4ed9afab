"""`prm-audit audit.mode=import`: reviewer verdicts into a new dataset version. Every
malformed case is one sentence and a quarantine record; the old version is never modified;
a human verdict overrides the machine label and moves the first error. Chain answers:
tests/test_audit_chain.py."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from labeling.combine import combine
from labeling.rows import verdict_structs
from labeling.schema import Status, StepVerdict
from labeling.shards import DatasetDir, sha256_file, summarize_units
from pipelines.audit.app import run
from pipelines.audit.pack import ORACLE, SAMPLES
from pipelines.cli import ConfigError, UserError
from tests.test_report_stats import row

CALC = {"c": StepVerdict(Status.CORRECT, True), "i": StepVerdict(Status.INCORRECT, False),
        "-": StepVerdict.unverifiable()}  # fmt: skip


def chain(pid: str, calc: str, outcome: bool, human: list[bool | None] | None,
          mc: str | None = None) -> dict:  # fmt: skip
    """A row as the label job writes it: calc (and MC) verdicts per step ('c', 'i', '-'),
    the answer on the last step, labels from the real `verifier_first` policy. The
    dataset's own human labels follow ProcessBench: True before the first error, False at
    it, null after, `human_first_error` where it is given."""
    n = len(calc)
    answer = [StepVerdict.unverifiable()] * (n - 1) + [
        StepVerdict(Status.CORRECT if outcome else Status.INCORRECT, outcome)]
    vs = {"calc": [CALC[c] for c in calc], "answer": answer}
    if mc is not None:
        vs["mc"] = [CALC[c] for c in mc]
    comb = combine(vs, n, "verifier_first", "negative")
    fe = None if human is None else next((i for i, h in enumerate(human) if h is False), -1)
    return row(pid, 0, comb.labels, first_error_step=comb.first_error_step,
               calc_labels=[v.label for v in vs["calc"]],
               mc_labels=[v.label for v in vs["mc"]] if mc is not None else None,
               answer_labels=[v.label for v in answer], human_labels=human,
               human_first_error=fe, outcome_correct=outcome,
               verdicts=verdict_structs(vs))  # fmt: skip


ROWS = [
    chain("p0", "ccc", True, [True, True, True]),
    chain("p1", "cic", True, [True, True, True]),  # calc wrongly flags step 1
    chain("p2", "cc-", False, [True, False, None]),  # the unlocated error is step 1
    chain("p3", "c-c", False, None),  # no human labels in the data
]


def write(root: Path, rows: list[dict]) -> Path:
    out = DatasetDir(root)
    rec = out.write_unit(0, "k0", rows, [], {"rows": len(rows), "chains": len(rows)}, {}, 0.1)
    man = {**summarize_units([rec]), "created_at": "2026-01-01T00:00:00", "config_hash": "h1",
           "config": {"labels": {"policy": "verifier_first", "after_error": "negative",
                                 "outcome_fill": "none", "neutral": "positive",
                                 "calc": {}, "answer": {}}},
           "lineage": {"previous": None}, "units": 1, "units_reused": 0}  # fmt: skip
    out.write_manifest(man)
    return root


@pytest.fixture
def ds(tmp_path: Path) -> Path:
    return write(tmp_path / "v1", ROWS)


def sample(ds: Path, **kw) -> Path:
    args = [f"audit.dir={ds}", "audit.budget=100", "audit.queue=0"]
    run(args_to_cfg(args + [f"audit.{k}={v}" for k, v in kw.items()]))
    return ds / "audit"


def args_to_cfg(args: list[str]):
    from omegaconf import OmegaConf

    from pipelines.audit.config import AuditJobConfig

    return OmegaConf.merge(OmegaConf.structured(AuditJobConfig), OmegaConf.from_dotlist(args))


def do_import(ds: Path, out: Path, files: list[Path], neutral: str = "") -> dict:
    args = [f"audit.dir={ds}", "audit.mode=import", f"output.dir={out}",
            f"audit.verdicts=[{','.join(map(str, files))}]"]  # fmt: skip
    if neutral:
        args.append(f"labels.neutral={neutral}")
    return run(args_to_cfg(args))


def page(tmp_path: Path, verdicts: list, name="v.json", pack: str = "x") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps({"format": "prm-audit-verdicts/1", "pack": pack, "reviewer": "ann",
                             "verdicts": verdicts}))  # fmt: skip
    return p


def rows_of(root: Path) -> dict[str, dict]:
    from pipelines.audit.pack import load_rows

    return {r["problem_id"]: r for r in load_rows(root)[0]}


def quarantine(root: Path) -> list[dict]:
    man = json.loads((root / "manifest.json").read_text())
    return [r for q in man["quarantine"] for r in pq.read_table(root / q["path"]).to_pylist()]


@pytest.mark.parametrize("mode", ["chain", "step"])
def test_oracle_loop_and_the_old_version_is_untouched(ds, tmp_path, mode):
    before = {p: sha256_file(p) for p in ds.rglob("*") if p.is_file() and "audit" not in p.parts}
    pack = sample(ds, reviewer="oracle", review_mode=mode)
    oracle = json.loads((pack / ORACLE).read_text())["verdicts"]
    man = do_import(ds, tmp_path / "v2", [pack / ORACLE])
    assert man["lineage"]["previous"] == str(ds) and man["audit"]["quarantined"] == 0
    assert {p: sha256_file(p) for p in before} == before  # never modified
    new = rows_of(tmp_path / "v2")
    # The oracle answers from the data's human labels: p0, p1 all right, p2 wrong at step 1
    # (nothing said after), p3 has none (skipped). It skips every "does the arithmetic
    # hold?": the data's labels judge steps, not their arithmetic.
    assert {v.get("claim") for v in oracle if v["mode"] == "step"} <= {"step", "arithmetic"}
    assert all(v["verdict"] == "skip" for v in oracle if v.get("claim") == "arithmetic")
    assert man["audit"]["check_answers_used"] == 0 and man["audit"]["checks"] == {}
    assert new["p1"]["labels"] == [True, True, True] and new["p1"]["first_error_step"] == -1
    assert new["p3"] == rows_of(ds)["p3"]
    human = {(r["problem_id"], v["step"]): v for r in new.values() for v in r["verdicts"]
             if v["source"] == "human"}  # fmt: skip
    assert all("by oracle" in v["evidence"] for v in human.values())
    if mode == "chain":
        # a chain answer decides every step up to its first error, p0's calc-only steps too:
        # p1's false calc flag overturned, p2's error located by a person; p2's step 2
        # comes after it: its prefix is wrong, the step itself unjudged
        assert new["p0"]["labels"] == [True, True, True] and new["p0"]["first_error_step"] == -1
        assert new["p2"]["labels"] == [True, False, False] and new["p2"]["first_error_step"] == 1
        assert set(human) == {("p0", 0), ("p0", 1), ("p0", 2), ("p1", 0), ("p1", 1),
                              ("p1", 2), ("p2", 0), ("p2", 1)}  # fmt: skip
        assert new["p2"]["human_labels"] == [True, False, None]
        assert {v["chain"]: v.get("first_error") for v in oracle if v["mode"] == "chain"} == {
            "p0-c0": -1, "p1-c0": -1, "p2-c0": 1, "p3-c0": None}
        # p2's last step: the answer's own False, a step claim after the first error, asked
        # on its own; ProcessBench's humans said nothing there, so the oracle skips
        assert [v for v in oracle if v.get("claim") == "step"] == [
            {"mode": "step", "item": "p2-c0#2", "claim": "step", "verdict": "skip"}]
        assert man["audit"]["chain_answers_used"] == 3
        assert "chain answer, first error at step 1" in human[("p2", 1)]["evidence"]
    else:
        # p1's step 2 is False only as a step after its (wrong) first error: a prefix claim,
        # asked as a chain question. The step question is asked where a label claims the
        # step or the uncertainty queue doubts it (p2's first steps: the chain ends wrong
        # and no source located where); not on p0's first steps, where only calc's True
        # (the arithmetic holds) is said, so no person judged them here
        assert [v["chain"] for v in oracle if v["mode"] == "chain"] == ["p1-c0"]
        assert man["audit"]["chain_answers_used"] == 1
        assert {k for k in human if k[0] == "p0"} == {("p0", 2)}
        assert new["p0"]["labels"] == [None, None, True]
        assert new["p2"]["labels"] == [True, False, False]


def test_human_verdict_overrides_and_moves_the_first_error(ds, tmp_path):
    # the uncertainty queue asks the step question where only calc's True is said (p2's
    # step 1: the chain ends wrong and no source located where)
    sample(ds, queue=10)
    f = page(tmp_path, [{"item": "p2-c0#1", "verdict": "incorrect"},
                        {"item": "p1-c0#1", "verdict": "correct"},
                        {"item": "p3-c0#0", "verdict": "neutral"}])  # fmt: skip
    man = do_import(ds, tmp_path / "v2", [f], neutral="mask")
    new = rows_of(tmp_path / "v2")
    assert new["p2"]["labels"] == [None, False, False] and new["p2"]["first_error_step"] == 1
    # calc's false flag reversed; step 0 had no evidence either way and stays unlabeled
    assert new["p1"]["labels"] == [None, True, True] and new["p1"]["first_error_step"] is None
    assert new["p3"]["human_ratings"] == [0, None, None]
    assert new["p3"]["human_labels"] == [None, None, None]  # neutral under mask
    assert new["p3"]["labels"][0] is None
    assert new["p0"] == rows_of(ds)["p0"]  # unreviewed chains as they were
    assert man["audit"]["verdicts_used"] == 3


@pytest.mark.parametrize(
    ("verdicts", "reason"),
    [
        ([{"item": "p0-c0#0", "verdict": "maybe"}], "unknown verdict 'maybe'"),
        ([{"item": "p0-c0#9", "verdict": "correct"}], "do not hold"),
        ([{"item": "nope#0", "verdict": "correct"}], "do not hold"),
        (["just a string"], "malformed verdict record"),
        ([{"verdict": "correct"}], "malformed verdict record"),
        ([{"item": "p0-c0#2", "verdict": "correct"}, {"item": "p0-c0#2", "verdict": "correct"}],
         "duplicate verdict"),
        ([{"item": "p0-c0#2", "verdict": "correct"}, {"item": "p0-c0#2", "verdict": "incorrect"}],
         "conflicting verdicts"),
        ([{"item": "p0-c0#2", "verdict": "incorrect"}], "conflicts with the dataset's own human"),
        # calc's True on p0's step 0 claims only that its arithmetic holds: "is this step
        # correct?" does not answer it, named or not
        ([{"item": "p0-c0#0", "verdict": "correct"}], "which the pack does not ask there"),
        ([{"item": "p0-c0#0", "claim": "step", "verdict": "correct"}], "does not ask there"),
        # nor does "does the arithmetic hold?" answer the answer check's claim on p2's end
        ([{"item": "p2-c0#2", "claim": "arithmetic", "verdict": "correct"}],
         "asks 'Is step 2 (highlighted) itself correct?' instead"),
        ([{"item": "p0-c0#0", "claim": "arithmetic", "verdict": "neutral"}],
         "'neutral' does not answer 'Does the arithmetic in step 0"),
        ([{"item": "p0-c0#0", "claim": "prefix", "verdict": "correct"}], "unknown claim"),
        ([{"item": "p0-c0#0", "claim": "arithmetic", "verdict": "correct"},
          {"item": "p0-c0#0", "claim": "arithmetic", "verdict": "incorrect"}],
         "conflicting arithmetic verdicts for step p0-c0#0"),
    ],
)  # fmt: skip
def test_bad_verdicts_are_quarantined_with_one_sentence(ds, tmp_path, verdicts, reason):
    sample(ds)
    man = do_import(ds, tmp_path / "v2", [page(tmp_path, verdicts)])
    q = [r for r in quarantine(tmp_path / "v2") if r["stage"] == "audit"]
    assert q and all(reason in r["reason"] for r in q)
    assert all("\n" not in r["reason"] and r["source_dataset"] == "audit:v.json" for r in q)
    # nothing silently overwritten: a set-aside verdict changes no row; a duplicate's first
    # copy is applied once
    new, old = rows_of(tmp_path / "v2"), rows_of(ds)
    human = [(r["problem_id"], v["step"], v["label"]) for r in new.values()
             for v in r["verdicts"] if v["source"] == "human"]  # fmt: skip
    if "duplicate" in reason:
        assert human == [("p0", 2, True)] and man["audit"]["verdicts_used"] == 1
    else:
        assert human == [] and new == old and man["audit"]["verdicts_used"] == 0
        assert man["audit"]["checks"] == {}
    assert man["audit"]["quarantined"] == len(q) == len(verdicts) - ("duplicate" in reason)


def test_conflict_across_two_files(ds, tmp_path):
    sample(ds)
    a = page(tmp_path, [{"item": "p0-c0#2", "verdict": "correct"}], "a.json")
    b = page(tmp_path, [{"item": "p0-c0#2", "verdict": "incorrect"}], "b.json")
    man = do_import(ds, tmp_path / "v2", [a, b])
    assert man["audit"]["verdicts_used"] == 0 and man["audit"]["quarantined"] == 2
    assert {r["source_dataset"] for r in quarantine(tmp_path / "v2")} == {"audit:a.json",
                                                                          "audit:b.json"}


def test_label_studio_export(ds, tmp_path):
    pack = sample(ds)
    tasks = json.loads((pack / "labelstudio_tasks.json").read_text())
    assert (pack / "labelstudio_config.xml").read_text().count("<Choice ") == 3
    # one task per question: p1's step 1 is asked "is it correct?" (the policy's False)
    # and "does its arithmetic hold?" (calc's flag), each task naming its claim
    asked = {(t["data"]["item"], t["data"]["claim"]): t["data"]["question"] for t in tasks}
    assert asked[("p1-c0#1", "arithmetic")].startswith("Does the arithmetic in step 1")
    assert asked[("p1-c0#1", "step")] == "Is step 1 (highlighted) itself correct?"
    assert ("p0-c0#0", "step") not in asked  # only calc's True there: its arithmetic
    assert "$question" in (pack / "labelstudio_config.xml").read_text()
    keys = [(t["data"]["item"], t["data"]["claim"]) for t in tasks]
    export = [
        {"id": 1, "data": tasks[keys.index(("p1-c0#1", "step"))]["data"], "annotations": [
            {"id": 11, "completed_by": {"email": "a@x"}, "was_cancelled": False,
             "result": [{"from_name": "verdict", "to_name": "chain", "type": "choices",
                         "value": {"choices": ["correct"]}}]}]},
        {"id": 2, "data": tasks[keys.index(("p3-c0#0", "arithmetic"))]["data"], "annotations": [
            {"id": 12, "completed_by": 3, "was_cancelled": True, "result": []}]},
        {"id": 3, "data": {"item": "p3-c0#1"}, "annotations": [
            {"id": 13, "result": [{"value": {"choices": ["wrongish"]}}]}]},
    ]  # fmt: skip
    f = tmp_path / "ls.json"
    f.write_text(json.dumps(export))
    man = do_import(ds, tmp_path / "v2", [f])
    assert (man["audit"]["verdicts_used"], man["audit"]["skipped"]) == (1, 1)
    assert [r["reason"] for r in quarantine(tmp_path / "v2")] == [
        "unknown verdict 'wrongish' for p3-c0#1; expected one of correct, incorrect, neutral, "
        "skip"]  # fmt: skip
    v = [v for v in rows_of(tmp_path / "v2")["p1"]["verdicts"] if v["source"] == "human"]
    assert v[0]["evidence"] == "correct by labelstudio:a@x (review labelstudio:11)"


@pytest.mark.parametrize(
    ("text", "said"),
    [("{not json", "not JSON"), ('{"a": 1}', "neither a review page export")],
)
def test_unusable_file_is_one_sentence(ds, tmp_path, text, said):
    sample(ds)
    f = tmp_path / "v.json"
    f.write_text(text)
    with pytest.raises(UserError, match=said):
        do_import(ds, tmp_path / "v2", [f])
    assert not (tmp_path / "v2").exists()


def test_wrong_targets_fail_before_work(ds, tmp_path):
    sample(ds)
    f = page(tmp_path, [])
    with pytest.raises(UserError, match="exists and is not empty"):
        do_import(ds, ds, [f])
    other = write(tmp_path / "other", ROWS[:2])
    man = json.loads((other / "manifest.json").read_text())
    (other / "manifest.json").write_text(json.dumps({**man, "config_hash": "h2"}))
    with pytest.raises(UserError, match="sampled from another dataset"):
        run(args_to_cfg([f"audit.dir={other}", f"audit.pack={ds / 'audit'}", "audit.mode=import",
                         f"output.dir={tmp_path / 'v3'}", f"audit.verdicts=[{f}]"]))  # fmt: skip
    with pytest.raises(ConfigError, match="audit.verdicts"):
        run(args_to_cfg([f"audit.dir={ds}", "audit.mode=import", f"output.dir={tmp_path}/z"]))


def test_sample_is_reproducible(ds, tmp_path):
    a = (sample(ds, seed=4) / SAMPLES).read_text()
    assert a == (sample(ds, seed=4) / SAMPLES).read_text()


def test_estimate_writes_the_quality_block_and_the_report_shows_it(ds, tmp_path, capsys):
    from pipelines.report.app import write_report

    pack = sample(ds, reviewer="oracle")
    do_import(ds, tmp_path / "v2", [pack / ORACLE])
    q = run(args_to_cfg([f"audit.dir={tmp_path / 'v2'}", f"audit.pack={pack}",
                         "audit.mode=estimate"]))  # fmt: skip
    man = json.loads((tmp_path / "v2" / "manifest.json").read_text())
    out = capsys.readouterr().out
    assert man["quality"] == q and "label quality: wilson 95% intervals" in out
    # the header says what a row rests on: 3 chains answered, 8 steps with a verdict
    assert "reviewed: 3 of 4 sampled chains, 8 steps with a verdict" in out
    assert "each row rests on its own `reviews`" in out
    fig = {(r["source"], r["measure"], r["claim"]): r for r in q["figures"]}
    # calc's labels claim only the arithmetic, which the oracle cannot answer from the
    # data's step labels: p1's step 1, which the humans call right, is no review of calc's
    # flag (its rows stand on 0 reviews); the policy's False there is a step claim: wrong
    assert {(m, c) for s, m, c in fig if s == "calc"} == {
        ("precision_incorrect", "arithmetic"), ("precision_correct", "arithmetic"),
        ("first_error", "step"), ("accuracy", "")}  # fmt: skip
    assert fig[("calc", "precision_incorrect", "arithmetic")]["reviews"] == 0
    assert fig[("calc", "precision_incorrect", "arithmetic")]["population"] == 1
    # p1's step 2 is False only as a step after that flag: a prefix claim, scored against
    # the chain's first error (none: every step right), so wrong too
    prefix = fig[("verifier_first", "precision_incorrect", "prefix")]
    assert (prefix["estimate"], prefix["reviews"], prefix["population"]) == (0.0, 1, 1)
    # p2's and p3's last steps are the answer's own False (step claims): nobody judged them
    # (ProcessBench says nothing after the first error, p3 has no human labels)
    own = fig[("verifier_first", "precision_incorrect", "step")]
    assert (own["reviews"], own["population"]) == (1, 3)
    page = write_report(tmp_path / "v2").read_text()
    section = page.split('<section id="quality">')[1].split("</section>")[0]
    assert 'alt="label quality with 95% intervals"' in section
    assert "precision_incorrect" in section and "no audit yet" not in section
