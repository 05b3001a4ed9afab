"""The forms of an expression, as written and as read: what makes a link look like a rewrite.

Pure helpers of `identities` and `derivations`: whether a member is written grouped (a power or
product of brackets, a fraction) or expanded, how many terms two sides are apart, their degrees,
whether a written side attempts another's expansion (or, after words that factor, a product
its factoring), whether fractions keep a part or combine.
"""

from __future__ import annotations

import re

# A form written grouped: a power or a product of a bracket, round or square (`(1 + \cos x)\sin^2
# x`, `(1 - 2x)[x + 3]` too), a fraction (not a coefficient: one term over a number,
# `\frac{x^2}{2}`, or a root of one).
_GROUPED = re.compile(
    r"[)\]]\s*\^|[)\]]\s*[(\[]|\d\s*[(\[]|[A-Za-z]\s*[(\[]|\\frac|\\sqrt|[)\]]\s*[A-Za-z]"
    r"|[)\]]\s*\\[a-z]"
)
_COMMAND = re.compile(r"\\[A-Za-z]+")
_LETTER = re.compile(r"[A-Za-z]")
_COEFFICIENT = re.compile(
    r"\\[dt]?frac\s*\{[^{}+\-]*\}\s*\{\s*\d+\s*\}|\\sqrt\s*\{\s*\d+\s*\}"
)


# Numbers computed on a side ("3y = 49 - 19"), not a lone number ("x - 4 = 1", then
# "x - 4 = 11", may be two cases).
_COMPUTED = re.compile(r"\d\s*(?:[-+*/^]|\\(?:cdot|times|div))\s*[\d(]|\\frac|\\sqrt")
_LONE_NUMBER = re.compile(r"\s*-?\d+(?:\.\d+)?\s*")


def computed_value(old: str, new: str, value) -> bool:
    """Whether `new` stands for the value of the numbers computed in `old` (`49 - 19` rewritten
    `31`), `value` being old's reading; a lone number for an irrational value may round it
    (`\\sqrt{345600}` rewritten `588`): no rewrite to judge exactly."""
    if not _COMPUTED.search(old):
        return False
    return not (_LONE_NUMBER.fullmatch(new) and not value.is_Rational)


def grouped(text: str) -> bool:
    """Whether the member is written in a grouped form (see `_GROUPED`)."""
    return bool(_GROUPED.search(_COEFFICIENT.sub(" 1 ", text)))


def _added_bracket(text: str) -> bool:
    """A bare bracket holding a sum, added to or subtracted from something: "(9 - 3a) + b +
    (6a - 10)" is written to be simplified; `(b + 6)^2`, `2(x + 1)` are forms of their own."""
    text = re.sub(r"\\(?:left|right)\b", "", text)
    for start, char in enumerate(text):
        if char != "(":
            continue
        depth, end = 0, None
        for k in range(start, len(text)):
            depth += {"(": 1, ")": -1}.get(text[k], 0)
            if depth == 0:
                end = k
                break
        if end is None:
            return False
        before, after = text[:start].rstrip()[-1:], text[end + 1 :].lstrip()[:1]
        if before not in ("", "+", "-", "{", "=") or after not in ("", "+", "-", "}"):
            continue
        if before in ("+", "-") or after in ("+", "-"):
            if re.search(r"(?<=[\w)}])\s*[+-]", text[start + 1 : end]):
                return True
    return False


def bracket_dropped(old: str, new: str) -> bool:
    """`old` adds or subtracts a bracket holding a sum and `new` does not: new is written as
    old simplified (two lines that write sums alike, `y = 2x + 1`, `y = 2x - 3`, or `a^2 +
    (b + 6)^2 = 50`, `(a + 2)^2 + b^2 = 50`, may be cases or a system side by side)."""
    return _added_bracket(old) and not _added_bracket(new)


def terms(expr) -> int:
    """Monomials in the unknowns of the numerator (`(\\sqrt{14} - \\sqrt{7})x` is one)."""
    import sympy

    numerator = sympy.expand(sympy.fraction(sympy.together(expr))[0])
    names = sorted(numerator.free_symbols, key=str)
    if names:
        try:
            return len(sympy.Poly(numerator, *names).terms())
        except sympy.PolynomialError:
            pass
    return len(sympy.Add.make_args(numerator))


