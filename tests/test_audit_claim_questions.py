"""Each audited label is asked the question of its own claim: calc's True "does the
arithmetic hold?", never "is this step correct?"; the verdict names the claim it answers,
the import refuses one that answers another question and keeps the checks' answers apart
from the step labels, and the estimate scores every stratum against its own claim's
answers. The page's side: tests/test_audit_page.py."""

from __future__ import annotations

import json

import pytest

import labeling.registry as registry
from labeling.audit.claims import (
    CHECKED,
    STEP_CLAIMS,
    TEXTS,
    Claim,
    chain_claims,
    check_claim,
    claim_right,
    question,
    said,
)
from labeling.audit.estimate import Reviewed, estimate
from labeling.audit.verdicts import Verdict, parse
from labeling.registry import Role, SourceSpec
from pipelines.audit.app import run
from pipelines.audit.pack import SAMPLES
from tests.test_audit_claims import columns
from tests.test_audit_import import args_to_cfg, do_import, page, quarantine, rows_of, sample

A, S, P = Claim.arithmetic, Claim.step, Claim.prefix


def test_a_label_claims_what_its_source_judged():
    cols = columns(calc="ci-c", mc="ccii", answer="---c")
    claims = chain_claims(cols, "policy", "negative")
    assert claims["calc"] == [A, A, None, A]  # True and False alike: only the arithmetic
    assert claims["mc"] == [S, S, S, P]  # MC judged steps; after its first error, the prefix
    assert claims["answer"] == [None, None, None, S]
    assert claims["policy"] == [S, S, P, P]
    assert said(A, True) == "the arithmetic in this step holds"
    assert said(A, False) == "this step's arithmetic is wrong"
    assert said(S, True) == "this step is correct" and said(S, False) == "this step is wrong"
    assert said(S, True, "section") == "this section is correct"
    assert said(P, False, "section") == "the chain has gone wrong by this section (at it or before)"
    assert question(S, "section", 3) == ("Is section 3 (highlighted) itself correct? Judge "
                                         "what the section itself claims, even after an "
                                         "earlier error.")  # fmt: skip
    assert question(A, "step", 1).startswith("Does the arithmetic in step 1 (highlighted) hold?")


@pytest.mark.parametrize("source", registry.locating_sources())
def test_every_built_in_locating_source_says_what_it_checks(source):
    """A locating source's True only says what it checked holds: each built-in one has a
    claim of its own (and texts), never the step question."""
    assert source in CHECKED and check_claim(source) not in (S, P)
    texts = TEXTS[check_claim(source)]
    assert not texts.neutral and "step" in texts.true.format(unit="step", source=source)


@pytest.mark.parametrize("claim", list(Claim))
def test_every_claim_has_its_texts(claim):
    assert claim in TEXTS and question(claim, "step", 0)
    assert said(claim, True) != said(claim, False)
    assert (claim in STEP_CLAIMS) is (claim != P)


def test_a_locating_source_registered_without_a_text_claims_its_check():
    toy = SourceSpec("toy_checker", Role.locating, "flags steps with a digit")
    with registry.registered(toy):
        claims = chain_claims({"policy": [True, False], "toy_checker": [True, False]},
                              "policy", "negative")  # fmt: skip
        assert claims["toy_checker"] == [Claim.check] * 2
        assert "what toy_checker checks" in question(Claim.check, source="toy_checker")
    assert check_claim("toy_checker") is None  # unregistered: no claim of a check


def test_a_step_verdict_never_stands_in_for_a_check():
    human = [False]  # the step is wrong ...
    assert claim_right(True, A, human, 0) is None  # ... which says nothing of its arithmetic
    assert claim_right(True, A, human, 0, checked=True) is True
    assert claim_right(False, A, [True], 0, checked=True) is False
    assert claim_right(True, S, human, 0, checked=True) is False  # a step claim: the step's


def test_the_estimate_scores_calc_true_as_the_arithmetic_holding():
    """calc's True on steps a person judged wrong (a right sum in a wrong step) is right
    about what it claims; scored as "is this step correct?" it would look wrong."""
    name = "calc:correct:arithmetic"
    items = [Reviewed(f"c{i}#0", f"c{i}", 0, (name, "mc:correct:step"),
                      {"calc": True, "mc": True}, {}) for i in range(10)]  # fmt: skip
    steps = {f"c{i}#0": i < 4 for i in range(10)}  # 4 steps right, 6 wrong
    holds = {f"c{i}#0": i < 9 for i in range(10)}  # the arithmetic holds in 9
    sizes = {name: 50, "mc:correct:step": 80}
    q = {(x.source, x.measure, x.claim): x
         for x in estimate(items, steps, sizes, checked={"arithmetic": holds})}  # fmt: skip
    calc = q[("calc", "precision_correct", "arithmetic")]
    assert (calc.estimate, calc.reviews, calc.population) == (pytest.approx(0.9), 10, 50)
    mc = q[("mc", "precision_correct", "step")]  # the same steps, MC's claim: the step
    assert (mc.estimate, mc.reviews) == (pytest.approx(0.4), 10)
    assert ("calc", "precision_correct", "step") not in q  # no calc row mixes the claims
    # without answers to the arithmetic question, step verdicts decide nothing of calc's
    none = {(x.source, x.measure, x.claim): x for x in estimate(items, steps, sizes)}
    assert none[("calc", "precision_correct", "arithmetic")].reviews == 0


