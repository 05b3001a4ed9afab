"""No reward for saying nothing, on every path: the hostile completions of
tests/hostile_completions.py (empty, tags only, unfinished thinking, no answer, thousands of
steps, huge numbers, unicode junk...) through TRL's callable, verl's `compute_score_batch`
and prm-reward-server (OpenRLHF's request), with and without a reference, over a real tiny
checkpoint. Saying nothing earns at most the empty reward; a right solution earns more; the
caps bound the work and the stats say what they cut. Timing: benchmarks/bench_reward_hostile.py.
"""

from __future__ import annotations

import math

import pytest
import requests

from labeling.prm.reward import Note
from pipelines.cli import ConfigError
from pipelines.reward import PRMReward, reward_config, verl_reward
from pipelines.reward.config import ServerConfig
from pipelines.reward.server import RewardServer
from pipelines.serve.server import free_port
from tests.hostile_completions import HOSTILE, PROMPT, REFERENCE, SOLUTION

NAMES = [*HOSTILE, "solution"]
TEXTS = [*HOSTILE.values(), SOLUTION]
# Completions that say nothing checkable: never above the empty reward, on any path.
NOTHING = ["empty", "whitespace", "only_think", "only_tags", "unfinished", "no_answer",
           "end_tokens", "nested_think", "answer_only_in_thinking"]  # fmt: skip
CHATML = "<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n"


def _trl(reward, refs):
    fn = reward.trl(reference="answer")
    kwargs = {"answer": refs} if refs else {}
    return fn(prompts=[PROMPT] * len(TEXTS), completions=TEXTS, **kwargs)


def _verl(reward, refs):
    infos = [{"question": PROMPT}] * len(TEXTS)
    return verl_reward.compute_score_batch(["math"] * len(TEXTS), TEXTS,
                                           refs or [None] * len(TEXTS), infos,
                                           checkpoint=reward.cfg.checkpoint)  # fmt: skip


def _server(reward, refs, whole=False):
    prompt = CHATML.format(q=PROMPT)
    body = {"query": [prompt + t + "<|im_end|>" for t in TEXTS], "prompts": [prompt] * len(TEXTS)}
    if refs:
        body["labels"] = refs
    with RewardServer(reward, ServerConfig(port=free_port())) as s:
        resp = requests.post(s.url + "/get_reward", json=body, timeout=600)
    assert resp.status_code == 200, resp.text
    return resp.json() if whole else resp.json()["rewards"]


@pytest.mark.parametrize("path", [_trl, _verl, _server], ids=["trl", "verl", "openrlhf"])
@pytest.mark.parametrize("with_reference", [True, False], ids=["reference", "no_reference"])
def test_saying_nothing_never_out_earns_a_solution(prm_ckpt, path, with_reference):
    reward = PRMReward.load(prm_ckpt)
    empty = reward.cfg.empty_reward
    got = dict(zip(NAMES, path(reward, [REFERENCE] * len(TEXTS) if with_reference else None),
                   strict=True))  # fmt: skip
    assert all(isinstance(v, float) and math.isfinite(v) for v in got.values()), got
    for name in NOTHING:
        assert got[name] <= empty, (name, got)
    assert got["solution"] > empty and got["solution"] > max(got[n] for n in NOTHING)
    if with_reference:  # the right answer counts by default: at least w = 0.5 of the reward
        assert got["solution"] >= reward.cfg.outcome_weight > 0.0


def test_the_same_rewards_on_every_path(prm_ckpt):
    reward = PRMReward.load(prm_ckpt)
    refs = [REFERENCE] * len(TEXTS)
    trl = _trl(reward, refs)
    assert _verl(reward, refs) == pytest.approx(trl, abs=1e-6)
    body = _server(reward, refs, whole=True)
    assert body["rewards"] == pytest.approx(trl, abs=1e-6)
    failed = [n in ("unfinished", "no_answer", "nested_think", "answer_only_in_thinking")
              for n in NAMES]  # fmt: skip
    assert body["extra_logs"]["prm_format_failure"] == [float(x) for x in failed]


def test_format_failures_are_named_and_never_scored(prm_ckpt):
    reward = PRMReward.load(prm_ckpt)
    got = dict(zip(NAMES, reward.score([PROMPT] * len(TEXTS), TEXTS), strict=True))
    assert got["only_think"].note is Note.no_steps and got["only_tags"].note is Note.no_steps
    assert got["unfinished"].note is Note.unfinished
    assert got["answer_only_in_thinking"].note is Note.unfinished
    assert got["no_answer"].note is Note.no_answer and got["nested_think"].note is Note.no_answer
    for name in ("unfinished", "no_answer", "nested_think"):
        assert got[name].steps == () and got[name].prm is None
    assert reward.stats["unfinished"] == 2 and reward.stats["no_answer"] == 2
    assert got["solution"].note is Note.scored and got["solution"].prm is not None


def test_the_format_rule_and_the_outcome_are_options(prm_ckpt):
    off = PRMReward.load(prm_ckpt, format_rule="off", outcome_weight=0.0)
    [think, solved] = off.score([PROMPT] * 2, ["<think>\nLet me see. 12 * 7", SOLUTION],
                                [REFERENCE] * 2)  # fmt: skip
    assert think.note is Note.scored and think.reward == think.prm  # the PRM alone
    assert solved.outcome is None and solved.reward == solved.prm  # the reference ignored
    lenient = PRMReward.load(prm_ckpt, format_rule="thinking")
    [words] = lenient.score([PROMPT], [HOSTILE["no_answer"]])
    assert words.note is Note.scored  # only unclosed thinking fails this rule
    with pytest.raises(ConfigError, match="format_reward.*empty_reward"):
        reward_config(checkpoint=str(prm_ckpt), format_reward=0.5)
    with pytest.raises(ConfigError, match="format_rule.*answer"):
        reward_config(checkpoint=str(prm_ckpt), format_rule="strict")
    low = PRMReward.load(prm_ckpt, format_reward=-1.0)
    assert low.score([PROMPT], [HOSTILE["unfinished"]])[0].reward == -1.0


def test_caps_bound_the_steps_scored_and_the_stats_say_what_was_cut(prm_ckpt):
    reward = PRMReward.load(prm_ckpt, max_steps=8)
    [many] = reward.score([PROMPT], [HOSTILE["many_paragraphs"]])
    assert len(many.steps) == 3000 and many.capped == 2992
    assert all(s.score is None for s in many.steps[8:])
    assert reward.stats["steps_capped"] == 2992 and reward.stats["completions_capped"] == 1
    # the token cap: the checkpoint's max_length (96) unless set; steps past it never sent
    tight = PRMReward.load(prm_ckpt, max_tokens=20)
    [solved] = tight.score([PROMPT], [SOLUTION])
    assert 0 < solved.capped < len(solved.steps) and solved.steps[0].score is not None
    assert PRMReward.load(prm_ckpt).max_tokens == 96
