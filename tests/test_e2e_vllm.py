"""The real thing: vLLM engine actors under a local Ray runtime, through the whole job."""

import json

import pytest

from pipelines.label.app import run
from tests.conftest import compose

pytestmark = pytest.mark.engine


def cfg_args(model_dir, out) -> list[str]:
    return [
        "model=local", f"model.path={model_dir}", "model.name=tiny-llama",
        "model.max_model_len=512", "dataset.limit=3", "sampler.n=2",
        "sampler.max_tokens=24", "ray.num_cpus=2", "labels=[answer]",
        f"output.dir={out}", "output.problems_per_unit=2",
    ]  # fmt: skip


@pytest.mark.ray
def test_vllm_on_ray_end_to_end(tmp_path, tiny_model_dir, ray_runtime):
    out = tmp_path / "run"
    m = run(compose(cfg_args(tiny_model_dir, out)))
    c = m["counts"]
    assert c["problems_in"] == 3 == c["problems_labeled"] + c["problems_quarantined"]
    assert c["chains_sampled"] == 6
    assert m["tokens"]["sample"] > 0 and m["model"]["name"] == "tiny-llama"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["shards"] == m["shards"]
    # Two units of math on a local Ray: two labelers by default (ray.label_actors null).
    assert manifest["config"]["ray"]["label_actors"] == 2 and len(m["shards"]) == 2

    # The output loads with Hugging Face datasets (TRL's loader) as it is.
    from datasets import load_dataset

    files = [str(out / s["path"]) for s in m["shards"]]
    ds = load_dataset("parquet", data_files=files, split="train")
    assert ds.num_rows == c["rows"]
    assert {"prompt", "completions", "labels"} <= set(ds.column_names)
    from labeling.ids import derive_seed

    for row in ds:
        n = len(row["completions"])
        assert n == len(row["labels"]) > 0
        assert row["model"] == "tiny-llama"
        assert row["sampler_seed"] == derive_seed(0, row["problem_id"])
        # The values, not only the shapes: the answer source decides the last step, and
        # verifier_first with only that source labels nothing before it.
        last = [v for v in row["verdicts"] if v["source"] == "answer"]
        assert [v["step"] for v in last] == [n - 1]
        assert row["answer_labels"][-1] == row["outcome_correct"] == last[0]["label"]
        if row["outcome_correct"] is False:  # random weights: the usual case
            assert last[0]["status"] == "incorrect"
            assert row["labels"] == [None] * (n - 1) + [False]
            assert row["first_error_step"] == n - 1
        else:
            assert row["labels"] == [True] * n and row["first_error_step"] == -1

    # engine.preload changes speed only (it is left out of the unit key): engines started
    # without tcmalloc and Intel OpenMP write the same bytes (new engine processes: an
    # actor's process is its own, on the same Ray).
    plain = tmp_path / "plain"
    m2 = run(compose([*cfg_args(tiny_model_dir, plain), "engine.preload=false"]))
    assert [s["sha256"] for s in m2["shards"]] == [s["sha256"] for s in m["shards"]]


@pytest.mark.ray
def test_continuous_rollouts_on_the_real_engine(tiny_model_dir, ray_runtime):
    """The MC driver through the job's pool and completer: one future per probe, many in
    flight at once on the two single-thread engine actors auto starts on two CPUs, every
    request answered, same labels on a re-run (whichever engine served a request)."""
    import ray

    from labeling.schema import Chain, Problem
    from pipelines.engine import preload
    from pipelines.engine.completer import EngineCompleter
    from pipelines.engine.pool import EnginePool
    from pipelines.generation_config import EngineConfig, ModelConfig, RayConfig
    from tests.fakes import mc_verifier
    from verifiers.mc.driver import AsyncCompleter

    model = ModelConfig(name="tiny", path=str(tiny_model_dir), max_model_len=512)
    pool = EnginePool(str(tiny_model_dir), model, EngineConfig(actors=0, preload=True),
                      RayConfig())
    completer = EngineCompleter(pool)
    assert isinstance(completer, AsyncCompleter) and len(pool.actors) == 2
    # engine.preload=true: the engine processes run with what the driver found.
    mapped = preload.labels(preload.find_libs())
    # each engine names what its own process mapped, found on its own node, and why
    for text in ray.get([a.choice.remote() for a in pool.actors]):
        assert f"; {preload.describe(mapped)}" in text, text
        if mapped:
            assert " on this node (set by engine.preload)" in text, text
    items = []
    for i in range(6):
        steps = tuple(f"Step {s}: {i} + {s} = {i + s}." for s in range(1, 5))
        problem = Problem(f"p{i}", "math", "t", f"What is {i} + 4?", reference=str(i + 4))
        items.append((problem, Chain(f"p{i}", f"c{i}", 0, "\n\n".join(steps), steps, "m")))

    def run():
        mc = mc_verifier(completer, domain="math", estimator="per_step", k=2, chunk=1,
                         max_tokens=12)
        return mc.verify(items), mc.last_stats

    first, stats = run()
    assert [len(vs) for vs in first] == [4] * 6
    assert stats.max_in_flight >= 6 * 3  # every chain's probes at once, not round by round
    counts = pool.stats()["tags"]["rollout"]
    assert counts["requests"] == counts["done"] == stats.requests
    per_engine = [ray.get(a.stats.remote())["tags"]["rollout"]["requests"] for a in pool.actors]
    assert min(per_engine) > 0  # both engines served rollouts
    assert counts["tokens"] == stats.tokens > 0
    again, _ = run()
    assert again == first  # per-request seeds: the same labels in any timing
    pool.shutdown()


_WINDOW_VS_SORT = """
import json, sys
from pipelines.engine import nucleus
from pipelines.label.app import run
from tests.conftest import compose

out = sys.argv[1]
args = ["model.dtype=float32", "ray=inprocess", "dataset.limit=2", "sampler.n=2",
        "sampler.max_tokens=32", "labels=[answer]", "output.report=false"]
plain = run(compose([*args, "engine.nucleus=sort", f"output.dir={out}/sort"]))
after_sort = nucleus.counts()
fast = run(compose([*args, f"output.dir={out}/window"]))
print(json.dumps({"after_sort": after_sort, "after_window": nucleus.counts(),
                  "chains": fast["counts"]["chains_sampled"],
                  "sort": [s["sha256"] for s in plain["shards"]],
                  "window": [s["sha256"] for s in fast["shards"]]}))
"""


def test_window_top_p_writes_what_vllm_s_sort_writes(tmp_path):
    """`engine.nucleus=window` (the CPU default) in the real engine with the embedded model,
    in-process in a fresh interpreter (the engine's sampler runs there, and vLLM's CPU
    worker leaves its thread settings behind): `engine.nucleus=sort` first, then the
    default. Most rows' nucleus comes from the window, and the shards are those of vLLM's
    own sort, byte for byte (float32: bf16 on AMX CPUs is not batch-invariant, see
    docs/benchmarks.md)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", _WINDOW_VS_SORT, str(tmp_path)], cwd=root,
                          capture_output=True, text=True, timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["after_sort"] == {"rows": 0, "sorted": 0}  # the sort run never used it
    rows = got["after_window"]
    assert rows["rows"] > 0 and rows["sorted"] < rows["rows"] / 2
    assert got["chains"] == 4
    assert got["window"] == got["sort"]
