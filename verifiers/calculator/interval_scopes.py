"""The interval an order is claimed on: the one written right before it, or a sign chart's.

`interval_order` (in `affirmed_orders`) judges an order in one letter on the interval the words
put it on. This module finds that interval before the order: a clause that bounds the letter by
numbers ("For $0 < x < 1$, ...", "If $x < -2$, then ..."), or an interval written out in
brackets ("in the interval $(-\\infty, -2)$:", "for $x \\in (-2, -1)$,"). A sign chart lists
the signs of the factors on the interval before the sign of their product or quotient ("On
$(-\\infty, -2)$: $x - 9 < 0$, $x + 2 < 0$, $x + 1 < 0$, so $\\frac{(x - 9)(x + 2)}{x + 1}
< 0$"), so the interval reaches every order of the list: only orders in the same letter, joined
by punctuation, bullets and words that join or conclude ("and", "so", "therefore"), may stand
between the interval and the order. A case or a supposition about a value is no interval ("If
$x = 3$"); words that set up a condition ("we need", "solve") or deny ("not", "impossible") put
nothing on it.
"""

from __future__ import annotations

import re

from verifiers.calculator.claim_words import NOT_CLAIMED, last_sentence, lone, prose, word_set
from verifiers.calculator.inequalities import INEQUALITIES
from verifiers.calculator.readers import readings
from verifiers.calculator.relations import admissible, written

__all__ = ["CONDITIONS", "clause_interval", "condition_on", "stated_interval"]

# The words that put an order on the interval written right before it ("For $0 < x < 1$",
# "when $x > 2$", "if $x < -2$": a range of values, not one value tried).
_LEADS = frozenset("for since because as given when whenever if on in over interval".split())
# What may stand between the interval and the order, and between the orders of a sign chart.
_BETWEEN = frozenset(
    "we have get obtain find see then it follows that and so thus hence therefore also both".split()
)
CONDITIONS = frozenset("need want require must such solve solving find".split())
# The suppositions and tests of `NOT_CLAIMED` that name a range as well as a value.
_RANGE_WORDS = frozenset({"if", "when"})
_LARGEST = 10**6  # the largest numerator or denominator of a bound whose points are tried
# An interval written in brackets, each end a number or infinity, after the words that name
# it, inside its math: "the interval \\( (-\\infty, -2) \\)", "$x \\in [0, 3)$".
_BOUND = r"[-+]?\s*(?:\\infty|\\frac\{\d+\}\{\d+\}|\d+(?:\.\d+)?)"
_NOTATION = re.compile(
    r"(?:\b(?i:interval|on|in|over)\s*|\b(?P<letter>[a-z])\s*\\in\s*)"
    r"(?:\$|\\\()?\s*(?:\\left\s*)?(?P<open>[(\[])\s*(?P<low>" + _BOUND + r")\s*,\s*"
    r"(?P<high>" + _BOUND + r")\s*(?:\\right\s*)?(?P<close>[)\]])\s*(?:\$|\\\))?"
    r"(?P<rest>[^$\\]*)$",
    re.DOTALL,
)


def stated_interval(clauses: list, k: int, letter, defs: dict) -> tuple | None:
    """(low, high, where, words, named) of the interval the text puts clause `k`'s order in
    `letter` on (None for an open end; `where` the interval as written, `words` those before
    it, `named` whether it names its letter), or None when no interval is written right before
    it or before the sign chart it ends."""
    j = k
    while True:
        lead, before = clauses[j][5], clauses[j][2]
        bracketed = _written_interval(lead, letter, defs)
        if bracketed is not None:
            return bracketed
        if not word_set(before) <= _BETWEEN or prose(lead).strip() != before.strip():
            return None
        if j == 0:
            return None
        members, ops, said = clauses[j - 1][:3]
        found = clause_interval(members, ops, defs)
        if found is not None:
            if found[0] != letter or not _leads_in(said):
                return None
            return found[1], found[2], written(members, ops), said, True
        if not _sign_fact(members, ops, letter, defs):
            return None
        j -= 1


# Words that open another case or interval: what follows them solves nothing before them.
_OPENS = frozenset(
    "if case cases for when whenever suppose assume otherwise on in interval".split()
)
# Words after an order that say it fails on its interval: a case's condition with no solution
# there ("This contradicts $x \\ge 3$"), not an order claimed.
_DENIED = re.compile(
    r"contradict|impossib|cannot|can't|no (?:solution|such|real|value)|none\b|empty|outside"
    r"|reject|discard|invalid|not (?:possible|valid|satisf|in\b|within|allowed|a solution|work)"
)

