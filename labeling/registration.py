"""The one shape of every registry in the project: a table of names, each declared once.

Label sources (`labeling.registry`), dataset adapters (`labeling.datasets.ADAPTERS`) and
search strategies (`pipelines.search.registry`) are each a `Registry`: a dict from name to
what implements it, filled at import by the built-ins (in declaration order, which is the
order the config's choices show), read by the config, the driver and the tests. `register`
refuses a name already taken; `registered` adds an entry for a `with` block (tests, toys);
`lookup` raises a KeyError that lists the known names. A registry with further rules (the
columns a source writes, a strategy family's builder) passes `check(name, entry)`, which
raises ValueError for an entry that breaks them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

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


__all__ = ["Registry"]
