"""What a member of a written relation means: our reading and the library's, alike.

`readings` turns a member (LaTeX) into sympy expressions through the project's own reader
(`latex_math`, a whitelist read exactly) or, for confirmation, through `latex2sympy2_extended`
(math-verify's parser), with the functions a chain defined applied and degrees read as 180ths
of pi by both. An unbased `\\log` has two readings (base 10 and natural); a member with
decimals beside unknowns has none unless the caller allows for their rounding. What is not
read whole is not read (an empty list). Cached: a chain restates its members step after step.
"""

from __future__ import annotations

import re
from functools import lru_cache

from verifiers.calculator.elided_terms import spelled_out
from verifiers.calculator.regroupings import signed_base
from verifiers.calculator.relations import DEGREES, THOUSANDS

__all__ = ["DECIMAL", "one_unknown", "readings", "trig_atoms", "warm", "written_exactly"]

_MAX_NESTING = 8  # applications of the chain's functions replaced in one member
# A decimal written in a member (`1.5`): read exactly, it may still be a rounding.
DECIMAL = re.compile(r"\d\.\d")
# A digit or a closing bracket, then an opening one: a product.
_BRACKET_PRODUCT = re.compile(r"(\d|\))\s*(?=\()")
_BRACED = re.compile(r"^([A-Za-z]+)_\{([A-Za-z0-9]+)\}$")


def warm() -> None:
    """Import the parser and sympy in a fresh child before its first timed check."""
    _parse("x^2 + \\frac{1}{2}", "10")


def _config():
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig
    from latex2sympy2_extended.math_normalization import NormalizationConfig

    return (
        NormalizationConfig(
            basic_latex=True, units=False, malformed_operators=False, nits=False,
            boxed="all", equations=False,
        ),
        ConversionConfig(
            interpret_as_mixed_fractions=False, interpret_simple_eq_as_assignment=False,
            interpret_contains_as_eq=False, lowercase_symbols=False,
        ),
    )  # fmt: skip


@lru_cache(maxsize=1)
def _simple_first():
    """The library's converter with its ANTLR parser predicting without the rule context
    (SLL), or None if the library no longer has the class. ANTLR documents that SLL
    prediction gives the very tree full LL prediction gives or reports a syntax error, and
    it spares the full-context prediction that makes the library's reading cost tens of
    milliseconds a member (members of the dev split and MATH train all read alike, at about
    a third of the time: docs/benchmarks.md); on a syntax error the member is read again
    the library's usual way."""
    from latex2sympy2_extended import latex2sympy2

    converter = getattr(latex2sympy2, "_Latex2Sympy", None)
    if converter is None or not hasattr(converter, "create_parser"):
        return None

    class SimpleFirst(converter):
        def create_parser(self, latex_str):
            parser = super().create_parser(latex_str)
            # The runtime's own mode enum, reached through the parser: it comes with the
            # library, not as a dependency of ours.
            parser._interp.predictionMode = type(parser._interp.predictionMode).SLL
            return parser

        def parse(self, latex_str):
            # A member is one expression, so it is parsed from the grammar's expression rule:
            # the top rule's choice between sets, tuples, `\\pm` lists and relations looks
            # ahead over the whole member, and its tables, built afresh in each worker, were
            # most of the reading's time. What may be one of those, or what the expression
            # rule does not read to the end, is read from the top rule as before.
            if not _NOT_ONE_EXPRESSION.search(latex_str):
                parser = self.create_parser(latex_str)
                try:
                    tree = parser.expr()
                    if parser.getCurrentToken().type == parser.EOF:
                        return self.convert_expr(tree)
                except Exception:  # the listener raises on a syntax error: from the top
                    pass
            return super().parse(latex_str)

    return SimpleFirst


# What the top rule may read as other than one expression: a set or tuple (a comma, a
# semicolon, braces, a named set, set operations), a `\\pm` list, a relation.
_NOT_ONE_EXPRESSION = re.compile(
    r"^\s*\{|[,;=<>]|\\\{|\\(?:pm|mp|lbrace|mathbb|emptyset|varnothing|cup|cap|setminus|in"
    r"|le|leq|ge|geq|ne|neq|approx|sim|equiv|subset|subseteq|supset|supseteq)(?![a-zA-Z])"
)


def _library_parse(member: str, norm, conv):
    from latex2sympy2_extended import latex2sympy
    from latex2sympy2_extended.math_normalization import normalize_latex

    if (simple := _simple_first()) is not None:
        try:
            return simple(config=conv).parse(normalize_latex(member, norm))
        except Exception:  # a syntax error under SLL, maybe not under LL: read as usual
            pass
    return latex2sympy(member, normalization_config=norm, conversion_config=conv)


