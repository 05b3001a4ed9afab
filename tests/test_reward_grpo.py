"""End to end: TRL's GRPOTrainer trains a tiny policy for two steps on CPU with the reward of a
PRM that prm-train trained (a few steps, on shards whose manifest records `split.mode=line`),
and finite rewards reach the trainer's logs.

Slow (TRL's import, a train run and two GRPO steps: about a minute on 2 cores). Nothing is
downloaded: the policy is `tiny_model_dir` (random weights, SmolLM2's tokenizer from the
embedded model), the PRM backbone a random word-level Llama. Skipped only when trl is not
installed outside CI; in CI (`CI` set) a missing trl fails the test (`make test` installs the
`rl` extra).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow,
              pytest.mark.filterwarnings("ignore:TRL currently supports vLLM")]


def _trl():
    try:
        import trl
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("trl is required in CI: pip install -e '.[rl]'")
        pytest.skip("trl is not installed (pip install -e '.[rl]')")
    return trl


def _train_prm(root: Path) -> Path:
    from pipelines.checkpoint.model import build_tiny_model
    from pipelines.train.app import run
    from pipelines.train.data import synthetic_rows, write_shards

    rows = synthetic_rows(12, 2, seed=7)
    data = write_shards(rows, root / "labels")
    manifest = json.loads((data / "manifest.json").read_text())
    manifest["config"] = {"split": {"mode": "line", "code_mode": "statement", "max_steps": 40}}
    (data / "manifest.json").write_text(json.dumps(manifest))
    texts = [r["prompt"] + " " + " ".join(r["completions"]) for r in rows]
    base = build_tiny_model(root / "base", texts)
    summary = run({"model": {"path": str(base), "max_length": 128},
                   "data": {"shards": [str(data)], "val_fraction": 0.0},
                   "optim": {"lr": 1e-3, "warmup_steps": 0, "schedule": "constant"},
                   "train": {"max_steps": 4, "batch_size": 4, "grad_accum": 1, "save_every": 0,
                             "eval_every": 0},
                   "output": {"dir": str(root / "prm")}})  # fmt: skip
    return Path(summary["final"])


def test_grpo_trains_two_steps_on_prm_rewards(tmp_path, tiny_model_dir):
    trl = _trl()
    from datasets import Dataset

    from pipelines.reward import PRMReward
    from pipelines.train.data import synthetic_rows

    reward = PRMReward.load(_train_prm(tmp_path))
    assert reward.split_mode == "line"  # recorded by prm-train from the data's manifest
    rows = synthetic_rows(4, 1, seed=11)
    data = Dataset.from_dict({"prompt": [r["prompt"] for r in rows],
                              "answer": [r["reference_answer"] for r in rows]})  # fmt: skip
    args = trl.GRPOConfig(
        output_dir=str(tmp_path / "grpo"), use_cpu=True, bf16=False, max_steps=2,
        per_device_train_batch_size=4, num_generations=4, max_completion_length=24,
        logging_steps=1, save_strategy="no", report_to="none", seed=0,
        model_init_kwargs={"dtype": "float32"},
    )  # fmt: skip
    trainer = trl.GRPOTrainer(model=str(tiny_model_dir), reward_funcs=reward.trl("answer"),
                              args=args, train_dataset=data)  # fmt: skip
    trainer.train()
    logged = [h for h in trainer.state.log_history if "rewards/prm_reward/mean" in h]
    assert len(logged) == 2, trainer.state.log_history
    for h in logged:
        assert math.isfinite(h["rewards/prm_reward/mean"]) and math.isfinite(h["reward"])
        assert 0.0 <= h["rewards/prm_reward/mean"] <= 1.0
        assert math.isfinite(h["prm_reward/no_scorable_step"])  # our log_metric hook
    assert reward.stats["completions"] >= 8  # two steps' generations were scored
