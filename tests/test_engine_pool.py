"""Engine pool sizing (`engine.actors: 0` = auto) and its calls, on CPU."""

from __future__ import annotations

import pytest

from labeling.engine_request import EngineRequest
from pipelines.engine.placement import gpus_per_engine
from pipelines.engine.pool import EnginePool
from pipelines.generation_config import EngineConfig, ModelConfig, RayConfig


def test_gpus_per_engine_covers_tensor_parallelism():
    assert gpus_per_engine(ModelConfig(), EngineConfig(num_gpus=0)) == 0
    assert gpus_per_engine(ModelConfig(tensor_parallel_size=4), EngineConfig(num_gpus=1)) == 4
    assert gpus_per_engine(ModelConfig(), EngineConfig(num_gpus=1)) == 1


def request(seed: int, prompt: str = "q") -> EngineRequest:
    return EngineRequest.user(prompt, n=2, seed=seed, max_tokens=8, temperature=0.8)


def test_in_process_pool_calls_and_counts():
    pool = EnginePool("", ModelConfig(), EngineConfig(kind="simulated"), RayConfig(enabled=False))
    one = pool.generate([request(1), request(2)])
    assert len(one) == 2 and all(len(r.completions) == 2 for r in one)
    assert pool.future([request(1)]).result() == one[:1]  # same seed, same text
    stats = pool.stats()
    assert stats["actors"] == 1 and stats["tags"]["all"]["requests"] == 3


def test_a_pool_copy_for_a_labeler_pickles_and_counts_no_retries():
    import pickle

    pool = EnginePool("", ModelConfig(), EngineConfig(kind="simulated"), RayConfig(enabled=False))
    copy = pickle.loads(pickle.dumps(pool))
    assert copy.generate([request(1)])[0] == pool.generate([request(1)])[0]
    assert copy.retries() == {"engine_calls_resent": 0, "engine_requests_resent": 0,
                              "engines_lost": 0, "engine_nodes_lost": []}
    assert copy.lost_nodes() == []


@pytest.mark.ray
def test_a_ray_pools_copy_carries_engine_names_and_finds_the_engines():
    """What a labeler actor receives: the pool's state holds the engines' names and no actor
    handle (Ray logs an error for handles among an actor's constructor arguments and cannot
    keep them for its restarts); a copy looks the engines up and calls them; a copy made
    after an engine died for good retires it and counts it lost."""
    import pickle
    import time

    import ray

    ray.init(num_cpus=4, num_gpus=2, include_dashboard=False, log_to_driver=False)
    try:
        engine = EngineConfig(kind="simulated", actors=0, num_cpus=0.5, num_gpus=1)
        pool = EnginePool("", ModelConfig(), engine, RayConfig())
        state = pool.__getstate__()
        assert state["actors"] == [] and len(state["names"]) == 2
        assert not [v for v in state.values() if isinstance(v, ray.actor.ActorHandle)]
        blob = pickle.dumps(pool)
        copy = pickle.loads(blob)
        assert [a._actor_id for a in copy.actors] == [a._actor_id for a in pool.actors]
        assert copy.generate([request(1)])[0] == pool.generate([request(1)])[0]
        ray.kill(pool.actors[0], no_restart=True)
        deadline = time.monotonic() + 30
        while pool.names[0] in {a["name"] for a in ray.util.list_named_actors(True)}:
            assert time.monotonic() < deadline, "the killed engine kept its name"
            time.sleep(0.2)
        late = pickle.loads(blob)
        assert late.router.live() == [1] and late.retries()["engines_lost"] == 1
        assert len(late.generate([request(i, f"q{i}") for i in range(4)])) == 4
        pool.shutdown()
    finally:
        ray.shutdown()


