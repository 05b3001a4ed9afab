"""Equations in one function of the unknown: `3\\log 2 \\log x - 3\\log 3 \\log x = ...`,
`2^{x+1} = 16`, `\\sin^2 x - \\sin x = 0`.

A derivation between two such equations (see `derivations`) keeps their solutions when it keeps
the values the function takes at them: with `log x`, `2^x`, `\\sin x` or `\\sqrt{x}` written as
one unknown t, each equation is a polynomial in t, and the two must have the same roots among
the values the function can take (a root `\\sqrt{x} = -1` solves nothing, so dropping it is no
slip). The unknown is taken positive, where `\\log(3x) = \\log 3 + \\log x` and
`\\log(x^2) = 2\\log x` hold: two equations with the same real solutions have the same positive
ones, so this can only miss slips, never invent one.
"""

from __future__ import annotations

from verifiers.calculator.circle_roots import circle_derivation
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import DECIMAL, readings
from verifiers.calculator.relations import admissible
from verifiers.calculator.symbolic import fmt, near


def atom_derivation(first, second, defs: dict) -> ClaimResult | None:
    """`second` (a `solutions.Condition`) drawn from `first`, both in one unknown and one
    function of it, judged by that function's roots; an unbased log is read in base 10 and
    in base e, and the equation is false only where it is false in both readings."""
    sides = (first.left, first.right, second.left, second.right)
    if not all(admissible(m) for m in sides) or any(DECIMAL.search(m) for m in sides):
        return None
    read = [readings(m, defs) for m in sides]
    count = max(len(r) for r in read)
    if not all(len(r) in (1, count) for r in read) or not all(read):
        return None
    found = []
    for k in range(count):
        a, b, c, d = (r[k if len(r) > 1 else 0] for r in read)
        e1, e2 = a - b, c - d
        if len(names := e1.free_symbols | e2.free_symbols) != 1 or e1.free_symbols != names:
            return None
        if (roots := atom_roots(e1, e2, next(iter(names)))) is None:
            return circle_derivation(first, second, defs) if count == 1 else None
        if not differ(roots[1], roots[2]) and not (roots[1] and not roots[2]):
            return None  # roots kept or dropped on a domain; none left at all is a slip
        found.append(roots)
    atom, r1, r2 = found[-1]  # base e where a log has two readings: the plainer to quote
    return ClaimResult(
        "false", f"{second.left} = {second.right}", _listed(atom, r2), _listed(atom, r1),
        f"does not follow from `{first.left} = {first.right}`",
    )  # fmt: skip


def _listed(atom, roots) -> str:
    if not roots:
        return f"no value {fmt(atom)} takes"
    return f"{fmt(atom)} in {{{', '.join(sorted(fmt(r) for r in roots))}}}"


def atom_roots(e1, e2, name):
    """(the function, its values at the roots of `e1 = 0`, at those of `e2 = 0`), each a
    frozenset of real numbers, where both are polynomials in one and the same function of
    `name`; (`name`, the roots of each) where `e2` is a polynomial in `name` itself and the
    function is one-to-one (None: neither, or a root cannot be written exactly)."""
    import sympy

    x = sympy.Dummy("x", positive=True)
    sides = []
    for e in (e1, e2):
        e = sympy.expand(e.subs(name, x), log=True, power_exp=True, power_base=True)
        atoms = list(_functions(e, x))
        if len(atoms) != 1 or atoms[0] is None:
            return None
        sides.append((e, atoms[0]))
    (a, atom), (b, other) = sides
    # "2^{x+1} = 32, so x + 1 = 5": an equation in a one-to-one function solved for the
    # unknown itself, judged by its roots in the unknown.
    if atom == x or (atom != other and (other != x or not _one_to_one(atom, x))):
        return None
    t = sympy.Dummy("t")
    found = []
    for e, function in ((a, atom), (b, other)):
        put = e.xreplace({function: t})
        if x in put.free_symbols and function.is_Pow and function.exp == x:
            put = e.subs(function, t)  # `3^{2x}` as `t^2`
        if x in put.free_symbols or (roots := _roots(put, t)) is None:
            return None
        found.append(frozenset(r for r in roots if function == x or _taken(atom, r)))
    if other != x:
        return atom.subs(x, name), found[0], found[1]
    # Compared in the unknown: the first equation's roots are the function's inverse at its
    # values (a root of the second outside the function's domain, `x = -8` from
    # `\log_2 x = 3`, is one that solves nothing there, as `differ` wants).
    return name, frozenset(_inverse(atom, x, v) for v in found[0]), found[1]


