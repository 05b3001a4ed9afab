"""Derivations: an equation judged against the one it is drawn from.

See `verifiers.calculator.claims_kind` for the rules in words. `follows_directly` says whether
the text draws one equation from the one before it; `derivation` compares their solutions
(one unknown) or their forms (linear, several unknowns). A side rewritten in place while the
other is kept is `verifiers.calculator.rewritten_sides`'.
"""

from __future__ import annotations

import re
from itertools import islice, product

from verifiers.calculator.applications import applied_difference, misapplied
from verifiers.calculator.atom_roots import atom_derivation
from verifiers.calculator.claim_words import (
    ARROWS,
    CASES,
    DERIVES,
    LETTER,
    compact,
    last_sentence,
    nothing_between,
    word_set,
)
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.excluded_roots import poles_only
from verifiers.calculator.factor_pairs import factor_case
from verifiers.calculator.forms import attempt, computed_value, grouped, shifted
from verifiers.calculator.readers import DECIMAL, readings
from verifiers.calculator.solutions import Condition, difference, roots_text
from verifiers.calculator.symbolic import fmt, linear_root, near, rational_roots, roots_of


def follows_directly(first: Condition, second: Condition, before: str) -> bool:
    """Whether `second` is written as derived from `first` (see the module docstring)."""
    if word_set(before) & CASES:
        return False
    sides = ((first.left, second.left, first.right, second.right),
             (first.right, second.right, first.left, second.left),
             (first.left, second.right, first.right, second.left),
             (first.right, second.left, first.left, second.right))  # fmt: skip
    derived = bool(DERIVES.search(before.lower()))
    for kept, kept_again, old, new in sides:
        if compact(kept) != compact(kept_again):
            continue
        # "x - 4 = 1", "x - 4 = 11" (or `11 = x - 4`): cases side by side; "K - 19 = (4(55) +
        # 11) - K", then "simplify: K - 19 = 221 - K": the other side rewritten, its unknowns
        # kept, as is "3y = 49 - 19", then "simplifying, 3y = 31": numbers computed on it.
        if LETTER.search(old):
            rewritten = LETTER.search(new) and (
                derived or _rewritten_beside(kept, old, new, before)
            )
        else:
            values = readings(old, {}) if derived and not LETTER.search(new) else []
            rewritten = len(values) == 1 and computed_value(old, new, values[0])
        if not rewritten:
            return False
    if first.clause >= 0 and first.region == second.region and second.clause == first.clause + 1:
        return True  # one display, the next line or across `\\implies`
    if first.clause >= 0 and second.region == first.region + 1 and nothing_between(before):
        return True  # the next display, with nothing written between
    return derived


def _rewritten_beside(kept: str, old: str, new: str, before: str) -> bool:
    """With nothing written between: `6531.2 = 80 \\pi r`, then `6531.2 = 160 \\pi r`
    (a number kept, other than 0), or `x^2 - 2x - 7 = 0`, then `(x - 7)(x + 5) = 0` (0 kept,
    the new side grouped where the old is not, or the other way round, and an attempt at its
    rewrite; `x - 3 = 0`, `x + 2 = 0` list the factors' cases)."""
    if LETTER.search(kept) or not nothing_between(before):
        return False
    if compact(kept) != "0":
        return True
    if grouped(old) == grouped(new):
        return False  # `a + b + c = 0`, `a - b + c = 0`: a system's equations one per line
    a, b = readings(old, {}), readings(new, {})
    return len(a) == 1 and len(b) == 1 and attempt(b[0], a[0])


