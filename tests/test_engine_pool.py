"""Engine pool sizing (`engine.actors: 0` = auto) and its calls, on CPU."""

from __future__ import annotations

import pytest

from pipelines.engine.pool import EnginePool, gpus_per_engine, resolve_actors
from pipelines.label.config import EngineConfig, ModelConfig, RayConfig


def test_auto_is_one_engine_per_gpu_group_or_per_node():
    assert resolve_actors(3, 1.0, 8.0, 2) == 3  # set by hand: kept
    assert resolve_actors(0, 1.0, 8.0, 2) == 8  # one per GPU
    assert resolve_actors(0, 4.0, 8.0, 2) == 2  # tensor parallel groups of 4
    assert resolve_actors(0, 2.0, 7.0, 2) == 3  # a spare GPU stays idle
    assert resolve_actors(0, 0.0, 0.0, 3) == 3  # CPU: one per node
    with pytest.raises(ValueError, match="needs 2 GPUs per engine but the Ray cluster has 1"):
        resolve_actors(0, 2.0, 1.0, 1)


def test_gpus_per_engine_covers_tensor_parallelism():
    assert gpus_per_engine(ModelConfig(), EngineConfig(num_gpus=0)) == 0
    assert gpus_per_engine(ModelConfig(tensor_parallel_size=4), EngineConfig(num_gpus=1)) == 4
    assert gpus_per_engine(ModelConfig(), EngineConfig(num_gpus=1)) == 1


def request(seed: int) -> dict:
    return {"messages": [{"role": "user", "content": "q"}], "prefix": "", "n": 2,
            "seed": seed, "max_tokens": 8}


def test_in_process_pool_calls_and_counts():
    pool = EnginePool("", ModelConfig(), EngineConfig(kind="simulated"), RayConfig(enabled=False))
    one = pool.generate([request(1), request(2)])
    assert len(one) == 2 and all(len(r["texts"]) == 2 for r in one)
    assert pool.future([request(1)]).result() == one[:1]  # same seed, same text
    stats = pool.stats()
    assert stats["actors"] == 1 and stats["tags"]["all"]["requests"] == 3


@pytest.mark.slow
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