def same_degree(a, b) -> bool | None:
    """Whether two polynomials have the same total degree (None: not polynomials)."""
    import sympy

    names = sorted(a.free_symbols | b.free_symbols, key=str)
    try:
        pa, pb = sympy.Poly(sympy.expand(a), *names), sympy.Poly(sympy.expand(b), *names)
    except (sympy.PolynomialError, sympy.GeneratorsNeeded):
        return None
    return pa.total_degree() == pb.total_degree() >= 1


def attempt(grouped, written) -> bool:
    """Whether at least two terms of `written`, and half of them, are terms (coefficient
    and all) of `grouped` multiplied out."""
    import sympy

    true = sympy.expand(grouped).as_coefficients_dict()
    terms = sympy.expand(written).as_coefficients_dict()
    matched = sum(1 for monomial, c in terms.items() if true.get(monomial) == c)
    return matched >= 2 and 2 * matched >= len(terms)


def factored_attempt(old, new) -> bool:
    """Whether `new` is a product one of whose factors with unknowns divides `old`: an attempt
    at taking that factor out (after words that say so: `a \\cdot c` "with a factored out" as
    `a(c - 1)`; a square `(x - 4)^2` for `x^2 - 16` keeps the factor it repeats)."""
    import sympy

    if isinstance(new, sympy.Pow) and new.exp.is_Integer and new.exp > 1:
        factors = (new.base,)
    elif isinstance(new, sympy.Mul):
        factors = new.args
    else:
        return False
    names = sorted(old.free_symbols | new.free_symbols, key=str)
    for factor in factors:
        if not factor.free_symbols:
            continue
        try:
            _, rest = sympy.div(sympy.expand(old), factor, *names)
        except (sympy.PolynomialError, ValueError, TypeError):
            continue
        if rest == 0:
            return True
    return False


# "Factoring, x^2 - 5x + 6 = (x - 2)(x - 4)": words that factor one expression, not a side
# of an equation ("factoring the right side, x^2 + 3x = x(x + 1)" rewrites an equation).
_FACTORS = re.compile(r"factor")
_A_SIDE = re.compile(r"side|equation")


def factoring_slip(grouped, written, before: str) -> bool:
    """After words that factor (`_FACTORS`), a product that keeps a factor of the written
    side, with its degree and leading coefficient, is an attempt at factoring it whose other
    factors went wrong (one root right, one wrong)."""
    import sympy

    said = before.lower()[-80:]
    if not _FACTORS.search(said) or _A_SIDE.search(said) or not factored_attempt(written, grouped):
        return False
    names = sorted(grouped.free_symbols | written.free_symbols, key=str)
    try:
        mine, theirs = sympy.Poly(sympy.expand(grouped), *names), sympy.Poly(written, *names)
    except (sympy.PolynomialError, ValueError, TypeError):
        return False
    return mine.total_degree() == theirs.total_degree() and mine.LC() == theirs.LC()


def like_terms(grouped, written) -> bool:
    """Whether `written` could be `grouped` with its like terms combined, however wrongly: two
    of its terms are terms of `grouped` multiplied out but for their coefficients (`11a + 5ar`
    and `6a + ar + ar^2`), and it is no factor of it (`(n + m + 6)(n - m + 6) = 2043`, then
    `n + m + 6 = 2043`: one case of the factors, not a rewrite)."""
    import sympy

    true = sympy.expand(grouped).as_coefficients_dict()
    shared = sum(1 for term in sympy.expand(written).as_coefficients_dict() if term in true)
    if shared < 2:
        return False
    try:
        quotient, rest = sympy.div(grouped, written, *sorted(grouped.free_symbols, key=str))
    except (sympy.PolynomialError, ValueError, TypeError):
        return False  # not polynomials: no factor test, no verdict
    return not (rest == 0 and quotient.free_symbols)


def gathered(left: str, right: str, a, b) -> bool:
    """`left` written with like terms that `right` writes combined (`3x + 5x` against `9x`,
    `x^2 + 2x^2 + 1` against `4x^2 + 1`): polynomials with the same monomials, `left` written
    with more terms than it has, `right` with just its own."""
    import sympy

    names = sorted(a.free_symbols | b.free_symbols, key=str)
    if not names:
        return False
    try:
        pa, pb = sympy.Poly(sympy.expand(a), *names), sympy.Poly(sympy.expand(b), *names)
    except (sympy.PolynomialError, sympy.GeneratorsNeeded):
        return False
    mine, theirs = set(pa.monoms()), set(pb.monoms())
    return mine == theirs and written_terms(left) > len(mine) == written_terms(right)


