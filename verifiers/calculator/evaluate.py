"""Exact, bounded evaluation of parsed expressions.

Fast path: Python `Fraction`s (exact rationals, never floats), in-process. Before any power or
factorial the size of the result is estimated, and anything over MAX_RESULT_DIGITS raises
`TooBigError` without being computed, so `9^9^9^9` costs microseconds. Irrational values (sqrt of a
non-square, pi, fractional powers) raise `NeedsSympyError`; `sympy_compare` then runs in a
`KillableWorker` child, bounded by wall clock. Expressions in one unknown evaluate to a linear
form `a*x + b` (`linear`), which is what the equation checks need; anything else non-linear
raises `NotLinearError`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

from verifiers.calculator.parse import Node

MAX_RESULT_DIGITS = 2000
MAX_FACTORIAL = 400
_MAX_BITS = int(MAX_RESULT_DIGITS * 3.33)


class EvalError(Exception):
    """The expression has no value we can compute here."""


class TooBigError(EvalError):
    """The value would be too large to compute by hand; nobody claims it."""


class NeedsSympyError(EvalError):
    """The value is irrational or symbolic: evaluate it with sympy in a worker."""


class NotLinearError(EvalError):
    """The expression is not linear in a single unknown."""


def _check_size(x: Fraction) -> Fraction:
    if x.numerator.bit_length() > _MAX_BITS or x.denominator.bit_length() > _MAX_BITS:
        raise TooBigError("intermediate value too large")
    return x


def _digits(x: Fraction) -> float:
    n = max(abs(x.numerator), x.denominator, 2)
    return n.bit_length() * 0.30103


def _root(x: Fraction, k: int) -> Fraction:
    """Exact k-th root of a non-negative rational, or NeedsSympyError."""
    if x < 0:
        raise NeedsSympyError("root of a negative number")
    if _digits(x) > 300:  # float estimates below would overflow; let sympy (bounded) try
        raise NeedsSympyError("root of a huge number")
    num, den = x.numerator, x.denominator
    rn, rd = round(num ** (1 / k)), round(den ** (1 / k))
    for a in (rn - 1, rn, rn + 1):
        for b in (rd - 1, rd, rd + 1):
            if a >= 0 and b > 0 and a**k == num and b**k == den:
                return Fraction(a, b)
    raise NeedsSympyError("irrational root")


def _power(base: Fraction, exp: Fraction) -> Fraction:
    if exp.denominator != 1:
        if exp.denominator > 12 or _digits(base) > 200:
            raise NeedsSympyError("fractional power")
        return _power(_root(base, exp.denominator), Fraction(exp.numerator))
    e = exp.numerator
    if base == 0:
        if e < 0:
            raise EvalError("division by zero")
        return Fraction(1 if e == 0 else 0)
    if base in (1, -1):
        return base ** (e % 2) if base == -1 else Fraction(1)
    # |base| or 1/|base| is at least 2 here, so 0.3 digits per unit of exponent at least;
    # the first test keeps a huge exponent from overflowing the float product.
    if abs(e) > 4 * MAX_RESULT_DIGITS or abs(e) * _digits(base) > MAX_RESULT_DIGITS:
        raise TooBigError(f"power with exponent {e}")
    return base**e


@lru_cache(maxsize=65536)
def exact(node: Node) -> Fraction:
    """Exact rational value; raises EvalError (TooBigError, NeedsSympyError) when none here."""
    kind = node[0]
    if kind == "num":
        return node[1]
    if kind == "var":
        raise EvalError("unknown")
    if kind == "pi":
        raise NeedsSympyError("pi")
    if kind == "neg":
        return -exact(node[1])
    if kind == "pct":
        return exact(node[1]) / 100
    if kind == "fact":
        n = exact(node[1])
        if n.denominator != 1 or n < 0:
            raise EvalError("factorial of a non-integer")
        if n > MAX_FACTORIAL:
            raise TooBigError("factorial too large")
        return Fraction(math.factorial(int(n)))
    if kind == "sqrt":
        return _root(exact(node[1]), 2)
    a, b = exact(node[1]), exact(node[2])
    if kind == "+":
        return _check_size(a + b)
    if kind == "-":
        return _check_size(a - b)
    if kind == "*":
        return _check_size(a * b)
    if kind == "/":
        if b == 0:
            raise EvalError("division by zero")
        return _check_size(a / b)
    if kind == "^":
        return _check_size(_power(a, b))
    raise EvalError(f"unknown node {kind}")


_FLOAT_OPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "^": lambda a, b: a**b,
}


def approximate(node: Node) -> float | None:
    """A float value of an expression without unknowns (pi and roots included), or None.

    Only for excusing a mismatch (a side equal to another within float precision); never for
    calling a claim false, which takes an exact value.
    """
    try:
        return exact_float(node)
    except (EvalError, ArithmeticError, ValueError, TypeError):
        return None


def exact_float(node: Node) -> float:
    kind = node[0]
    if kind in ("num", "fact"):
        return float(exact(node))
    if kind == "pi":
        return math.pi
    if kind == "neg":
        return -exact_float(node[1])
    if kind == "pct":
        return exact_float(node[1]) / 100
    if kind == "sqrt":
        return math.sqrt(exact_float(node[1]))
    if kind in _FLOAT_OPS:
        value = _FLOAT_OPS[kind](exact_float(node[1]), exact_float(node[2]))
        if isinstance(value, complex) or not math.isfinite(value):
            raise EvalError("no real value")
        return value
    raise EvalError(f"no float value for {kind}")


Linear = tuple[Fraction, Fraction]  # (a, b): a*x + b


@lru_cache(maxsize=65536)
def linear(node: Node) -> Linear:
    """`node` as a*x + b in its single unknown. Raises NotLinearError / EvalError otherwise."""
    kind = node[0]
    if kind == "var":
        return Fraction(1), Fraction(0)
    if kind in ("+", "-", "*", "/"):
        a1, b1 = linear(node[1])
        a2, b2 = linear(node[2])
        if kind == "+":
            return a1 + a2, b1 + b2
        if kind == "-":
            return a1 - a2, b1 - b2
        if kind == "*":
            if a1 and a2:
                raise NotLinearError("product of unknowns")
            return a1 * b2 + a2 * b1, b1 * b2
        if a2 or b2 == 0:
            raise NotLinearError("unknown in a denominator")
        return a1 / b2, b1 / b2
    if kind == "neg":
        a, b = linear(node[1])
        return -a, -b
    if kind == "pct":
        a, b = linear(node[1])
        return a / 100, b / 100
    if kind == "^":
        a, b = linear(node[1])
        if a == 0:
            return Fraction(0), exact(node)
        if node[2][0] == "num" and node[2][1] == 1:
            return a, b
        raise NotLinearError("power of the unknown")
    return Fraction(0), exact(node)


# --- the sympy path (runs inside a KillableWorker child) ------------------------------------


def _to_sympy(node: Node):  # noqa: ANN202 - sympy is imported lazily, only in the worker
    import sympy

    kind = node[0]
    if kind == "num":
        return sympy.Rational(node[1].numerator, node[1].denominator)
    if kind == "pi":
        return sympy.pi
    if kind == "var":
        return sympy.Symbol(node[1])
    if kind == "neg":
        return -_to_sympy(node[1])
    if kind == "pct":
        return _to_sympy(node[1]) / 100
    if kind == "fact":
        return sympy.factorial(_to_sympy(node[1]))
    if kind == "sqrt":
        return sympy.sqrt(_to_sympy(node[1]))
    a, b = _to_sympy(node[1]), _to_sympy(node[2])
    return {"+": a + b, "-": a - b, "*": a * b, "/": a / b, "^": a**b}[kind]


def warm_sympy() -> None:
    """One small comparison in the worker: importing sympy and its first simplify and N (lazy
    loading) are then not charged to a real check's time budget."""
    sympy_compare(("sqrt", ("num", Fraction(2), 0)), ("num", Fraction(1), 0))


def sympy_compare(left: Node, right: Node) -> tuple[str, str, bool]:
    """Both sides to 40 significant digits, and whether they are exactly equal.

    Meant to run in a child process: it has no time bound of its own.
    """
    import sympy

    lv, rv = _to_sympy(left), _to_sympy(right)
    equal = bool(sympy.simplify(lv - rv) == 0)
    return str(sympy.N(lv, 40)), str(sympy.N(rv, 40)), equal


def to_fraction(text: str) -> Fraction | None:
    """A decimal string from sympy (maybe with an exponent) as a Fraction; None if not real."""
    try:
        return Fraction(text.replace("*^", "e"))
    except (ValueError, ZeroDivisionError):
        return None
