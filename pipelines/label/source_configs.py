"""The `labels.<name>` section of each built-in label source: a dataclass of the source's
options (`option()` fields: help, what they affect, range). Each is registered with its
builder in `pipelines.label.sources`, which is how `pipelines.label.config` gets it: nothing
here is listed by hand anywhere else.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from labeling.judge.protocol import JudgeVote
from labeling.mc import METHODS, Method
from pipelines.config_fields import ROWS, SPEED, option
from pipelines.generation_config import ModelConfig, SamplerConfig
from verifiers.sandbox.result import NODE_MEMORY_SHARE, SANDBOX_TIMEOUT_S, SANDBOX_WORKERS


def model_of_its_own(model: ModelConfig, sampler: ModelConfig) -> ModelConfig | None:
    """A source's `model` section when it names a model other than the sampler's, else None
    (name '' or the sampler's own: the source shares the sampler's engine pool)."""
    if not model.name or model == sampler:
        return None
    return model


@dataclass
class AnswerSourceConfig:
    """On: the final answer (math: `answer_check`) or all unit tests (code: `sandbox`); no
    settings of its own."""


@dataclass
class CalcSourceConfig:
    timeout_s: float = option(
        2.0,
        "CPU-time bound of one sympy claim check (the wall clock at 3x ends one that gets no"
        " CPU).",
        ROWS,
        gt=0,
    )
    symbolic: bool = option(
        True,
        "Check relations between expressions too (identities, derivations, claimed solutions;"
        " docs/labels.md); false: numbers only.",
        ROWS,
    )
    symbolic_timeout_s: float = option(
        5.0, "CPU-time bound of one step's symbolic checks (the wall clock at three times it"
        " is the backstop); past it the step abstains.", ROWS, gt=0,
    )
    workers: int | None = option(
        None, "Sympy workers judging chains at once in each labeler (one child process each;"
        " the same labels). null: 1 when mc or judge runs (their engines own the cores), else"
        " the node's cores over its labelers, at most 2.", SPEED, gt=0,
    )


@dataclass
class SyntaxSourceConfig:
    """The `tests` source (a name kept: it is the `tests_labels` column of every shard): on,
    a prefix-syntax verdict per step of code chains (`verifiers.code_syntax`); the unit tests
    run once, as the `answer` source."""


@dataclass
class MCSourceConfig:
    """The keys every Monte Carlo method has (how rollouts are sampled, by which model, how
    many from the bare question). Each method's section (`pipelines.label.mc_sections`) adds
    its own keys, declared in its module (`labeling/mc/<method>.py`): `labels/mc=<method>`
    chooses one."""

    method_name: ClassVar[str] = ""

    method: str = option(
        "", "The method this section is of, as chosen by labels/mc=<name> (written so that a "
        "printed config and the manifest say which ran; setting it here chooses nothing).",
        ROWS,
    )
    self_rollouts: int = option(
        16, "Completions of the bare question per problem that measure the completer's "
        "self-confidence, on top of the problem's sampled chains when the completer wrote them "
        "with the same settings (every method reports it; fall and posterior need it).",
        ROWS, ge=0,
    )
    max_tokens: int | None = option(
        None, "Completion cap of one rollout; null = sampler.max_tokens (then, with the same "
        "temperature and model, the sampled chains are samples of the completer: free "
        "self-confidence).", ROWS, gt=0,
    )
    temperature: float | None = option(None, "Rollout sampling temperature; null = "
                                       "sampler.temperature.", ROWS, ge=0)
    max_rounds: int = option(200, "Safety cap on requests per chain.", ROWS, gt=0)
    end_loops: int = option(
        4, "The engine ends a rollout once it wrote the same line this many times in a row "
        "(numbering aside), a loop that would run on to the token cap; it is judged by its text "
        "as any rollout (its answer, else the loop's last number). 0: never; else >= 2.",
        ROWS, ge=0,
    )
    model: ModelConfig = option(
        factory=lambda: ModelConfig(name=""),
        help="The completer's model (name, path, dtype...), with an engine pool of its own; "
        "name '' = the sampler's (same pool). E.g. labels.mc.model.name="
        "Qwen2.5-Coder-0.5B-Instruct completes the embedded SmolLM2's chains.",
    )
    speculate: bool = option(
        True, "Send the requests a search may need next while the engines have room (the "
        "labels are the same either way; off: strictly one probe at a time per chain).", SPEED,
    )
    look_ahead: int | None = option(
        None, "Probes deep the speculative requests go (0: none); null = the engines' own: 2 on "
        "a GPU or an AMX CPU, where extra sequences cost little, 1 on other CPUs, where every "
        "sequence more slows the rest (docs/benchmarks.md); deeper, posterior sends only the probe "
        "it makes with probability >= 0.5. fall, absolute and any_success look one probe ahead: "
        "more is an error at start (null: at most one).", SPEED, ge=0, le=3,
    )

    def make_method(self) -> Method:
        """The chosen method with its settings (checked): ValueError (one sentence) when
        `method` names another than this section's, when the settings do not combine, or
        when `look_ahead` asks more probes than the method's search looks ahead."""
        if self.method != self.method_name:
            raise ValueError(f"labels.mc.method={self.method} chooses nothing: choose the method "
                             f"with labels/mc={self.method} (this section is "
                             f"{self.method_name}'s)")
        cls = METHODS[self.method_name]
        made = cls(**{f.name: getattr(self, f.name)  # type: ignore[call-arg]
                      for f in dataclasses.fields(cls)})  # type: ignore[arg-type]
        deepest = cls.max_look_ahead
        if self.look_ahead is not None and deepest is not None and self.look_ahead > deepest:
            raise ValueError(f"labels.mc.look_ahead={self.look_ahead}: {self.method_name} looks "
                             f"at most {deepest} probe ahead; choose 0, {deepest} or null")
        return made

    def own_model(self, sampler: ModelConfig) -> ModelConfig | None:
        """The completer's model when it is not the sampler's, else None (share its pool)."""
        return model_of_its_own(self.model, sampler)

    def sampling(self, sampler: SamplerConfig) -> tuple[int, float]:
        """(max_tokens, temperature) of a rollout: ours, or the sampler's where unset."""
        return (sampler.max_tokens if self.max_tokens is None else self.max_tokens,
                sampler.temperature if self.temperature is None else self.temperature)

    def same_sampling(self, sampler: SamplerConfig) -> bool:
        """Whether the rollouts sample as the sampler did: same cap and temperature (top_p is
        the sampler's by construction). With the sampler's model too (`own_model` None), a
        sampled chain is a sample of the completer."""
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
        "parsed votes, when most votes parsed). See labeling/judge/protocol.py.", ROWS
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
        return model_of_its_own(self.model, sampler)


@dataclass
class SandboxSettings:
    """The sandbox every part that runs code uses (the `answer` source on code, MC rollouts
    of code chains)."""

    timeout_s: float = option(
        SANDBOX_TIMEOUT_S, "Wall-clock bound of one program run in the sandbox.", ROWS, gt=0
    )
    # How many run at once and the memory they share change speed and placement; a run that
    # needs more waits for a slot rather than getting less.
    workers: int = option(
        SANDBOX_WORKERS, "Parallel sandbox executions (per verifier actor).", SPEED, gt=0
    )
    node_memory_share: float = option(
        NODE_MEMORY_SHARE, "Share of a node's RAM that all sandboxes running at once on it hold "
        "together (engines plan 0.8 of what Ray reports, about 0.56 of RAM): each run gets "
        "share x RAM / (workers x verifier actors on the node), and runs beyond that many "
        "wait.", SPEED, gt=0, le=1
    )
    allow_unsafe: bool = option(
        False, "Run without isolation when bubblewrap is missing (warns).", ROWS
    )
