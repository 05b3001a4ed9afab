"""The whole label job in-process (no Ray), with the simulated engine or given chains."""

import json
import random

import polars as pl
import pytest

from pipelines.label.app import run
from tests.conftest import compose, shared


def _job(tmp_path, *overrides, name="out"):
    cfg = compose(
        ["engine=simulated", "ray=inprocess", "labels=[answer]", f"output.dir={tmp_path / name}",
         *overrides]
    )
    return run(cfg)


def _rows(path):
    return pl.read_parquet(path / "shards" / "*.parquet")


def test_simulated_job_writes_shards_and_manifest(tmp_path):
    m = _job(tmp_path, "dataset.limit=10", "sampler.n=3", "output.problems_per_unit=4")
    c = m["counts"]
    assert c["problems_in"] == 10 == c["problems_labeled"] + c["problems_quarantined"]
    assert c["rows"] == 30 and len(m["shards"]) == 3
    assert sum(s["rows"] for s in m["shards"]) == 30
    df = _rows(tmp_path / "out")
    assert df.height == 30
    assert df["labels"].list.len().to_list() == df["completions"].list.len().to_list()
    assert set(df["label_policy"]) == {"verifier_first"} and df["sample_tokens"].min() > 0
    assert m["tokens"]["sample"] == df["sample_tokens"].sum()


def test_same_config_same_shards(tmp_path):
    a = _job(tmp_path, "dataset.limit=6", name="a")
    b = _job(tmp_path, "dataset.limit=6", name="b")
    assert [s["sha256"] for s in a["shards"]] == [s["sha256"] for s in b["shards"]]
    c = _job(tmp_path, "dataset.limit=6", "sampler.seed=1", name="c")
    assert [s["sha256"] for s in a["shards"]] != [s["sha256"] for s in c["shards"]]


def test_rerun_resumes_and_redoes_a_corrupt_unit(tmp_path):
    args = ("dataset.limit=12", "output.problems_per_unit=4")
    first = _job(tmp_path, *args)
    again = _job(tmp_path, *args)
    assert again["units_reused"] == 3 and again["counts"] == first["counts"]
    shard = tmp_path / "out" / first["shards"][1]["path"]
    shard.write_bytes(shard.read_bytes()[:100])  # truncated
    third = _job(tmp_path, *args)
    assert third["units_reused"] == 2
    assert [s["sha256"] for s in third["shards"]] == [s["sha256"] for s in first["shards"]]


def test_refresh_reuses_previous_version(tmp_path):
    v1 = _job(tmp_path, "dataset.limit=8", "output.problems_per_unit=4", name="v1")
    v2 = _job(
        tmp_path, "dataset.limit=12", "output.problems_per_unit=4",
        f"output.previous={tmp_path / 'v1'}", name="v2",
    )
    assert v2["units_reused"] == 2 and v2["lineage"]["previous"] == str(tmp_path / "v1")
    assert [s["reused_from"] for s in v2["shards"]] == [str(tmp_path / "v1")] * 2 + [""]
    assert v2["shards"][0]["sha256"] == v1["shards"][0]["sha256"]
    df = _rows(tmp_path / "v2")
    assert df["problem_id"].n_unique() == 12


def test_given_chains_need_no_model(tmp_path):
    path = shared("processbench_dev/gsm8k.json")
    m = _job(tmp_path, "dataset=processbench", f"dataset.path={path}", "engine=vllm",
             "model.path=/nonexistent")
    assert m["counts"]["problems_in"] == 158 and m["counts"]["rows"] == 158
    assert m["model"]["path"] is None and m["model"]["name"] == "given"  # no engine started
    df = _rows(tmp_path / "out")
    assert df["human_first_error"].null_count() == 0
    # outcome from the dataset: chains humans judged all-correct keep a correct outcome
    ok = df.filter(pl.col("human_first_error") == -1)
    assert ok["outcome_correct"].all()


