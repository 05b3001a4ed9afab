"""A trained PRM as the reward of RL training.

Public API: `PRMReward` (one object: split as training did, score with any backend, fold into
one finite reward per completion, dense per-step rewards), `RewardConfig` and `reward_config`
(its typed config), `TRLReward` (TRL's `reward_funcs` signature; `PRMReward.trl()` builds it),
`CompletionReward` / `StepReward` (what `PRMReward.score` returns), `SplitMismatchWarning`
(the reward cuts otherwise than training did; `pipelines.reward.cut` decides the cut). The
HTTP endpoint is
`pipelines.reward.server` (`prm-reward-server`); verl's function is
`pipelines.reward.verl_reward.compute_score`. Protocol and choices: docs/prm.md.
"""

from labeling.prm.reward import CompletionReward, StepReward
from pipelines.reward.config import RewardConfig, reward_config
from pipelines.reward.cut import SplitMismatchWarning
from pipelines.reward.prm_reward import PRMReward
from pipelines.reward.trl_reward import TRLReward

__all__ = ["CompletionReward", "PRMReward", "RewardConfig", "SplitMismatchWarning", "StepReward",
           "TRLReward", "reward_config"]  # fmt: skip
