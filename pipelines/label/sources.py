"""How prm-label runs each label source: its `labels.<name>` section (a dataclass of its
options) and the builder of its verifier, registered together by name (`HowToRun`). What a
source *is* (role, columns, domains) is declared in `labeling/registry.py`; `register` adds a
source in one call (declaration, section, builder), `runs` decorates a built-in's builder.
The labels config (`pipelines.label.config.labels_config`) and the `labels` config group read
this table, so a registered source is chosen with `labels=[<name>]` and set with
`labels.<name>.<field>=...` like a built-in. The source table (config key, verifier, columns)
is in docs/schema.md. How many verifier actors run is `pipelines.label.labelers`; the
sandbox's size per node, `pipelines.label.sandbox_sizing`.

Imports are lazy so that a job that does not use a source does not pay for it.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import Any

from labeling import registry
from labeling.registry import Registry, Role
from pipelines.engine.device import visible_cores
from pipelines.generation_config import (
    chains_in_sections,
)
from pipelines.label.job_config import JobConfig
from pipelines.label.labelers import labelers_per_node
from pipelines.label.mc_sections import SECTIONS as MC_SECTIONS
from pipelines.label.sandbox_sizing import node_sandbox_slots, sandbox_config
from pipelines.label.source_configs import (
    AnswerSourceConfig,
    CalcSourceConfig,
    JudgeSourceConfig,
    MCSourceConfig,
    SandboxSettings,
    SyntaxSourceConfig,
)
from pipelines.label.source_rules import code_digest
from verifiers.base import GivenOutcome, Verifier

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class BuildContext:
    """What a builder may need besides the config: the engines (None without a model)."""

    domain: str
    completer: Any = None  # the sampler's engine (MC rollouts)
    critic: Any = None  # the judge's model (verifiers.judge.JudgeModel)


Builder = Callable[["JobConfig", Any, BuildContext], Verifier]


@dataclass(frozen=True, slots=True)
class HowToRun:
    """What prm-label needs to run a declared source: its `labels.<name>` section (a
    dataclass of its options, `option()` fields) and the function that builds its verifier
    from the job config and that section."""

    section: type
    build: Builder
    # A section chosen by name (`labels/<source>=<option>`, each option a subclass of
    # `section` with keys of its own): {option: its section}, the first the default (a
    # registry, read when the options are registered: a toy's option is one).
    variants: Mapping[str, type] = field(default_factory=dict)
    # Sub-sections chosen by name too (`labels/<source>/<key>=<option>`): key, its default
    # option, and a function giving every option's node (read when registering, not before).
    choices: tuple[tuple[str, str, Callable[[], dict[str, Any]]], ...] = ()
    # The rules it labels by where code holds them, not config (`source_rules`): a digest
    # that is part of every unit's key, so units labeled by other rules are not reused.
    rules: Callable[[], str] | None = None


def _declared(name: str, entry: HowToRun) -> None:
    spec = registry.get(name)  # KeyError (one sentence) for a source nobody declared
    if not spec.configurable:
        raise ValueError(f"label source {name!r} is not run by prm-label (configurable=False)")
    if not is_dataclass(entry.section):
        raise ValueError(f"label source {name!r}: its section must be a dataclass")


_RUNS: Registry[HowToRun] = Registry("label source builder", check=_declared)


def runs(name: str, section: type, variants: Mapping[str, type] | None = None,
         choices: tuple[tuple[str, str, Callable[[], dict[str, Any]]], ...] = (),
         rules: Callable[[], str] | None = None) -> Callable[[Builder], Builder]:  # fmt: skip
    """Decorate the builder of built-in source `name` (declared in labeling/registry.py),
    whose `labels.<name>` section is `section` (or one of `variants`, chosen by name; its
    sub-sections in `choices` chosen by name too; `rules` its `HowToRun.rules`)."""

    def wrap(fn: Builder) -> Builder:
        _RUNS.register(name, HowToRun(section, fn, variants or {}, choices, rules))
        return fn

    return wrap


def register(spec: registry.SourceSpec, section: type, build: Builder) -> None:
    """Add a label source in one call: its declaration (role, columns), its `labels.<name>`
    section and its builder. `labels=[<name>]` then works from the command line (the section
    is a config group option, `register_options`) and its columns are in the shard schema."""
    registry.register(spec)
    try:
        _RUNS.register(spec.name, HowToRun(section, build))
    except BaseException:
        registry.unregister(spec.name)
        raise


def unregister(name: str) -> None:
    _RUNS.unregister(name)
    registry.unregister(name)


@contextmanager
def registered(spec: registry.SourceSpec, section: type, build: Builder) -> Iterator[None]:
    """`register` for the duration of a `with` block (tests, toys)."""
    register(spec, section, build)
    try:
        yield
    finally:
        unregister(spec.name)


def how_to_run(name: str) -> HowToRun:
    return _RUNS.lookup(name)


def sections() -> list[tuple[str, type, str]]:
    """(name, section, doc) of every configurable source with a builder, in registry order."""
    return [(s.name, _RUNS[s.name].section, s.doc) for s in registry.specs() if s.name in _RUNS]


def register_options() -> None:
    """Every source's section as the config group option `labels/<name>` (Hydra's
    ConfigStore; `conf/` holds no YAML for them): `labels=[calc]` sets `labels.calc` to
    the section's defaults."""
    from hydra.core.config_store import ConfigStore

    cs = ConfigStore.instance()
    now = sections()
    for name, section, _ in now:
        variants = _RUNS[name].variants
        if not variants:
            cs.store(group="labels", name=name, node={name: section})
            continue
        # `labels=[mc]` brings the default variant; `labels/mc=fall` chooses another, and
        # `labels/mc/model=qwen_coder_0_5b` a sub-section's option.
        subs = _RUNS[name].choices
        cs.store(group="labels", name=name, node={"defaults": [
            {name: next(iter(variants))}, *({f"{name}/{key}": default} for key, default, _ in subs),
            "_self_"]})
        for option_name, variant in variants.items():
            cs.store(group=f"labels/{name}", name=option_name, node=variant)
        for key, _, options in subs:
            for option_name, node in options().items():
                cs.store(group=f"labels/{name}/{key}", name=option_name, node=node)
    # A source unregistered since (a test's toy) stops being an option: the store has no
    # remove call, so its entry leaves the group's table.
    stored = cs.repo.get("labels", {})
    keep = {f"{name}.yaml" for name, _, _ in now} | {name for name, _, _ in now
                                                    if _RUNS[name].variants}
    for gone in set(stored) - keep:
        del stored[gone]