def written_terms(text: str) -> int:
    """How many terms a member has as written (`term_texts`)."""
    return len(term_texts(text))


def term_texts(text: str) -> list[str]:
    """A member's terms as written, each with its sign: a sign at depth 0 after an operand
    starts one (`3x + 5x` is two; `-3x`, `x^{-1}`, `2 \\cdot (-x)` one)."""
    depth, start, before, out = 0, 0, "", []
    for i, char in enumerate(text):
        depth += (char in "({[") - (char in ")}]")
        if char in "+-" and depth == 0 and before and before not in "+-*/^=(":
            out.append(text[start:i])
            start = i
        before = before if char.isspace() else char
    return [*out, text[start:]]


def written_fractions(text: str) -> int:
    """The terms of a member as written that are each one fraction with a letter in its
    denominator (`\\frac{2}{x} + \\frac{3}{x}`: two, where sympy reads `5/x`)."""
    parts = [fraction_parts(term.strip().lstrip("+-")) for term in term_texts(text)]
    return sum(p is not None and bool(_LETTER.search(_COMMAND.sub("", p[1]))) for p in parts)


def kept_part(earlier, later) -> bool:
    """Fractions with the same numerator, or the same denominator, as written: the other part
    is what the link rewrites (`a(1 - a)/(1 - 2a + ax) = a(1 - a)/(ax - a)`)."""
    import sympy

    (n1, d1), (n2, d2) = sympy.fraction(earlier), sympy.fraction(later)
    if not (d1.free_symbols or d2.free_symbols):
        return False
    same_num = sympy.expand(n1 - n2) == 0 and bool(n1.free_symbols)
    same_den = sympy.expand(d1 - d2) == 0 and bool(d1.free_symbols)
    return same_num != same_den


def atomized(a, b):
    """Both expressions with each function of the unknowns (a log, a sine, a root) taken as an
    unknown of its own, the same one in both: `\\sin^4 x - \\sin^2 x \\cos^2 x` is then a
    polynomial of degree 4, and a log over 3 a rational function."""
    import sympy

    atoms = set().union(*(e.atoms(sympy.Function, sympy.Pow) for e in (a, b)))
    opaque = [t for t in atoms if t.free_symbols and (
        isinstance(t, sympy.Function) or not t.exp.is_Integer)]  # fmt: skip
    rename = {t: sympy.Dummy(f"u{i}") for i, t in enumerate(sorted(opaque, key=str))}
    return a.xreplace(rename), b.xreplace(rename)


def alike(a, b) -> bool:
    """Polynomials of one total degree, or rational functions whose numerator and
    denominator degrees differ alike (`3/(2y)` against `8/(5y)`, not `3/(2x)` against `6`)."""
    same = same_degree(a, b)
    if same is not None:
        return same
    first, second = rational_degree(a), rational_degree(b)
    return first is not None and first == second


def rational_degree(expr) -> int | None:
    """The numerator's total degree less the denominator's (None: not a rational function)."""
    import sympy

    names = sorted(expr.free_symbols, key=str)
    num, den = sympy.fraction(sympy.together(expr))
    try:
        return sympy.Poly(num, *names).total_degree() - sympy.Poly(den, *names).total_degree()
    except (sympy.PolynomialError, sympy.GeneratorsNeeded):
        return None


def combines(a, b, left: str = "", right: str = "") -> str:
    """"common" when one side is a sum of at least two fractions with unknowns in their
    denominators and the other a single such fraction over their common denominator (or
    their product, up to a constant factor): what combining them writes; "sum" for the same
    shape over another denominator, or where only the written sides `left`, `right` show
    it (sympy adds fractions over one denominator as it reads them); "" otherwise."""
    import sympy

    if rational_degree(a) is None or rational_degree(b) is None:
        return ""

    def fractions(expr) -> int:
        return sum(
            bool(sympy.fraction(t)[1].free_symbols) for t in sympy.Add.make_args(expr)
        )

    def single(expr) -> bool:
        return len(sympy.Add.make_args(expr)) == 1 and fractions(expr) == 1

    if fractions(a) >= 2 and single(b):
        parts, whole = a, b
    elif fractions(b) >= 2 and single(a):
        parts, whole = b, a
    else:
        written = (written_fractions(left) >= 2 and single(b)) or (
            written_fractions(right) >= 2 and single(a)
        )
        return "sum" if written else ""
    dens = [sympy.fraction(t)[1] for t in sympy.Add.make_args(parts)]
    target = sympy.fraction(whole)[1]
    for common in (sympy.lcm(dens), sympy.Mul(*dens)):
        ratio = sympy.cancel(common / target)
        if ratio.is_number and ratio != 0:
            return "common"
    return "sum"