def _one_to_one(atom, x) -> bool:
    """Whether the function `atom` of x takes each value once (`b^x`, `e^x`, `\\log x`, a
    root of x), so that `_inverse` names the one x at each of its values."""
    import sympy

    if isinstance(atom, (sympy.exp, sympy.log)):
        return True
    if not isinstance(atom, sympy.Pow):
        return False
    if atom.exp == x:
        return True  # a positive base: `(-2)^x` is split into `(-1)^x 2^x`, two functions
    return atom.base == x and atom.exp.is_Rational and not atom.exp.is_Integer


def _inverse(atom, x, value):
    """The x at which the one-to-one function `atom` takes `value`, one it takes (`_taken`)."""
    import sympy

    if isinstance(atom, sympy.exp):
        found = sympy.log(value)
    elif isinstance(atom, sympy.log):
        found = sympy.exp(value)
    elif atom.exp == x:
        found = sympy.log(value) / sympy.log(atom.base)
    else:
        found = value ** (1 / atom.exp)
    return sympy.simplify(found)


def differ(r1: frozenset, r2: frozenset) -> bool:
    """Two sets of roots neither of which holds the other (numbers such as log 2 compared by
    value): a root dropped may be one the text rejects on its domain, a root added one it
    will reject, as `derivations` allows between polynomials."""

    def within(a: frozenset, b: frozenset) -> bool:
        return all(any(near(p, q) for q in b) for p in a)

    return bool(r1) and bool(r2) and not within(r1, r2) and not within(r2, r1)


def _functions(e, x) -> set:
    """The functions of x that `e` is built from: `log x`, `b^x`, `\\sin x`, a root of x, or x
    itself (a polynomial term); None among them where x sits in another form (`\\log(x + 1)`,
    `\\sin 2x`), which is no one unknown we can name."""
    import sympy

    if x not in e.free_symbols:
        return set()
    if e == x:
        return {x}
    if isinstance(e, sympy.Function):
        return {e} if e.args == (x,) else {None}
    if isinstance(e, sympy.Pow) and x in e.exp.free_symbols:
        if x in e.base.free_symbols:
            return {None}
        # `3^{2x}` is `(3^x)^2`: one function of x, squared.
        k = sympy.simplify(e.exp / x)
        return {sympy.Pow(e.base, x)} if k.is_Integer and k != 0 else {None}
    if isinstance(e, sympy.Pow) and e.base == x and not e.exp.is_Integer:
        return {e}
    return set().union(*(_functions(a, x) for a in e.args))


def _roots(expr, t) -> frozenset | None:
    """The real roots of a polynomial of degree 1 or 2 in t whose coefficients are numbers
    such as log 2, perhaps none (None: not one)."""
    import sympy

    top = sympy.fraction(sympy.together(expr))[0]
    try:
        poly = sympy.Poly(sympy.expand(top), t)
    except sympy.PolynomialError:
        return None
    if not 1 <= poly.degree() <= 2 or not all(c.is_number for c in poly.all_coeffs()):
        return None
    roots = [sympy.nsimplify(r) if r.is_Float else r for r in sympy.roots(poly)]
    if not roots or any(r.is_real is None for r in roots):
        return None  # no roots written out, or a sign that cannot be decided
    return frozenset(r for r in roots if r.is_real)


def _taken(atom, value) -> bool:
    """Whether the function `atom` of a positive x takes the value."""
    import sympy

    if isinstance(atom, sympy.log) or isinstance(atom, sympy.tan):
        return True
    if isinstance(atom, (sympy.sin, sympy.cos)):
        return bool(abs(value) <= 1)
    if isinstance(atom, (sympy.Pow, sympy.exp)):
        return bool(value > 0)
    return False
