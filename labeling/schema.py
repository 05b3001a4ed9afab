"""The data types every floor shares: problems, chains, step verdicts, output rows.

Plain frozen dataclasses, no I/O. The Arrow schemas at the bottom are the contract of the
Parquet shards; the per-source columns come from the source registry (labeling/registry.py).
docs/schema.md documents them column by column, and `tests/test_schema_doc.py` checks that
the two agree.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

import labeling.registry as registry


class Status(enum.StrEnum):
    """What a label source could say about one step."""

    CORRECT = "correct"  # checked, and it holds
    INCORRECT = "incorrect"  # checked, and it is wrong (evidence says why)
    UNVERIFIABLE = "unverifiable"  # nothing this source can check
    TIMEOUT = "timeout"  # the check ran out of time or memory
    ERROR = "error"  # the check itself failed (bad reference data, crashed worker)


class Domain(enum.StrEnum):
    """What kind of problem: a math answer to check, or code to test."""

    math = "math"
    code = "code"


# The built-in configurable sources as an enum (Hydra types `labels.consensus` with it); the
# registry (labeling/registry.py) is where sources are declared.
Source = enum.StrEnum("Source", [(n, n) for n in registry.configurable()])  # type: ignore[misc]

# Names written by shard format 1 (and the trainer's old `mc_hard`); readers map them to
# today's names. The one place old names live.
LEGACY_COLUMNS = {"outcome_labels": "answer_labels", "test_labels": "tests_labels"}
LEGACY_SOURCES = {"outcome": "answer", "syntax": "tests"}
LEGACY_TRAIN_SOURCES = {**LEGACY_COLUMNS, "mc_hard": "mc_labels"}


class Neutral(enum.StrEnum):
    """What a human's neutral rating (PRM800K's 0: "reasonable but not progress") becomes in
    a boolean label (`labels.neutral`). PRM800K's paper counts neutral as positive when it
    trains its PRM; `mask` leaves such steps out of training instead."""

    positive = "positive"
    negative = "negative"
    mask = "mask"


def rating_label(rating: int | None, neutral: Neutral | str = Neutral.positive) -> bool | None:
    """A human rating (1 good, 0 neutral, -1 bad, None unrated) as a boolean step label."""
    if rating is None:
        return None
    if rating > 0:
        return True
    if rating < 0:
        return False
    return {Neutral.positive: True, Neutral.negative: False}.get(Neutral(neutral))


class AfterError(enum.StrEnum):
    """What the steps after a chain's first error become (`labels.after_error`)."""

    negative = "negative"  # TRL's convention: everything after the first error is wrong
    mask = "mask"  # null: ignored in training
    keep = "keep"  # whatever the source or policy said
    # keep for reasoning traces cut into sections, negative otherwise (labeling.combine.
    # after_error_for); resolved before labeling starts
    auto = "auto"


_STATUS_LABEL = {True: Status.CORRECT, False: Status.INCORRECT}


@dataclass(frozen=True, slots=True)
class StepVerdict:
    """One source's judgement of one step.

    `label` is True/False only when the source decided; None otherwise. `score` is the
    soft value a source may have (an MC success rate, a pass rate); `evidence` is a short,
    human-readable reason (which claim failed, the claimed and the true value).
    """

    status: Status
    label: bool | None = None
    score: float | None = None
    evidence: str = ""
    rollouts: int = 0  # completions behind `score` (MC sources only)
    tokens: int = 0  # tokens generated to reach this verdict (MC sources only)

    def __post_init__(self) -> None:
        # A label and its status never contradict each other: True only as `correct`, False
        # only as `incorrect`; timeouts, errors and unverifiable steps carry no label.
        expected = _STATUS_LABEL.get(self.label)
        if expected is not None and self.status != expected:
            raise ValueError(f"a {self.status.value!r} verdict cannot carry label {self.label}")
        if self.label is None and self.status in (Status.CORRECT, Status.INCORRECT):
            raise ValueError(f"a {self.status.value!r} verdict needs a label")

    @staticmethod
    def unverifiable(evidence: str = "") -> StepVerdict:
        return StepVerdict(Status.UNVERIFIABLE, None, None, evidence)


@dataclass(frozen=True, slots=True)
class Problem:
    """A task with a checkable reference.

    Math problems carry `reference` (the final answer as text). Code problems carry
    `tests` (assert statements or a HumanEval-style `check` body), optional
    `test_setup` and `entry_point`.
    """

    problem_id: str
    domain: str  # "math" | "code"
    source_dataset: str
    question: str
    reference: str = ""
    tests: tuple[str, ...] = ()
    test_setup: str = ""
    entry_point: str = ""
    given_chains: tuple[GivenChain, ...] = ()  # chains supplied with the input (no sampling)


@dataclass(frozen=True, slots=True)
class GivenChain:
    """A chain that came with the input: already split (`steps`, e.g. a ProcessBench record),
    or one response string (`text`, e.g. a reasoning model's trace) that the job cuts with
    `split.mode` like a sampled chain. Exactly one of the two is set."""

    steps: tuple[str, ...]
    model: str = ""
    human_first_error: int | None = None  # ProcessBench `label` (-1 = all correct)
    human_labels: tuple[bool | None, ...] = ()  # PRM800K-style per-step human labels
    human_ratings: tuple[int | None, ...] = ()  # three-way: 1 good, 0 neutral, -1 bad
    outcome_correct: bool | None = None  # given with the data (ProcessBench), if known
    text: str = ""  # the whole response, to be cut by split.mode (then `steps` is empty)

    def __post_init__(self) -> None:
        if bool(self.steps) == bool(self.text):
            raise ValueError("a given chain is either split (steps) or one text, not both")


