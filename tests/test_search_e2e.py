"""prm-search end to end: vLLM engine actors under a local Ray runtime (a tiny random Llama
as the generator) and a real PRM checkpoint (prm-train on synthetic shards, one step),
every strategy at a tiny budget. Slow: it starts an engine and trains."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import compose

pytestmark = [pytest.mark.ray, pytest.mark.engine, pytest.mark.train]


@pytest.fixture(scope="module")
def prm_checkpoint(tmp_path_factory, tiny_model_dir) -> Path:
    from pipelines.train.app import run
    from tests.prm_fixtures import synthetic_rows, write_shards

    root = tmp_path_factory.mktemp("prm")
    write_shards(synthetic_rows(8, 2, seed=1), root / "labels")
    summary = run({
        "model": {"path": str(tiny_model_dir), "max_length": 256},
        "data": {"shards": [str(root / "labels")], "val_fraction": 0.0},
        "train": {"max_steps": 1, "batch_size": 2, "save_every": 0, "eval_every": 0},
        "optim": {"warmup_steps": 0},  # one step: no warm-up to reach
        "output": {"dir": str(root / "out")},
    })  # fmt: skip
    return Path(summary["final"])


def test_every_strategy_on_vllm_and_ray(tmp_path, tiny_model_dir, prm_checkpoint, ray_runtime):
    from pipelines.search.app import run
    from pipelines.search.config import register
    from pipelines.search.output import read_rows

    register()
    out = tmp_path / "search"
    overrides = [
        "model=local", f"model.path={tiny_model_dir}", "model.name=tiny-llama",
        "model.max_model_len=512", "model.dtype=float32", "dataset.limit=2",
        "sampler.max_tokens=24", "search.budgets=[1,2]", "search.width=2",
        "search.max_depth=2", "search.step_max_tokens=12", "search.aggregations=[last,prod]",
        f"prm.checkpoint={prm_checkpoint}", "ray.num_cpus=2", f"output.dir={out}",
    ]  # fmt: skip
    m = run(compose(overrides, "search"))
    assert m["counts"]["problems_searched"] == 2
    rows = read_rows(out)
    strategies = {r["strategy"] for r in rows}
    assert strategies == {"majority", "best_of_n", "weighted_vote", "beam", "dvts"}
    assert len(rows) == 2 * 2 * (1 + 2 * 2 + 1 + 1)
    for r in rows:
        assert r["generated_tokens"] > 0 and r["model"] == "tiny-llama"
        assert (r["prm_calls"] > 0) == (r["strategy"] != "majority")
        assert r["chosen_score"] is None or 0.0 <= r["chosen_score"] <= 1.0
    assert json.loads((out / "manifest.json").read_text())["summary"] == m["summary"]
    assert (out / "report.html").exists()
    # resumable: a second run finds every unit done and searches nothing
    again = run(compose(overrides, "search"))
    assert again["units_reused"] == again["units"] == 1