def derivation(first: Condition, second: Condition, before: str, defs: dict, lead: str = ""):
    """An equation judged against the condition before it (None: nothing to say); `lead` is
    all the text since the last relation, math without relations included ("Factoring out
    \\(z\\), we get:" where `before` holds ", we get:")."""
    if factor_case(first, second, defs, before):
        return None  # `(n - 1)(n + 1) = 12`, then `n - 1 = 2`: a factor pair tried
    # "x(100 + 30) = (x + 1.5)100", then "x^2 + 30x = 100x + 150": decimals are read as
    # written in equations of one unknown, and only a root far from every root the other
    # gives is a slip (a decimal may be rounded).
    rounded = bool(DECIMAL.search(first.left + first.right + second.left + second.right))
    e1 = difference(first.left, first.right, defs, decimals=rounded)
    e2 = difference(second.left, second.right, defs, decimals=rounded)
    if e1 is None or e2 is None:
        # An unbased log has two readings: judged in each (`atom_roots`).
        return _misapplied(first, second, before, defs) or atom_derivation(first, second, defs)
    if rounded and len(e1.free_symbols | e2.free_symbols) != 1:
        return None
    names = sorted(e1.free_symbols | e2.free_symbols, key=str)
    text = f"{second.left} = {second.right}"
    source = f"`{first.left} = {first.right}`"
    adjacent = first.region == second.region and second.clause == first.clause + 1
    if (
        names
        and e2.free_symbols < e1.free_symbols
        and nothing_between(before)
        and (adjacent or second.region == first.region + 1)
    ):
        return _not_cancelled(first, e1, e2, text, source)
    if not names or e1.free_symbols != e2.free_symbols:
        return None
    if len(names) == 1:
        r1, r2 = roots_of(e1, names[0]), roots_of(e2, names[0])
        if r1 is None and r2 and (poles := poles_only(e1, names[0])) is not None:
            # Cleared of its denominators, the first holds only where one of them vanishes.
            if r2 <= poles:
                return None
            true = f"{roots_text(names[0], poles)} (where a denominator vanishes)"
            why = f"does not follow from {source} cleared of its denominators"
            return ClaimResult("false", text, roots_text(names[0], r2), true, why)
        if r1 is None or r2 is None:
            # `6531.2 = r \cdot 80\pi`, then `6531.2 = r \cdot 160\pi`: linear with a
            # constant such as pi in its coefficients, compared by value (not with degrees:
            # `60^\circ + 3y = 180` reads its degrees as radians and its unknown as a number).
            if "circ" in f"{first.left}{first.right}{second.left}{second.right}":
                return None
            r1, r2 = linear_root(e1, names[0]), linear_root(e2, names[0])
            if (r1 is None or r2 is None) and (off := shifted(e1, e2)) is not None:
                # Terms moved across a root or a log: "2\sqrt{P} = 16 - 12x^2 + 32x + 7"
                # from "12x^2 - 32x - 7 + 2\sqrt{P} = 9" counts the 7 twice.
                why = f"{source} rearranged is off by {fmt(off)}"
                return ClaimResult("false", text, reason=why)
            if (r1 is None or r2 is None) and not rounded:
                return atom_derivation(first, second, defs)
            if r1 is None or r2 is None or near(r1, r2):
                return None
            return ClaimResult(
                "false", text, f"{names[0]} = {fmt(r2)}", f"{names[0]} = {fmt(r1)}",
                f"does not follow from {source}",
            )  # fmt: skip
        if not r1 or not r2 or r1 <= r2 or r2 <= r1:
            return None
        if not all(r.is_real for r in r1 | r2):
            return _every_root_lost(r1, r2, names[0], text, source)
        if rounded and any(near(a, b) for a in r1 for b in r2):
            return None  # decimals written: a root moved by their rounding is no slip
        return ClaimResult(
            "false", text, roots_text(names[0], r2), roots_text(names[0], r1),
            f"does not follow from {source}",
        )  # fmt: skip
    # Several unknowns: a system's equations sit side by side as often as one derives from
    # another, words before one often bring a new equation of the system ("so x + y = 90"),
    # and a new one may combine several (the caller spares what the conditions known
    # together give). Judged only between linear equations an arrow alone joins in one
    # display ("12m = 5q + 3 \\Rightarrow 4m = 5q + 1"): a linear equation drawn from one
    # other is a nonzero multiple of it.
    # Beyond linear, only after words that say the equation is merely simplified ("This
    # simplifies to"), and only where a point that satisfies the first equation fails the
    # second while neither is a polynomial multiple of the other (cancelling a common
    # factor, squaring, clearing a denominator all leave one a multiple of the other).
    if adjacent and nothing_between(before) and ARROWS.search(before):
        return _linear_derivation(e1, e2, names, text, source)
    # A system's equations stand one per line as a derivation's do; with nothing between two
    # consecutive lines, a linear equation is judged drawn from the one before it only when
    # it is that one's multiple but for one term (`6C - 4 = 10C - 20n`, then
    # `6C - 10C = -20n - 4`: a sign lost moving a term); a system's next equation differs in
    # two terms or more, or it would say little new.
    if nothing_between(before) and (adjacent or second.region == first.region + 1):
        if (degree := _one_term_off(e1, e2, names)) == 1:
            return _linear_derivation(e1, e2, names, text, source)
        if degree:
            return polynomial_derivation(e1, e2, names, text, source)
    said = last_sentence(before.strip()).lower()
    if _SIMPLIFIED.match(said) or _FACTORED.match(said):
        return polynomial_derivation(e1, e2, names, text, source)
    said = last_sentence(lead.strip()).lower()
    if lead.strip().endswith(before.strip()) and (_FACTORED.match(said) or _SIMPLIFIED.match(said)):
        return polynomial_derivation(e1, e2, names, text, source)
    return None


