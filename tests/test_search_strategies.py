"""Search strategies, the lockstep driver and the prm-search job, with a fake generator and
a fake PRM (tests/search_fakes.py): no engine, no model, no Ray."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from functools import partial

import pytest

from labeling.engine_request import EngineRequest
from labeling.engine_result import EngineResult
from labeling.prm.search import Aggregation, PRMScoreError
from labeling.steps.splitters import split_steps
from pipelines.cli import ConfigError
from pipelines.search import registry
from pipelines.search.config import validate
from pipelines.search.driver import Task, run_tasks
from pipelines.search.job import SearchJob, final_answer, states_answer
from pipelines.search.strategies import (
    SAMPLING,
    TreeParams,
    sampling,
    tree_search,
)
from tests.search_fakes import RIGHT, FakeGenerator, FakePRM

SPLIT = partial(split_steps, mode="auto")
AGGS = [Aggregation.last, Aggregation.min]


class RecordingGenerator(FakeGenerator):
    """Keeps every round's requests and counts every token it generated."""

    def __init__(self, right_share: float = 0.3) -> None:
        super().__init__(right_share)
        self.rounds: list[list[EngineRequest]] = []
        self.tokens = 0

    def submit(self, requests):
        self.rounds.append(list(requests))
        out = super().submit(requests)
        self.tokens += sum(s.tokens for samples in out for s in samples)
        return out


def run_one(co, gen=None, prm=None):
    gen = gen or RecordingGenerator()
    prm = prm or FakePRM()
    (decisions,) = run_tasks([Task(co, "q", "problem p")], gen, prm)
    return decisions, gen, prm


def base(seed=7, max_tokens=400):
    """The problem's request: one user message, the chain's token cap, the search's seed."""
    return EngineRequest.user("q", n=1, seed=seed, max_tokens=max_tokens, temperature=0.8)


def tree(p, dvts=False):
    params, request = p
    return tree_search(params, request, dvts, SPLIT, final_answer, states_answer)


def params(budget, width=4, depth=4, seed=7):
    return TreeParams(budget, width, depth, 50, "\n\n", Aggregation.last), base(seed)


def test_sampling_reuses_one_draw_and_counts_only_the_first_n():
    co = sampling(base(11), [1, 4, 8], SPLIT, final_answer, AGGS, SAMPLING)
    decisions, gen, prm = run_one(co)
    samples = gen.submit([replace(base(11), n=8)])[0]  # the same draw again
    assert len(gen.rounds) == 2 and gen.rounds[0][0].n == 8  # one request for every budget
    by = {(d.strategy, d.aggregation, d.budget): d for d in decisions}
    assert len(by) == 3 * (1 + 2 * len(AGGS))
    for n in (1, 4, 8):
        assert by["majority", "", n].tokens == sum(s.tokens for s in samples[:n])
        assert by["majority", "", n].prm_calls == 0
        assert by["best_of_n", "last", n].prm_calls == n
        any_right = any(final_answer(s.text) == RIGHT for s in samples[:n])
        # the fake PRM scores a step with the right answer highest: best-of-N finds it
        assert (by["best_of_n", "last", n].answer == RIGHT) == any_right
    assert prm.items == 8  # every chain scored once, reused by every budget


def test_beam_search_shape_tokens_and_calls():
    decisions, gen, prm = run_one(tree(params(8)))
    (d,) = decisions
    assert (d.strategy, d.budget) == ("beam", 8)
    assert [(g.n, g.stop) for g in gen.rounds[0]] == [(8, ("\n\n",))]  # N first steps
    for later in gen.rounds[1:]:
        assert len(later) <= 2 and all(g.n == 4 for g in later)  # N/M beams, M children
    assert d.tokens == gen.tokens and d.prm_calls == prm.items
    assert d.rounds == len(gen.rounds) <= 4
    assert d.candidates >= 1 and d.answer == final_answer(d.text)