@pytest.mark.ray
def test_auto_starts_one_engine_per_gpu_in_placement_groups():
    """Ray with three logical GPUs (none real): auto gives three simulated engines, each in
    a placement group of its own; calls spread over them."""
    import ray
    from ray.util.placement_group import placement_group_table

    ray.init(num_cpus=4, num_gpus=3, include_dashboard=False, log_to_driver=False)
    try:
        engine = EngineConfig(kind="simulated", actors=0, num_cpus=0.5, num_gpus=1)
        pool = EnginePool("", ModelConfig(), engine, RayConfig())
        assert len(pool.actors) == len(pool.placement_groups) == 3
        table = placement_group_table()
        assert all(table[pg.id.hex()]["strategy"] == "STRICT_PACK" for pg in pool.placement_groups)
        futures = [pool.future([request(i)]) for i in range(9)]
        assert [len(f.result()) for f in futures] == [1] * 9
        assert len(pool.generate([request(i) for i in range(5)])) == 5
        pids = {ray.get(a.pid.remote()) for a in pool.actors}
        assert len(pids) == 3
        assert pool.stats()["tags"]["all"]["requests"] == 14
        pool.shutdown()
        tp = EnginePool("", ModelConfig(tensor_parallel_size=2), engine, RayConfig())
        assert len(tp.actors) == 1  # 3 GPUs hold one group of 2
        tp.shutdown()
    finally:
        ray.shutdown()


@pytest.mark.ray
def test_cpu_auto_starts_one_single_thread_engine_per_core_and_routes_by_prompt():
    """Ray with three CPUs: auto gives three simulated engines of one thread each, each
    reserving its CPU on its node; a prompt's requests stay on one engine while the others
    are idle; a plan that cannot fit the local Ray fails at start in one sentence."""
    import ray

    ray.init(num_cpus=3, include_dashboard=False, log_to_driver=False)
    try:
        pool = EnginePool("", ModelConfig(), EngineConfig(kind="simulated"), RayConfig())
        assert len(pool.actors) == 3 and pool.units == [pytest.approx(1 / 3)] * 3
        assert ray.available_resources().get("CPU", 0) == 0  # each engine holds its core
        for i in range(6):  # one prompt ("q"), one call at a time
            assert len(pool.future([request(i)]).result()) == 1
        served = [ray.get(a.stats.remote())["tags"].get("all", {}).get("requests", 0)
                  for a in pool.actors]  # fmt: skip
        assert sorted(served) == [0, 0, 6]
        spread = [request(i, f"q{i}") for i in range(30)]
        assert len(pool.generate(spread)) == 30
        served = [ray.get(a.stats.remote())["tags"]["all"]["requests"] for a in pool.actors]
        assert sum(served) == 36 and min(served) >= 6  # the 30 new prompts spread out
        assert pool.stats()["units"] == pytest.approx(1.0)
        pool.shutdown()
        with pytest.raises(ValueError, match="4 engines reserve 4 CPUs on a node with 3"):
            EnginePool("", ModelConfig(), EngineConfig(kind="simulated", actors=4), RayConfig())
    finally:
        ray.shutdown()


class _SlowStart:
    """An engine actor that takes `seconds` to load (a big model)."""

    def __init__(self, seconds: float, fail: bool = False) -> None:
        import time

        time.sleep(seconds)
        if fail:
            raise RuntimeError("weights not found")

    def ping(self) -> str:
        return "ok"


@pytest.mark.ray
def test_engine_start_shows_progress_and_raises_the_engines_own_error(caplog, ray_runtime):
    """A line every period while engines load; an engine that cannot start fails the pool
    with its own error, not at the first batch."""
    import logging

    import ray

    slow = ray.remote(num_cpus=0)(_SlowStart)
    pool = EnginePool.__new__(EnginePool)
    pool.actors = [slow.remote(0.0), slow.remote(4.0)]
    with caplog.at_level(logging.INFO, logger="prm-label"):
        pool._wait_started(every_s=1.0)
    lines = [r.getMessage() for r in caplog.records if "starting" in r.getMessage()]
    assert len(lines) >= 2 and all("/2 engines ready after" in line for line in lines)
    assert lines[-1].startswith("engine: starting, 1/2")  # the fast one was counted
    pool.actors = [slow.remote(0.5, fail=True)]
    with pytest.raises(Exception, match="weights not found"):
        pool._wait_started(every_s=1.0)


def test_a_request_goes_to_json_and_back_whole():
    # Benchmarks keep requests in JSON and replay them on bare engines: every sampling field
    # must survive (a replay without top_p did different work, 2026-11-26).
    import json

    r = EngineRequest(messages=(("system", "s"), ("user", "q")), n=3, seed=7, max_tokens=48,
                      temperature=0.8, top_p=0.95, prefix="Step 1", stop=("\n\n",))
    assert EngineRequest.from_plain(json.loads(json.dumps(r.to_plain()))) == r