def build_sources(
    cfg: JobConfig, domain: str, completer: Any = None, critic: Any = None
) -> dict[str, Verifier]:
    """{source name: verifier} for the sources enabled in `cfg.labels` that apply to `domain`.
    Raises ValueError when a source cannot run (mc or judge without an engine, no builder)."""
    ctx = BuildContext(domain, completer, critic)
    out: dict[str, Verifier] = {}
    for name in cfg.labels.enabled():
        if domain not in registry.get(name).domains:
            continue
        out[name] = how_to_run(name).build(cfg, getattr(cfg.labels, name), ctx)
    return out


@runs("answer", AnswerSourceConfig)
def _answer(cfg: JobConfig, section: Any, ctx: BuildContext) -> Verifier:
    if ctx.domain == "math":
        from verifiers.answer import AnswerVerifier

        checker: Verifier = AnswerVerifier(timeout_s=cfg.answer_check.timeout_s)
    else:
        checker = _code_outcome(cfg.sandbox, node_sandbox_slots(cfg))
    return GivenOutcome(checker)


def rules_of(cfg: JobConfig) -> dict[str, str]:
    """{source: digest of its rules} for the enabled sources that declare rules in code."""
    return {name: rules() for name in cfg.labels.enabled()
            if (rules := how_to_run(name).rules) is not None}


@runs("calc", CalcSourceConfig, rules=lambda: code_digest(
    "verifiers.calculator", ("sympy", "latex2sympy2_extended", "mpmath")))
def _calc(cfg: JobConfig, section: Any, ctx: BuildContext) -> Verifier:
    from verifiers.calculator.verifier import CalcConfig, CalculatorVerifier

    return CalculatorVerifier(
        config=CalcConfig(
            timeout_s=section.timeout_s,
            symbolic=section.symbolic,
            symbolic_timeout_s=section.symbolic_timeout_s,
            workers=section.workers or calc_workers(cfg),
        )
    )


