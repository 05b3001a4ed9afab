"""End to end, as docs/prm.md's GRPO example runs: TRL's GRPOTrainer trains the embedded
SmolLM2-135M-Instruct for two steps on CPU, with chat prompts (a plain-string prompt to an
Instruct model gets EOS at once: one-token completions, reward std 0, nothing learned), on
the reward of a PRM that prm-train trained (a few steps, on shards whose manifest records
`split.mode=line`) with the reference answer counted. A step must have completions of some
length and rewards that differ (reward std > 0: GRPO's advantages are not all zero).

Slow (TRL's import, a train run and two GRPO steps of a 135M policy: a few minutes on 2
cores). Nothing is downloaded: the policy is the embedded model (`prepare()`), the PRM
backbone a random word-level Llama. Skipped only when trl is not installed outside CI; in
CI (`CI` set) a missing trl fails the test (`make test` installs the `rl` extra).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

pytestmark = [pytest.mark.train,
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
    """A PRM prm-train trained a few steps on synthetic chains cut with `line`."""
    from pipelines.train.app import run
    from tests.prm_fixtures import build_tiny_model, synthetic_rows, write_shards

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


QUESTIONS = [("What is 12 * 3?", "36"), ("Start at 5 and add 7. What do you get?", "12"),
             ("What is 9 + 10?", "19"), ("Tom has 3 apples and buys 4 more. How many now?", "7")]


def test_grpo_learns_from_prm_rewards_on_chat_prompts(tmp_path):
    trl = _trl()
    from datasets import Dataset

    from pipelines.engine.prepare_model import prepare
    from pipelines.reward import PRMReward

    reward = PRMReward.load(_train_prm(tmp_path))
    assert reward.cut.mode == "line"  # recorded by prm-train from the data's manifest
    data = Dataset.from_dict({
        "prompt": [[{"role": "user", "content": f"{q} Put the final answer in \\boxed{{}}."}]
                   for q, _ in QUESTIONS],
        "answer": [a for _, a in QUESTIONS]})  # fmt: skip
    args = trl.GRPOConfig(
        output_dir=str(tmp_path / "grpo"), use_cpu=True, bf16=False, max_steps=2,
        per_device_train_batch_size=4, num_generations=4, max_completion_length=48,
        logging_steps=1, save_strategy="no", report_to="none", seed=0,
        model_init_kwargs={"dtype": "float32"},
    )  # fmt: skip
    trainer = trl.GRPOTrainer(model=str(prepare()), reward_funcs=reward.trl("answer"),
                              args=args, train_dataset=data)  # fmt: skip
    trainer.train()
    logged = [h for h in trainer.state.log_history if "rewards/prm_reward/mean" in h]
    assert len(logged) == 2, trainer.state.log_history
    for h in logged:
        assert math.isfinite(h["rewards/prm_reward/mean"]) and math.isfinite(h["reward"])
        assert 0.0 <= h["rewards/prm_reward/mean"] <= 1.0
        assert math.isfinite(h["prm_reward/no_scorable_step"])  # our log_metric hook
        assert h["completions/mean_length"] > 8  # the chat template: the model answers
    # a step GRPO learns from: the group's rewards differ, so advantages are not all zero
    assert max(h["reward_std"] for h in logged) > 0.0, logged
    assert max(h["grad_norm"] for h in trainer.state.log_history if "grad_norm" in h) > 0.0
    assert reward.stats["completions"] >= 8  # two steps' generations were scored
