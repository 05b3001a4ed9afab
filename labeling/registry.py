"""The registries of the project, and the one of label sources.

`Registry` is the one shape of every registry: a table of names, each declared once. Label
sources (below), dataset adapters (`labeling.datasets.ADAPTERS`), the run side of the sources
(`pipelines.label.sources`) and search strategies (`pipelines.search.registry`) are each a
`Registry`: a dict from name to what implements it, filled at import by the built-ins (in
declaration order, which is the order the config's choices show), read by the config, the
driver and the tests. `register` refuses a name already taken; `registered` adds an entry for
a `with` block (tests, toys); `lookup` raises a KeyError that lists the known names. A registry
with further rules (the columns a source writes, a strategy family's builder) passes
`check(name, entry)`, which raises ValueError for an entry that breaks them.

The registry of label sources: every source declared once, everything else asks it.

A source's declaration (`SourceSpec`) says what the rest of the tool needs to know about it:
its name (config key `labels=[name]`, `Verifier.name`, the `source` of its `verdicts`
entries), its role in the label policies, the domains it runs on and the per-step columns it
writes. The shard schema (`labeling.schema.labeled_schema`), the policies
(`labeling.combine`), the labels config (`pipelines.label.config`), the trainer's label
choices (`pipelines.train.config`) and the source table of `docs/schema.md` read it. How
prm-label *runs* a source (its `labels.<name>` section and the builder of its verifier) is
registered by name in `pipelines.label.sources`, so this module stays pure.

Adding a source: its verifier module and one `pipelines.label.sources.register(SourceSpec(...),
section, build)`, which declares it here, adds `labels.<name>` to the config and makes
`labels=[<name>]` a config group option (the built-ins are declared below, in schema column
order, and decorated with `sources.runs` where they are built). `tests/test_registry.py`
checks that no source half-exists and runs a toy one through a label job.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

import pyarrow as pa

T = TypeVar("T")


class Registry(dict[str, T]):
    """{name: entry}; `kind` names the table in errors ("label source")."""

    def __init__(self, kind: str, entries: dict[str, T] | None = None,
                 check: Callable[[str, T], None] | None = None) -> None:  # fmt: skip
        super().__init__()
        self.kind, self.check = kind, check
        for name, entry in (entries or {}).items():
            self.register(name, entry)

    def register(self, name: str, entry: T) -> T:
        """Add `entry` under `name`; raises ValueError for a name already taken (or what
        `check` refuses)."""
        if name in self:
            raise ValueError(f"{self.kind} {name!r} is already registered")
        if self.check is not None:
            self.check(name, entry)
        self[name] = entry
        return entry

    def unregister(self, name: str) -> None:
        self.pop(name, None)

    @contextmanager
    def registered(self, name: str, entry: T) -> Iterator[T]:
        """`entry` registered under `name` for the duration of a `with` block."""
        self.register(name, entry)
        try:
            yield entry
        finally:
            self.unregister(name)

    def lookup(self, name: object) -> T:
        """The entry of `name`; KeyError (one sentence listing the known names) if none."""
        try:
            return self[str(name)]
        except KeyError:
            raise KeyError(f"no {self.kind} {name!r}; known: {', '.join(self)}") from None


class Role(StrEnum):
    """What a source's verdicts mean to the label policies (see labeling/combine.py)."""

    # Checks the whole chain's end (final answer, all unit tests): an `incorrect` verdict on
    # the last step proves the chain wrong but does not say where it went wrong.
    whole_chain = "whole_chain"
    # An exact per-step check: `incorrect` proves the step wrong and so locates the first
    # error; `correct` only says that what it checked (arithmetic, syntax) holds.
    locating = "locating"
    # Judges every step (rollouts, a critic): its "no error" is a claim as well.
    complete = "complete"
    # A person's verdicts, applied over the policy's labels (prm-audit import); never run by
    # prm-label and never an input of a policy.
    reviewer = "reviewer"


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """One label source. `scores`: it also writes a soft per-step value (`<name>_scores`);
    `extra`: further columns it owns (filled by `labeling.rows`); `rank`: among complete
    sources, `verifier_first` takes the lowest rank's label first; `configurable`: chosen in
    `labels=[...]` (a `labels.<name>` section), False for sources that arrive with the data
    or a review."""

    name: str
    role: Role
    doc: str
    domains: tuple[str, ...] = ("math", "code")
    scores: bool = False
    extra: tuple[pa.Field, ...] = ()
    rank: int = 0
    configurable: bool = True

    @property
    def labels_column(self) -> str:
        return f"{self.name}_labels"

    @property
    def scores_column(self) -> str | None:
        return f"{self.name}_scores" if self.scores else None

    @property
    def exact(self) -> bool:
        """An `incorrect` verdict of this source is a proof."""
        return self.role in (Role.whole_chain, Role.locating)

    def fields(self) -> list[pa.Field]:
        """The shard columns this source owns, in schema order."""
        out = [pa.field(self.labels_column, pa.list_(pa.bool_()))]
        if self.scores_column:
            out.append(pa.field(self.scores_column, pa.list_(pa.float32())))
        return out + list(self.extra)


