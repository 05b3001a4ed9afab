"""Structured config of a PRM reward and of `prm-reward-server` (`reward_schema` in Hydra's
ConfigStore).

`RewardConfig` is what `PRMReward` is built from, in every trainer: the TRL callable takes its
fields as keyword arguments, verl's `reward_kwargs` are its fields, and the server reads it
under `reward.`. `conf/reward.yaml` only overrides these defaults; every field carries its
help text, enum-typed choices fail at compose time, and `to_config` checks ranges.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from omegaconf import MISSING, OmegaConf

from labeling.prm.reward import (
    DEFAULT_AGGREGATION,
    DEFAULT_EMPTY_REWARD,
    DEFAULT_OUTCOME_WEIGHT,
    END_TOKENS,
)
from labeling.prm.search import Aggregation
from pipelines.cli import ConfigError, composition_sentence
from pipelines.config_fields import ROWS, SPEED, check_fields, option
from pipelines.reward.format_check import FormatRule
from pipelines.split_config import RewardSplit


class RewardBackend(StrEnum):
    """Where the PRM runs (the names prm-search uses for the same choices)."""

    checkpoint = "checkpoint"  # in-process torch: pipelines.scoring.PRMScorer
    vllm = "vllm"  # an in-process vLLM engine: pipelines.serve.PRMClient.local
    server = "server"  # a running `vllm serve`: pipelines.serve.PRMClient.for_server


class RewardDomain(StrEnum):
    """Which of the project's splitters cuts a completion (as prm-label cut that domain)."""

    math = "math"  # labeling.steps.splitters.split_steps with reward.split.mode
    code = "code"  # labeling.steps.code.split_code_steps with reward.split.code_mode


@dataclass
class RewardConfig:
    checkpoint: str = option(
        MISSING, "PRM checkpoint: prm-train's <output.dir>/final (or a prm-export directory); "
        "its prm_format.json says how to format chains and how training cut them into steps.",
        ROWS,
    )  # fmt: skip
    backend: RewardBackend = option(
        RewardBackend.checkpoint,
        "checkpoint (in-process torch), vllm (in-process vLLM engine) or server (a running "
        "`vllm serve <checkpoint>`, see url); all give the same rewards (to 1e-3).", SPEED,
    )  # fmt: skip
    url: str = option("", "backend=server: base URL of `vllm serve <checkpoint>`.", SPEED)
    served_name: str | None = option(
        None, "backend=server: served model name if not the path.", SPEED
    )
    aggregation: Aggregation = option(
        DEFAULT_AGGREGATION,
        "How step scores become one reward: min (default: adding steps cannot raise it), "
        "last, prod (shrinks with length) or mean (pays for padding with easy steps).", ROWS,
    )  # fmt: skip
    split: RewardSplit = option(
        factory=RewardSplit, help="How completions are cut into steps: split's fields by "
        "the same names, each unset = as recorded with the checkpoint (what training saw).",
    )
    domain: RewardDomain = option(RewardDomain.math, "Which splitter cuts completions.", ROWS)
    empty_reward: float = option(
        DEFAULT_EMPTY_REWARD,
        "Reward of a completion with no scorable step (empty, not text, or every step past "
        "the PRM's max_length); each one is counted and logged. 0 = a fully wrong solution.",
        ROWS,
    )  # fmt: skip
    format_rule: FormatRule = option(
        FormatRule.answer,
        "Completions that get format_reward instead of the PRM's score: answer (the thinking "
        "never closed, or no final answer after it), thinking (never closed only) or off.",
        ROWS,
    )  # fmt: skip
    format_reward: float = option(
        DEFAULT_EMPTY_REWARD,
        "Reward of a completion the format rule fails; at most empty_reward, so a tag or an "
        "unfinished thought never earns more than saying nothing.", ROWS,
    )  # fmt: skip
    outcome_weight: float = option(
        DEFAULT_OUTCOME_WEIGHT, "When a reference is passed (TRL's reference column, "
        "OpenRLHF's labels, verl's ground_truth): (1 - w) * PRM + w * outcome (1 right, 0 "
        "wrong or no answer); from 0.5 up a right answer always out-earns a wrong one; "
        "0 = PRM only.", ROWS, ge=0, le=1
    )  # fmt: skip
    max_steps: int | None = option(
        None, "Steps scored per completion at most; later ones are counted, not scored. "
        "Unset = the split.max_steps recorded with the checkpoint (longer chains never "
        "reached training), else 64.", SPEED, gt=0
    )  # fmt: skip
    max_tokens: int | None = option(
        None, "Approximate tokens (prompt and steps) handed to the PRM per completion; steps "
        "past it are counted, not scored. Unset = the checkpoint's max_length (the PRM "
        "reads no further).", SPEED, gt=0
    )  # fmt: skip
    outcome_timeout_s: float = option(
        5.0, "CPU-time bound of one answer equivalence check.", ROWS, gt=0
    )
    end_tokens: list[str] = option(
        factory=lambda: list(END_TOKENS),
        help="End-of-text tokens removed from the end of a completion before it is split.",
        affects=ROWS,
    )
    max_chars: int = option(
        100_000, "A completion is cut to this many characters before splitting (the PRM reads "
        "at most its max_length tokens anyway); bounds the work one malformed input costs.",
        ROWS, gt=0
    )  # fmt: skip
    batch_size: int = option(
        16, "Chains per PRM forward pass (checkpoint) or request (vllm).", SPEED, gt=0
    )
    device: str = option("cpu", "backend=checkpoint: torch device.", SPEED)
    bf16: bool = option(False, "backend=checkpoint: bf16 autocast.", ROWS)
    dtype: str = option("float32", "backend=vllm: the engine's dtype (float32 starts fastest "
                        "on CPUs without native bf16).", ROWS)  # fmt: skip