def calc_workers(cfg: JobConfig) -> int:
    """What a null `labels.calc.workers` means. A second worker judges the next chain while
    the first is busy, and the labeler's own numeric checks keep a third process going: past
    two, on the cores a labeler has, they mostly wait on each other. Where mc or judge runs,
    one: their engines own the cores (`ray.label_num_cpus`)."""
    if any(registry.get(name).role == Role.complete for name in cfg.labels.enabled()):
        return 1
    return max(1, min(2, visible_cores() // labelers_per_node(cfg)))


@runs("tests", SyntaxSourceConfig)
def _tests(cfg: JobConfig, section: Any, ctx: BuildContext) -> Verifier:
    from verifiers.code_syntax import SyntaxVerifier

    # Per-step label for code: the first prefix no continuation can make parse. (The tests
    # themselves run once, as the `answer` source.)
    return SyntaxVerifier()


def _model_options() -> dict[str, Any]:
    """The completer's model by name: `sampler` (the sampler's: `name` ''), or any option of
    the `model` group (conf/model/*.yaml)."""
    from omegaconf import OmegaConf

    from pipelines.confdir import CONF_DIR

    options: dict[str, Any] = {"sampler": {}}
    for path in sorted(Path(CONF_DIR, "model").glob("*.yaml")):
        options[path.stem] = OmegaConf.load(path)
    return options


@runs("mc", MCSourceConfig, MC_SECTIONS,
      choices=(("model", "sampler", _model_options),))
def _mc(cfg: JobConfig, m: Any, ctx: BuildContext) -> Verifier:
    if ctx.completer is None:
        raise ValueError("labels.mc needs an engine for its completer model")
    from verifiers.mc.driver import MonteCarloVerifier
    from verifiers.mc.outcome import outcome_check

    labels = cfg.labels
    # Rollouts are judged as the `answer` source judges a chain: the same answer check, the
    # same sandbox (its `workers` also sets how many checks run at once).
    sandbox = {**asdict(sandbox_config(cfg.sandbox, node_sandbox_slots(cfg))),
               "workers": cfg.sandbox.workers}
    return MonteCarloVerifier(
        completer=ctx.completer,
        check=outcome_check(ctx.domain, cfg.answer_check.timeout_s, sandbox),
        domain=ctx.domain,
        method=m.make_method(),
        self_rollouts=m.self_rollouts,
        max_rounds=m.max_rounds,
        speculate=m.speculate, look_ahead=m.look_ahead,
        # When the completer is the sampler's model with the same cap, temperature and top_p,
        # the chains it sampled are its own samples from the question.
        samples_of=cfg.model.name if m.own_model(cfg.model) is None
        and m.same_sampling(cfg.sampler) else None,
        after_error=labels.after_error,
        tests_cfg=sandbox,
        **rollout_settings(cfg, m),
    )


def rollout_settings(cfg: JobConfig, m: Any) -> dict[str, Any]:
    """How every rollout of `labels.mc` is sampled."""
    from labeling.prompts import user_message

    max_tokens, temperature = m.sampling(cfg.sampler)
    return {"max_tokens": max_tokens, "temperature": temperature, "top_p": cfg.sampler.top_p,
            "end_loops": m.end_loops, "seed": cfg.sampler.seed,
            # Rollouts see the problem exactly as the sampler showed it.
            "prompt_fn": functools.partial(user_message,
                                           math_instruction=cfg.sampler.math_instruction)}


@runs("judge", JudgeSourceConfig)
def _judge(cfg: JobConfig, j: Any, ctx: BuildContext) -> Verifier:
    if ctx.critic is None:
        raise ValueError("labels.judge needs an engine for its critic model")
    from verifiers.judge import JudgeVerifier

    return JudgeVerifier(
        ctx.critic, votes=j.votes, max_tokens=j.max_tokens, temperature=j.temperature,
        seed=cfg.sampler.seed, max_evidence=j.max_evidence, vote=j.vote,
        # Traces cut into sections: every section judged on its own (DeltaBench's protocol).
        protocol="sections" if chains_in_sections(cfg) else "first_error",
    )


def _code_outcome(settings: SandboxSettings, node_slots: int) -> Verifier:
    from verifiers.code_tests import CodeTestVerifier

    return CodeTestVerifier(sandbox_config(settings, node_slots), workers=settings.workers)
