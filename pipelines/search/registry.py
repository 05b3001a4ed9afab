"""The search strategies, each registered once: `prm-search`'s `Strategy` enum (the choices of
`search.strategies` and their `--help` text), the config's checks, the job's searches and the
tests all read this table, so a strategy cannot be a choice without a way to run it.

A `StrategySpec` names a strategy, says what it does, whether it needs a PRM, and how its
searches are built: `build(ctx, members)` returns `(coroutine, label)` pairs for one problem
(the coroutines of `pipelines.search.strategies`; `label` names the search in errors).
Strategies of one `family` share their searches (majority, best-of-N and the weighted vote
decide over one sample): the job calls the family's `build` once per problem with the
family's strategies the config asks for, in registration order. Each asked-for strategy must
come back with decisions and no other may: the job stops with one sentence otherwise, so a
builder that forgets a strategy fails a test, never a user with zero rows and a clean
manifest.

Adding a strategy: its coroutine (in `pipelines.search.strategies` or its own module) and one
`register(StrategySpec(...))`, here for a built-in (at the bottom) or in the plugin's module.
`pipelines.search.config` builds its enum from this table when it is imported (register
before that); `strategy_enum()` builds it again. Tests register a toy one with `registered`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from labeling.engine_request import EngineRequest, Messages
from labeling.ids import derive_seed
from labeling.registry import Registry
from labeling.schema import Problem
from pipelines.cli import ConfigError
from pipelines.search.strategies import Ends, Extract, Split, TreeParams, sampling, tree_search
from pipelines.search.strategies import Strategy as Search  # a search coroutine


@dataclass(frozen=True, slots=True)
class SearchContext:
    """What a builder gets for one problem: the typed `SearchConfig`, the problem, the chat
    the generator sees, and how text becomes steps (`split`), an answer (`extract`) and a
    finished chain (`ends`)."""

    cfg: Any
    problem: Problem
    messages: Messages
    split: Split
    extract: Extract
    ends: Ends

    def base(self, seed: int) -> EngineRequest:
        """The problem's engine request under the sampler's settings: what a strategy asks
        variations of (a prefix, n, a step's token cap, a step stop)."""
        sp = self.cfg.sampler
        return EngineRequest(self.messages, n=1, seed=seed, max_tokens=sp.max_tokens,
                             temperature=sp.temperature, top_p=sp.top_p,
                             stop=tuple(sp.stop))  # fmt: skip


Builder = Callable[[SearchContext, tuple[str, ...]], list[tuple[Search, str]]]


@dataclass(frozen=True, slots=True)
class StrategySpec:
    """One strategy. `check(cfg)` raises `ConfigError` for a config it cannot run (None: no
    check of its own); strategies of one `family` share one `build`."""

    name: str
    doc: str
    needs_prm: bool
    family: str
    build: Builder
    check: Callable[[Any], None] | None = None


def _one_builder_per_family(name: str, spec: StrategySpec) -> None:
    kin = [s for s in _REGISTRY.values() if s.family == spec.family]
    if kin and kin[0].build is not spec.build:
        raise ValueError(f"strategy {name!r} joins family {spec.family!r}, whose strategy "
                         f"{kin[0].name!r} builds with another function")


_REGISTRY: Registry[StrategySpec] = Registry("search strategy", check=_one_builder_per_family)


def register(spec: StrategySpec) -> StrategySpec:
    """Declare a strategy. Raises ValueError for a name already taken, or a family whose
    strategies would be built by different functions."""
    return _REGISTRY.register(spec.name, spec)


def registered(spec: StrategySpec) -> AbstractContextManager[StrategySpec]:
    """`spec` registered for the duration of a `with` block (tests)."""
    return _REGISTRY.registered(spec.name, spec)


def names() -> tuple[str, ...]:
    """Every registered strategy, in registration order."""
    return tuple(_REGISTRY)


def get(name: str) -> StrategySpec:
    return _REGISTRY.lookup(name)


def strategy_enum() -> type[StrEnum]:
    """The `Strategy` enum of the config: one member per registered strategy."""
    return StrEnum("Strategy", [(n, n) for n in _REGISTRY])  # type: ignore[return-value]


def help_text() -> str:
    return "Strategies to run (all by default): " + "; ".join(
        f"{s.name}: {s.doc}" for s in _REGISTRY.values()
    ) + "."


def needs_prm(selected: Sequence[str]) -> list[str]:
    """The strategies of `selected` that need a PRM."""
    return [str(x) for x in selected if get(x).needs_prm]


def families(selected: Sequence[str]) -> list[tuple[StrategySpec, tuple[str, ...]]]:
    """(the family's first spec, its selected members in registration order), per family
    with a selected member, in registration order. Raises KeyError for an unknown name."""
    wanted = {str(x) for x in selected}
    for x in wanted:
        get(x)
    out: dict[str, tuple[StrategySpec, list[str]]] = {}
    for spec in _REGISTRY.values():
        if spec.name in wanted:
            out.setdefault(spec.family, (spec, []))[1].append(spec.name)
    return [(spec, tuple(members)) for spec, members in out.values()]


def check(cfg: Any) -> None:
    """Every selected strategy's own config check (`ConfigError`, one sentence)."""
    for x in cfg.search.strategies:
        spec = get(x)
        if spec.check is not None:
            spec.check(cfg)


# --- the built-in strategies ----------------------------------------------------------------


def _sampling(ctx: SearchContext, members: tuple[str, ...]) -> list[tuple[Search, str]]:
    s, sp, p = ctx.cfg.search, ctx.cfg.sampler, ctx.problem
    base = ctx.base(derive_seed(sp.seed, p.problem_id, "sample"))
    co = sampling(base, list(s.budgets), ctx.split, ctx.extract, list(s.aggregations), members)
    return [(co, "sampling")]


def _tree(ctx: SearchContext, members: tuple[str, ...]) -> list[tuple[Search, str]]:
    s, sp, p = ctx.cfg.search, ctx.cfg.sampler, ctx.problem
    out = []
    for strategy in members:
        for n in sorted(set(s.budgets)):
            params = TreeParams(n, s.width, s.max_depth, s.step_max_tokens, s.step_stop,
                                s.aggregation)  # fmt: skip
            base = ctx.base(derive_seed(sp.seed, p.problem_id, strategy, n))
            co = tree_search(params, base, strategy == "dvts", ctx.split, ctx.extract, ctx.ends)
            out.append((co, f"{strategy}, N={n}"))
    return out


def _tree_check(cfg: Any) -> None:
    s = cfg.search
    odd = [n for n in s.budgets if n > s.width and n % s.width]
    if odd:
        raise ConfigError(f"beam/dvts budgets {odd} are not multiples of search.width="
                          f"{s.width}; use multiples (or budgets below the width)")


for _spec in (
    StrategySpec("majority", "majority vote over N sampled chains (no PRM)", False, "sampling",
                 _sampling),
    StrategySpec("best_of_n", "the chain with the best aggregated PRM score among N", True,
                 "sampling", _sampling),
    StrategySpec("weighted_vote", "the answer with the highest summed PRM score among N",
                 True, "sampling", _sampling),
    StrategySpec("beam", "step-level beam search: N/M beams kept, M children each, per step",
                 True, "tree", _tree, _tree_check),
    StrategySpec("dvts", "diverse verifier tree search: N/M independent greedy subtrees of "
                 "width M", True, "tree", _tree, _tree_check),
):
    register(_spec)
