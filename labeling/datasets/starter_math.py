"""The first run's problem set: graded math that the embedded 135M model can partly solve.

`builtin_math` is too hard for SmolLM2-135M (no sampled chain reaches its answers), so a
first run on it shows every label false and cannot tell a working tool from a broken one.
These four families rise in difficulty: a times-table product, a sum of two small numbers,
a one-step word problem (a product in words) and a two-step one (a product, then a sum). The
model answers most of the first family, some of the middle two and few of the last, so a
run has right and wrong chains, and steps labeled both ways. Seeded like `builtin_math`:
the same config gives the same problems, and raising `limit` only appends.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from labeling.datasets.builtin_math import ITEMS, NAMES, generate
from labeling.schema import Problem


def times_table(r: random.Random) -> tuple[str, str]:
    a, b = r.randint(2, 9), r.randint(2, 9)
    return f"What is {a} * {b}?", str(a * b)


def small_sum(r: random.Random) -> tuple[str, str]:
    a, b = r.randint(2, 20), r.randint(2, 20)
    return f"What is {a} + {b}?", str(a + b)


def groups(r: random.Random) -> tuple[str, str]:
    name = r.choice(NAMES)
    container, containers, thing = r.choice(ITEMS)
    n, per = r.randint(2, 6), r.randint(2, 9)
    return (f"{name} has {n} {containers} with {per} {thing} in each {container}. "
            f"How many {thing} does {name} have?", str(n * per))


def groups_and_extra(r: random.Random) -> tuple[str, str]:
    name = r.choice(NAMES)
    container, containers, thing = r.choice(ITEMS)
    n, per, extra = r.randint(2, 6), r.randint(2, 9), r.randint(1, 9)
    return (f"{name} has {n} {containers} with {per} {thing} in each {container}, and "
            f"{extra} more {thing}. How many {thing} does {name} have?", str(n * per + extra))


FAMILIES = (times_table, small_sum, groups, groups_and_extra)


def load(options: dict[str, Any]) -> Iterator[Problem]:
    """`options`: seed (int), count (int, default 1000; `dataset.limit` cuts it shorter)."""
    return generate(FAMILIES, "starter_math", options)