def _every_root_lost(r1, r2, name, text: str, source: str) -> ClaimResult | None:
    """An equation with real roots, then one with none (`x^2 - 5x + 6 = 0`, then `x^2 - 5x +
    7 = 0`): whatever the domain drops, a root it keeps must still solve what is drawn from
    it, and nothing does. Other mixes of complex roots say nothing (an equation with no real
    root may be rewritten into anything over the reals)."""
    if all(r.is_real for r in r1) and not any(r.is_real for r in r2):
        return ClaimResult(
            "false", text, f"no real {name}", roots_text(name, r1),
            f"does not follow from {source}",
        )  # fmt: skip
    return None


def only_rewrites(before: str, lead: str) -> bool:
    """Whether the sentence before an equation says it is the last one factored or its terms
    moved ("Factoring out \\(a_3\\), we get:", "Rearranging terms:"): such a rewrite brings in
    no other fact, so what the problem states does not spare it ("simplifies to" may)."""
    said = [last_sentence(before.strip()).lower()]
    if lead.strip().endswith(before.strip()):
        said.append(last_sentence(lead.strip()).lower())
    return any(
        _FACTORED.match(s) or (_SIMPLIFIED.match(s) and re.match(r"\W*rearrang", s))
        for s in said
    )


# A term taken out or isolated, written as a short formula ("factoring out \\(a_3\\)").
_FACTOR = r"(?:\\\(\s*[^()]{1,12}?\s*\\\)|\$[^$]{1,12}\$)"
# The whole sentence before the equation says it is the last one simplified.
# A connective may open the sentence that names the rewrite ("Therefore, factoring by grouping:").
_OPENER = r"(?:(?:so|thus|therefore|hence|then|now|next|finally)\W+)?"
_SIMPLIFIED = re.compile(
    r"^\W*" + _OPENER + r"(?:(?:this|which|it|that|the equation|this equation|the sum|we)\s+)?"
    r"(?:(?:can|then|further|now)\s+(?:be\s+)?)*"
    r"(?:simplif(?:y|ies|ying|ied|ication)|expand(?:s|ing)?(?:\s+and\s+simplifying)?"
    r"|rearrang(?:e|es|ing)|collect(?:s|ing)? like terms|combin(?:e|es|ing) like terms"
    r"|after simplification|rewr(?:ite|ites|itten|iting))"
    r"(?:\s+(?:the\s+|this\s+)?"
    r"(?:(?:left|right)(?:-hand)?\s+side|both\s+sides|equation|expression|terms|this|it))?"
    r"(?:\s+further)?(?:\s+to\s+isolate\s+(?:the\s+terms?\s+)?" + _FACTOR + r")?"
    r"(?:,?\s+(?:to|further|as|gives|we get|we have|we obtain|get|obtain|yields|us))*\W*$"
)
# The whole sentence says a side of the last equation is factored ("We can factor out a common
# term from the left-hand side:"); naming another equation ("the first") says nothing here.
_FACTORED = re.compile(
    r"^\W*" + _OPENER
    + r"(?:(?:we|this|which|it)\s+)?(?:can\s+)?(?:then\s+|now\s+)?factor(?:s|ing|ed)?"
    r"(?:[\s,]+(?:out|an?|the|common|terms?|factors?|from|on|left|right|(?:left|right)-hand"
    r"|sides?|it|this|by|grouping|as|to|gives|we|get|yields|both|obtain|have|(?<=out )"
    + _FACTOR
    + r"))*\W*$"
)


