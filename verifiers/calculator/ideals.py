"""Whether an equation may follow from the conditions written before it: ideal membership.

`follows(expr, conditions)` asks whether the numerator of `expr` lies in the ideal that the
conditions' numerators generate (a Groebner basis, then the remainder on division by it).
That is what spares a substitution from being read as a slip ("x^3 + y^3 = (x + y)(4(x + y) -
xy)" after "x^2 + y^2 = 4(x + y)").

A Groebner basis can take seconds, and its time varies between runs (sympy's work differs
with the order it meets pairs in). A step whose checks sat near their time limit got a False
on one run and a timeout on the next. So a "no" is sought first where it is cheap and needs
no timing: put numbers in for some unknowns. Substitution is a ring homomorphism, so if the
target is a combination `h1 p1 + ... + hk pk` of the conditions, it stays one after the
substitution; a target that is not in the smaller ideal was not in the first one either. With
k conditions in n > k unknowns, fixing n - k of them leaves as many conditions as unknowns, a
basis in k unknowns that takes milliseconds where the whole one took seconds. A "yes" from the
smaller ideal proves nothing (fixed values can make the ideal bigger), so then the whole
basis decides, as before.
"""

from __future__ import annotations

import itertools
import random

__all__ = ["follows"]

# Beyond these, a Groebner basis can take far longer than a step's time limit.
_MAX_IDEAL_UNKNOWNS = 6
# Sets of unknowns fixed before the whole basis is computed (each a basis in k unknowns).
_SPECIALISATIONS = 3


def _rational_coefficients(poly, names) -> bool:
    import sympy

    return all(c.is_Rational for c in sympy.Poly(sympy.expand(poly), *names).coeffs())


def _free_term(target, polys: list) -> bool:
    """Whether `target`, as a polynomial in the unknowns no condition names, has a nonzero
    number among its coefficients."""
    import sympy

    named = set().union(*(p.free_symbols for p in polys))
    outside = sorted(target.free_symbols - named, key=str)
    if not outside:
        return False
    coefficients = sympy.Poly(sympy.expand(target), *outside).coeffs()
    return any(c.is_number and c != 0 for c in coefficients)


def _reduces(target, polys: list, names: list) -> bool:
    """Whether `target` lies in the ideal of `polys` (in the unknowns `names`)."""
    import sympy

    polys = [p for p in polys if p != 0]
    if not polys:
        return target == 0
    basis = sympy.groebner(polys, *names, order="grevlex")
    # The remainder on division by the basis, not `contains`: that coerces the target into
    # the basis's domain (whole numbers), and fails on `-5s/2` or `\\sqrt{17}`.
    _, remainder = sympy.reduced(target, list(basis.exprs), *names, order="grevlex")
    return remainder == 0


def _refuted(target, polys: list, names: list) -> bool:
    """Whether numbers put in for some unknowns show `target` outside the ideal of `polys`
    (the module's docstring says why that is a proof). The same numbers every run."""
    import sympy

    fixed = len(names) - len(polys)
    if fixed < 1:
        return False
    rng = random.Random(len(names))
    for chosen in itertools.islice(itertools.combinations(names, fixed), _SPECIALISATIONS):
        values = {s: sympy.Rational(rng.randint(-9, 9), rng.randint(1, 5)) for s in chosen}
        rest = [s for s in names if s not in values]
        if not _reduces(
            sympy.expand(target.xreplace(values)),
            [sympy.expand(p.xreplace(values)) for p in polys],
            rest,
        ):
            return True
    return False


def follows(expr, conditions: list | None) -> bool:
    """Whether `expr = 0` may follow from `conditions` (each an expression equal to zero).

    True when it does (its numerator lies in the ideal the conditions' numerators generate)
    and when nothing can be said (None: a condition we could not read; one that is not
    polynomial); False only when there are no conditions or the numerator is outside the
    ideal (numbers put in for some unknowns show it, or a remainder on the whole basis)."""
    import sympy

    if conditions is None:
        return True
    if not conditions:
        return False
    # Functions of the unknowns (sin x, a root) become unknowns of their own, one per atom:
    # the conditions then speak about them as polynomials do ("sin^2 x + cos^2 x = 1").
    atoms = set().union(*(e.atoms(sympy.Function, sympy.Pow) for e in [expr, *conditions]))
    opaque = [a for a in atoms if a.free_symbols and (isinstance(a, sympy.Function)
              or not (a.exp.is_Integer))]  # fmt: skip
    rename = {a: sympy.Dummy(f"u{i}") for i, a in enumerate(sorted(opaque, key=str))}
    expr = expr.xreplace(rename)
    conditions = [c.xreplace(rename) for c in conditions]
    names = sorted(set().union(expr.free_symbols, *(c.free_symbols for c in conditions)), key=str)
    try:
        # Numerators in lowest terms: `together` keeps a factor its denominators share, and
        # the same condition written over another denominator would then not contain itself.
        target = sympy.fraction(sympy.cancel(sympy.together(expr)))[0]
        polys = [sympy.fraction(sympy.cancel(sympy.together(c)))[0] for c in conditions]
        if not all(p.is_polynomial(*names) for p in [target, *polys]):
            return True
        if len(names) > _MAX_IDEAL_UNKNOWNS or (
            len(names) > 4 and not all(_rational_coefficients(p, names) for p in polys)
        ):
            # A basis that may take minutes to compute: say nothing, unless the claim holds
            # an unknown no condition names with a number for coefficient (the ideal of
            # consistent conditions holds no such polynomial).
            return not _free_term(target, polys)
        target, polys = sympy.expand(target), [sympy.expand(p) for p in polys]
        if _refuted(target, polys, names):
            return False
        return _reduces(target, polys, names)
    except Exception:  # sympy's own failures on odd input: say nothing rather than guess
        return True