def test_dvts_runs_independent_subtrees():
    decisions, gen, _ = run_one(tree(params(8), dvts=True))
    (d,) = decisions
    assert d.strategy == "dvts"
    assert [g.n for g in gen.rounds[0]] == [4, 4]  # N/M subtrees, M first steps each
    assert len({g.seed for g in gen.rounds[0]}) == 2  # different draws per subtree
    for later in gen.rounds[1:]:
        assert len(later) <= 2 and all(g.n == 4 for g in later)  # one live beam per subtree


def test_last_round_completes_every_chain():
    gen = RecordingGenerator(right_share=0.0)
    decisions, gen, _ = run_one(tree(params(4, depth=1)), gen)
    (g,) = gen.rounds[0]
    assert g.stop == () and g.max_tokens == 400  # no step stop, the whole chain's budget
    assert decisions[0].candidates == 4 and decisions[0].answer is not None


def test_beam_with_one_round_is_best_of_n():
    """With max_depth=1 beam search samples N whole chains and keeps the best scored one."""
    (beam,), gen, _ = run_one(tree(params(8, depth=1)))
    (samples,) = FakeGenerator().submit([gen.rounds[0][0]])
    assert beam.candidates == 8
    assert (beam.answer == RIGHT) == any(final_answer(s.text) == RIGHT for s in samples)
    assert beam.score == max(FakePRM().score_many([("q", SPLIT(s.text))])[0][-1]
                             for s in samples)  # fmt: skip


def test_lockstep_batches_every_task_of_a_round_together():
    gen = RecordingGenerator()
    tasks = [Task(tree(params(4, seed=s)), "q", f"t{s}")
             for s in range(5)]  # fmt: skip
    run_tasks(tasks, gen, FakePRM())
    assert len(gen.rounds[0]) == 5  # the first round of all five searches in one submit


def test_results_are_deterministic():
    a = run_one(tree(params(8), dvts=True))[0]
    b = run_one(tree(params(8), dvts=True))[0]
    assert a == b


@pytest.mark.parametrize("bad", [None, math.nan, 2.0])
def test_a_broken_prm_stops_the_search_with_one_sentence(bad):
    with pytest.raises(PRMScoreError, match=r"problem p") as info:
        run_one(tree(params(4)), prm=FakePRM(broken=bad))
    assert "\n" not in str(info.value)


def test_a_prm_that_drops_chains_is_an_error():
    class Dropping(FakePRM):
        def score_many(self, items):
            return super().score_many(items)[:-1]

    with pytest.raises(PRMScoreError, match="score lists for"):
        run_one(tree(params(4)), prm=Dropping())


def test_an_engine_that_returns_fewer_samples_is_an_error():
    class Short(FakeGenerator):
        def submit(self, requests):
            return [s[:-1] for s in super().submit(requests)]

    with pytest.raises(ValueError, match="instead of 4"):
        run_one(tree(params(4)), gen=Short())


# --- the job, with the fakes injected -------------------------------------------------------


def job_cfg(out, **search):
    from pipelines.search.app import typed

    return typed({
        "dataset": {"name": "builtin_math", "limit": 3},
        "ray": {"enabled": False},
        "prm": {"checkpoint": "fake"},
        "search": {"budgets": [1, 4], "aggregations": ["last", "min"], "max_depth": 3,
                   **search},
        "sampler": {"max_tokens": 200},
        "output": {"dir": str(out), "problems_per_unit": 2},
    })  # fmt: skip


