"""Rollout i of a step has one seed in any request that carries it: the MC schedule serves a
probe from whatever requests hold its rollouts (`verifiers/mc/schedule.py`), which holds only
if the engine seeds a request's j-th completion with the request's seed + j."""

from dataclasses import replace

import pytest

from labeling.engine_request import EngineRequest
from verifiers.mc.driver import rollout_seed


def test_consecutive_rollouts_have_consecutive_seeds():
    first = rollout_seed(0, "p1", "p1/c0", 2, 0)
    assert [rollout_seed(0, "p1", "p1/c0", 2, i) for i in range(4)] == [first + i for i in range(4)]
    assert rollout_seed(0, "p1", "p1/c0", 3, 0) != first  # another step draws anew
    assert rollout_seed(1, "p1", "p1/c0", 2, 0) != first  # and another run's seed


@pytest.mark.engine
def test_the_engine_gives_a_request_s_jth_completion_the_seed_plus_j(smollm2_engine):
    engine = smollm2_engine
    three = EngineRequest.user("What is 12 * 7?", prefix="Step 1:", n=3, seed=41,
                               max_tokens=32, temperature=0.8)
    last_two = replace(three, n=2, seed=42)
    together = engine.generate([three, last_two], tag="rollout")
    apart = [engine.generate([r], tag="rollout")[0] for r in (last_two, three)]
    assert len(set(together[0].texts)) > 1  # the seeds draw different samples
    for big, small in (together, apart[::-1]):
        assert big.texts[1:] == small.texts
        assert big.tokens[1:] == small.tokens