def test_fuzzed_rows_are_quarantined_not_lost(tmp_path):
    rng = random.Random(0)
    lines = []
    good = 0
    for i in range(1000):
        kind = rng.randrange(6)
        if kind == 0:
            lines.append(json.dumps({"question": f"What is {i}+1?", "answer": f"#### {i + 1}"}))
            good += 1
        elif kind == 1:
            lines.append(json.dumps({"question": f"q{i}"}))
        elif kind == 2:
            lines.append("{" + "x" * rng.randrange(50))
        elif kind == 3:
            lines.append(json.dumps({"question": None, "answer": [1, 2]}))
        elif kind == 4:
            lines.append(json.dumps(["not", "an", "object"]))
        else:
            raw = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
            lines.append(raw.replace(b"\n", b" ").decode("latin-1"))
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes("\n".join(lines).encode("latin-1", "replace"))
    m = _job(tmp_path, "dataset=gsm8k", f"dataset.path={path}", "sampler.n=1",
             "output.problems_per_unit=100")
    c = m["counts"]
    total_lines = sum(1 for line in path.read_bytes().split(b"\n") if line.strip())
    assert c["problems_in"] == total_lines
    assert c["problems_labeled"] + c["problems_quarantined"] == c["problems_in"]
    assert c["problems_labeled"] == good
    q = pl.read_parquet(tmp_path / "out" / "quarantine" / "*.parquet")
    assert q.height == c["problems_quarantined"]
    assert q["reason"].str.len_chars().min() > 5


def test_user_errors_are_one_sentence(tmp_path):
    from pipelines.cli import UserError, explain

    with pytest.raises(UserError) as err:  # checked before Ray starts or a directory exists
        _job(tmp_path, "dataset=gsm8k", "dataset.path=/nope.jsonl")
    assert explain(err.value) == (
        "dataset.path=/nope.jsonl does not exist; set dataset.path to the input file"
    )


def test_a_second_run_on_a_held_output_dir_stops_with_one_sentence(tmp_path):
    from filelock import FileLock

    from pipelines.cli import UserError, explain

    out = tmp_path / "out"
    out.mkdir()
    with FileLock(out / ".lock"):  # another run holds the directory
        with pytest.raises(UserError) as err:
            _job(tmp_path, "dataset.limit=2", "sampler.n=1")
    assert "another prm-label run holds" in explain(err.value)
    assert not (out / "shards").exists() and not (out / "manifest.json").exists()
    m = _job(tmp_path, "dataset.limit=2", "sampler.n=1")  # released: the run goes ahead
    assert m["counts"]["problems_in"] == 2


def test_engine_choice_is_part_of_the_unit_key(tmp_path):
    from pipelines.config_fields import config_hash
    from pipelines.label.app import typed

    base = ["ray=inprocess", "labels=[answer]"]
    sim = config_hash(typed(compose([*base, "engine=simulated"])))
    real = config_hash(typed(compose([*base, "engine=vllm"])))
    more_actors = config_hash(typed(compose([*base, "engine=simulated", "engine.actors=3"])))
    assert sim != real  # simulated shards are never resumed as real ones
    assert sim == more_actors  # speed-only fields keep a resumable key


def _write_problems(path, pairs):
    path.write_text("".join(json.dumps({"question": f"What is {a} + {b}?", "answer": str(a + b)})
                            + "\n" for a, b in pairs))
    return path


def _chains(path):
    df = _rows(path).sort("chain_id")
    return list(zip(df["chain_id"], df["completions"].to_list(), df["labels"].to_list(),
                    strict=True))


def test_refresh_by_content_labels_only_new_problems(tmp_path):
    """Delete 2, insert 3 at random places, shuffle: the refresh copies the rest (whole units
    or the remaining rows of a unit), labels only the 3, and equals a fresh run on the input."""
    rng = random.Random(0)
    pairs = [(a, a + 7) for a in range(30)]
    a = _write_problems(tmp_path / "a.jsonl", pairs)
    changed = rng.sample(pairs, 28) + [(100, 1), (200, 2), (300, 3)]
    rng.shuffle(changed)
    b = _write_problems(tmp_path / "b.jsonl", changed)
    common = ("dataset=generic", "output.problems_per_unit=4", "sampler.n=2")
    _job(tmp_path, *common, f"dataset.path={a}", name="v1")
    v2 = _job(tmp_path, *common, f"dataset.path={b}", f"output.previous={tmp_path / 'v1'}",
              name="v2")
    fresh = _job(tmp_path, *common, f"dataset.path={b}", name="fresh")
    refresh = v2["lineage"]["refresh"]
    assert refresh["new"] == 1 and refresh["problems_labeled"] == 3
    assert refresh["shrunk"] >= 1 and refresh["same"] + refresh["shrunk"] == 8 - 0
    assert v2["units_reused"] == 8 and v2["unit_cutting"] == "content"
    assert v2["counts"] == fresh["counts"]
    assert v2["counts"]["problems_in"] == 31
    assert _chains(tmp_path / "v2") == _chains(tmp_path / "fresh")
    old = dict((c, (s, lab)) for c, s, lab in _chains(tmp_path / "v1"))
    kept = [(c, (s, lab)) for c, s, lab in _chains(tmp_path / "v2") if c in old]
    assert len(kept) == 28 * 2 and all(old[c] == x for c, x in kept)


