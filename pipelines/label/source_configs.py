"""The `labels.<name>` section of each built-in label source: a dataclass of the source's
options (`option()` fields: help, what they affect, range). Each is registered with its
builder in `pipelines.label.sources`, which is how `pipelines.label.config` gets it: nothing
here is listed by hand anywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass

from labeling.judge_protocol import JudgeVote
from labeling.mc import MC_DEFAULTS, EstimatorName, MCOptions, RuleName
from pipelines.config_fields import ROWS, option
from pipelines.generation_config import ModelConfig, SamplerConfig


@dataclass
class AnswerSourceConfig:
    """On: the final answer (math: `answer_check`) or all unit tests (code: `sandbox`); no
    settings of its own."""


@dataclass
class CalcSourceConfig:
    timeout_s: float = option(2.0, "Wall-clock bound of one sympy claim check.", ROWS, gt=0)


@dataclass
class TestsSourceConfig:
    """On: a syntax verdict per step of code chains (the tests run as the `answer` source)."""


_MC = MC_DEFAULTS  # MC's defaults are written once, in labeling/mc/options.py


@dataclass
class MCSourceConfig:
    rule: RuleName = option(
        _MC.rule, "How a probed step's rollouts become its label: posterior (the chain's first "
        "error located by its posterior over every probe, the chain's own outcome and the "
        "completer's self-confidence; a label needs probability >= 1 - level and the "
        "rollouts' own support by `factor`) | fall (the completer's success rate falls across "
        "the step, judged against its own self-confidence on the problem; unverifiable where "
        "it cannot tell) | absolute (confirm successes within the budget, or a success rate > "
        "threshold) | any_success (Math-Shepherd: one success in k). See docs/labels.md.",
        ROWS,
    )
    estimator: EstimatorName = option(
        _MC.estimator, "binary_search | per_step (posterior: binary_search only, its "
        "probabilistic bisection).", ROWS,
    )
    level: float = option(
        _MC.level, "fall: the sequential test's level. A step is False only when the Bayes "
        "factor fell:kept of its rollouts reaches 1/level (and True only when it drops to "
        "level); by Wald's bound a step that kept its rate is called fallen with probability "
        "at most about `level` when the self-confidence is known (on average over its "
        "posterior when it is estimated). posterior: every label has posterior probability "
        ">= 1 - level of being right (a located first error: >= 1 - 2 level).", ROWS, gt=0,
        lt=0.5,
    )
    factor: float = option(
        _MC.factor, "posterior: the Bayes factor by which the rollouts themselves (prior and "
        "own outcome aside) must favour a label: no label rests on the prior alone.", ROWS,
        ge=1,
    )
    chain_budget: int = option(
        _MC.chain_budget, "posterior: most rollouts per chain (the question's not counted); "
        "the search stops earlier once the first error is located or every step is right.",
        ROWS, gt=0,
    )
    fell_below: float = option(
        _MC.fell_below, "fall: a step fell when its success rate is at most this share of the "
        "completer's self-confidence.", ROWS, gt=0, lt=1,
    )
    kept_above: float = option(
        _MC.kept_above, "fall: a step kept its rate when it is at least this share of the "
        "self-confidence (between the two: the test waits for more rollouts).", ROWS, gt=0,
        le=1,
    )
    max_rollouts: int = option(
        _MC.max_rollouts, "fall: most rollouts from one step while its test is undecided; "
        "still undecided then: unverifiable, with the counts.", ROWS, gt=0,
    )
    self_rollouts: int = option(
        _MC.self_rollouts, "Completions of the bare question per problem that measure the "
        "completer's self-confidence, on top of the problem's sampled chains when the "
        "completer wrote them with the same settings (every rule reports it; fall and "
        "posterior need it).",
        ROWS, ge=0,
    )
    k: int = option(_MC.k, "absolute, any_success: rollouts per probed prefix (per_step: N per "
                    "step; Math-Shepherd used 8).", ROWS, gt=0)
    chunk: int | None = option(
        _MC.chunk, "fall, absolute, any_success: rollouts per request: a probe stops as soon "
        "as its rule decides (null: all of k, or of max_rollouts, at once).", ROWS, gt=0,
    )
    probe: int = option(
        _MC.probe, "posterior: decided rollouts per probe before the search chooses the next "
        "step (fewer: fewer rollouts, more rounds of the engine).", ROWS, gt=0,
    )
    probe_max: int = option(
        _MC.probe_max, "posterior: on a problem the completer rarely solves a probe grows "
        "past probe, to ceil(0.5 / self-confidence) rollouts, up to this (= probe: fixed "
        "probes).", ROWS, gt=0,
    )
    spare_steps: bool = option(
        _MC.spare_steps, "posterior: a step that names nothing (no number, variable, "
        "formula or operation: an opening line, a goal restated) or only restates the "
        "question or an earlier step (a loop) is never blamed as the first error, and the "
        "rate after it is its own baseline (such text can derail a weak completer without "
        "being wrong).", ROWS,
    )
    confirm: int = option(_MC.confirm, "absolute: successes a prefix needs to count as on "
                          "track, each success earning k more rollouts.", ROWS, gt=0)
    threshold: float = option(_MC.threshold, "absolute: a step is on track when its success "
                              "rate is > threshold (with confirm=1).", ROWS, ge=0, lt=1)
    max_tokens: int | None = option(
        None, "Completion cap of one rollout; null = sampler.max_tokens (then, with the same "
        "temperature, the sampled chains are samples of the completer: free self-confidence).",
        ROWS, gt=0,
    )
    temperature: float | None = option(None, "Rollout sampling temperature; null = "
                                       "sampler.temperature.", ROWS, ge=0)
    max_rounds: int = option(_MC.max_rounds, "Safety cap on requests per chain.", ROWS, gt=0)
    probe_right: bool = option(
        _MC.probe_right, "binary_search: search the steps of chains whose answer is right too; "
        "false = OmegaPRM's skip, which labels every step of such a chain right without a "
        "rollout.", ROWS,
    )

    def options(self) -> MCOptions:
        """The labeling knobs as the pure core takes them."""
        return MCOptions(
            rule=RuleName(self.rule), estimator=EstimatorName(self.estimator), level=self.level,
            factor=self.factor, chain_budget=self.chain_budget, fell_below=self.fell_below,
            kept_above=self.kept_above,
            max_rollouts=self.max_rollouts, self_rollouts=self.self_rollouts, k=self.k,
            chunk=self.chunk, probe=self.probe, probe_max=self.probe_max,
            spare_steps=self.spare_steps, confirm=self.confirm,
            threshold=self.threshold, probe_right=self.probe_right, max_rounds=self.max_rounds,
        )  # fmt: skip

    def sampling(self, sampler: SamplerConfig) -> tuple[int, float]:
        """(max_tokens, temperature) of a rollout: ours, or the sampler's where unset."""
        return (sampler.max_tokens if self.max_tokens is None else self.max_tokens,
                sampler.temperature if self.temperature is None else self.temperature)

    def same_sampling(self, sampler: SamplerConfig) -> bool:
        """Whether a sampled chain is a sample of the completer: same cap and temperature
        (the model and top_p are the sampler's by construction)."""
        return self.sampling(sampler) == (sampler.max_tokens, sampler.temperature)