# A member written as one fraction and nothing else: `\frac{...}{...}` (or `\dfrac`, `\tfrac`).
_FRACTION_START = re.compile(r"^\\[dt]?frac\s*\{")


def _braced(text: str, start: int) -> int | None:
    """The index just past the group that opens at `text[start]` (a `{`), or None."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return i + 1
    return None


def fraction_parts(member: str) -> tuple[str, str] | None:
    """(numerator, denominator) as written when the member is a single fraction."""
    member = member.strip()
    found = _FRACTION_START.match(member)
    if found is None:
        return None
    end = _braced(member, found.end() - 1)
    if end is None or end >= len(member) or member[end] != "{":
        return None
    last = _braced(member, end)
    if last != len(member):
        return None
    return member[found.end() : end - 1], member[end + 1 : last - 1]


def cancels(parts: tuple, other_parts: tuple) -> str:
    """How one fraction is the other's rewrite as its parts show, read as polynomials: its
    "numerator" (or "denominator") kept, up to a constant, the other part of the same degree
    (`\\frac{72x - 72}{x^2 + 4x}` against `\\frac{72(x - 1)}{(x - 1)(x + 4)}`), or both parts
    divided by a factor each, "cancelled" (`\\frac{x^2 - 1}{x^2 + 3x + 2}` against
    `\\frac{x - 1}{x + 1}`, whose two factors must then be one); "" when it is neither."""
    import sympy

    (n1, d1), (n2, d2) = parts, other_parts
    names = sorted(set().union(*(e.free_symbols for e in (n1, d1, n2, d2))), key=str)
    if not names:
        return ""
    try:
        polys = [sympy.Poly(sympy.expand(e), *names) for e in (n1, d1, n2, d2)]
    except (sympy.PolynomialError, sympy.GeneratorsNeeded):
        return ""
    p_n1, p_d1, p_n2, p_d2 = polys
    if any(p.is_zero for p in polys):
        return ""
    pairs = (("numerator", p_n1, p_n2, p_d1, p_d2), ("denominator", p_d1, p_d2, p_n1, p_n2))
    for name, kept, kept_again, other, other_again in pairs:
        ratio = sympy.cancel(kept.as_expr() / kept_again.as_expr())
        if kept.total_degree() >= 1 and ratio.is_number and (
            other.total_degree() == other_again.total_degree() >= 1
        ):
            return name
    if min(p_n2.total_degree(), p_d2.total_degree()) < 1:
        return ""
    return "cancelled" if p_n1.rem(p_n2).is_zero and p_d1.rem(p_d2).is_zero else ""


def shifted(e1, e2):
    """The nonzero number by which `e1` is off a multiple of `e2` (None: it is a multiple, or
    off by more than a number): `12x^2 - 32x - 16 + 2\\sqrt{P}` against `2\\sqrt{P} - 23 +
    12x^2 - 32x` is off by 7, so no value of x makes both zero."""
    off = offset(e1, e2)
    # Only an offset sympy knows is nonzero: `6 - 2\sqrt{15 - 6\sqrt{6}}\sqrt{15 + 6\sqrt{6}}`
    # is written unlike 0 and is 0.
    return off if off is not None and off.is_zero is False else None


def offset(e1, e2):
    """What `e1` less the multiple of `e2` that matches its first term with an unknown leaves,
    when that is a number (0: `e1` is that multiple); None otherwise."""
    import sympy

    if e1 is None or e2 is None:
        return None
    a, b = sympy.expand(e1), sympy.expand(e2)
    for term in sympy.Add.make_args(a):
        coefficient, rest = term.as_coeff_Mul()
        if not rest.free_symbols:
            continue
        other = b.coeff(rest)
        if other == 0 or not other.is_number:
            return None
        off = sympy.expand(a - coefficient / other * b)
        return off if off.is_number else None
    return None