def test_job_writes_rows_manifest_report_and_resumes(tmp_path):
    cfg = job_cfg(tmp_path / "a")
    gen = RecordingGenerator()
    m = SearchJob(cfg, gen, FakePRM()).run()
    assert m["tokens"]["generated"] == gen.tokens  # the shared sample counted once
    per_problem = 2 * (1 + 2 * 2) + 2 + 2  # sampling rows + beam + dvts, two budgets
    assert m["counts"]["rows"] == 3 * per_problem and m["units"] == 2
    assert m["counts"]["problems_in"] == 3 == m["counts"]["problems_searched"]
    assert {(r["strategy"], r["budget"]) for r in m["summary"]} >= {("beam", 4), ("dvts", 1)}
    assert "<img" in (tmp_path / "a" / "report.html").read_text()
    from pipelines.search.output import read_rows

    rows = read_rows(tmp_path / "a")
    assert all(isinstance(r["correct"], bool) for r in rows)
    assert all(r["generated_tokens"] > 0 for r in rows)
    again = SearchJob(cfg, FakeGenerator(), FakePRM()).run()
    assert again["units_reused"] == 2
    other = SearchJob(job_cfg(tmp_path / "b"), FakeGenerator(), FakePRM()).run()
    assert [s["sha256"] for s in other["shards"]] == [s["sha256"] for s in m["shards"]]
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["summary"] == m["summary"]


def test_search_units_follow_the_content_not_the_input_order(tmp_path):
    """prm-search runs on prm-label's driver: units are cut by content, and the input file's
    place is not part of a unit's key, so the same problems in another order, in another
    file, resume every unit."""
    problems = [{"question": f"What is {i} + {i}?", "answer": f"{i}+{i}={2 * i}\n#### {2 * i}"}
                for i in range(1, 7)]  # fmt: skip

    def run_on(records, name):
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        cfg = job_cfg(tmp_path / "out", strategies=["majority"])
        cfg.prm.backend = cfg.prm.backend.none
        cfg.dataset.name, cfg.dataset.path, cfg.dataset.limit = "gsm8k", str(path), None
        return SearchJob(cfg, FakeGenerator(), None).run()

    first = run_on(problems, "a.jsonl")
    assert first["units"] == 3 and first["units_reused"] == 0
    again = run_on(problems[::-1], "b.jsonl")
    assert again["units_reused"] == 3 and again["counts"] == first["counts"]


def test_job_with_majority_only_needs_no_prm(tmp_path):
    cfg = job_cfg(tmp_path, strategies=["majority"])
    cfg.prm.backend = cfg.prm.backend.none
    m = SearchJob(cfg, FakeGenerator(), None).run()
    assert {r["strategy"] for r in m["summary"]} == {"majority"}


def check_strategy_alone(out, name: str) -> None:
    """Strategy `name` alone writes rows (every problem, every budget) and only its own:
    `search.strategies=[best_of_n]` must not also write weighted_vote rows (nor the reverse);
    the sampling strategies share one sample, not one switch."""
    from pipelines.search.output import read_rows

    cfg = job_cfg(out, strategies=["majority"])
    cfg.search.strategies = [name]  # set after typing: a toy strategy is not in the enum
    validate(cfg)
    m = SearchJob(cfg, FakeGenerator(), FakePRM()).run()
    rows = read_rows(out)
    assert {r["strategy"] for r in rows} == {name} == {r["strategy"] for r in m["summary"]}
    assert {(r["problem_id"], r["budget"]) for r in rows} == {
        (p, n) for p in {r["problem_id"] for r in rows} for n in cfg.search.budgets}
    assert len({r["problem_id"] for r in rows}) == m["counts"]["problems_searched"] == 3


@pytest.mark.parametrize("name", registry.names())
def test_each_strategy_alone_writes_only_its_own_rows(tmp_path, name):
    check_strategy_alone(tmp_path, name)


def test_the_config_offers_exactly_the_registered_strategies():
    from pipelines.search.config import SearchSection, Strategy

    assert list(Strategy.__members__) == list(registry.names())
    assert SearchSection().strategies == list(Strategy)


