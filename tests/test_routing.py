"""Requests to engines (`pipelines/engine/routing.py`): prompt affinity within a load slack."""

from __future__ import annotations

import pickle

import pytest

from labeling.engine_request import EngineRequest
from pipelines.engine.routing import Router, prompt_key


def req(prompt: str, prefix: str = "", n: int = 1) -> EngineRequest:
    return EngineRequest.user(prompt, prefix=prefix, n=n, seed=0, max_tokens=8, temperature=0)


def test_prompt_key_ignores_the_prefix_and_sees_every_message():
    assert prompt_key(req("q", "step 1")) == prompt_key(req("q", "step 1\n\nstep 2"))
    assert prompt_key(req("q")) != prompt_key(req("q2"))
    system = EngineRequest((("system", "q"),), n=1, seed=0, max_tokens=8, temperature=0)
    assert prompt_key(system) != prompt_key(req("q"))


def test_one_prompt_stays_on_its_engine_while_the_load_allows():
    r = Router(2, slack=8)
    first = r.pick(req("same"))
    assert all(r.pick(req("same", f"prefix {i}")) == first for i in range(8))
    # nine sequences on one engine, none on the other: beyond the slack, the next one moves
    assert r.pick(req("same")) == 1 - first
    r.done(first, 9)
    assert r.pick(req("same")) == first


def owned_by(engine: int, engines: int, count: int) -> list[dict]:
    """`count` prompts whose owner (the hash) is `engine`."""
    out, i = [], 0
    while len(out) < count:
        r = req(f"problem {i}", n=4)
        if int.from_bytes(prompt_key(r)[:8], "little") % engines == engine:
            out.append(r)
        i += 1
    return out


def test_a_batch_splits_evenly_and_keeps_owners_where_it_can():
    r = Router(3, slack=8)
    parts = r.split([req(f"problem {i}", n=4) for i in range(90)])
    sizes = sorted(len(p) for p in parts)
    assert sum(sizes) == 90 and sizes[-1] - sizes[0] <= 1
    assert max(r.load) - min(r.load) <= 4  # within one request
    assert sorted(i for p in parts for i in p) == list(range(90))
    # a batch whose prompts all hash to engine 0 still splits evenly ...
    skewed = Router(2, slack=8)
    parts = skewed.split(owned_by(0, 2, 10))
    assert [len(p) for p in parts] == [5, 5] and skewed.load == [20, 20]
    # ... and one that hashes evenly stays with its owners
    even = Router(2, slack=8)
    batch = [x for pair in zip(owned_by(0, 2, 4), owned_by(1, 2, 4), strict=True) for x in pair]
    assert even.split(batch) == [[0, 2, 4, 6], [1, 3, 5, 7]]


def test_the_owner_is_the_same_in_every_copy():
    """The driver samples and a labeler actor (a pickled copy) sends the rollouts: both must
    send a prompt to the same engine when the engines are idle."""
    driver = Router(4, slack=8)
    copy = pickle.loads(pickle.dumps(driver))
    assert copy.load == [0, 0, 0, 0]
    for i in range(20):
        owner = driver.pick(req(f"p{i}"))
        driver.done(owner, 1)
        assert copy.pick(req(f"p{i}", "a chain prefix")) == owner
        copy.done(owner, 1)


def test_weight_and_single_engine():
    r = Router(1, slack=0)
    assert r.pick(req("x", n=4)) == 0 and r.load == [4]
    assert r.pick(req("x"), weight=3) == 0 and r.load == [7]
    with pytest.raises(ValueError, match="at least one engine"):
        Router(0, slack=0)


def test_a_retired_engine_gets_nothing_and_the_others_keep_their_prompts():
    reqs = [req(f"q{i}") for i in range(40)]
    r = Router(4, slack=1000)
    before = [r.pick(q, 0) for q in reqs]
    assert r.retire(2)
    after = [r.pick(q, 0) for q in reqs]
    assert 2 not in after and set(after) == {0, 1, 3}
    assert all(a == b for a, b in zip(after, before, strict=True) if b != 2)
    assert 2 not in {i for i, part in enumerate(r.split(reqs)) if part}
    assert r.retire(0) and r.retire(1) and not r.retire(3)  # the last engine stays
    assert r.live() == [3]