def _own_columns(name: str, spec: SourceSpec) -> None:
    """A source writes no column another source writes."""
    taken = {f.name for s in _REGISTRY.values() for f in s.fields()}
    clash = sorted(taken & {f.name for f in spec.fields()})
    if clash:
        raise ValueError(f"label source {name!r} would write {', '.join(clash)}, "
                         "which another source writes")


_REGISTRY: Registry[SourceSpec] = Registry("label source", check=_own_columns)

# The MC completer's success from the bare question on a chain's problem (labeling.schema.
# SelfConfidence): counts, what they cost, and how they were measured.
SELF_CONFIDENCE_STRUCT = pa.struct([
    ("successes", pa.int32()), ("decided", pa.int32()), ("rollouts", pa.int32()),
    ("tokens", pa.int64()), ("source", pa.string()),
])


def register(spec: SourceSpec) -> SourceSpec:
    """Declare a source. Raises ValueError for a name or a column already taken."""
    return _REGISTRY.register(spec.name, spec)


def unregister(name: str) -> None:
    """Remove a source (tests that register a toy one)."""
    _REGISTRY.unregister(name)


def registered(spec: SourceSpec) -> AbstractContextManager[SourceSpec]:
    """`spec` registered for the duration of a `with` block."""
    return _REGISTRY.registered(spec.name, spec)


def get(name: str) -> SourceSpec:
    return _REGISTRY.lookup(name)


def specs() -> tuple[SourceSpec, ...]:
    """Every registered source, in registration (and schema column) order."""
    return tuple(_REGISTRY.values())


def names(*roles: Role) -> tuple[str, ...]:
    """Names of the sources with one of `roles` (all when none given)."""
    return tuple(s.name for s in _REGISTRY.values() if not roles or s.role in roles)


def exact_sources() -> tuple[str, ...]:
    """Sources whose `incorrect` verdict proves a step wrong."""
    return names(Role.whole_chain, Role.locating)


def locating_sources() -> tuple[str, ...]:
    """Exact sources that also say where the first error is."""
    return names(Role.locating)


def complete_sources() -> tuple[str, ...]:
    """Sources that judge every step, by rank (the order `verifier_first` consults them)."""
    return tuple(sorted(names(Role.complete), key=lambda n: _REGISTRY[n].rank))


def consensus_sources() -> tuple[str, ...]:
    """Sources that can take part in `consensus`: they locate errors."""
    return locating_sources() + complete_sources()


def configurable() -> tuple[str, ...]:
    """Sources chosen in `labels=[...]`, each with a `labels.<name>` config section."""
    return tuple(s.name for s in _REGISTRY.values() if s.configurable)


def label_columns() -> dict[str, str]:
    """{source: its boolean per-step column} for the sources prm-label runs."""
    return {s.name: s.labels_column for s in _REGISTRY.values() if s.role != Role.reviewer}


def source_fields() -> list[pa.Field]:
    """Every source's shard columns, in registration order."""
    return [f for s in _REGISTRY.values() for f in s.fields()]


# --- the built-in sources --------------------------------------------------------------
# Registration order is the shard schema's column order: keep it (old shards are
# concatenated with new ones by column position).

for _spec in (
    SourceSpec("answer", Role.whole_chain,
               "final answer equivalence (math) / all unit tests (code): the last step"),
    SourceSpec("calc", Role.locating, "sympy checks of every arithmetic claim in a step",
               domains=("math",)),
    SourceSpec("tests", Role.locating, "per-prefix syntax check of the code",
               domains=("code",)),
    SourceSpec("judge", Role.complete, "an LLM critic's voted earliest wrong step",
               domains=("math",), scores=True, rank=1),
    SourceSpec("mc", Role.complete, "Monte Carlo rollout success rate per step", scores=True,
               extra=(pa.field("mc_rollouts", pa.list_(pa.int32())),
                      # the counts behind each label, to re-threshold without re-running
                      pa.field("mc_successes", pa.list_(pa.int32())),
                      pa.field("mc_decided", pa.list_(pa.int32())),
                      pa.field("mc_self_confidence", SELF_CONFIDENCE_STRUCT)),
               rank=0),
    SourceSpec("human", Role.reviewer,
               "a person's labels: given with the data (PRM800K, ProcessBench) or imported "
               "by prm-audit",
               extra=(pa.field("human_ratings", pa.list_(pa.int8())),  # 1 good, 0, -1 bad
                      pa.field("human_first_error", pa.int32())),
               configurable=False),
):
    register(_spec)