@lru_cache(maxsize=4096)
def _library_reading(member: str, log_base: str = "10"):
    """The member as `latex2sympy2_extended` reads it (None: it cannot), for confirmation."""
    import sympy

    if log_base != "10":
        member = member.replace("\\log", "\\ln")
    # The parser reads `2(3)` as 5, `8(1) - 6j` as 9 - 6j and `(3)(4)` as 7: a number or a
    # closed bracket before an opening one is a product, so say so.
    member = _BRACKET_PRODUCT.sub(r"\1\\cdot ", member)
    norm, conv = _config()
    try:
        expr = _library_parse(member, norm, conv)
    except Exception:  # the parser's own errors: a member it cannot read is not confirmed
        return None
    if not isinstance(expr, sympy.Expr):
        return None
    # `a_{14}` is the parser's name for what ours calls `a_14`: one unknown, one name.
    braced = {s: sympy.Symbol(_BRACED.sub(r"\1_\2", s.name)) for s in expr.free_symbols}
    expr = expr.xreplace({s: t for s, t in braced.items() if t.name != s.name})
    try:
        return expr.doit()
    except Exception:
        return None


def written_exactly(expr):
    """The library reads `1.5` as a float: the decimal it writes, as an exact number."""
    import sympy

    floats = expr.atoms(sympy.Float)
    return expr.xreplace({f: sympy.Rational(str(f)) for f in floats}) if floats else expr


@lru_cache(maxsize=8192)
def _parse(member: str, log_base: str = "10", functions: frozenset = frozenset()):
    """Our reading of the member (None: outside the grammar)."""
    from verifiers.calculator.latex_math import ParseError, read_member

    try:
        return read_member(member, log_base, functions)
    except (ParseError, ValueError, TypeError, ZeroDivisionError):
        return None


def readings(
    member: str,
    defs: dict | None = None,
    library: bool = False,
    decimals: bool = False,
    applications: frozenset = frozenset(),
    real_roots: bool = True,
) -> list:
    """Every reading of a member (one; two for an unbased log, and for a minus before a power
    of a number, `regroupings.signed_base`; four for both) with the chain's functions
    applied; empty: unreadable (a function nobody defined is not read, but for the names in
    `applications`, kept applied: `verifiers.calculator.applications`). `library`: as
    `latex2sympy2_extended` reads it, for `confirmed`. `decimals`: a decimal beside unknowns
    is read as the exact number it writes (for a caller that allows for its rounding).
    `real_roots`: an odd root of a negative number is the real one (`_real_odd_roots`); a
    caller reading complex numbers keeps sympy's principal root, a branch it will not judge."""
    # Cached: a chain restates its members step after step, and each link reads both sides.
    definitions = tuple(sorted((defs or {}).items()))
    return list(_readings(member, definitions, library, decimals, applications, real_roots))


@lru_cache(maxsize=8192)
def _readings(
    member: str, definitions: tuple, library: bool, decimals: bool, applications: frozenset,
    real_roots: bool,
) -> tuple:
    import sympy
    from sympy.core.function import AppliedUndef

    defs = dict(definitions)
    # A name given a number (`definitions.constant_of`) is that number; the rest are functions.
    fixed = fixed_names(defs)
    constants = {sympy.Symbol(n): defs[n][1] for n in fixed}
    functions = frozenset(defs) - fixed | applications
    bases = ["10", "e"] if "\\log" in member and "\\log_" not in member else ["10"]
    # A number of degrees is that many 180ths of pi, for both readers alike (the library
    # reads `\\tan 30^\\circ` as the tangent of 30 radians).
    member = DEGREES.sub(r"(\1 \\cdot \\frac{\\pi}{180})", member)
    # `1 + 2 + \\cdots + 10` as the sum with its bounds, for both readers alike.
    member = spelled_out(member)
    if member is None:
        return ()
    # `225,000 + 4000n`: for both readers alike (`relations.THOUSANDS`).
    member = THOUSANDS.sub(lambda m: m.group().replace(",", ""), member)
    # `-3^2` may mean the square of -3 (`regroupings`): read both ways.
    members = [member] + [m for m in [signed_base(member)] if m is not None]
    if library:
        found = [_library_reading(m, base) for m in members for base in bases]
    else:
        found = [_parse(m, base, functions) for m in members for base in bases]
    if (
        not decimals
        and any(e is not None and e.free_symbols for e in found)
        and DECIMAL.search(member)
    ):
        return ()  # decimals beside unknowns: an approximation, never an identity
    out = []
    for expr in found:
        if expr is None:
            return ()
        # Applications replaced innermost first, pass after pass: `P(P(x))` holds `P(x)`, and
        # the order a set of atoms comes in must not decide what is read.
        for _ in range(_MAX_NESTING):
            apps = {a for a in expr.atoms(AppliedUndef) if a.func.__name__ not in applications}
            if not apps:
                break
            inner = {}
            for app in apps:
                # `f''` names f's second derivative (`latex_math`).
                name = app.func.__name__.rstrip("'")
                if not defs or name not in defs:
                    return ()
                args, body = defs[name]
                order = len(app.func.__name__) - len(name)
                # A prime on a function of several arguments names no one derivative.
                if len(app.args) != len(args) or order and len(args) > 1:
                    return ()
                if not any(a.atoms(AppliedUndef) for a in app.args):
                    body = sympy.diff(body, args[0], order) if order else body
                    inner[app] = body.xreplace(dict(zip(args, app.args, strict=True)))
            expr = expr.xreplace(inner)
        if expr.has(sympy.Derivative):
            expr = expr.doit()  # `\\frac{d}{dx}(f(x))`, its function put in
        left = {a.func.__name__ for a in expr.atoms(AppliedUndef)} - applications
        if left or not isinstance(expr, sympy.Expr):
            return ()
        if constants and expr.free_symbols & set(constants):
            if expr.atoms(sympy.Sum, sympy.Product):
                return ()  # a constant's name may be a bound index there: not ours to guess
            expr = expr.xreplace(constants)
        if _bare_angle(expr):
            return ()  # `\\tan x` with x = 45 given: degrees or radians, as `latex_math` says
        out.append(_real_odd_roots(expr) if real_roots else expr)
    return tuple(out)


