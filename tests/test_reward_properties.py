"""No path returns a non-finite reward: Hypothesis over empty, overlong, unicode (lone
surrogates included), chat-shaped and malformed completions and prompts, through the reward
in-process (every aggregation, with and without the outcome blend), TRL's callable, verl's
functions and the HTTP endpoint (where a malformed request is a 4xx, never a 5xx or a NaN)."""

from __future__ import annotations

import json
import math

import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labeling.prm.reward import Note
from labeling.prm.search import Aggregation
from pipelines.reward import PRMReward, reward_config, verl_reward
from pipelines.reward.config import ServerConfig
from pipelines.reward.server import RewardServer
from pipelines.serve.server import free_port
from tests.reward_ckpt import tiny_prm
from tests.tiers import examples

SETTINGS = settings(max_examples=examples(60), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

any_char = st.characters(codec=None) | st.characters(categories=["Cs"])  # surrogates too
texts = st.text(any_char, max_size=60)
overlong = st.builds(lambda s, n, sep: sep.join([s] * n), st.text(any_char, min_size=1,
                     max_size=20), st.integers(20, 300),
                     st.sampled_from(["\n\n", "\n", " ", "\nStep 2: ", ""]))  # fmt: skip
stepped = st.lists(texts, max_size=6).map("\n\n".join)
think = st.builds(lambda a, b: f"<think>{a}</think>{b}", texts, texts)
content = st.one_of(texts, st.none(), st.integers(),
                    st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": texts}),
                             max_size=2))  # fmt: skip
messages = st.lists(st.fixed_dictionaries(
    {"role": st.sampled_from(["assistant", "user", "tool"]), "content": content}), max_size=3)
malformed = st.one_of(st.none(), st.integers(), st.floats(allow_nan=True), st.booleans(),
                      st.binary(max_size=8), st.lists(st.integers(), max_size=3),
                      st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2))
completions = st.one_of(st.just(""), st.text(" \n\t", max_size=5), texts, stepped, overlong,
                        think, messages, malformed)  # fmt: skip
prompts = st.one_of(texts, st.none(), st.integers(), messages)
references = st.one_of(st.none(), st.text(max_size=8), st.integers(-5, 50))
batches = st.lists(st.tuples(prompts, completions, references), min_size=1, max_size=5)


def finite(values) -> bool:
    return all(isinstance(v, float) and math.isfinite(v) for v in values)


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    return tiny_prm(tmp_path_factory.mktemp("props"), max_length=64)


@pytest.fixture(scope="module")
def rewards(ckpt):
    """One reward per aggregation (sharing one scorer) and one that cuts at 50 characters."""
    first = PRMReward.load(ckpt)
    out = {str(a): PRMReward(reward_config(checkpoint=str(ckpt), aggregation=a),
                             scorer=first.scorer) for a in Aggregation}  # fmt: skip
    out["cut"] = PRMReward(reward_config(checkpoint=str(ckpt), max_chars=50), scorer=first.scorer)
    return out


@pytest.fixture(scope="module")
def blended(ckpt):
    with PRMReward.load(ckpt, outcome_weight=0.5, outcome_timeout_s=2.0) as r:
        yield r


@SETTINGS
@given(batch=batches, which=st.sampled_from([*(str(a) for a in Aggregation), "cut"]))
def test_in_process_rewards_are_finite(rewards, batch, which):
    p, c, _ = zip(*batch, strict=True)
    got = rewards[which].score(list(p), list(c))
    assert finite([g.reward for g in got]) and len(got) == len(c)
    for g in got:
        assert (g.prm is None) == (g.note is not Note.scored)
        assert all(s.score is None or 0.0 <= s.score <= 1.0 for s in g.steps)


@settings(SETTINGS, max_examples=examples(25))
@given(batch=batches)
def test_rewards_blended_with_the_outcome_are_finite(blended, batch):
    p, c, r = zip(*batch, strict=True)
    assert finite(blended(list(p), list(c), list(r)))


@SETTINGS
@given(batch=batches)
def test_trl_and_verl_rewards_are_finite(rewards, ckpt, batch):
    p, c, r = zip(*batch, strict=True)
    fn = rewards["min"].trl()
    assert finite(fn(prompts=list(p), completions=list(c), answer=list(r)))
    infos = [{"question": q} for q in p]
    got = verl_reward.compute_score_batch(["x"] * len(c), list(c), list(r), infos,
                                          checkpoint=str(ckpt))  # fmt: skip
    assert finite(got)
    assert finite([verl_reward.compute_score("x", c[0], r[0], infos[0], checkpoint=str(ckpt))])


@pytest.fixture(scope="module")
def server(rewards):
    with RewardServer(rewards["min"], ServerConfig(port=free_port(), max_request=16)) as s:
        yield s


queries = st.one_of(texts, stepped, overlong, think, st.just(""))
json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | texts,
                           lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                           max_leaves=8)  # fmt: skip


@SETTINGS
@given(q=st.lists(queries, max_size=5), with_prompts=st.booleans())
def test_the_endpoint_answers_finite_rewards(server, q, with_prompts):
    body = {"query": q, "prompts": ["<|im_start|>user\nq<|im_end|>\n"] * len(q)} if \
        with_prompts else {"query": q}
    resp = requests.post(server.url + "/get_reward", json=body, timeout=60)
    assert resp.status_code == 200, resp.text
    assert finite(resp.json()["rewards"]) and len(resp.json()["rewards"]) == len(q)


@SETTINGS
@given(body=json_values | st.fixed_dictionaries({"query": json_values},
                                                optional={"prompts": json_values,
                                                          "labels": json_values}))  # fmt: skip
def test_malformed_requests_are_4xx_never_5xx_nor_nan(server, body):
    # json.dumps writes NaN and Infinity as bare literals, which Python's parser accepts
    resp = requests.post(server.url + "/get_reward", data=json.dumps(body), timeout=60,
                         headers={"Content-Type": "application/json"})  # fmt: skip
    assert resp.status_code in (200, 400, 413, 422), resp.text
    if resp.status_code == 200:
        assert finite(resp.json()["rewards"])
    else:
        assert resp.json()["detail"]
