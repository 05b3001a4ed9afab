"""Chain answers (ProcessBench's protocol) and reviewed verdicts through the real import:
a reviewed step's label is the reviewer's whatever the machine or `after_error` says; a
chain answer sets every step up to its first error; bad chain records are quarantined with
one sentence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labeling.combine import combine
from labeling.rows import verdict_structs
from labeling.schema import Status, StepVerdict
from labeling.shards import DatasetDir
from pipelines.audit.pack import LS_CHAIN_CONFIG, LS_CHAIN_TASKS, LS_TASKS, PAGE
from pipelines.cli import UserError
from tests.test_audit_import import ROWS, do_import, page, quarantine, rows_of, sample, write
from tests.test_report_stats import row

CODE = {"c": StepVerdict(Status.CORRECT, True), "i": StepVerdict(Status.INCORRECT, False),
        "-": StepVerdict.unverifiable()}  # fmt: skip


def mc_chain(pid: str, mc: str, outcome: bool, after_error: str = "negative") -> dict:
    """A right-answer chain that a weak completer's MC calls wrong from step 0 on, as the
    label job writes it (no human labels in the data)."""
    n = len(mc)
    answer = [CODE["-"]] * (n - 1) + [CODE["c" if outcome else "i"]]
    vs = {"mc": [CODE[c] for c in mc], "answer": answer}
    comb = combine(vs, n, "verifier_first", after_error)
    return row(pid, 0, comb.labels, first_error_step=comb.first_error_step,
               mc_labels=[v.label for v in vs["mc"]], answer_labels=[v.label for v in answer],
               outcome_correct=outcome, verdicts=verdict_structs(vs))  # fmt: skip


def dataset(root: Path, rows: list[dict], after_error: str = "negative") -> Path:
    write(root, rows)
    man = json.loads((root / "manifest.json").read_text())
    man["config"]["labels"]["after_error"] = after_error
    DatasetDir(root).write_manifest(man)
    return root


@pytest.fixture
def mc_ds(tmp_path: Path) -> Path:
    return dataset(tmp_path / "v1", [mc_chain("m0", "iiii", True), *ROWS])


def test_a_reviewed_step_is_never_overwritten(mc_ds, tmp_path):
    """The new user's case: a person marks a step right (the right boxed answer); an
    unreviewed earlier MC False and `after_error=negative` must not turn it False. A step
    whose every label claims only the prefix is asked its chain's question: a step verdict
    there answers a question the pack did not ask, and is set aside."""
    assert rows_of(mc_ds)["m0"]["labels"] == [False] * 4
    sample(mc_ds)
    f = page(tmp_path, [{"item": "m0-c0#2", "verdict": "correct"},
                        {"item": "m0-c0#3", "verdict": "correct"}])  # fmt: skip
    man = do_import(mc_ds, tmp_path / "v2", [f])
    new = rows_of(tmp_path / "v2")["m0"]
    # step 0: MC's own (unreviewed) False; 1, 2: after it, unreviewed; 3: the person's
    assert new["labels"] == [False, False, False, True]
    assert new["first_error_step"] == 0
    assert new["human_labels"] == [None, None, None, True]
    assert man["audit"]["quarantined"] == 1
    [q] = [r["reason"] for r in quarantine(tmp_path / "v2")]
    assert q.startswith("verdict on 'Is step 2 (highlighted) itself correct?' for m0-c0#2, "
                        "which the pack does not ask there (its labels there claim only that")


def test_a_chain_answer_sets_every_step_up_to_its_first_error(mc_ds, tmp_path):
    sample(mc_ds)
    f = page(tmp_path, [{"mode": "chain", "chain": "m0-c0", "first_error": 2}])
    man = do_import(mc_ds, tmp_path / "v2", [f])
    new = rows_of(tmp_path / "v2")["m0"]
    assert new["human_ratings"] == [1, 1, -1, None]
    assert new["human_labels"] == [True, True, False, None]  # after it: the prefix only
    assert new["human_first_error"] == 2
    # step 3 is unreviewed: after_error=negative makes it False, which is what the chain
    # answer says of its prefix ("gone wrong by here")
    assert new["labels"] == [True, True, False, False] and new["first_error_step"] == 2
    ev = [v["evidence"] for v in new["verdicts"] if v["source"] == "human"]
    assert ev == ["correct by ann: chain answer, first error at step 2 (review page:0)"] * 2 + [
        "incorrect by ann: chain answer, first error at step 2 (review page:0)"]
    assert (man["audit"]["chain_answers_used"], man["audit"]["steps_reviewed"]) == (1, 3)


def test_all_correct_and_after_error_keep(tmp_path):
    ds = dataset(tmp_path / "v1", [mc_chain("m0", "ic-i", True, "keep"),
                                   mc_chain("m1", "iiii", True, "keep")], "keep")  # fmt: skip
    assert rows_of(ds)["m0"]["labels"] == [False, True, None, True]
    sample(ds)
    f = page(tmp_path, [{"mode": "chain", "chain": "m0-c0", "first_error": 0},
                        {"mode": "chain", "chain": "m1-c0", "first_error": -1}])  # fmt: skip
    do_import(ds, tmp_path / "v2", [f])
    new = rows_of(tmp_path / "v2")
    # keep: the steps after the reviewed first error keep what the sources said
    assert new["m0"]["labels"] == [False, True, None, True]
    assert new["m0"]["human_labels"] == [False, None, None, None]
    assert new["m1"]["labels"] == [True] * 4 and new["m1"]["first_error_step"] == -1
    assert new["m1"]["human_first_error"] == -1


def test_a_step_verdict_that_agrees_with_the_chain_answer_is_kept(mc_ds, tmp_path):
    sample(mc_ds)
    f = page(tmp_path, [{"mode": "chain", "chain": "m0-c0", "first_error": 2},
                        {"item": "m0-c0#0", "verdict": "neutral"},
                        {"item": "m0-c0#3", "verdict": "correct"}])  # fmt: skip
    man = do_import(mc_ds, tmp_path / "v2", [f])
    new = rows_of(tmp_path / "v2")["m0"]
    assert new["human_ratings"] == [0, 1, -1, 1]  # the neutral stays neutral
    # step 3 itself is right though the chain went wrong before it: the person said so
    assert new["labels"] == [True, True, False, True]
    assert man["audit"]["quarantined"] == 0 and man["audit"]["verdicts_used"] == 2


@pytest.mark.parametrize(
    ("verdicts", "reason", "problems"),
    [
        ([{"mode": "chain", "chain": "m0-c0", "first_error": 4}], "is not a step of it", 1),
        ([{"mode": "chain", "chain": "m0-c0", "first_error": "2"}], "is not a step of it", 1),
        ([{"mode": "chain", "chain": "m0-c0", "first_error": True}], "is not a step of it", 1),
        ([{"mode": "chain", "chain": "m0-c0"}], "is not a step of it", 1),
        ([{"mode": "chain", "chain": "nope", "first_error": 0}], "do not hold", 1),
        ([{"mode": "chain", "first_error": 0}], "malformed chain record", 1),
        ([{"mode": "marks", "chain": "m0-c0", "wrong": [1]}], "unknown mode 'marks'", 1),
        ([{"mode": "sections", "chain": "m0-c0", "wrong": [4]}], "is not a list of its steps", 1),
        ([{"mode": "sections", "chain": "m0-c0", "wrong": [1, 1]}], "not a list of its steps", 1),
        ([{"mode": "sections", "chain": "m0-c0", "wrong": 1}], "is not a list of its steps", 1),
        ([{"mode": "sections", "chain": "m0-c0", "wrong": [True]}], "not a list of its steps", 1),
        ([{"mode": "sections", "chain": "m0-c0", "claim": "prefix", "wrong": [1]}],
         "a sections answer for m0-c0 answers the step claim, not 'prefix'", 1),
        ([{"mode": "chain", "chain": "m0-c0", "claim": "step", "first_error": 1}],
         "a chain answer for m0-c0 answers the prefix claim, not 'step'", 1),
        # one answer per chain, whichever protocol
        ([{"mode": "chain", "chain": "m0-c0", "first_error": 1},
          {"mode": "sections", "chain": "m0-c0", "wrong": [1, 3]}], "conflicting chain", 2),
        ([{"mode": "sections", "chain": "m0-c0", "wrong": [2]},
          {"item": "m0-c0#0", "verdict": "incorrect"}], "contradicts", 2),
        ([{"mode": ["chain"], "chain": "m0-c0", "first_error": 1}], "unknown mode", 1),
        ([{"item": "m0-c0#0", "verdict": ["correct", "neutral"]}], "unknown verdict", 1),
        ([{"mode": "chain", "chain": "m0-c0", "first_error": 1}] * 2, "duplicate chain answer", 1),
        ([{"mode": "chain", "chain": "m0-c0", "first_error": 1},
          {"mode": "chain", "chain": "m0-c0", "first_error": 2}], "conflicting chain answers", 2),
        ([{"mode": "chain", "chain": "m0-c0", "first_error": 2},
          {"item": "m0-c0#0", "verdict": "incorrect"}], "contradicts", 2),
        # p2's own human labels put its first error at step 1
        ([{"mode": "chain", "chain": "p2-c0", "first_error": -1}],
         "conflicts with the dataset's own human labels", 1),
    ],
)  # fmt: skip
def test_bad_chain_records_are_quarantined(mc_ds, tmp_path, verdicts, reason, problems):
    sample(mc_ds)
    man = do_import(mc_ds, tmp_path / "v2", [page(tmp_path, verdicts)])
    q = [r for r in quarantine(tmp_path / "v2") if r["stage"] == "audit"]
    assert len(q) == problems == man["audit"]["quarantined"]
    assert all(reason in r["reason"] and "\n" not in r["reason"] for r in q)
    new, old = rows_of(tmp_path / "v2"), rows_of(mc_ds)
    human = [(r["problem_id"], v["step"]) for r in new.values() for v in r["verdicts"]
             if v["source"] == "human"]  # fmt: skip
    if "duplicate" in reason:  # the first copy is applied, once
        assert human == [("m0", 0), ("m0", 1)] and man["audit"]["chain_answers_used"] == 1
    else:
        assert human == [] and new == old


def test_unknown_file_format_is_one_sentence(mc_ds, tmp_path):
    sample(mc_ds)
    f = tmp_path / "v.json"
    f.write_text(json.dumps({"format": "prm-audit-verdicts/9", "verdicts": []}))
    with pytest.raises(UserError, match="unknown format 'prm-audit-verdicts/9'"):
        do_import(mc_ds, tmp_path / "v2", [f])


def test_label_studio_chain_tasks_and_step_numbers(mc_ds, tmp_path):
    pack = sample(mc_ds)
    steps = json.loads((pack / LS_TASKS).read_text())
    # the step number a person reads is the data's step index (from 0)
    assert all(t["data"]["item"].endswith(f"#{t['data']['step_number']}") for t in steps)
    assert all(f"<b>Step {t['data']['step_number']}.</b>" in t["data"]["chain"] for t in steps)
    assert "Steps count from 0" in (pack / PAGE).read_text()
    chains = json.loads((pack / LS_CHAIN_TASKS).read_text())
    # m0's steps 1-3 and p1's last step are False only after a first error: prefix claims
    assert [t["data"]["chain_id"] for t in chains] == ["m0-c0", "p1-c0"]
    assert '<Number name="first_error"' in (pack / LS_CHAIN_CONFIG).read_text()
    export = [
        {"id": 1, "data": chains[0]["data"], "annotations": [
            {"id": 21, "completed_by": {"email": "b@x"},
             "result": [{"from_name": "first_error", "to_name": "chain", "type": "number",
                         "value": {"number": 1}}]}]},
        {"id": 2, "data": chains[1]["data"], "annotations": [
            {"id": 22, "was_cancelled": True, "result": []}]},
    ]  # fmt: skip
    f = tmp_path / "ls.json"
    f.write_text(json.dumps(export))
    man = do_import(mc_ds, tmp_path / "v2", [f])
    assert (man["audit"]["chain_answers_used"], man["audit"]["skipped"]) == (1, 1)
    new = rows_of(tmp_path / "v2")["m0"]
    assert new["human_labels"] == [True, False, None, None]
    assert new["labels"] == [True, False, False, False]


def test_an_old_page_export_still_imports(mc_ds, tmp_path):
    """Format /1 (records without `mode`) is read as step verdicts."""
    sample(mc_ds)
    f = tmp_path / "old.json"
    f.write_text(json.dumps({"format": "prm-audit-verdicts/1", "pack": "x", "reviewer": "ann",
                             "verdicts": [{"item": "m0-c0#0", "verdict": "correct"}]}))
    man = do_import(mc_ds, tmp_path / "v2", [f])
    assert man["audit"]["verdicts_used"] == 1
    assert rows_of(tmp_path / "v2")["m0"]["labels"] == [True, False, False, False]


def test_a_sections_answer_judges_every_step_on_its_own(tmp_path):
    """DeltaBench's protocol on a trace (after_error=keep): the wrong sections are wrong,
    every other one right, a section after an error included; it also places the first
    error (for the prefix claims and `human_first_error`)."""
    ds = dataset(tmp_path / "v1", [mc_chain("m0", "ic-i", True, "keep"),
                                   mc_chain("m1", "iiii", True, "keep")], "keep")  # fmt: skip
    sample(ds)
    f = page(tmp_path, [{"mode": "sections", "chain": "m0-c0", "wrong": [2, 0]},
                        {"mode": "sections", "chain": "m1-c0", "wrong": []}])  # fmt: skip
    man = do_import(ds, tmp_path / "v2", [f])
    assert (man["audit"]["chain_answers_used"], man["audit"]["quarantined"]) == (2, 0)
    new = rows_of(tmp_path / "v2")
    assert new["m0"]["human_labels"] == [False, True, False, True]  # every section said
    assert new["m0"]["labels"] == [False, True, False, True]
    assert new["m0"]["human_first_error"] == 0 and new["m0"]["first_error_step"] == 0
    assert new["m1"]["human_labels"] == [True] * 4 and new["m1"]["human_first_error"] == -1
    ev = [v["evidence"] for v in new["m0"]["verdicts"] if v["source"] == "human"]
    assert ev[0] == "incorrect by ann: chain answer, wrong: steps 0, 2 (review page:0)"


def test_the_oracle_answers_sections_where_the_labels_rate_every_step(mc_ds, tmp_path):
    from pipelines.audit.pack import ORACLE

    pack = sample(mc_ds, reviewer="oracle", review_mode="sections")
    oracle = json.loads((pack / ORACLE).read_text())["verdicts"]
    said = {v["chain"]: v.get("wrong", v.get("verdict")) for v in oracle
            if v["mode"] == "sections"}  # fmt: skip
    # p0, p1: every step rated right; p2's step 2 unrated (after its first error), p3 and
    # m0 have no human labels: skipped
    assert said == {"p0-c0": [], "p1-c0": [], "p2-c0": "skip", "p3-c0": "skip", "m0-c0": "skip"}
    assert {v.get("claim") for v in oracle if v["mode"] == "step"} <= {"arithmetic"}
    man = do_import(mc_ds, tmp_path / "v2", [pack / ORACLE])
    assert man["audit"]["chain_answers_used"] == 2 and man["audit"]["quarantined"] == 0
    assert rows_of(tmp_path / "v2")["p1"]["labels"] == [True, True, True]


def test_auto_opens_traces_in_sections_mode(mc_ds):
    assert json.loads((sample(mc_ds) / "plan.json").read_text())["review_mode"] == "chain"
    man = json.loads((mc_ds / "manifest.json").read_text())
    man["split"] = {"mode": "sections"}
    DatasetDir(mc_ds).write_manifest(man)
    plan = json.loads((sample(mc_ds) / "plan.json").read_text())
    assert plan["review_mode"] == "sections"
    assert '"mode": "sections"' in (mc_ds / "audit" / PAGE).read_text()