@dataclass
class JudgeSourceConfig:
    """An LLM critic names each chain's earliest wrong step (ProcessBench's protocol), m votes
    per chain. Its model is the sampler's unless `model.name` is set (e.g.
    `labels.judge.model.name=Qwen2.5-Coder-0.5B-Instruct` for the prepared Qwen model)."""

    votes: int = option(
        3, "Critic samples per chain (m); `vote` turns them into labels.", ROWS, gt=0
    )
    vote: JudgeVote = option(
        JudgeVote.majority, "majority (a strict majority of ALL votes, unparsable ones "
        "included, must place the first error at or before a step to flag it, or after it to "
        "call it right) | unanimous (every vote) | plurality (the most-named index among "
        "parsed votes, when most votes parsed). See labeling/judge_protocol.py.", ROWS
    )
    max_tokens: int = option(
        512, "Completion cap of one critic answer (cut ones are errors).", ROWS, gt=0
    )
    temperature: float = option(
        0.7, "Critic sampling temperature (0 with votes=1: greedy).", ROWS, ge=0
    )
    max_evidence: int = option(
        400, "Characters of the critic's rationale kept as evidence.", ROWS, ge=0
    )
    model: ModelConfig = option(
        factory=lambda: ModelConfig(name=""),
        help="The judge's model (name, path, dtype...); name '' = the sampler's (same pool).",
    )

    def own_model(self, sampler: ModelConfig) -> ModelConfig | None:
        """The judge's model when it is not the sampler's, else None (share its pool)."""
        if not self.model.name or self.model == sampler:
            return None
        return self.model
