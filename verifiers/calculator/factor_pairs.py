"""Factor pairs: equations that list a case, not one drawn from the equation before them.

Number theory sets a product of brackets equal to a number and tries each way of writing that
number as a product: after `(n - 1)(n + 1) = 12` comes `n - 1 = 2`, `n + 1 = 6` (and
`n - 1 = 1`, `n + 1 = 12`, which no n meets). Such a line is a case to try, however its values
fall: it does not follow from the product's equation (the line beside it:
`linear_equations`).
"""

from __future__ import annotations

from verifiers.calculator.claim_words import word_set
from verifiers.calculator.readers import readings

__all__ = ["factor_case"]


def factor_case(first, second, defs: dict, before: str) -> bool:
    """Whether `second` (a `Condition`) sets a factor of a product, which `first` sets equal
    to a number other than 0, equal to a number: `(n - 1)(n + 1) = 12`, then `n - 1 = 2`.
    A factor set to 0 (`x(x - 3) = 0`, then `x - 3 = 0`) is drawn from the equation, and so
    is a lone letter's value (`n(n + 1) = 12`, then `n = 3`): those are judged. Two lines that
    each set the unknown plus or minus a number to a number (`n - 1 = 1`, `n + 1 = 6`), with
    nothing but "and" between them (`before`), list a pair as readily as one is drawn from
    the other: not judged either ("x + 5 = 12, hence x - 5 = 3" is)."""
    listed = not word_set(before) - {"and"}
    return _factor_of(first, second, defs) or (listed and _pair(first, second, defs))


def _pair(first, second, defs: dict) -> bool:
    one, other = _shift(first, defs), _shift(second, defs)
    return one is not None and other is not None and one[0] == other[0] and one[1] != other[1]


def _factor_of(first, second, defs: dict) -> bool:
    for product, value in ((first.left, first.right), (first.right, first.left)):
        p, v = readings(product, defs), readings(value, defs)
        if len(p) != 1 or len(v) != 1 or v[0].free_symbols or v[0] == 0 or not p[0].is_Mul:
            continue
        factors = {f for f in p[0].args if f.free_symbols and not f.is_Symbol}
        if len(factors) < 2:
            continue
        for side, other in ((second.left, second.right), (second.right, second.left)):
            s, o = readings(side, defs), readings(other, defs)
            if len(s) == 1 and len(o) == 1 and not o[0].free_symbols:
                if s[0] in factors or -s[0] in factors:
                    return True
    return False


def _shift(condition, defs: dict):
    """(the unknown's sign, the side) of `n - 1 = 3` or `3 - n = 2` (None: another shape)."""
    for side, other in ((condition.left, condition.right), (condition.right, condition.left)):
        e, v = readings(side, defs), readings(other, defs)
        if len(e) != 1 or len(v) != 1 or v[0].free_symbols or len(e[0].free_symbols) != 1:
            continue
        letter = next(iter(e[0].free_symbols))
        for sign in (1, -1):
            rest = e[0] - sign * letter
            if not rest.free_symbols and rest != 0:
                return sign, e[0]
    return None