def plain_number(member: str, defs: dict | None = None):
    """The exact real number a member writes (None: decimals, which may be rounded, an
    unknown, a value that is not real, or more than one reading)."""
    if DECIMAL.search(member):
        return None
    read = readings(member, defs)
    if len(read) != 1 or read[0].free_symbols or not read[0].is_real:
        return None
    return read[0]


def trig_atoms(expr) -> set:
    """The sines, cosines, tangents (and their reciprocals) in an expression."""
    import sympy

    return expr.atoms(sympy.sin, sympy.cos, sympy.tan, sympy.cot, sympy.sec, sympy.csc)


def _bare_angle(expr) -> bool:
    """Whether a sine, cosine or tangent holds a number without pi (`\\tan 45` once a value or
    a function's argument is put in): a number of degrees is often written bare, so the
    reading in radians is a guess (`latex_math` refuses such an angle written out)."""
    import sympy

    return any(not (a := f.args[0]).free_symbols and not a.has(sympy.pi) for f in trig_atoms(expr))


def _real_odd_roots(expr):
    """An odd root of a negative number as the real root a competition text means
    (`\\sqrt[3]{-8} = -2`, `\\sqrt[3]{2 - \\sqrt{5}}` negative), where sympy takes the
    principal complex one and every claim about it would abstain as not real. Numbers only:
    a root of a letter is read as sympy reads it, and it is real at the points tried when the
    letter is positive."""
    import sympy

    def negative_odd_root(e) -> bool:
        return (
            e.is_Pow
            and e.exp.is_Rational
            and not e.exp.is_Integer
            and e.exp.q % 2 == 1
            and e.base.is_number
            and e.base.is_negative is True
        )

    def real_root(e):
        return (-1) ** e.exp.p * (-e.base) ** e.exp

    return expr.replace(negative_odd_root, real_root) if expr.has(sympy.Pow) else expr


def one_unknown(left: str, right: str, defs: dict):
    """(left read, right read, their difference, its one unknown, the difference as a
    polynomial in it) for two members each read once, or None (unread, read twice, no unknown
    or several, not a polynomial): a relation in one unknown, for the checks that solve it."""
    import sympy

    a, b = readings(left, defs), readings(right, defs)
    if len(a) != 1 or len(b) != 1:
        return None
    expr = sympy.expand(a[0] - b[0])
    if len(expr.free_symbols) != 1:
        return None
    unknown = next(iter(expr.free_symbols))
    try:
        return a[0], b[0], expr, unknown, sympy.Poly(expr, unknown)
    except sympy.PolynomialError:
        return None


def fixed_names(defs: dict) -> set[str]:
    """The letters the problem fixed to a number (`definitions.constant_of`): the definitions
    without arguments."""
    return {name for name, (args, _) in (defs or {}).items() if not args}


def fixed_letters(text: str, defs: dict) -> bool:
    """Whether the text writes a letter the problem fixed to a number."""
    names = "".join(fixed_names(defs))
    return bool(names) and re.search(rf"(?<![A-Za-z\\])[{names}](?![A-Za-z])", text) is not None
