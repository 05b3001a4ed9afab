"""What each source could judge and why it left steps unverifiable, from hand-made shards whose
numbers are worked out in the comments; the sentences the log and the report say."""

from __future__ import annotations

from labeling.report import coverage as rc
from labeling.report import stats as rs
from tests.test_report_stats import make_dataset, row, verdict


def sc(successes, decided, source="chains+rollouts"):
    return {"successes": successes, "decided": decided, "rollouts": 8, "tokens": 800,
            "source": source}


def dataset(tmp_path, low: bool):
    rows = [
        # p1, chain 0: MC placed an error at step 1 (steps 2, 3 after it); calc judged step 1
        row("p1", 0, [True, False, False, False],
            mc_labels=[True, False, False, False], mc_rollouts=[0, 7, 0, 0],
            calc_labels=[None, False, None, None], answer_labels=[None, None, None, False],
            mc_self_confidence=sc(1, 12) if low else sc(6, 12),
            verdicts=[verdict("calc", 1, "incorrect", False),
                      verdict("calc", 2, "timeout", None)]),
        # p1, chain 1: a midpoint rolled out without a decision (step 1: 20 rollouts), so
        # step 0 and step 2 were not probed; the answer could not be checked (last null)
        row("p1", 1, [None, None, None, None],
            mc_labels=[None, None, None, None], mc_rollouts=[0, 20, 0, 0],
            calc_labels=[None, None, None, None], answer_labels=[None, None, None, None],
            mc_self_confidence=sc(1, 12) if low else sc(6, 12)),
        # p2: the completer could not tell: nothing rolled out, only the answer's last step
        row("p2", 0, [None, None, False],
            mc_labels=[None, None, False], mc_rollouts=[0, 0, 0],
            calc_labels=[None, None, None], answer_labels=[None, None, False],
            mc_self_confidence=sc(0, 12) if low else sc(3, 12)),
    ]
    return make_dataset(tmp_path / "d", [(rows, [])])


def test_coverage_counts_every_reason(tmp_path):
    lf, _, _ = rs.scan_dataset(dataset(tmp_path, low=False))
    cov = rc.source_coverage(lf)
    # mc: 11 steps; judged 4 (chain p1/0) + 1 (p2's last) = 5; p1/1: step 1 undecided, steps
    # 0 and 2 unprobed, step 3 the unchecked answer; p2: steps 0, 1 the completer cannot tell
    assert cov["sources"]["mc"] == {"steps": 11, "judged": 5, "reasons": {
        "cannot_tell": 2, "undecided": 1, "unprobed": 2, "last": 1}}
    # calc: 11 steps, 1 judged, 1 timed out, 9 with nothing to check
    assert cov["sources"]["calc"] == {"steps": 11, "judged": 1, "reasons": {
        "nothing it could check": 9, "timed out": 1}}
    # answer: the last step of 3 chains, 2 judged
    assert cov["sources"]["answer"]["steps"] == 3 and cov["sources"]["answer"]["judged"] == 2
    # self-confidence per problem: p1 6/12, p2 3/12 -> 9/24, none under 25%
    assert cov["self_confidence"] == {"problems": 2, "successes": 9, "decided": 24,
                                      "rate": 0.375, "low_problems": 0}
    said, low = rc.coverage_sentences(cov)
    assert low is None
    assert said[:2] == [
        "answer judged 2 of 3 final answers and left 1 unverifiable (no reference to check "
        "against: 1).",
        "calc judged 1 of 11 steps and left 10 unverifiable (nothing it could check: 9; timed "
        "out: 1)."]
    mc = next(s for s in said if s.startswith("mc "))
    assert mc.startswith("mc judged 5 of 11 steps and left 6 unverifiable (in chains whose "
                         "problem the completer rarely solves")
    assert "rolled out without a decision: 1" in mc and "not probed (outside" in mc


def test_low_self_confidence_is_said_with_the_figure(tmp_path):
    lf, _, _ = rs.scan_dataset(dataset(tmp_path, low=True))
    _, low = rc.coverage_sentences(rc.source_coverage(lf))
    assert low.startswith("The Monte Carlo completer's self-confidence is low: it reached "
                          "the right answer in 1 of 24 tries from the bare question (4%), and "
                          "under 25% on 2 of 2 problems: it rarely solves")


def test_half_the_problems_low_is_low_too(tmp_path):
    cov = {"sources": {}, "self_confidence": {"problems": 12, "successes": 73, "decided": 240,
                                              "rate": 73 / 240, "low_problems": 6}}
    _, low = rc.coverage_sentences(cov)
    assert "73 of 240 tries from the bare question (30%), and under 25% on 6 of 12" in low
    cov["self_confidence"]["low_problems"] = 5
    assert rc.coverage_sentences(cov)[1] is None


def test_a_dataset_without_mc_says_nothing_about_a_completer(tmp_path):
    root = make_dataset(tmp_path / "d", [([row("p", 0, [True, None], calc_labels=[True, None])],
                                          [])])
    lf, _, _ = rs.scan_dataset(root)
    cov = rc.source_coverage(lf)
    assert list(cov["sources"]) == ["calc"] and cov["self_confidence"] is None
    assert rc.coverage_sentences(cov) == (
        ["calc judged 1 of 2 steps and left 1 unverifiable (nothing it could check: 1)."], None)


def test_the_report_says_it_first(tmp_path):
    from pipelines.report.story import run_story

    page = run_story(rs.dataset_stats(dataset(tmp_path, low=True)))
    assert "What each source could judge: answer judged 2 of 3 final answers" in page
    assert '<p class="note warn">The Monte Carlo completer&#x27;s self-confidence is low' in page


def test_the_story_says_what_each_source_does_in_its_registrations_words():
    from labeling import registry
    from labeling.registry import Role, SourceSpec
    from pipelines.report.story import _checks

    toy = SourceSpec("toy", Role.locating, "flags steps with a digit")
    with registry.registered(toy):
        text = _checks({"config": {"labels": {"calc": {}, "toy": {}, "policy": "mc"}}})
    assert f"<b>calc</b>: {registry.get('calc').doc}; " in text
    assert text.endswith("<b>toy</b>: flags steps with a digit. ")
    assert "its own check" in _checks({"config": {"labels": {"nobody": {}}}})
