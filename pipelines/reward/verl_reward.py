"""A PRM reward as verl's custom reward function (`custom_reward_function` in verl's config).

    custom_reward_function.path=$(python -m pipelines.reward.verl_reward)   # prints this file
    custom_reward_function.name=compute_score
    +custom_reward_function.reward_kwargs.checkpoint=outputs/prm/final

verl loads this file by path and calls `compute_score(data_source=..., solution_str=...,
ground_truth=..., extra_info=...)` once per response (its `naive` reward manager), adding
`custom_reward_function.reward_kwargs` as keyword arguments: those are `RewardConfig` fields
(`checkpoint` is required; `aggregation`, `backend`, `url`, `outcome_weight`...). With
`reward_model.reward_manager=batch` use `compute_score_batch`, which scores a whole batch in
one PRM call (much faster: a PRM forward pass per response is slow).

The prompt reaches a verl reward function only through `extra_info`, the per-row dict of the
training parquet: put the question there when preparing the data (verl's own GSM8K and MATH
preprocessing scripts store it as `extra_info["question"]`). This module reads the key
`prompt_key` names, else the first of `question`, `prompt`, `problem` that is present; a
string or chat messages. Without one the PRM scores the steps with an empty prompt (counted
as `no_prompt` in the reward's stats): the number stays finite but means less.
`ground_truth` is the reference the outcome blend checks (`outcome_weight`, 0.5 by default;
0 ignores it).

What it promises: a finite float per response. One `PRMReward` is built per process and per
distinct set of keyword arguments, and kept for the life of the process (verl's function
interface has no other place to hold a model).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

PROMPT_KEYS = ("question", "prompt", "problem")
_REWARDS: dict[str, Any] = {}


def _reward(kwargs: dict[str, Any]) -> Any:
    key = json.dumps(kwargs, sort_keys=True, default=str)
    if key not in _REWARDS:
        # verl loads this file by path in every worker: the PRM (torch) loads at the first score.
        from pipelines.reward.config import reward_config
        from pipelines.reward.prm_reward import PRMReward

        _REWARDS[key] = PRMReward(reward_config(**kwargs))
    return _REWARDS[key]


def prompt_of(extra_info: Any, prompt_key: str | None = None) -> Any:
    """The prompt a verl row carries in `extra_info` (None when it carries none)."""
    if not isinstance(extra_info, dict):
        return None
    for key in (prompt_key,) if prompt_key else PROMPT_KEYS:
        if extra_info.get(key) is not None:
            return extra_info[key]
    return None


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[Any],
                        ground_truths: Sequence[Any], extra_infos: Sequence[Any] | None = None,
                        prompt_key: str | None = None, **kwargs: Any) -> list[float]:  # fmt: skip
    """verl's batch signature: one finite reward per response."""
    reward = _reward(kwargs)
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    prompts = [prompt_of(info, prompt_key) for info in infos]
    reward.stats["no_prompt"] += sum(p is None for p in prompts)
    return reward([p if p is not None else "" for p in prompts], list(solution_strs),
                  list(ground_truths))  # fmt: skip


def compute_score(data_source: Any, solution_str: Any, ground_truth: Any,
                  extra_info: Any = None, prompt_key: str | None = None,
                  **kwargs: Any) -> float:  # fmt: skip
    """verl's per-response signature: a finite reward for `solution_str`."""
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info],
                               prompt_key, **kwargs)[0]  # fmt: skip


if __name__ == "__main__":  # the path verl's custom_reward_function.path wants
    print(__file__)
