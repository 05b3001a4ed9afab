"""The judge in the label job: config (compose, validate), shards with judge columns, the
consensus filter's quarantine and kept share, and the judge's own engine pool."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from labeling.combine import Policy
from pipelines.cli import ConfigError
from pipelines.generation_config import ModelConfig
from pipelines.label.app import run, typed
from tests.conftest import compose

BASE = ["engine=simulated", "ray=inprocess", "output.report=false"]
JUDGE = ["labels=[answer,calc,mc,judge]", "labels.policy=consensus",
         "labels.consensus=[mc,judge]"]


def test_the_done_when_command_composes():
    cfg = typed(compose([*JUDGE, "model=qwen_coder_0_5b", "dataset.limit=2", *BASE]))
    assert cfg.labels.policy == Policy.consensus
    assert cfg.labels.consensus == ["mc", "judge"]
    j = cfg.labels.judge
    assert (j.votes, j.max_tokens, j.model.name) == (3, 512, "")
    assert j.own_model(cfg.model) is None  # the sampler's model, the sampler's pool
    assert cfg.model.name == "Qwen2.5-Coder-0.5B-Instruct" and cfg.model.path == ""
    assert cfg.model.dtype == "float32" and "judge" in cfg.labels.enabled()


def test_a_judge_model_of_its_own_composes():
    cfg = typed(compose(["labels=[judge]", "labels.policy=judge", *BASE,
                         "labels.judge.model.name=Qwen2.5-Coder-0.5B-Instruct",
                         "labels.judge.votes=5"]))
    assert isinstance(cfg.labels.judge.model, ModelConfig)
    assert cfg.labels.judge.own_model(cfg.model).name == "Qwen2.5-Coder-0.5B-Instruct"
    assert cfg.labels.judge.votes == 5


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["labels=[answer,calc]", "labels.policy=judge"], "labels.policy=judge needs the judge"),
        (["labels=[answer,mc]", "labels.policy=consensus", "labels.consensus=[mc,judge]"],
         "add judge to labels"),
        (["labels=[answer,mc,judge]", "labels.policy=consensus", "labels.consensus=[mc,answer]"],
         "labels.consensus cannot use answer"),
        (["labels=[mc,judge]", "labels.policy=consensus", "labels.consensus=[mc,mc]"],
         "two or more different sources"),
        (["labels=[judge]", "labels.judge.votes=0"], "labels.judge.votes=0 must be > 0"),
        (["labels=[judge]", "labels.judge.temperature=0"], "greedy votes are all the same"),
    ],
)
def test_wrong_judge_settings_fail_at_start(overrides, message):
    with pytest.raises(ConfigError, match=message):
        typed(compose([*overrides, *BASE]))


def test_shards_carry_judge_columns_and_the_consensus_share(tmp_path):
    """Simulated engine: its text answers the critic with a random \\boxed{n}, so some votes
    parse and most do not; both paths must reach the shards and the quarantine. One vote per
    chain: with more, a majority of all votes (abstentions counted) rarely parses here."""
    out = tmp_path / "run"
    # The simulated critic boxes a random number in 0..60, so few votes are a valid index;
    # 30 problems give chains that agree with MC and chains that do not (seeded: stable).
    # The simulated engine's text never reaches an answer from the bare question, so the
    # default MC rule (posterior, like fall) rightly labels nothing there; the absolute rule
    # labels steps for the consensus to compare.
    m = run(compose([*JUDGE, "labels.judge.votes=1", "dataset.limit=30", "sampler.n=3", *BASE,
                     "labels/mc=absolute", f"output.dir={out}"]))
    f = m["filter"]
    assert f["policy"] == "consensus" and f["consensus"] == ["mc", "judge"]
    assert f["chains_kept"] + f["chains_dropped"] == m["counts"]["chains_sampled"] == 90
    assert f["kept_share"] == pytest.approx(f["chains_kept"] / 90, abs=1e-4)
    assert json.loads((out / "manifest.json").read_text())["filter"] == f
    rows = [r for s in m["shards"] for r in pq.read_table(out / s["path"]).to_pylist()]
    assert len(rows) == f["chains_kept"] > 0
    for r in rows:
        n = len(r["completions"])
        assert len(r["judge_labels"]) == len(r["judge_scores"]) == n
        judge = [v for v in r["verdicts"] if v["source"] == "judge"]
        assert judge and all(v["status"] in ("correct", "incorrect") for v in judge)
        mc_first = next((i for i, x in enumerate(r["mc_labels"]) if x is False), -1)
        judge_first = next((i for i, x in enumerate(r["judge_labels"]) if x is False), -1)
        assert judge_first == mc_first or mc_first == -1 and judge_first == -1
        assert r["rollout_tokens"] > 0  # judge tokens are counted with the rollouts
    q = [r for p in m["quarantine"] for r in pq.read_table(out / p["path"]).to_pylist()]
    dropped = [r for r in q if r["stage"] == "filter"]
    assert len(dropped) == f["chains_dropped"] > 0
    assert all(r["reason"].startswith(("first errors disagree: mc", "judge gave no label",
                                       "judge left step"))
               for r in dropped)


class _Pool:
    made: list = []

    def __init__(self, path, model, engine, ray_cfg, **kwargs):
        self.path = path
        self.cpu_share = kwargs.get("cpu_share", 1.0)
        _Pool.made.append(self)


def test_the_judge_gets_its_own_pool_only_for_another_model(monkeypatch, tmp_path):
    import pipelines.unit_job as pool_module  # where the job looks the pool class up
    from pipelines.label.job import LabelJob

    monkeypatch.setattr(pool_module, "EnginePool", _Pool)
    _Pool.made = []
    same = LabelJob(typed(compose(["labels=[judge]", *BASE, f"output.dir={tmp_path}/a"])))
    critic = same._critic()
    assert critic.pool is same.pool and len(_Pool.made) == 1
    assert _Pool.made[0].cpu_share == 1.0  # one pool: every core

    other_dir = tmp_path / "judge-model"
    other = LabelJob(typed(compose([
        "labels=[judge]", *BASE, "engine=vllm", f"output.dir={tmp_path}/b",
        f"labels.judge.model.path={other_dir}", "labels.judge.model.name=big-judge",
    ])))
    other_dir.mkdir()
    critic = other._critic()
    assert [critic.pool] == [pool for _, pool in other.own_pools] and other.pool is None
    assert critic.model_name == "big-judge" and _Pool.made[-1].path == str(other_dir)
    # Two models on CPU engines: each pool plans on half of every node's cores.
    assert _Pool.made[-1].cpu_share == 0.5 and other._cpu_share() == 0.5


def test_a_judge_and_a_completer_of_the_same_model_share_one_pool(monkeypatch, tmp_path):
    import pipelines.unit_job as pool_module  # where the job looks the pool class up
    from pipelines.label.job import LabelJob

    monkeypatch.setattr(pool_module, "EnginePool", _Pool)
    _Pool.made = []
    other_dir = tmp_path / "big"
    other_dir.mkdir()
    big = [f"labels.judge.model.path={other_dir}", "labels.judge.model.name=big",
           f"labels.mc.model.path={other_dir}", "labels.mc.model.name=big"]
    job = LabelJob(typed(compose(["labels=[judge,mc]", *BASE, "engine=vllm",
                                  f"output.dir={tmp_path}/c", *big])))
    critic, completer = job._critic(), job._completer()
    assert critic.pool is completer.pool and len(job.own_pools) == 1
    assert job._cpu_share() == 0.5  # the sampler's pool and one other
    third = LabelJob(typed(compose([
        "labels=[judge,mc]", *BASE, "engine=vllm", f"output.dir={tmp_path}/d", *big[:2],
        f"labels.mc.model.path={other_dir}", "labels.mc.model.name=bigger"])))
    assert third._critic().pool is not third._completer().pool
    assert third._cpu_share() == pytest.approx(1 / 3)  # three models: a third each


@pytest.mark.ray
@pytest.mark.engine
def test_the_judge_on_the_real_engine(tmp_path, tiny_model_dir, ray_runtime):
    """vLLM on Ray samples chains and answers the critic prompts (a random tiny model: its
    critiques do not parse, so every judge verdict is an `error` with the text as evidence,
    and the judge policy leaves the labels empty). Tokens are counted all the same."""
    out = tmp_path / "run"
    m = run(compose([
        "model=local", f"model.path={tiny_model_dir}", "model.name=tiny-llama",
        "model.max_model_len=1024", "dataset.limit=2", "sampler.n=2",
        "sampler.max_tokens=24", "ray.num_cpus=2", "labels=[answer,judge]",
        "labels.policy=judge", "labels.judge.max_tokens=16", "labels.judge.votes=2",
        f"output.dir={out}", "output.report=false",
    ]))
    rows = [r for s in m["shards"] for r in pq.read_table(out / s["path"]).to_pylist()]
    assert rows and m["filter"]["kept_share"] == 1.0
    for r in rows:
        judge = [v for v in r["verdicts"] if v["source"] == "judge"]
        assert len(judge) == len(r["completions"])
        assert all(v["status"] == "error" and "unparsable critic answer" in v["evidence"]
                   for v in judge)
        assert r["judge_labels"] == [None] * len(r["completions"]) == r["labels"]
        assert r["rollout_tokens"] > 0
