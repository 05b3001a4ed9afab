"""Judging one extracted link: does `left = right` hold, fail, or say nothing we can check?

Precision first: a link is `false` only when it is wrong under every reading we know of.
The readings that excuse a mismatch (each is a trap seen in real chains):
- rounding the step announces (`≈`, "about", "approximately") or shows (claimed value has d
  decimals and is within 10^-d; a whole number, or a whole percent, within 1 of a fraction:
  items can't be split. A fraction claimed, "1/2 + 1/3 = 2/5", rounds nothing);
- rounding carried in from an earlier step (a 2-decimal operand, result within 1%, and a
  value the numbers shown give when each is off by less than a unit of its last digit);
- percent vs fraction (`3/4 = 75`; a fraction claimed without decimals within one point of
  the percent), percent-increase shorthand (`24 + 20% = 28.8`);
- a running total written as a chain (`3 * 4 = 12 + 5 = 17`);
- unit conversions (two units of one dimension on the link: `2 hours + 30 min = 150 min`)
  and scale words (`1.5 million`);
- a claim copied from the problem statement (a false premise is not the step's fault).
A sum or product shown in stages (`720 * 24 * 120 * 6 = 720 * 24`, terms still to come) is
excused by the step's other links (`staged`, used by `excuses` and `named`); approximations a
step states or announces are `approximations`'.
A quotient followed by "remainder r" is division with remainder: none of these excuses apply.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from decimal import Context, Decimal
from fractions import Fraction

from verifiers.calculator.announced import approximate_claim
from verifiers.calculator.carried_rounding import may_carry
from verifiers.calculator.context import StepContext, context_excuse
from verifiers.calculator.evaluate import EvalError, NeedsSympyError, TooBigError, exact
from verifiers.calculator.extract import Link, Side
from verifiers.calculator.normalize import NUMERAL_WRITTEN
from verifiers.calculator.parse import Node, has_ops, operands
from verifiers.calculator.regroupings import reads_as, regrouped_divisions, regrouped_powers
from verifiers.calculator.side_words import SCALE_WORDS

APPROX_WORDS = frozenset(
    "approximately approx about roughly around nearly almost estimated estimate round rounded"
    " rounding rounds".split()
)
_DIMENSIONS = {
    "time": "second seconds sec secs minute minutes min mins hour hours hr hrs day days week"
    " weeks month months year years decade decades",
    "distance": "inch inches foot feet ft yard yards mile miles mm cm meter meters metre metres km"
    " kilometer kilometers",
    "mass": "gram grams kg kilogram kilograms pound pounds lb lbs ounce ounces oz ton tons",
    "volume": "cup cups pint pints quart quarts gallon gallons liter liters litre litres ml"
    " milliliter milliliters",
    "money": "dollar dollars cent cents",
    "count": "dozen dozens pair pairs",
}
_PLAIN = StepContext()  # a step that names no scale, modulus or base
UNIT_DIMENSION = {word: dim for dim, words in _DIMENSIONS.items() for word in words.split()}
_CANON = {"feet": "foot", "inches": "inch", "lbs": "lb", "mins": "min", "hrs": "hr"}


@dataclass(frozen=True, slots=True)
class ClaimResult:
    """Outcome of one link: holds | false | skipped | timeout | sympy (needs the worker).

    The numeric reader's and the symbolic checks' result alike; `numbers`: a symbolic check of
    a relation between numbers, which the numeric reader may read too (`chain_algebra` keeps
    the numeric reader's verdict there)."""

    outcome: str
    text: str
    claimed: str = ""
    true: str = ""
    reason: str = ""
    numbers: bool = False


def _digits(x: Fraction, places: int) -> str:
    # Decimal, not float: values up to MAX_RESULT_DIGITS digits overflow a float.
    value = Context(prec=places).divide(Decimal(x.numerator), Decimal(x.denominator))
    return f"{value:.{places}g}"


def fmt(x: Fraction) -> str:
    """A value for evidence text; never raises (values are bounded by MAX_RESULT_DIGITS)."""
    if abs(x.numerator).bit_length() > 130:  # 40 digits and more: nobody reads them
        return _digits(x, 10)
    if x.denominator == 1:
        return str(x.numerator)
    if x.denominator > 10**6:  # an approximation from sympy: digits, not a ratio
        return _digits(x, 10)
    return f"{x.numerator}/{x.denominator} (~{_digits(x, 6)})"


def link_text(link: Link) -> str:
    sign = "≈" if link.approx else "="
    return f"{link.left.text} {sign} {link.right.text}"


def _mixed_units(link: Link) -> bool:
    seen: dict[str, set[str]] = {}
    for word in (*link.left.units, *link.right.units):
        dim = UNIT_DIMENSION.get(word)
        if dim:
            seen.setdefault(dim, set()).add(_CANON.get(word, word.rstrip("s")))
    return any(len(units) > 1 for units in seen.values())


def _range_count(node: Node, claimed: Fraction) -> bool:
    """`a - b` of whole numbers a < b claimed as b - a + 1: the count from a to b."""
    if node[0] != "-" or node[1][0] != "num" or node[2][0] != "num":
        return False
    a, b = node[1][1], node[2][1]
    return a.denominator == b.denominator == 1 and 0 <= a < b and claimed == b - a + 1


def _additive_percent(node: Node) -> bool:
    if node[0] in ("+", "-"):
        kinds = [child[0] == "pct" for child in node[1:]]
        if any(kinds) and not all(kinds):
            return True
    return any(isinstance(c, tuple) and _additive_percent(c) for c in node[1:])


def _has_pi(node: Node) -> bool:
    return node[0] == "pi" or any(isinstance(c, tuple) and _has_pi(c) for c in node[1:])


def flat(node: Node, op: str) -> list[Node]:
    """The operands of a run of one associative operation: `2 * 3 * 4` -> 2, 3, 4. A sum
    takes its subtractions in as negated terms: `84 - 98 + 39` -> 84, -98, 39 (so a stage of
    it, `84 - 98`, is its first terms)."""
    if node[0] == op:
        return flat(node[1], op) + flat(node[2], op)
    if op == "+" and node[0] == "-" and len(node) == 3:
        return flat(node[1], op) + [("neg", t) for t in flat(node[2], op)]
    return [node]


def staged(whole: Node, part: Node, links: tuple[Link, ...]) -> bool:
    """`part` is a stage of the sum or product `whole` that the step takes up again: the same
    terms with some not yet taken in (compared by value: `2^3` is `8`), or a plain number equal
    to its first terms, and a link of the step goes on from that value with a term still to
    come ("Total = 720 * 24 * 120 * 6", then "Total = 720 * 24 = 17280", "17280 * 120 = ...").
    A part that nothing takes up again is not excused: a total that drops a term is a slip."""
    op = "+" if whole[0] == "-" and len(whole) == 3 else whole[0]  # a - b: a sum, signed
    if op not in ("*", "+"):
        return False
    terms = flat(whole, op)
    counts = Counter(map(_term, terms))
    if part[0] == op or (op == "+" and part[0] == "-" and len(part) == 3):
        taken = Counter(map(_term, flat(part, op)))
        if taken - counts or taken.total() >= counts.total():
            return False
    else:
        taken = next(
            (Counter(map(_term, terms[:k])) for k in range(2, len(terms))
             if _term(_join(terms[:k], op)) == _term(part)),
            None,
        )
        if taken is None:
            return False
    value, rest = _term(part), counts - taken
    for link in links:
        lead = flat(link.left.node, op)
        if len(lead) >= 2 and _term(lead[0]) == value and _term(lead[1]) in rest:
            return True
    return False


def _join(terms: list[Node], op: str) -> Node:
    node = terms[0]
    for term in terms[1:]:
        node = (op, node, term)
    return node


def _term(node: Node) -> object:
    """A term's value when it has one (`2^3` and `8` are one term), else its tree."""
    try:
        return exact(node)
    except EvalError:
        return node


def _max_decimals(node: Node) -> int:
    return max((leaf[2] for leaf in operands(node)), default=0)


def leading_value(node: Node) -> Fraction | None:
    """Value of the first operand of a chain's next side: `12 + 5` -> 12."""
    while node[0] in ("+", "-", "*", "/") and isinstance(node[1], tuple):
        node = node[1]
    try:
        return exact(node)
    except EvalError:
        return None


def _powered(node: Node) -> bool:
    return node[0] == "^" or any(isinstance(c, tuple) and _powered(c) for c in node[1:])


def compact(text: str) -> str:
    return re.sub(r"\s+", "", text)


def excuse(
    link: Link,
    computed: Fraction,
    claimed: Fraction,
    claimed_side: Side,
    computed_side: Side,
    approx: bool,
    ctx: StepContext = _PLAIN,
    exact_value: bool = True,
) -> str:
    """Why a mismatch is not (provably) an error, or "" when nothing excuses it.

    `ctx`: the scale, moduli and bases the whole step names (`context.context_excuse`).
    `exact_value`: `computed` is the computed side's exact value (False: sympy's digits).
    """
    diff = abs(computed - claimed)
    scale = max(abs(computed), abs(claimed), Fraction(1, 10**9))
    rel = diff / scale
    d = _max_decimals(claimed_side.node)
    if approx and (
        why := approximate_claim(
            computed, claimed, claimed_side.node, computed_side.node, exact_value
        )
    ):
        return why
    # (Not `1.928 \times 10^{-7}`, here or as a percent: a power scales the digits shown.)
    if d >= 1 and diff <= Fraction(1, 10**d) and not _powered(claimed_side.node):
        return "rounded to the decimals shown"
    # items are not split; not announced, so not "holds". Only a value written whole (a
    # whole percent: "1/3 = 33%") reads as rounded: "1/2 + 1/3 = 2/5" rounds nothing. Rounded
    # to the nearest or cut (a whole quotient); raised past the nearest only where the step
    # counts whole items up ("we need 17/5 = 4 boxes"), not in `1/(5/2) = 1`.
    unit = 100 if claimed_side.node[0] == "pct" else 1
    if d == 0 and (computed * unit).denominator != 1 and (claimed * unit).denominator == 1 \
            and diff * unit < 1 \
            and (abs(claimed) < abs(computed) or 2 * diff * unit <= 1 or ctx.rounds_up):
        return "whole-number rounding"
    tol = Fraction(1, 10**d)
    # a claimed fraction read as a percent: within the decimals it shows, times 100. A fraction
    # written without decimals ("2/5") is exact: within one point of the percent ("40"), not
    # within 100 ("1/2 + 1/3 = 2/5" is no percent)
    pct_tol = Fraction(1) if d == 0 else tol * 100
    if (
        computed
        and claimed
        and (abs(computed - claimed * 100) <= pct_tol or abs(claimed - computed * 100) <= tol)
        and not _powered(claimed_side.node)
    ):
        return "percent vs fraction"
    if reads_as(regrouped_divisions(computed_side.node), claimed):
        return "ambiguous division (a / b/c)"
    if reads_as(regrouped_powers(computed_side.node), claimed):
        return "a power read as the text may mean ((-3)^2, (2^3)^2)"
    # (A link that says it approximates has had the rounding of its decimals weighed above.)
    # ... unless no number shown, rounded or cut at its last digit, gives the claim (`17.714 *
    # 4 = 71.456`: 70.852 to 70.860).
    if (
        not approx
        and _max_decimals(computed_side.node) >= 2
        and rel <= Fraction(1, 100)
        and may_carry(computed_side.node, claimed, d, ctx.given)
    ):
        return "rounding carried from an earlier value"
    if rel <= Fraction(1, 10**6):
        return "display precision"
    if _mixed_units(link):
        return "unit conversion"
    if _range_count(computed_side.node, claimed):
        return "a range counted"  # "from page 10 - 20 = 11 pages": the dash reads "to"
    if {"am", "pm"} & {unit.lower() for unit in (*link.left.units, *link.right.units)}:
        return "clock times"  # "11am + 3 hours = 2pm", "8am-6pm = 10 hours": a dial, a range
    if "deg" in (*link.left.units, *link.right.units) and (
        _has_pi(link.left.node) or _has_pi(link.right.node)
    ):
        return "degrees and radians"  # "9pi/4 = 180deg/pi * 9pi/4 = 405deg"
    if any(u in SCALE_WORDS for u in (*link.left.units, *link.right.units)):
        return "scale word"
    if reason := context_excuse(ctx, computed, claimed, computed_side, claimed_side):
        return reason
    if _additive_percent(link.left.node) or _additive_percent(link.right.node):
        return "percent-change shorthand"
    return ""


def sides(link: Link) -> tuple[Side, Side]:
    """(computed side, claimed side): the claimed one is the plain number when only one is."""
    if link.left.plain and not link.right.plain:
        return link.right, link.left
    return link.left, link.right


def check_arithmetic(
    link: Link,
    approx: bool,
    problem_claims: frozenset[str],
    ctx: StepContext = _PLAIN,
) -> ClaimResult:
    """Judge a link without unknowns in-process. Returns outcome "sympy" when it needs sympy."""
    text = link_text(link)
    if link.left.plain and link.right.plain:
        return ClaimResult("skipped", text, reason="restatement or conversion")
    if not has_ops(link.left.node) and not has_ops(link.right.node):
        return ClaimResult("skipped", text, reason="no operation")
    # "So $25 = 212_3$": a numeral in another base is a value, never what a label computes.
    if (
        link.left.described
        and has_ops(link.right.node)
        and not NUMERAL_WRITTEN.fullmatch(link.right.text)
    ):
        return ClaimResult("skipped", text, reason="the number names what is computed")
    if link.remainder is not None:
        return check_quotient(link)
    computed_side, claimed_side = sides(link)
    try:
        computed, claimed = exact(computed_side.node), exact(claimed_side.node)
    except NeedsSympyError:
        return ClaimResult("sympy", text)
    except TooBigError as exc:
        return ClaimResult("skipped", text, reason=f"too large to check ({exc})")
    except EvalError as exc:
        return ClaimResult("skipped", text, reason=str(exc))
    return judge(link, computed, claimed, approx, problem_claims, ctx)


def check_quotient(link: Link) -> ClaimResult:
    """`a / b = q with a remainder of r`: holds iff a = b*q + r with 0 <= r < b (positive whole
    a, b). Anything else (negative or fractional operands, no division) is skipped: the claim
    is division with remainder, so neither rounding nor the fraction a/b can excuse it."""
    text = f"{link_text(link)} remainder {link.remainder}"
    node, r = link.left.node, link.remainder
    if node[0] != "/" or r is None or not link.right.plain:
        return ClaimResult("skipped", text, reason="not a division with remainder")
    try:
        a, b, q = exact(node[1]), exact(node[2]), exact(link.right.node)
    except EvalError as exc:
        return ClaimResult("skipped", text, reason=str(exc))
    if any(x.denominator != 1 or x < 0 for x in (a, b, q)) or b == 0:
        return ClaimResult("skipped", text, reason="not a whole-number division")
    true_q, true_r = divmod(a.numerator, b.numerator)
    if (q, r) == (true_q, true_r):
        return ClaimResult("holds", text, f"{q} r {r}", f"{true_q} r {true_r}")
    return ClaimResult(
        "false", text, f"{q} r {r}", f"{true_q} r {true_r}", "division with remainder"
    )


def judge(
    link: Link,
    computed: Fraction,
    claimed: Fraction,
    approx: bool,
    problem_claims: frozenset[str],
    ctx: StepContext = _PLAIN,
    exact_value: bool = True,
) -> ClaimResult:
    """Compare two values of a link, applying every excuse before calling it false.
    `exact_value`: `computed` is exact (False: digits sympy gave)."""
    text = link_text(link)
    if computed == claimed:
        return ClaimResult("holds", text, fmt(claimed), fmt(computed))
    computed_side, claimed_side = sides(link)
    reason = excuse(
        link, computed, claimed, claimed_side, computed_side, approx, ctx, exact_value
    )
    if reason.startswith("rounded"):
        return ClaimResult("holds", text, fmt(claimed), fmt(computed), reason)
    if reason:
        return ClaimResult("skipped", text, fmt(claimed), fmt(computed), reason)
    if computed_side is link.left and has_ops(link.right.node):
        lead = leading_value(link.right.node)
        if lead is not None and lead == computed:
            return ClaimResult("skipped", text, reason="running total")
    if claimed_side.node[0] == "fact":
        return ClaimResult("skipped", text, reason="an exclamation mark, maybe")
    if compact(text.replace("≈", "=")) in problem_claims:
        return ClaimResult("skipped", text, reason="copied from the problem")
    return ClaimResult("false", text, fmt(claimed), fmt(computed))
