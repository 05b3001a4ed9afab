"""What each trainer entry point receives and returns: TRL's `reward_funcs` callable (strings
and chat messages, the reference column, its log hooks), verl's `compute_score` functions
(the prompt from `extra_info`), and the split rules prm-train records for them (more in
tests/test_reward_split.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from labeling.prm.reward import Note
from pipelines.checkpoint.format import StepFormat
from pipelines.reward import PRMReward, TRLReward, verl_reward

PROMPTS = ["Start at 3 and add 4 , 2 .", "What is 12 * 3 ?"]
COMPLETIONS = ["3 + 4 = 7\n\n7 + 2 = 9\n\nThe answer is \\boxed{9} .", "12 * 3 = 36"]


def test_trl_callable_takes_strings_and_chat_messages_alike(prm_reward):
    fn = prm_reward.trl()
    assert isinstance(fn, TRLReward) and fn.__name__ == "prm_reward"
    plain = fn(prompts=PROMPTS, completions=COMPLETIONS, completion_ids=[[1], [2]],
               answer=["9", "36"], trainer_state=None)  # fmt: skip
    chat_prompts = [[{"role": "user", "content": p}] for p in PROMPTS]
    chat = [[{"role": "assistant", "content": c}] for c in COMPLETIONS]
    assert fn(prompts=chat_prompts, completions=chat, answer=["9", "36"]) == plain
    # the reference column counts by default: the same numbers as the reward given it
    assert plain == prm_reward(PROMPTS, COMPLETIONS, ["9", "36"])
    assert plain != prm_reward(PROMPTS, COMPLETIONS) and all(math.isfinite(x) for x in plain)


def test_trl_callable_logs_through_the_trainers_hooks(prm_reward):
    metrics, extra = {}, {}
    fn = prm_reward.trl(name="prm")
    fn(prompts=["q"] * 4, completions=["2 + 2 = 4", "   ", "<think>2 + 2", "Hmm."],
       log_metric=lambda k, v: metrics.__setitem__(k, v),
       log_extra=lambda k, v: extra.__setitem__(k, v))  # fmt: skip
    assert metrics == {"prm/no_scorable_step": 0.75, "prm/format_failure": 0.5}
    assert extra == {"prm_steps": [1, 0, 0, 0],
                     "prm_note": ["scored", "no_steps", "unfinished", "no_answer"]}


def test_trl_callable_passes_the_reference_column_to_the_outcome_blend(prm_ckpt):
    with PRMReward.load(prm_ckpt, outcome_weight=1.0) as r:
        fn = r.trl(reference="solution")
        assert fn(prompts=["q", "q"], completions=["so \\boxed{4}", "so \\boxed{5}"],
                  solution=["4", "4"]) == [1.0, 0.0]  # fmt: skip


def test_verl_compute_score_reads_the_prompt_from_extra_info(prm_ckpt, prm_reward):
    kwargs = {"checkpoint": str(prm_ckpt)}
    one = verl_reward.compute_score("gsm8k", COMPLETIONS[0], "9",
                                    {"question": PROMPTS[0], "index": 0}, **kwargs)  # fmt: skip
    assert one == pytest.approx(prm_reward([PROMPTS[0]], [COMPLETIONS[0]], ["9"])[0])
    infos = [{"prompt": [{"role": "user", "content": PROMPTS[0]}]}, {"question": PROMPTS[1]}]
    batch = verl_reward.compute_score_batch(["gsm8k"] * 2, COMPLETIONS, ["9", "36"], infos,
                                            **kwargs)  # fmt: skip
    assert batch == pytest.approx(prm_reward(PROMPTS, COMPLETIONS, ["9", "36"]))
    # one reward object per process and settings: the second call built nothing new
    assert len([k for k in verl_reward._REWARDS if str(prm_ckpt) in k]) == 1
    cached = next(v for k, v in verl_reward._REWARDS.items() if str(prm_ckpt) in k)
    before = cached.stats["no_prompt"]
    got = verl_reward.compute_score("gsm8k", COMPLETIONS[1], "36", None, **kwargs)
    assert math.isfinite(got) and cached.stats["no_prompt"] == before + 1


def test_verl_prompt_key_names_the_field(prm_ckpt):
    info = {"my_q": PROMPTS[1], "question": "something else"}
    assert verl_reward.prompt_of(info, "my_q") == PROMPTS[1]
    assert verl_reward.prompt_of(info) == "something else"
    assert verl_reward.prompt_of("not a dict") is None


# -- the split rules prm-train records -------------------------------------------------------


def _dataset(root: Path, split: dict | None, model: str = "SmolLM2",
             dataset: str = "gsm8k") -> str:  # fmt: skip
    from tests.prm_fixtures import synthetic_rows, write_shards

    write_shards(synthetic_rows(6, 2, seed=3), root)
    manifest = json.loads((root / "manifest.json").read_text())
    config = {"split": split, "dataset": {"name": dataset, "adapter": None}} if split else {}
    manifest.update(model={"name": model}, config=config)
    (root / "manifest.json").write_text(json.dumps(manifest))
    return str(root)


@pytest.mark.train
def test_prm_train_writes_the_split_rules_into_the_checkpoint(tmp_path):
    from pipelines.train.app import run
    from tests.prm_fixtures import build_tiny_model
    from tests.reward_ckpt import WORDS

    line = {"mode": "line", "code_mode": "statement", "max_steps": 40}
    data = _dataset(tmp_path / "labels", line)
    base = build_tiny_model(tmp_path / "base", WORDS)
    summary = run({"model": {"path": str(base), "max_length": 64},
                   "data": {"shards": [data], "val_fraction": 0.0},
                   "optim": {"warmup_steps": 0},
                   "train": {"max_steps": 2, "batch_size": 2, "grad_accum": 1, "save_every": 0,
                             "eval_every": 0},
                   "output": {"dir": str(tmp_path / "out")}})  # fmt: skip
    final = Path(summary["final"])
    assert StepFormat.load(final).split == {**line, "cut_by": "prm-label", "given": []}
    r = PRMReward.load(final)
    assert r.cut.mode == "line"
    got = r.score(["q"], ["3 + 4 = 7\n7 + 2 = 9"])[0]
    assert len(got.steps) == 2 and got.note is Note.scored