def _misapplied(first: Condition, second: Condition, before: str, defs: dict):
    """`f(x + \\frac{x}{x}) = ...`, "which simplifies to" `f(2x) = ...`: a function the text
    never defines, applied, and one application's argument simplified wrongly (only after
    words that merely simplify; see `applications`)."""
    if not _SIMPLIFIED.match(last_sentence(before.strip()).lower()):
        return None
    e1 = applied_difference(first.left, first.right, defs)
    e2 = applied_difference(second.left, second.right, defs)
    if e1 is None or e2 is None or (pair := misapplied(e1, e2)) is None:
        return None
    meant, wrote = pair
    source = f"`{first.left} = {first.right}`"
    return ClaimResult("false", f"{second.left} = {second.right}",
                       reason=f"{wrote} stands where {source} simplified has {meant}")  # fmt: skip


def polynomial_derivation(e1, e2, names: list, text: str, source: str):
    import sympy

    try:
        n1 = sympy.fraction(sympy.cancel(sympy.together(e1)))[0]
        n2 = sympy.fraction(sympy.cancel(sympy.together(e2)))[0]
        if not (n1.is_polynomial(*names) and n2.is_polynomial(*names)):
            return None
        _, r12 = sympy.div(n1, n2, *names)
        _, r21 = sympy.div(n2, n1, *names)
    except Exception:  # sympy's own failures on odd input: say nothing
        return None
    if r12 == 0 or r21 == 0:
        return None  # one a multiple of the other
    found = unfollowed(n1, e2, names, _small_points(len(names) - 1), text, source)
    return found if found is not None else _irrational_witness(n1, e2, names, text, source)


def _irrational_witness(holds, fails, names: list, text: str, source: str):
    """`unfollowed` where `holds` has no rational point (`17a^4r^7 = 32`): any unknown solved
    exactly, the others at a few small numbers, and `fails` there a real number well away
    from 0 (50 digits of an exact root)."""
    import sympy

    for solved in names:
        others = [n for n in names if n != solved]
        for values in islice(_small_points(len(others)), 8):
            point = dict(zip(others, values, strict=True))
            for root in sorted(roots_of(holds.subs(point), solved) or (), key=str):
                if root.is_rational or not root.is_real:
                    continue  # a rational point was looked for already
                value = sympy.N(fails.subs(point).subs(solved, root), 50)
                if value.is_real and value.is_finite and abs(value) > 1e-25:
                    return _witnessed(text, source, {**point, solved: root})
    return None


def _witnessed(text: str, source: str, point: dict) -> ClaimResult:
    """The False a point where the source holds and this equation does not gives."""
    at = ", ".join(f"{k} = {v}" for k, v in point.items())
    return ClaimResult(
        "false", text, "-", "-",
        f"does not follow from {source}: at {at} that one holds, this one does not",
    )  # fmt: skip


def unfollowed(holds, fails, names: list, points, text: str, source: str, keep=None):
    """A False at a point where `holds` is 0 and `fails` is a nonzero number: the names but
    the last at each of `points` in turn, the last solved from `holds` (a rational root, and
    one `keep(name, value)` allows); None when no such point is found."""
    import sympy

    last, others = names[-1], names[:-1]
    for values in points:
        point = dict(zip(others, values, strict=True))
        for root in rational_roots(holds.subs(point), last):
            if keep is not None and not keep(last, root):
                continue
            at_root = sympy.simplify(fails.subs(point).subs(last, root))
            if at_root.is_number and at_root != 0 and at_root.is_finite:
                return _witnessed(text, source, {**point, last: root})
    return None


