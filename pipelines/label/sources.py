"""Build the label sources a config asks for, per domain: one builder per source registered
by name. What a source *is* (role, columns, domains) is declared in `labeling/registry.py`;
this module only says how to make its verifier. The source table (config key, verifier,
columns) is in docs/schema.md.

Imports are lazy so that a job that does not use a source does not pay for it.
"""

from __future__ import annotations

import functools
import math
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from labeling import registry
from pipelines.label.config import LabelJobConfig, SandboxSettings, labels_sections
from verifiers.base import GivenOutcome, Verifier


@dataclass(frozen=True, slots=True)
class BuildContext:
    """What a builder may need besides the config: the engines (None without a model)."""

    domain: str
    completer: Any = None  # the sampler's engine (MC rollouts)
    critic: Any = None  # the judge's model (verifiers.judge.Critic)


Builder = Callable[[LabelJobConfig, Any, BuildContext], Verifier]
_BUILDERS: dict[str, Builder] = {}


def builder(name: str) -> Callable[[Builder], Builder]:
    """Register the function that builds source `name`'s verifier from the job config and
    the source's own `labels.<name>` section. The source must be in the registry."""
    registry.get(name)  # KeyError (one sentence) for a source nobody declared

    def wrap(fn: Builder) -> Builder:
        _BUILDERS[name] = fn
        return fn

    return wrap


def unregister_builder(name: str) -> None:
    _BUILDERS.pop(name, None)


def has_builder(name: str) -> bool:
    return name in _BUILDERS


def build_sources(
    cfg: LabelJobConfig, domain: str, completer: Any = None, critic: Any = None
) -> dict[str, Verifier]:
    """{source name: verifier} for the sources enabled in `cfg.labels` that apply to `domain`.
    Raises ValueError when a source cannot run (mc or judge without an engine, no builder)."""
    ctx = BuildContext(domain, completer, critic)
    out: dict[str, Verifier] = {}
    for name in cfg.labels.enabled():
        if domain not in registry.get(name).domains:
            continue
        if name not in _BUILDERS:
            raise ValueError(f"label source {name!r} is registered but has no builder "
                             "(pipelines.label.sources.builder)")
        out[name] = _BUILDERS[name](cfg, getattr(cfg.labels, name), ctx)
    return out


@builder("answer")
def _answer(cfg: LabelJobConfig, section: Any, ctx: BuildContext) -> Verifier:
    if ctx.domain == "math":
        from verifiers.answer import AnswerVerifier

        checker: Verifier = AnswerVerifier(timeout_s=cfg.answer_check.timeout_s)
    else:
        checker = _code_outcome(cfg.sandbox, node_sandbox_slots(cfg))
    return GivenOutcome(checker)


@builder("calc")
def _calc(cfg: LabelJobConfig, section: Any, ctx: BuildContext) -> Verifier:
    from verifiers.calculator.verifier import CalculatorVerifier

    return CalculatorVerifier(timeout_s=section.timeout_s)


@builder("tests")
def _tests(cfg: LabelJobConfig, section: Any, ctx: BuildContext) -> Verifier:
    from verifiers.code_tests import SyntaxVerifier

    # Per-step label for code: the first prefix no continuation can make parse. (The tests
    # themselves run once, as the `answer` source.)
    return SyntaxVerifier()


@builder("mc")
def _mc(cfg: LabelJobConfig, m: Any, ctx: BuildContext) -> Verifier:
    if ctx.completer is None:
        raise ValueError("labels.mc needs an engine; it cannot run on given chains alone")
    from labeling.prompts import user_message
    from verifiers.rollout.driver import MonteCarloVerifier
    from verifiers.rollout.outcome import outcome_check

    labels = cfg.labels
    # Rollouts are judged as the `answer` source judges a chain: the same answer check, the
    # same sandbox (its `workers` also sets how many checks run at once).
    sandbox = {**asdict(sandbox_config(cfg.sandbox, node_sandbox_slots(cfg))),
               "workers": cfg.sandbox.workers}
    max_tokens, temperature = m.sampling(cfg.sampler)
    return MonteCarloVerifier(
        completer=ctx.completer,
        check=outcome_check(ctx.domain, cfg.answer_check.timeout_s, sandbox),
        domain=ctx.domain,
        options=m.options(),
        max_tokens=max_tokens,
        temperature=temperature,
        top_p=cfg.sampler.top_p,
        # The completer is the sampler's engine: with the same cap, temperature and top_p,
        # the chains it sampled are its own samples from the question.
        samples_of=cfg.model.name if m.same_sampling(cfg.sampler) else None,
        after_error=labels.after_error,
        tests_cfg=sandbox,
        seed=cfg.sampler.seed,
        # Rollouts see the problem exactly as the sampler showed it.
        prompt_fn=functools.partial(user_message, math_instruction=cfg.sampler.math_instruction),
    )


@builder("judge")
def _judge(cfg: LabelJobConfig, j: Any, ctx: BuildContext) -> Verifier:
    if ctx.critic is None:
        raise ValueError("labels.judge needs an engine for its critic model")
    from verifiers.judge import JudgeVerifier

    return JudgeVerifier(
        ctx.critic, votes=j.votes, max_tokens=j.max_tokens, temperature=j.temperature,
        seed=cfg.sampler.seed, max_evidence=j.max_evidence, vote=j.vote,
        # Traces cut into sections: every section judged on its own (DeltaBench's protocol).
        protocol="sections" if labels_sections(cfg) else "first_error",
    )


def labelers_per_node(cfg: LabelJobConfig) -> int:
    """Verifier actors one node may hold: 1 in-process; every one on a local Ray (one node);
    on a cluster ceil(actors / live CPU nodes), as SPREAD places them. When more land on a
    node (SPREAD is best effort, or a node died), the node's sandbox slots make the extra
    runs wait rather than exceed the memory share."""
    rc = cfg.ray
    if not rc.enabled:
        return 1
    n = int(rc.label_actors)
    if rc.address:
        import ray

        if ray.is_initialized():
            nodes = sum(1 for x in ray.nodes() if x.get("Alive") and x["Resources"].get("CPU"))
            n = math.ceil(n / max(1, nodes))
    return max(1, n)


def node_sandbox_slots(cfg: LabelJobConfig) -> int:
    """Sandboxes the labelers run at once on one node: sandbox.workers per verifier actor."""
    return cfg.sandbox.workers * labelers_per_node(cfg)


def sandbox_config(settings: SandboxSettings, node_slots: int) -> Any:
    """The sandbox's limits from the `sandbox` section, with `node_slots` runs at once on a
    node sharing its `node_memory_share`; unsafe mode only when asked for and needed."""
    from verifiers.sandbox.result import SandboxConfig

    unsafe = settings.allow_unsafe and shutil.which("bwrap") is None
    return SandboxConfig(timeout_s=settings.timeout_s, isolation="none" if unsafe else "bwrap",
                         node_memory_share=settings.node_memory_share, node_slots=node_slots)


def _code_outcome(settings: SandboxSettings, node_slots: int) -> Verifier:
    from verifiers.code_tests import CodeTestVerifier

    return CodeTestVerifier(sandbox_config(settings, node_slots), workers=settings.workers,
                            syntax=False, name="answer")