def condition_on(clauses: list, k: int, letter, defs: dict) -> bool:
    """Whether clause `k`'s order is a condition the text solves or rejects on its interval,
    not an order it claims there: the orders after it in its letter come to a bound of the
    letter before any words open another case ("For $x < 3$: $3 - x < 2x - 10$, so $x >
    \\frac{13}{3}$", "we obtain $x < 2$": a case of an absolute value solved), or the words
    after it, to the end of the next sentence, say it fails ("This contradicts ...")."""
    after = " ".join(re.split(r"(?<=[.!?])\s", clauses[k][6].lower())[:2])
    if _DENIED.search(after):
        return True
    for j in range(k + 1, len(clauses)):
        members, ops, before = clauses[j][:3]
        if word_set(before) & _OPENS or not _sign_fact(members, ops, letter, defs):
            return False
        if len(members) == 2 and (lone(members[0]) or lone(members[1])):
            return True
    return False


def _leads_in(said: str) -> bool:
    """Whether the words right before an interval put what follows on it ("For", "When")."""
    sentence = last_sentence(said)
    words = sentence.lower().split()
    if not words or words[-1].strip(",") not in _LEADS:
        return False
    return not word_set(sentence) & (NOT_CLAIMED - _RANGE_WORDS | CONDITIONS)


def _sign_fact(members: tuple, ops: tuple, letter, defs: dict) -> bool:
    """An order in `letter` alone: one line of a sign chart (`x + 2 < 0`)."""
    if not ops or not set(ops) <= INEQUALITIES:
        return False
    for member in members:
        found = readings(member, defs) if admissible(member) else []
        if len(found) != 1 or not found[0].free_symbols <= {letter}:
            return False
    return True


def _written_interval(lead: str, letter, defs: dict) -> tuple | None:
    """The interval `lead` writes in brackets right before the order (only words that join
    after it), when the words before it put the order on it and its letter, if named, is
    `letter`."""
    found = _NOTATION.search(lead)
    if found is None or not word_set(found["rest"]) <= _BETWEEN:
        return None
    if found["letter"] and found["letter"] != str(letter):
        return None
    if found["letter"]:  # "For $x \\in (-2, -1)$": the words before the letter lead in
        said = lead[: found.start()].rstrip(" $(\\")
    else:  # "in the interval", "on": the word before the brackets leads in
        said = lead[: found.start()] + " " + found.group(0).split()[0]
    if not _leads_in(prose(said)):
        return None
    ends = []
    for text in (found["low"], found["high"]):
        if "infty" in text:
            ends.append(None)
            continue
        read = readings(text, defs)
        if len(read) != 1 or not read[0].is_Rational or not _small(read[0]):
            return None
        ends.append(read[0])
    low, high = ends
    if "-" not in found["low"] and low is None or "-" in found["high"] and high is None:
        return None  # `(\\infty, 2)`: no interval
    if low is not None and high is not None and not low < high:
        return None
    where = f"{found['open']}{found['low']}, {found['high']}{found['close']}"
    return low, high, where, lead[: found.start()], bool(found["letter"])


def _small(value) -> bool:
    """A bound whose points' powers stay within any time limit (`10^{1000}` is not)."""
    return abs(value.p) <= _LARGEST and value.q <= _LARGEST


def clause_interval(members: tuple, ops: tuple, defs: dict):
    """(letter, low, high) for `0 < x < 1`, `x > 2`, `3 \\le n`: one letter bounded by
    rational numbers, None for an open end; None when the clause is no such interval."""
    import sympy

    read = []
    for member in members:
        found = readings(member, defs) if admissible(member) else []
        if len(found) != 1:
            return None
        read.append(found[0])
    letters = [i for i, e in enumerate(read) if isinstance(e, sympy.Symbol)]
    if len(letters) != 1 or not all(e.is_Rational for i, e in enumerate(read) if i != letters[0]):
        return None
    if not all(_small(e) for i, e in enumerate(read) if i != letters[0]):
        return None  # `0 < x < 10^{1000}`: powers of such points run past any time limit
    at = letters[0]
    if len(members) == 3 and at == 1 and (set(ops) <= {"<", "<="} or set(ops) <= {">", ">="}):
        low, high = (read[0], read[2]) if ops[0] in ("<", "<=") else (read[2], read[0])
        return (read[1], low, high) if low < high else None
    if len(members) != 2 or ops[0] not in INEQUALITIES:
        return None
    bound = read[1 - at]
    upper = (ops[0] in ("<", "<=")) == (at == 0)
    return (read[at], None, bound) if upper else (read[at], bound, None)