def linear_in(expr, names: list) -> bool:
    """Whether `expr` is linear in `names` with whole or fractional coefficients."""
    import sympy

    try:
        poly = sympy.Poly(sympy.expand(expr), *names)
    except (sympy.PolynomialError, sympy.GeneratorsNeeded):
        return False
    return poly.total_degree() == 1 and all(c.is_Rational for c in poly.coeffs())


def _linear_derivation(e1, e2, names: list, text: str, source: str) -> ClaimResult | None:
    import sympy

    if not (linear_in(e1, names) and linear_in(e2, names)):
        return None
    ratio = sympy.cancel(sympy.expand(e1) / sympy.expand(e2))
    if ratio.is_number:
        return None  # a nonzero multiple: the same equation
    # A witness: the other unknowns at small integers, the last one solved from each.
    last, others = names[-1], names[:-1]
    for values in _small_points(len(others)):
        point = dict(zip(others, values, strict=True))
        a = sympy.solve(e1.subs(point), last)
        b = sympy.solve(e2.subs(point), last)
        if len(a) == 1 and len(b) == 1 and a[0] != b[0]:
            at = ", ".join(f"{k} = {v}" for k, v in point.items())
            return ClaimResult(
                "false", text, f"{last} = {b[0]}", f"{last} = {a[0]}",
                f"does not follow from {source} (at {at})",
            )  # fmt: skip
    return None


def _not_cancelled(first: Condition, e1, e2, text: str, source: str) -> ClaimResult | None:
    """`12a - 2b - (18a + 2b) = 20 - 28`, then `-6a = -8` on the next line: the unknown the
    first writes in two terms or more (terms meant to cancel, as in eliminating it from a
    system) is gone from the second, which is the first's multiple in every other term, but
    its terms add up to -4b, not 0. Linear equations with whole or fractional coefficients
    only; the next equation of a system drops an unknown the last one wrote once."""
    import sympy

    gone = e1.free_symbols - e2.free_symbols
    if len(gone) != 1:
        return None
    (dropped,) = gone
    written = first.left + " " + first.right
    if len(re.findall(rf"(?<![\\A-Za-z]){re.escape(str(dropped))}(?![A-Za-z])", written)) < 2:
        return None
    if not all(linear_in(e, sorted(e.free_symbols, key=str)) for e in (e1, e2)):
        return None
    left_over = sympy.expand(e1).coeff(dropped) * dropped
    rest = sympy.expand(e1 - left_over)
    if rest == 0 or not sympy.cancel(rest / sympy.expand(e2)).is_number:
        return None
    return ClaimResult(
        "false", text, "-", "-",
        f"does not follow from {source}: its {dropped} terms add up to {left_over}, not 0",
    )  # fmt: skip


def _one_term_off(e1, e2, names: list) -> int:
    """The degree of two polynomial equations with three terms or more between them, one a
    nonzero multiple of the other in every term but one (0: they are not)."""
    import sympy

    try:
        p1, p2 = sympy.Poly(sympy.expand(e1), *names), sympy.Poly(sympy.expand(e2), *names)
    except (sympy.PolynomialError, sympy.GeneratorsNeeded):
        return 0
    c1, c2 = dict(p1.terms()), dict(p2.terms())
    monomials = set(c1) | set(c2)
    if len(monomials) < 3 or not all(
        c.is_Rational for c in list(c1.values()) + list(c2.values())
    ):
        return 0
    ratios = [c2[m] / c1[m] for m in monomials if c1.get(m) and c2.get(m)]
    for ratio in set(ratios):
        off = [m for m in monomials if c2.get(m, 0) != ratio * c1.get(m, 0)]
        if len(off) == 1:
            return max(p1.total_degree(), p2.total_degree())
    return 0


def _small_points(n: int):
    return product((1, 2, 0, -1, 3), repeat=n)