def test_unit_counts_can_be_read_back_from_the_shards(tmp_path):
    """A refresh that copies part of a unit recounts from its rows: the recount must give
    what the labeler counted (here with chains quarantined at split and the whole problem)."""
    from labeling.schema import LABELED_SCHEMA, QUARANTINE_SCHEMA
    from labeling.shards import DatasetDir, read_shard
    from pipelines.label.reuse import counts_of

    m = _job(tmp_path, "dataset.limit=12", "sampler.n=3", "output.problems_per_unit=4",
             "split.max_steps=3")
    out = DatasetDir(tmp_path / "out")
    assert m["counts"].get("chains_quarantined", 0) > 0
    for rec in out.done_units().values():
        rows = read_shard(out.root / rec.shard) if rec.shard else LABELED_SCHEMA.empty_table()
        quar = read_shard(out.root / rec.quarantine) if rec.quarantine else \
            QUARANTINE_SCHEMA.empty_table()
        counts, tokens = counts_of(rows, quar, 3)
        assert {k: v for k, v in counts.items() if v} == {k: v for k, v in rec.counts.items()
                                                          if v}
        assert {k: v for k, v in tokens.items() if v} == {k: v for k, v in rec.tokens.items()
                                                          if v}


def test_resuming_a_dir_of_other_units_says_so(tmp_path, caplog):
    from labeling.shards import DatasetDir

    m = _job(tmp_path, "dataset.limit=8", "output.problems_per_unit=4")
    out = DatasetDir(tmp_path / "out")
    for rec in out.done_units().values():  # as an older version's input-order keys would be
        rec.key = "0" * 16
        out.write_record(rec)
    with caplog.at_level("WARNING", logger="prm-label"):
        again = _job(tmp_path, "dataset.limit=8", "output.problems_per_unit=4")
    said = [r.getMessage() for r in caplog.records if "match none" in r.getMessage()]
    assert len(said) == 1 and "all of them will be labeled" in said[0]
    assert again["units_reused"] == 0 and again["counts"] == m["counts"]


def test_runs_with_other_sampler_settings_share_no_chain(tmp_path):
    """Chain ids carry the text: a diff of two runs with another sampler seed pairs only
    chains with the same completions, never 'in both with changed labels' across texts."""
    from labeling.report.diff import diff_stats

    _job(tmp_path, "dataset.limit=4", "sampler.n=2", name="a")
    _job(tmp_path, "dataset.limit=4", "sampler.n=2", "sampler.seed=7", "sampler.max_tokens=64",
         name="b")
    a, b = _rows(tmp_path / "a"), _rows(tmp_path / "b")
    same_text = {(p, tuple(c)) for p, c in zip(a["problem_id"], a["completions"].to_list(),
                                                strict=True)} & \
        {(p, tuple(c)) for p, c in zip(b["problem_id"], b["completions"].to_list(), strict=True)}
    d = diff_stats(tmp_path / "b", tmp_path / "a")
    assert d["both"] == len(same_text) < a.height
    assert d["added"] == b.height - d["both"] and d["removed"] == a.height - d["both"]
    assert d["labels_changed"] == 0
    # The same run again pairs every chain.
    _job(tmp_path, "dataset.limit=4", "sampler.n=2", name="a2")
    again = diff_stats(tmp_path / "a2", tmp_path / "a")
    assert again["both"] == a.height and again["added"] == again["removed"] == 0


def test_a_failed_unit_says_what_was_raised_inside():
    """A Ray task error's first line names the actor only; the reason keeps the exception
    raised inside (its last line) as well."""
    from pipelines.unit_job import failure

    ray_like = RuntimeError("ray::UnitLabeler.label() (pid=1, ip=192.0.2.2)\n  File x, line 3\n"
                            "MemoryError: the verifier ran out of memory")
    assert failure(ray_like) == ("ray::UnitLabeler.label() (pid=1, ip=192.0.2.2) ... MemoryError: "
                                 "the verifier ran out of memory")
    assert failure(ValueError("one line")) == "one line"
    assert failure(KeyError()) == "KeyError()"


