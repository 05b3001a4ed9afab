"""The pool's plan (`pipelines/engine/layout.py`): engines per node, threads, reservations."""

from __future__ import annotations

import json

import pytest

from pipelines.engine.layout import (
    ENGINE_OVERHEAD_BYTES,
    Node,
    PlanError,
    Slot,
    cpu_plan,
    engine_bytes,
    engines_on_node,
    resolve_actors,
)

GIB = 2**30


def test_gpu_auto_is_one_engine_per_gpu_group():
    assert resolve_actors(3, 1.0, 8.0, 2) == 3  # set by hand: kept
    assert resolve_actors(0, 1.0, 8.0, 2) == 8  # one per GPU
    assert resolve_actors(0, 4.0, 8.0, 2) == 2  # tensor parallel groups of 4
    assert resolve_actors(0, 2.0, 7.0, 2) == 3  # a spare GPU stays idle
    with pytest.raises(ValueError, match="needs 2 GPUs per engine but the Ray cluster has 1"):
        resolve_actors(0, 2.0, 1.0, 1)


@pytest.mark.parametrize(
    ("cores", "threads", "memory", "need", "engines"),
    [
        (2, 0, 0, 0, 2),  # one single-thread engine per core
        (2, 2, 0, 0, 1),  # engine.threads=2: one engine on both cores
        (16, 4, 0, 0, 4),
        (3, 2, 0, 0, 1),  # a core left over stays with the engines' node, not a new engine
        (64, 0, 24 * GIB, 4 * GIB, 4),  # memory holds 4 (80% of 24 GiB / 4 GiB)
        (2, 0, 2 * GIB, 4 * GIB, 1),  # too little memory for even one: still one
    ],
)
def test_engines_on_node(cores, threads, memory, need, engines):
    assert engines_on_node(cores, threads, memory, need) == engines


def test_auto_plan_gives_each_engine_its_share_of_the_node():
    nodes = [Node("a", 2.0, 24 * GIB), Node("b", 8.0, 10 * GIB)]
    plan = cpu_plan(nodes, engine_bytes=4 * GIB)
    # a: two single-thread engines; b: memory holds two, so four threads each
    assert plan == [Slot("a", 1, 1.0)] * 2 + [Slot("b", 4, 4.0)] * 2
    assert sum(s.cpus for s in plan) == 10  # every core reserved by the engine running on it


def test_requested_count_spreads_over_nodes_and_shares_cores():
    nodes = [Node("a", 4.0), Node("b", 4.0)]
    assert cpu_plan(nodes, requested=3) == [Slot("a", 2, 2.0)] * 2 + [Slot("b", 4, 4.0)]
    assert cpu_plan(nodes, requested=1, num_cpus=1.0) == [Slot("a", 4, 1.0)]
    assert cpu_plan(nodes, threads=2) == [Slot("a", 2, 2.0)] * 2 + [Slot("b", 2, 2.0)] * 2


def test_share_leaves_cores_for_another_pool():
    half = cpu_plan([Node("a", 2.0)], share=0.5)
    assert half == [Slot("a", 1, 1.0)]
    assert cpu_plan([Node("a", 1.0)], share=0.5) == [Slot("a", 1, 1.0)]  # never below one


def test_no_cpu_node_is_an_error_the_apps_print_as_one_sentence():
    from pipelines.cli import explain

    with pytest.raises(PlanError, match="no node with a CPU") as err:
        cpu_plan([Node("gpu-only", 0.0)])
    assert explain(err.value) == "the Ray cluster has no node with a CPU to run an engine on"


def test_engine_bytes_from_the_checkpoint(tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"\0" * 1000)
    (tmp_path / "config.json").write_text(json.dumps({"torch_dtype": "bfloat16"}))
    base = 2 * GIB + ENGINE_OVERHEAD_BYTES
    assert engine_bytes(str(tmp_path), "bfloat16", 2) == 1000 + base
    assert engine_bytes(str(tmp_path), "float32", 2) == 2000 + base  # bf16 loaded as fp32
    assert engine_bytes("Qwen/Qwen2.5-7B", "bfloat16", 2) == 0  # a hub id: unknown
