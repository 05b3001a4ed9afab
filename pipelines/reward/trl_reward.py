"""A PRM reward as a TRL `reward_funcs` entry (GRPOTrainer, RLOOTrainer: any trainer that calls
`reward_func(prompts=..., completions=..., completion_ids=..., **dataset_columns)`).

    from pipelines.reward import PRMReward
    reward = PRMReward.load("outputs/prm/final")
    trainer = GRPOTrainer(model=..., reward_funcs=reward.trl(reference="answer"), ...)

Prompts and completions may be plain strings or chat messages (TRL's conversational format).
`reference` names the dataset column holding the reference answer; when the column is there
the verified outcome counts (`outcome_weight`, 0.5 by default; 0 ignores it). Where the
trainer offers TRL's `log_metric` / `log_extra` hooks, the share of completions that got the
stated empty reward (and of those that failed the format rule) and each completion's step
count and note are logged beside the reward.

What it promises: a list of finite floats, one per completion (TRL turns None into NaN; this
callable never returns None). It does not use the policy's tokens: the PRM tokenizes the
decoded text itself, the way it was trained (the tokenizer mismatch of TRL #2577 cannot arise).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from labeling.prm.reward import FORMAT_NOTES, Note


class TRLReward:
    """Callable with TRL's reward function signature; `__name__` names its log columns."""

    def __init__(self, reward: Any, reference: str | None = "answer",
                 name: str = "prm_reward") -> None:  # fmt: skip
        self.reward, self.reference = reward, reference
        self.__name__ = name

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any],
                 completion_ids: Sequence[Sequence[int]] | None = None,
                 **kwargs: Any) -> list[float]:  # fmt: skip
        references = kwargs.get(self.reference) if self.reference else None
        results = self.reward.score(prompts, completions, references)
        log_metric, log_extra = kwargs.get("log_metric"), kwargs.get("log_extra")
        if callable(log_metric) and results:
            stated = sum(r.note is not Note.scored for r in results)
            log_metric(f"{self.__name__}/no_scorable_step", stated / len(results))
            failed = sum(r.note in FORMAT_NOTES for r in results)
            log_metric(f"{self.__name__}/format_failure", failed / len(results))
        if callable(log_extra):
            log_extra(f"{self.__name__}_steps", [len(r.steps) for r in results])
            log_extra(f"{self.__name__}_note", [str(r.note) for r in results])
        return [r.reward for r in results]
