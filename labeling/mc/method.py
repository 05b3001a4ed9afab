"""The one protocol every Monte Carlo method answers, and the base its settings share.

A method is a frozen dataclass of its own settings (each field with its help, range and
effect: `labeling.fields.option`) in a module of its own (`posterior`, `fall`, `absolute`,
`any_success`), where its math is told; the settings are the method. Callers never ask
which method they hold; they ask it (`Method`):

- `name`: its name (`labels/mc=<name>`, the registry `labeling.mc.METHODS`);
- `needs_self_confidence`: whether its labels are judged against the completer's success
  rate from the bare question (the driver then waits for it before a problem's first probe);
- `max_look_ahead`: how many probes deep its search can say what it asks next (None: as
  deep as asked; `labels.mc.look_ahead` beyond it is an error at start);
- `search(chain)`: the chain's estimator (`labeling.mc.estimator.Estimator`: which prefixes
  are rolled out, the labels, the scores and the words of each verdict), given what is known
  of the chain before its first rollout (`ChainFacts`). Whatever a method keeps per chain
  lives in that estimator.

Every field's range is checked once, when the settings are made (`Settings.__post_init__`),
then the checks that span fields (`combine`). Adding a method: its module and one
`METHODS.register` (`labeling.mc`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, ClassVar, Protocol, runtime_checkable

from labeling.fields import ROWS, option, out_of_range
from labeling.mc.estimator import ChainFacts, Estimator
from labeling.mc.searches import Search


@runtime_checkable
class Method(Protocol):
    """What the driver asks of a Monte Carlo method (see the module docstring)."""

    name: ClassVar[str]
    needs_self_confidence: ClassVar[bool]
    max_look_ahead: ClassVar[int | None]

    def search(self, chain: ChainFacts) -> Estimator: ...


class Settings:
    """Base of the method dataclasses: their ranges checked once, on the fields."""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            wrong = out_of_range(f"labels.mc.{f.name}", f, getattr(self, f.name))
            if wrong:
                raise ValueError(wrong)
        self.combine()

    def combine(self) -> None:
        """ValueError (one sentence) when settings that are each in range do not combine."""


def chunk_within(chunk: int | None, key: str, most: int) -> None:
    """ValueError unless `chunk` (rollouts per request; None: all at once) is at most the
    rollouts a probe may have (`key`=`most`)."""
    if chunk is not None and chunk > most:
        raise ValueError(f"labels.mc.chunk={chunk} must be at most {key}={most}")


def estimator_option() -> Any:
    return option(Search.binary_search, "Which prefixes are rolled out: binary_search "
                  "(OmegaPRM's bisection for the first error) | per_step (every prefix, "
                  "Math-Shepherd's).", ROWS)


def probe_right_option() -> Any:
    return option(True, "binary_search: search the steps of chains whose answer is right too; "
                  "false = OmegaPRM's skip, which labels every step of such a chain right "
                  "without a rollout.", ROWS)


def not_a_key(method: str, key: str, keys: Sequence[str], where: str = "labels.mc") -> str:
    """The one sentence for a setting the chosen method does not have."""
    return (f"{where}.{key} is not a key of {method}; its keys are {', '.join(keys)} "
            f"(another method: labels/mc=<name>)")


__all__ = ["Method", "Settings", "chunk_within", "estimator_option", "not_a_key",
           "probe_right_option"]