def test_the_question_rollouts_leave_with_the_sampling_and_reach_the_labeler(tmp_path,
                                                                            monkeypatch):
    """MC's bare-question requests go out with the unit's sampling requests
    (`pipelines.label.questions`), the labeler's MC uses their completions instead of asking
    again, and the shards are those of a run where MC asks for them itself."""
    from pipelines.engine.completer import EngineCompleter
    from pipelines.label import job as job_module
    from pipelines.label.unit import UnitLabeler

    given: list = []
    label = UnitLabeler.label

    def spy_label(self, problems, samples, questions=None):
        given.append(questions)
        return label(self, problems, samples, questions)

    asked_by_mc: list = []  # every request MC's verifier sends through its completer
    submit, complete = EngineCompleter.submit, EngineCompleter.complete

    def spy_submit(self, requests):
        asked_by_mc.extend(requests)
        return submit(self, requests)

    def spy_complete(self, requests):
        asked_by_mc.extend(requests)
        return complete(self, requests)

    monkeypatch.setattr(UnitLabeler, "label", spy_label)
    monkeypatch.setattr(EngineCompleter, "submit", spy_submit)
    monkeypatch.setattr(EngineCompleter, "complete", spy_complete)
    mc = ["labels=[answer,mc]", "labels/mc=absolute", "labels.mc.k=2",
          "labels.mc.self_rollouts=3", "dataset.limit=5", "sampler.n=2",
          "output.problems_per_unit=3"]
    a = _job(tmp_path, *mc, name="a")
    assert len(given) == 2 and all(q is not None for q in given)
    assert sorted(len(q) for q in given) == [2, 3]  # one entry per problem of the unit
    assert all(len(c) == 3 for q in given for c in q.values())
    assert asked_by_mc and all(r.prefix for r in asked_by_mc)  # probes only, no question
    sc = _rows(tmp_path / "a")["mc_self_confidence"].to_list()
    assert all(s["rollouts"] == 3 for s in sc)

    # MC asking for them itself: the same rows
    monkeypatch.setattr(job_module, "mc_question_requests", lambda cfg, problems: [])
    given.clear()
    asked_by_mc.clear()
    b = _job(tmp_path, *mc, name="b")
    assert given == [None, None]
    assert sum(not r.prefix for r in asked_by_mc) == 5  # one question request per problem
    assert [s["sha256"] for s in a["shards"]] == [s["sha256"] for s in b["shards"]]


def test_the_jobs_question_requests_are_the_verifiers_own():
    """The job builds MC's question requests from the config; the labeler's verifier would
    send the very same ones (seeds included), so their completions are interchangeable."""
    from labeling.schema import Problem
    from pipelines.label.app import typed
    from pipelines.label.questions import mc_question_requests
    from pipelines.label.sources import build_sources
    from tests.fakes import FakeCompleter

    cfg = typed(compose(["labels=[answer,mc]", "labels.mc.self_rollouts=5",
                         "labels.mc.temperature=0.9", "sampler.seed=7"]))
    problems = [Problem(f"p{i}", "math", "t", f"What is {i} + 1?", reference=str(i + 1))
                for i in range(3)]
    mc = build_sources(cfg, "math", FakeCompleter(lambda r: 0.5))["mc"]
    job_side = mc_question_requests(cfg, problems + problems[:1])  # each problem once
    assert job_side == [mc.question_request(p) for p in problems]
    assert [r.key for r in job_side] == ["p0", "p1", "p2"]
    assert {r.n for r in job_side} == {5} and {r.temperature for r in job_side} == {0.9}
    assert len({r.seed for r in job_side}) == 3
    none = typed(compose(["labels=[answer,mc]", "labels.mc.self_rollouts=0"]))
    assert mc_question_requests(none, problems) == []
    assert mc_question_requests(typed(compose(["labels=[answer]"])), problems) == []
    # No reference and no tests: the rollouts could not be judged, so none are sent.
    bare = Problem("q", "math", "t", "What is 2 + 2?", reference="")
    assert [r.key for r in mc_question_requests(cfg, [bare, *problems[:1]])] == ["p0"]