def test_best_of_n_and_weighted_vote_together_write_both(tmp_path):
    cfg = job_cfg(tmp_path, strategies=["best_of_n", "weighted_vote"])
    m = SearchJob(cfg, FakeGenerator(), FakePRM()).run()
    assert {(r["strategy"], r["aggregation"]) for r in m["summary"]} == {
        (s, a) for s in ("best_of_n", "weighted_vote") for a in ("last", "min")}


@pytest.mark.parametrize(
    ("override", "fragment"),
    [
        ({"prm": {"backend": "none"}}, "need a PRM"),
        ({"search": {"budgets": [6]}}, "not multiples of search.width=4"),
        ({"search": {"budgets": []}}, "search.budgets"),
        ({"prm": {"checkpoint": ""}}, "prm.checkpoint is empty"),
    ],
)
def test_config_mistakes_are_one_sentence(override, fragment):
    from pipelines.search.app import typed

    base = {"prm": {"checkpoint": "x"}}
    for k, v in override.items():
        base[k] = {**base.get(k, {}), **v}
    with pytest.raises(ConfigError, match=fragment):
        typed(base)


def test_a_typo_in_an_enum_exits_2(capsys):
    from pipelines.confdir import CONF_DIR
    from pipelines.precheck import compose_or_explain
    from pipelines.search.config import register

    register()
    with pytest.raises(SystemExit) as info:
        compose_or_explain("prm-search", CONF_DIR, "search", ["search.strategies=[beem]"])
    assert info.value.code == 2
    assert "beem" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("step", "ends"),
    [("So the answer is \\boxed{12}.", True), ("#### 12", True), ("The answer is 12.", True),
     ("Step 2: we add 3 and 9 to get 12.", False), ("", False)],
)  # fmt: skip
def test_only_a_stated_answer_ends_a_beam(step, ends):
    assert states_answer(step) is ends


def test_beam_search_goes_deeper_than_one_step():
    (d,), gen, _ = run_one(tree(params(8)))
    assert d.rounds == len(gen.rounds) >= 2
    assert any(g.prefix for g in gen.rounds[1])  # later rounds continue earlier steps


def test_a_backend_failure_becomes_one_sentence():
    from pipelines.search.prm import BackendScorer

    class Down:
        def score_many(self, items):
            raise RuntimeError("http://127.0.0.1:9/pooling answered 503: busy\ntraceback...")

    with pytest.raises(PRMScoreError, match="server x.*answered 503: busy$"):
        BackendScorer(Down(), "server x").score_many([("q", ["a"])])


def test_load_prm_refuses_a_missing_checkpoint(tmp_path):
    from pipelines.search.config import PRMBackend, PRMConfig
    from pipelines.search.prm import load_prm

    assert load_prm(PRMConfig(backend=PRMBackend.none)) is None
    with pytest.raises(ConfigError, match="is not a directory"):
        load_prm(PRMConfig(checkpoint=str(tmp_path / "nope")))


def test_a_prompt_too_long_gives_empty_finished_candidates():
    class TooLong(FakeGenerator):
        def submit(self, items):
            return [list(EngineResult.too_long().completions) for _ in items]

    (d,), _, _ = run_one(tree(params(4)), gen=TooLong())
    assert (d.answer, d.tokens, d.candidates, d.rounds) == (None, 0, 4, 1)


def test_job_ends_with_its_table_and_where_the_results_are(tmp_path, capsys):
    cfg = job_cfg(tmp_path / "a")
    m = SearchJob(cfg, FakeGenerator(), FakePRM()).run()
    out = capsys.readouterr().out
    assert f"prm-search: {m['counts']['problems_searched']} problems searched" in out
    assert str(tmp_path / "a" / "manifest.json") in out and "report.html" in out
    table = [line for line in out.splitlines() if line.startswith("  beam ")]
    assert len(table) == len({r["budget"] for r in m["summary"] if r["strategy"] == "beam"})
    SearchJob(cfg, FakeGenerator(), FakePRM()).run()
    assert f"{m['units']} of {m['units']} units reused" in capsys.readouterr().out
