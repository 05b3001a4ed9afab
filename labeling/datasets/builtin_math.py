"""The embedded default problem set: seeded generators of math problems with exact answers.

Five families, cycled: one-step arithmetic, multi-step word problems, linear equations,
fractions, and percentages. Answers are computed with sympy's exact rationals, so the
reference is right by construction. Problem `i` depends only on (seed, i): the same config
gives the same problems, and raising `limit` only appends.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import sympy

from labeling.datasets.common import make_problem
from labeling.ids import derive_seed
from labeling.schema import Problem

NAMES = ("Ava", "Ben", "Chloe", "Dev", "Emma", "Femi", "Grace", "Hiro", "Ines", "Jon")
ITEMS = (
    ("box", "boxes", "pencils"),
    ("crate", "crates", "apples"),
    ("bag", "bags", "marbles"),
    ("pack", "packs", "cards"),
)
GOODS = ("jacket", "lamp", "bicycle", "kettle", "tent", "guitar", "desk", "camera")


def _fmt(x: sympy.Rational) -> str:
    """Integers as integers, terminating decimals as decimals (money), else p/q."""
    x = sympy.Rational(x)
    if x.q == 1:
        return str(x.p)
    q = x.q
    for f in (2, 5):
        while q % f == 0:
            q //= f
    if q == 1:
        return format(Decimal(x.p) / Decimal(x.q), "f")
    return f"{x.p}/{x.q}"


def arithmetic(r: random.Random) -> tuple[str, str]:
    a, b = r.randint(11, 999), r.randint(3, 99)
    op = r.choice(["+", "-", "*"])
    value = {"+": a + b, "-": a - b, "*": a * b}[op]
    return f"What is {a} {op} {b}?", str(value)


def word_problem(r: random.Random) -> tuple[str, str]:
    name = r.choice(NAMES)
    container, containers, thing = r.choice(ITEMS)
    n, per, extra, gone = r.randint(3, 40), r.randint(4, 60), r.randint(2, 99), r.randint(1, 50)
    total = sympy.Integer(n) * per + extra - gone
    q = (
        f"{name} has {n} {containers} of {thing} with {per} {thing} in each {container}, "
        f"and {extra} loose {thing}. {name} gives away {gone} {thing}. "
        f"How many {thing} does {name} have now?"
    )
    return q, _fmt(total)


def linear_equation(r: random.Random) -> tuple[str, str]:
    x, a, b = r.randint(-50, 50), r.randint(2, 19), r.randint(-200, 200)
    c = a * x + b
    sign = "+" if b >= 0 else "-"
    return f"Solve for x: {a}x {sign} {abs(b)} = {c}.", str(x)


def fractions(r: random.Random) -> tuple[str, str]:
    p, q = r.randint(1, 19), r.randint(2, 30)
    s, t = r.randint(1, 19), r.randint(2, 30)
    value = sympy.Rational(p, q) + sympy.Rational(s, t)
    return (
        f"Compute {p}/{q} + {s}/{t}. Give the answer as a fraction in lowest terms.",
        _fmt(value),
    )


def percentage(r: random.Random) -> tuple[str, str]:
    price = r.randint(1, 2500) * 4
    pct = r.choice([5, 10, 12, 15, 20, 25, 30, 35, 40, 45, 50, 60, 75])
    thing = r.choice(GOODS)
    value = sympy.Rational(price) * (100 - pct) / 100
    return (
        f"A {thing} costs ${price}. It is on sale for {pct}% off. "
        "What is the sale price in dollars?",
        _fmt(value),
    )


FAMILIES: tuple[Callable[[random.Random], tuple[str, str]], ...] = (
    arithmetic,
    word_problem,
    linear_equation,
    fractions,
    percentage,
)


def load(options: dict[str, Any]) -> Iterator[Problem]:
    """`options`: seed (int), count (int, default 1000; `dataset.limit` cuts it shorter)."""
    return generate(FAMILIES, "builtin_math", options)


def generate(families: tuple[Callable[[random.Random], tuple[str, str]], ...], name: str,
             options: dict[str, Any]) -> Iterator[Problem]:  # fmt: skip
    """Problem `i` of set `name` comes from family `i mod len(families)`, seeded by (seed,
    name, i). Problems are distinct: a question drawn before is drawn again with the next
    attempt's seed (the seen-set costs ~40 bytes per problem), so `count` problems are
    `count` ids."""
    seed = int(options.get("seed", 0))
    seen: set[int] = set()
    for i in range(int(options.get("count", 1000))):
        family = families[i % len(families)]
        for attempt in itertools.count():
            extra = (attempt,) if attempt else ()  # attempt 0 keeps the original seeds
            question, answer = family(random.Random(derive_seed(seed, name, i, *extra)))
            problem = make_problem("math", name, question, answer)
            key = int(problem.problem_id[1:], 16)  # content hash: stable across processes
            if key not in seen:
                seen.add(key)
                break
        yield problem