@dataclass
class ServerConfig:
    host: str = option(
        "127.0.0.1", "Address to bind (0.0.0.0 to serve other machines).", SPEED
    )
    port: int = option(
        5000, "Port (OpenRLHF's default for a remote reward model).", SPEED, gt=0, le=65535
    )
    max_batch: int = option(
        64, "Completions scored together; concurrent requests share it.", SPEED, gt=0
    )
    max_wait_ms: float = option(
        5.0, "How long the first request of a batch waits for others to join it.", SPEED, ge=0
    )
    max_queue: int = option(
        2048, "Completions waiting at most; beyond, requests get 503 and Retry-After.", SPEED,
        gt=0,
    )  # fmt: skip
    max_request: int = option(
        4096, "Completions in one request at most (413 beyond).", SPEED, gt=0
    )
    log_level: str = option("warning", "uvicorn's log level.", SPEED)


@dataclass
class RewardAppConfig:
    reward: RewardConfig = option(factory=RewardConfig, help="The PRM reward (checkpoint...).")
    server: ServerConfig = option(factory=ServerConfig, help="HTTP endpoint and batching.")


def check(cfg: RewardConfig) -> RewardConfig:
    """Ranges (`check_fields`) and fields that go together; raises ConfigError with one
    sentence."""
    check_fields(cfg, "reward.")
    if not cfg.checkpoint:
        raise ConfigError("reward.checkpoint is empty; set it to a PRM checkpoint directory "
                          "(prm-train writes <output.dir>/final)")  # fmt: skip
    if cfg.backend == RewardBackend.server and not cfg.url:
        raise ConfigError("reward.backend=server needs reward.url (the vLLM pooling server)")
    for key in ("empty_reward", "format_reward"):
        if not math.isfinite(getattr(cfg, key)):
            raise ConfigError(f"reward.{key}={getattr(cfg, key)} must be a finite number")
    if cfg.format_reward > cfg.empty_reward:
        raise ConfigError(f"reward.format_reward={cfg.format_reward} is above reward."
                          f"empty_reward={cfg.empty_reward}: a policy would be paid more for "
                          "a tag than for saying nothing; set it at most empty_reward")  # fmt: skip
    return cfg


def reward_config(values: Any = None, **fields: Any) -> RewardConfig:
    """A checked RewardConfig from a dataclass, DictConfig, dict and/or keyword fields (the
    TRL and verl entry points pass keywords). A wrong key, type or enum value raises
    ConfigError naming the valid choices."""
    from omegaconf.errors import OmegaConfBaseException

    try:
        merged = OmegaConf.merge(OmegaConf.structured(RewardConfig), values or {}, fields)
        out: RewardConfig = OmegaConf.to_object(merged)  # type: ignore[assignment]
    except OmegaConfBaseException as exc:
        raise ConfigError(composition_sentence(exc)) from exc
    return check(out)


def app_config(cfg: Any) -> RewardAppConfig:
    merged = OmegaConf.merge(OmegaConf.structured(RewardAppConfig), cfg)
    out: RewardAppConfig = OmegaConf.to_object(merged)  # type: ignore[assignment]
    check(out.reward)
    check_fields(out.server, "server.")
    return out


def register() -> None:
    """Register the schema (idempotent); called by the entry point, not at import."""
    from hydra.core.config_store import ConfigStore

    ConfigStore.instance().store(name="reward_schema", node=RewardAppConfig)
