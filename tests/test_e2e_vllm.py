"""The real thing: vLLM engine actors under a local Ray runtime, through the whole job."""

import json

import pytest

from pipelines.label.app import run
from tests.conftest import compose

pytestmark = pytest.mark.slow


@pytest.fixture
def ray_runtime():
    import ray

    yield
    ray.shutdown()


def test_vllm_on_ray_end_to_end(tmp_path, tiny_model_dir, ray_runtime):
    out = tmp_path / "run"
    cfg = compose(
        [
            "model=local", f"model.path={tiny_model_dir}", "model.name=tiny-llama",
            "model.max_model_len=512", "dataset.limit=3", "sampler.n=2",
            "sampler.max_tokens=24", "ray.num_cpus=2", "labels=[answer]",
            f"output.dir={out}", "output.problems_per_unit=2",
        ]
    )
    m = run(cfg)
    c = m["counts"]
    assert c["problems_in"] == 3 == c["problems_labeled"] + c["problems_quarantined"]
    assert c["chains_sampled"] == 6
    assert m["tokens"]["sample"] > 0 and m["model"]["name"] == "tiny-llama"
    assert json.loads((out / "manifest.json").read_text())["shards"] == m["shards"]

    # The output loads with Hugging Face datasets (TRL's loader) as it is.
    from datasets import load_dataset

    files = [str(out / s["path"]) for s in m["shards"]]
    ds = load_dataset("parquet", data_files=files, split="train")
    assert ds.num_rows == c["rows"]
    assert {"prompt", "completions", "labels"} <= set(ds.column_names)
    for row in ds:
        assert len(row["completions"]) == len(row["labels"]) > 0
        assert row["model"] == "tiny-llama" and row["sampler_seed"] is not None
