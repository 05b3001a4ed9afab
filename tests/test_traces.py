"""Reasoning traces through the whole label job in-process: given as one response string per
record, cut into sections, labeled per section on their own merits, recorded in the manifest
and the rows (synthetic traces; nothing here reads ../shared)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from labeling.datasets import load_problems
from labeling.schema import GivenChain, Problem, Quarantined
from labeling.steps.sections import SectionOptions
from pipelines.label.app import run
from tests.conftest import compose
from tests.synthetic_traces import long_trace, self_correction_trace

JOB = ["ray=inprocess", "split.mode=sections", "output.report=false"]


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return path


def _job(tmp_path: Path, data: Path, *overrides: str, name: str = "out") -> dict:
    cfg = compose(["dataset=generic", f"dataset.path={data}", "dataset.fields.question=q",
                   "dataset.fields.answer=a", "dataset.fields.response=r", "labels=[answer,calc]",
                   f"output.dir={tmp_path / name}", *JOB, *overrides])
    return run(cfg)


def _rows(tmp_path: Path, name: str = "out") -> list[dict]:
    return pl.read_parquet(tmp_path / name / "shards" / "*.parquet").to_dicts()


def test_given_traces_are_cut_into_sections_and_keep_their_spans(tmp_path):
    traces = [long_trace(300, seed=1), long_trace(40, seed=2, slip_at=5),
              long_trace(30, seed=3, finished=False)]
    data = _write(tmp_path / "t.jsonl",
                  [{"q": t.question, "a": t.reference, "r": t.text} for t in traces])
    m = _job(tmp_path, data)
    assert m["counts"]["problems_labeled"] == 3
    assert m["split"]["mode"] == "sections" and m["split"]["after_error"] == "keep"
    assert m["split"]["sections"]["max_sections"] == SectionOptions().max_sections
    assert m["split"]["chains_thinking"] == 3 and m["split"]["chains_thinking_unfinished"] == 1
    by_text = {t.text: t for t in traces}
    rows = _rows(tmp_path)
    assert len(rows) == 3
    of_text = {}
    for row in rows:
        [text] = [t for t in by_text if all(c in t for c in row["completions"])]
        of_text[text] = row
        spans = [(s["start"], s["end"]) for s in row["step_spans"]]
        assert [text[a:b] for a, b in spans] == row["completions"]
        assert 1 < len(spans) <= SectionOptions().max_sections
        assert row["thinking_finished"] is ("</think>" in text)
    long = of_text[traces[0].text]
    assert 10 <= len(long["completions"]) <= SectionOptions().max_sections  # 300 paragraphs
    assert long["answer_labels"][-1] is True and long["final_answer"] == traces[0].reference
    cut = next(r for r in rows if r["thinking_finished"] is False)
    # Unfinished thinking: the answer is unknown, never read out of the thinking.
    assert cut["final_answer"] is None and cut["outcome_correct"] is None
    assert cut["answer_labels"][-1] is None
    assert any("never closed" in v["evidence"] for v in cut["verdicts"] if v["source"] == "answer")


def test_a_slip_does_not_make_its_correction_wrong(tmp_path):
    t = self_correction_trace()
    data = _write(tmp_path / "t.jsonl", [{"q": t.question, "a": t.reference, "r": t.text}])
    _job(tmp_path, data)
    [row] = _rows(tmp_path)
    assert row["calc_labels"] == [False, True, None]
    # after_error=auto is keep for traces: the slip is False, the right answer True, and
    # the correction is left to its own evidence (calc's `correct` proves arithmetic only).
    assert row["labels"] == [False, None, True] and row["first_error_step"] == 0
    _job(tmp_path, data, "labels.after_error=negative", name="neg")
    [neg] = _rows(tmp_path, "neg")
    assert neg["labels"] == [False, False, False]  # what chains cut into steps get


def test_step_chains_keep_the_negative_default(tmp_path):
    records = [{"q": "What is 2 + 3?", "a": "5", "r": "2 + 3 = 6.\n\n6 - 1 = 5.\n\n\\boxed{5}"}]
    data = _write(tmp_path / "t.jsonl", records)
    m = _job(tmp_path, data, "split.mode=blank_line")
    assert m["split"]["after_error"] == "negative" and m["split"]["sections"] is None
    [row] = _rows(tmp_path)
    assert row["labels"] == [False, False, False]
    assert row["thinking_finished"] is None and len(row["step_spans"]) == 3


def test_reasoning_fields_as_vllm_returns_them(tmp_path):
    records = [{"q": "What is 6 × 7?", "a": "42", "reasoning_content": "6 × 7 = 42.\n\nCheck: "
                "7 × 6 = 42.", "content": "The answer is \\boxed{42}."},
               {"q": "What is 2 + 2?", "a": "4", "steps": "2 + 2 = 4.\n\nSo \\boxed{4}."}]
    data = _write(tmp_path / "t.jsonl", records)
    problems = list(load_problems({"name": "generic", "path": str(data), "fields": {
        "question": "q", "answer": "a", "response": "content", "reasoning": "reasoning_content",
        "steps": None}}))
    [g] = problems[0].given_chains
    assert g.text.startswith("<think>\n6 × 7 = 42.") and "</think>\n\nThe answer" in g.text
    assert isinstance(problems[1], Quarantined) and "'content'" in problems[1].reason
    # a string in a `steps` field is a whole response, cut by split.mode (not quarantined)
    [p] = list(load_problems({"name": "generic", "path": str(data), "limit": None,
                              "fields": {"question": "q", "answer": "a", "steps": "steps"}}))[1:]
    assert isinstance(p, Problem) and p.given_chains[0].text.startswith("2 + 2 = 4.")


def test_field_names_outside_the_mapping_are_named(tmp_path):
    data = _write(tmp_path / "t.jsonl", [{"q": "x", "a": "1"}])
    with pytest.raises(ValueError, match="no such field; map one of question, answer, steps"):
        list(load_problems({"name": "generic", "path": str(data), "fields": {"qestion": "q"}}))


def test_a_given_chain_is_split_or_one_text():
    with pytest.raises(ValueError, match="either split"):
        GivenChain(("a",), text="a")
    with pytest.raises(ValueError, match="either split"):
        GivenChain(())


def test_too_many_sections_for_max_steps_fails_at_start(tmp_path):
    data = _write(tmp_path / "t.jsonl", [{"q": "x", "a": "1", "r": "y"}])
    from pipelines.cli import ConfigError

    with pytest.raises(ConfigError, match="split.max_sections=50 is above split.max_steps=40"):
        _job(tmp_path, data, "split.max_sections=50")


def _mc_chain(trace, mode: str = "sections"):
    from labeling.schema import Chain
    from labeling.steps.splitters import split_spans

    spans = split_spans(trace.text, mode)
    steps = tuple(trace.text[a:b] for a, b in spans)
    problem = Problem("p", "math", "t", trace.question, trace.reference)
    return problem, Chain("p", "c", 0, trace.text, steps, "m", spans=tuple(spans)), spans


@pytest.mark.parametrize("closes", [True, False])
def test_mc_over_sections_continues_inside_the_thinking(closes):
    from tests.fakes import FakeCompleter, mc_verifier

    trace = long_trace(120, seed=8, error_at=60)
    problem, chain, spans = _mc_chain(trace)
    wrong = str(int(trace.reference) + 10)
    tail = "\n</think>\n\nThe answer is \\boxed{{{answer}}}." if closes else " {answer}"
    completer = FakeCompleter(
        lambda r: 0.9 if len(r.prefix) <= trace.error_offset else 0.0,
        right=trace.reference, wrong=wrong, template="Let me continue." + tail)
    seen = []
    inner = completer.complete
    completer.complete = lambda reqs: (seen.extend(reqs), inner(reqs))[1]
    mc = mc_verifier(completer, k=4, chunk=1, confirm=1, estimator="binary_search",
                     after_error="keep")
    [verdicts] = mc.verify([(problem, chain)])
    ends = [b for _, b in spans]
    for req in seen:  # each prefix ends with a section's last character, inside the thinking
        assert "</think>" not in req.prefix
        assert len(req.prefix) in ends
    labels = [v.label for v in verdicts]
    if closes:
        first = labels.index(False)
        a, b = spans[first]
        assert a <= trace.error_offset < b  # the section holding the error
        assert all(x is True for x in labels[:first])
        # at most 6 probes of k=4 rollouts: a binary search over <= 32 sections, then a confirm
        assert mc.last_stats.requests <= 4 * 6
    else:  # rollouts that never close the thinking decide nothing
        assert all(x is None for x in labels[:-1]) and labels[-1] is False
        assert mc.last_stats.undecided_checks == mc.last_stats.checks > 0


def test_a_run_that_quarantines_everything_says_so(tmp_path, caplog):
    data = _write(tmp_path / "t.jsonl", [{"q": "x?", "a": "1", "r": ["not", "a", "string"]}])
    import logging

    with caplog.at_level(logging.WARNING, logger="prm-label"):
        m = _job(tmp_path, data, "output.max_quarantined_share=1")  # a run may end so
    assert m["counts"]["problems_quarantined"] == 1
    assert "every one of the 1 problems was quarantined" in caplog.text


@pytest.mark.app
def test_field_mapping_on_the_command_line(tmp_path):
    """No `+` needed to map a field, a wrong name lists the valid ones, and `--cfg job`
    works with a dataset.path (the dataset keeps its name whatever the file is called)."""
    import subprocess
    import sys

    from tests.conftest import app_error_line

    data = _write(tmp_path / "t.jsonl", [{"q": "x?", "a": "1", "s": ["1"]}])
    line = app_error_line("prm-label", ["dataset=generic", f"dataset.path={data}",
                                        "dataset.fields.quest=q"], tmp_path)
    assert "dataset.fields.quest: no such key in FieldsConfig; did you mean question?" in line
    assert "valid keys here: question, answer, steps, response, reasoning" in line
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("prm-label")), "dataset=generic",
         f"dataset.path={data}", "dataset.fields.question=q", "dataset.fields.steps=s",
         "--cfg", "job"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "name: generic\n" in proc.stdout and "steps: s\n" in proc.stdout


def test_the_report_reads_shards_written_before_the_trace_columns(tmp_path):
    import pyarrow.parquet as pq

    from labeling.report.stats import scan_files

    t = self_correction_trace()
    data = _write(tmp_path / "t.jsonl", [{"q": t.question, "a": t.reference, "r": t.text}])
    _job(tmp_path, data)
    [new] = (tmp_path / "out" / "shards").glob("*.parquet")
    old = tmp_path / "old.parquet"
    pq.write_table(pq.read_table(new).drop(["step_spans", "thinking_finished"]), old)
    frame = scan_files([old, new], pq.read_schema(new)).collect()
    assert frame.height == 2 and frame["step_spans"].null_count() == 1


def test_an_answer_left_unchecked_by_unclosed_thinking_says_so(tmp_path):
    from labeling.report import coverage as rc
    from labeling.report import stats as rs

    traces = [long_trace(20, seed=1), long_trace(20, seed=2, finished=False)]
    data = _write(tmp_path / "t.jsonl",
                  [{"q": t.question, "a": t.reference, "r": t.text} for t in traces])
    _job(tmp_path, data)
    lf, _, _ = rs.scan_dataset(tmp_path / "out")
    answer = rc.source_coverage(lf)["sources"]["answer"]
    assert answer["judged"] == 1
    assert answer["reasons"] == {"the thinking never closed (no final answer)": 1}
