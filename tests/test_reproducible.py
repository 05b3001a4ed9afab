"""Reproducible by default: the same config and seed give the same shards on the same
machine. On CPU `model.dtype=auto` is float32 (bf16 kernels on CPU are not batch-invariant);
bf16 is an opt-in that the start line, the dry run and the manifest call not reproducible."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from tests.conftest import run_app


@pytest.mark.app
@pytest.mark.parametrize(("dtype", "says"), [("auto", "reproducible: every engine"),
                                             ("bfloat16", "NOT reproducible: ")])
def test_the_dry_run_says_whether_the_run_repeats(tmp_path, dtype, says):
    proc = run_app("prm-label", ["dataset=starter_math", f"model.dtype={dtype}",
                                 f"output.dir={tmp_path / 'out'}", "dry_run=true"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = proc.stdout.strip().splitlines()[-1].strip()
    assert line.startswith(says), line
    assert (" float32 on cpu" in line) == (dtype == "auto"), line


def chains(out):
    rows = [r for p in sorted((out / "shards").glob("*.parquet"))
            for r in pq.read_table(p, columns=["chain_id", "completions", "labels",
                                               "mc_scores"]).to_pylist()]
    return sorted(rows, key=lambda r: r["chain_id"])


@pytest.mark.app
@pytest.mark.engine
def test_two_runs_of_one_config_on_the_real_engine_give_the_same_shards(tmp_path,
                                                                         tiny_model_dir):
    """Sampling and MC rollouts share the engine, so a request is batched with different
    neighbours in each run: with bf16 on an AMX CPU the chains' text changed between runs.
    The two runs are two processes at the same time (each its own engine), so their timing
    differs even more than one after the other would."""
    from concurrent.futures import ThreadPoolExecutor

    args = ["model=local", f"model.path={tiny_model_dir}", "model.name=tiny-llama",
            "model.max_model_len=512", "ray=inprocess", "dataset=starter_math",
            "dataset.limit=3", "sampler.n=3", "sampler.max_tokens=24", "labels=[answer,mc]",
            "labels/mc=absolute", "labels.mc.k=2", "labels.mc.self_rollouts=2",
            "output.report=false"]
    with ThreadPoolExecutor(2) as both:
        procs = list(both.map(lambda name: run_app(
            "prm-label", [*args, f"output.dir={tmp_path / name}"], tmp_path, timeout=600),
            ("a", "b")))
    runs = []
    for name, proc in zip(("a", "b"), procs, strict=True):
        assert proc.returncode == 0, proc.stderr[-3000:]
        manifest = json.loads((tmp_path / name / "manifest.json").read_text())
        assert manifest["numerics"]["reproducible"] is True
        assert manifest["numerics"]["models"][0]["dtype"] == "float32"
        runs.append(chains(tmp_path / name))
    assert runs[0] == runs[1]
    assert len(runs[0]) == 9