def test_parse_names_the_claim_and_reads_an_unnamed_record_as_the_step_question():
    text = json.dumps({"verdicts": [
        {"item": "a#0", "claim": "arithmetic", "verdict": "incorrect"},
        {"item": "a#1", "verdict": "correct"},
        {"item": "a#1", "claim": "step", "verdict": "correct"},
    ]})  # fmt: skip
    got, problems, skips = parse(text, {"a#0": {"arithmetic"}, "a#1": {"step"}})
    assert problems == [] and skips == 0
    assert [(v.item, v.claim, v.named) for v in got if isinstance(v, Verdict)] == [
        ("a#0", A, True), ("a#1", S, False), ("a#1", S, True)]


def test_checks_answers_travel_apart_from_the_labels_and_feed_the_estimate(ds, tmp_path,
                                                                             capsys):  # fmt: skip
    """Through the real import and estimate: an answer to "does the arithmetic hold?"
    changes no label, lands in `audit.checks`, is carried to the next version (where a
    different answer is set aside), and scores calc's strata; a file without claims is
    read as the step question and said once."""
    pack = sample(ds)
    lines = [json.loads(x) for x in (pack / SAMPLES).read_text().splitlines()]
    calc_true = sorted(x["key"] for x in lines if "calc:correct:arithmetic" in x["strata"])
    assert len(calc_true) >= 3
    holds = page(tmp_path, [{"item": k, "claim": "arithmetic", "verdict": "correct"}
                            for k in calc_true[:-1]]
                 + [{"item": calc_true[-1], "claim": "arithmetic", "verdict": "incorrect"},
                    {"item": "p0-c0#2", "verdict": "correct"},
                    {"item": "p1-c0#2", "verdict": "correct"}], "a.json")  # fmt: skip
    man = do_import(ds, tmp_path / "v2", [holds])
    out = capsys.readouterr().out
    assert out.count("step records name no claim") == 1  # once for the file, not per record
    assert f"{holds}: 2 step records name no claim; read as answering 'is this step" in out
    assert man["audit"]["read_as_step"] == {str(holds): 2}
    assert man["audit"]["check_answers_used"] == len(calc_true)
    assert rows_of(tmp_path / "v2")["p0"]["human_labels"][:2] == [True, True]  # the data's
    assert all(v["source"] != "human" or v["step"] == 2
               for r in rows_of(tmp_path / "v2").values() for v in r["verdicts"])
    q = run(args_to_cfg([f"audit.dir={tmp_path / 'v2'}", f"audit.pack={pack}",
                         "audit.mode=estimate"]))  # fmt: skip
    assert q["check_answers"] == {"arithmetic": len(calc_true)}
    assert f"{len(calc_true)} answers to 'arithmetic'" in capsys.readouterr().out
    fig = {(r["source"], r["measure"], r["claim"]): r for r in q["figures"]}
    calc = fig[("calc", "precision_correct", "arithmetic")]
    assert calc["reviews"] == len(calc_true)
    assert calc["estimate"] == pytest.approx((len(calc_true) - 1) / len(calc_true))
    # the next version keeps the answers; a different answer to one of them is set aside
    again = page(tmp_path, [{"item": calc_true[0], "claim": "arithmetic", "verdict": "incorrect"}],
                 "b.json")  # fmt: skip
    run(args_to_cfg([f"audit.dir={tmp_path / 'v2'}", f"audit.pack={pack}", "audit.mode=import",
                     f"output.dir={tmp_path / 'v3'}", f"audit.verdicts=[{again}]"]))  # fmt: skip
    man3 = json.loads((tmp_path / "v3" / "manifest.json").read_text())
    assert man3["audit"]["checks"] == man["audit"]["checks"]
    [reason] = [r["reason"] for r in quarantine(tmp_path / "v3") if r["stage"] == "audit"]
    assert reason == (f"arithmetic verdict incorrect for step {calc_true[0]} conflicts with the "
                      "earlier review's correct; not used")


@pytest.fixture
def ds(tmp_path):
    from tests.test_audit_import import ROWS, write

    return write(tmp_path / "v1", ROWS)