@dataclass(frozen=True, slots=True)
class Chain:
    """One reasoning chain for a problem, split into steps."""

    problem_id: str
    chain_id: str
    index: int  # 0..n-1 within the problem
    text: str
    steps: tuple[str, ...]
    model: str
    sampler_seed: int | None = None
    tokens: int = 0  # tokens the sampler generated (0 for given chains)
    finish_reason: str = ""
    human_first_error: int | None = None
    human_labels: tuple[bool | None, ...] = ()
    human_ratings: tuple[int | None, ...] = ()
    given_outcome: bool | None = None  # outcome known from the input data, if any
    spans: tuple[tuple[int, int], ...] = ()  # each step's character span in `text`, if cut
    thinking_finished: bool | None = None  # the trace's thinking closed; None: no thinking


@dataclass(frozen=True, slots=True)
class Quarantined:
    """A row that could not be used, with one sentence saying why. Never dropped."""

    source_dataset: str
    record_index: int  # position in the input (0-based)
    reason: str
    raw: str  # the offending record, truncated
    problem_id: str = ""
    stage: str = "load"  # load | sample | split | verify | filter
    chain_id: str = ""  # set when one chain (not the whole problem) was set aside


@dataclass(slots=True)
class LabeledChain:
    """A chain with every source's verdicts and the combined labels: one output row."""

    problem: Problem
    chain: Chain
    prompt: str
    verdicts: dict[str, list[StepVerdict]]  # source name -> one verdict per step
    labels: list[bool | None]
    first_error_step: int | None  # -1: every step labeled True; None: no error located
    final_answer: str = ""
    outcome_correct: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)


# --- Arrow schemas: the shard contract -------------------------------------------------

VERDICT_STRUCT = pa.struct(
    [
        ("source", pa.string()),
        ("step", pa.int32()),
        ("status", pa.string()),
        ("label", pa.bool_()),
        ("score", pa.float32()),
        ("rollouts", pa.int32()),
        ("evidence", pa.string()),
    ]
)


SPAN_STRUCT = pa.struct([("start", pa.int32()), ("end", pa.int32())])


def labeled_schema() -> pa.Schema:
    """The labeled shard schema with the columns of every source registered now (a plugin
    source registered after import adds its columns here, not to `LABELED_SCHEMA`, which
    holds the built-in sources only: readers of shards call this, never the constant)."""
    return pa.schema([
        # TRL's stepwise-supervision names first.
        pa.field("prompt", pa.string(), nullable=False),
        pa.field("completions", pa.list_(pa.string()), nullable=False),
        pa.field("labels", pa.list_(pa.bool_()), nullable=False),
        # Identity and provenance.
        pa.field("problem_id", pa.string(), nullable=False),
        pa.field("chain_id", pa.string(), nullable=False),
        pa.field("chain_index", pa.int32(), nullable=False),
        pa.field("domain", pa.string(), nullable=False),
        pa.field("source_dataset", pa.string(), nullable=False),
        pa.field("reference_answer", pa.string()),
        pa.field("final_answer", pa.string()),
        pa.field("outcome_correct", pa.bool_()),
        # -1: every step labeled True (ProcessBench's "all correct"); null: no step labeled
        # False but some unlabeled.
        pa.field("first_error_step", pa.int32()),
        # Per-source step columns: labeling/registry.py (one entry per step, null where
        # the source said nothing).
        *registry.source_fields(),
        pa.field("verdicts", pa.list_(VERDICT_STRUCT), nullable=False),
        # Cost accounting.
        pa.field("sample_tokens", pa.int64(), nullable=False),
        pa.field("rollout_tokens", pa.int64(), nullable=False),
        pa.field("rollouts", pa.int32(), nullable=False),
        # Run provenance.
        pa.field("model", pa.string(), nullable=False),
        pa.field("sampler_seed", pa.int64()),
        pa.field("label_policy", pa.string(), nullable=False),
        pa.field("config_hash", pa.string(), nullable=False),
        # Where each step lies in the chain's text (a sampled chain, a given response): null
        # when the chain came already split. After every older column: shards of earlier
        # versions line up with these by position.
        pa.field("step_spans", pa.list_(SPAN_STRUCT)),
        # Reasoning traces: True when the thinking closed, False when it was cut (no
        # `</think>`: its final answer is unknown); null when the chain has no thinking part.
        pa.field("thinking_finished", pa.bool_()),
    ])  # fmt: skip


# The schema of the built-in sources (what docs/schema.md documents).
LABELED_SCHEMA = labeled_schema()

QUARANTINE_SCHEMA = pa.schema(
    [
        pa.field("source_dataset", pa.string(), nullable=False),
        pa.field("record_index", pa.int64(), nullable=False),
        pa.field("problem_id", pa.string()),
        pa.field("chain_id", pa.string()),  # null: the whole problem; set: one chain of it
        pa.field("stage", pa.string(), nullable=False),
        pa.field("reason", pa.string(), nullable=False),
        pa.field("raw", pa.string()),
        pa.field("config_hash", pa.string(), nullable=False),
    ]
)
