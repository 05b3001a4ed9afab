"""Facts about whole numbers a step states in words, checked exactly.

Number-theory chains state facts no `=` carries: "24 is divisible by 9", "111111111 is not
divisible by 9", "7 is a factor of 93", "2018 is a prime number", "97 is composite", "53 is a
perfect square", "12 and 18 are relatively prime", "the GCD of 187 and 77 is 13", "the
remainder when 706 is divided by 7 is 6". Each is a claim about whole numbers written as
digits, and a false one is as much a slip as `4 \\cdot 6 = 25`.

Only a fact whose numbers stand alone is read: a number that ends an expression (`a \\times
111111111`, `2^{10}`, `5!`), one of a list of subjects ("11 and 55 are prime"), or one the words
go on from ("a multiple of 2021 minus 1", "a factor of 3 of them") is not; nor the verb
"divides", which counts as often as it divides ("9 divides 5 of the numbers"). A list of
divisors ("divisible by 3 and 6", which may mean either or both) is judged only where every
reading agrees: all of them divide, or none does. The calculator's rules for what a step does
not claim hold here too: a sentence that asks, supposes, checks or tests ("let's check if 1001
is prime", "if 7 were divisible by 2", "when k = 25") or whose words after the fact reject it
("..., a contradiction") is not judged. True facts hold; a fact about a number past 10^40 is
not read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from verifiers.calculator.claim_words import NOT_CLAIMED, word_set
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.digit_facts import DIGIT_FACTS, judge_digits
from verifiers.calculator.divisor_counts import DIVISOR_COUNTS, judge_divisor_count
from verifiers.calculator.extremal_facts import EXTREMAL, judge_extremal, whole_root
from verifiers.calculator.number_orders import ORDER_FACTS, judge_order
from verifiers.calculator.range_counts import (
    MULTIPLES_COUNTS,
    NUMBER,
    RANGE_COUNTS,
    judge_multiples,
    judge_range_count,
)

# Words of NOT_CLAIMED that a fact states itself ("is not divisible by 9") or that name the
# arithmetic ("remainder"), and words that hedge a fact though they hedge no equation.
_HEDGES = (
    NOT_CLAIMED
    - {"not", "isn", "no", "never", "cannot", "doesn", "mod", "modulo", "pmod", "remainder",
       "remainders", "approximately", "about", "roughly", "nearly", "around", "estimate",
       "estimated"}
) | {"need", "needs", "must", "want", "unless", "necessarily", "whenever", "determine", "find"}
_REJECTS = frozenset(
    "false incorrect wrong mistake contradiction contradicts impossible absurd invalid error"
    " wait actually".split()
)

_ADVERB = r"(?:(?:also|evenly|exactly|clearly|indeed|obviously|certainly|always|then)\s+)?"
# The rest of a list of divisors ("divisible by 2, 3 and 5", "by 3 or 9"), when no verb
# follows it: in "divisible by 3 and 5 is odd" the 5 starts a sentence of its own.
_MORE = (
    rf"(?P<more>(?:\s*,\s*(?:{NUMBER}))*\s*,?\s+(?:and|or)\s+(?:{NUMBER})"
    r"(?!\s+(?:is|are|was|were|has|have|does|do|divides|can|will|must|cannot)\b))?"
)
_FACTS = re.compile(  # (not from inside a number: a long one costs its length once)
    rf"(?<![\d,])(?P<n>{NUMBER})\s+(?:is\s+(?P<neg>not\s+)?{_ADVERB}"
    rf"(?:(?:divisible\s+by|a\s+multiple\s+of)\s+(?P<d>{NUMBER}){_MORE}"
    rf"|(?:a\s+)?(?:factor|divisor)\s+of\s+(?P<m>{NUMBER})"
    r"|(?P<prime>(?:a\s+)?(?:prime|composite)(?:\s+number)?)"
    r"|a\s+perfect\s+(?P<power>square|cube)))",
    re.IGNORECASE,
)
# Two numbers said to share no factor: a subject of two.
_COPRIME = re.compile(
    rf"(?<![\d,])(?P<n>{NUMBER})\s+and\s+(?P<b>{NUMBER})\s+are\s+(?P<neg>not\s+)?{_ADVERB}"
    r"(?:relatively\s+prime|coprime)",
    re.IGNORECASE,
)
_GCD_WHAT = (
    r"(?P<what>gcd|gcf|hcf|lcm|greatest\s+common\s+(?:divisor|factor)|highest\s+common\s+factor"
    r"|least\s+common\s+multiple)(?:\s*\((?:gcd|gcf|hcf|lcm)\))?"
)
_GCD = re.compile(
    rf"\b{_GCD_WHAT}\s+of\s+(?P<a>{NUMBER})\s+and\s+(?P<b>{NUMBER})\s*(?:,\s*which\s+)?is\s+"
    rf"(?P<c>{NUMBER})",
    re.IGNORECASE,
)
# "We find the GCD of 2187 and 5625. Using the Euclidean algorithm, the GCD is 3.": the pair
# named last, then its value in a later sentence of the step.
_GCD_NAMED = re.compile(rf"\b{_GCD_WHAT}\s+of\s+(?P<a>{NUMBER})\s+and\s+(?P<b>{NUMBER})\b", re.I)
_GCD_LATER = re.compile(rf"\bthe\s+{_GCD_WHAT}\s+is\s+(?P<c>{NUMBER})", re.IGNORECASE)
# "The remainder when 706 is divided by 7 is 6", "100 leaves a remainder of 2 when divided by 7".
_REMAINDER = re.compile(
    rf"\bremainder\s+(?:when|of)\s+(?P<a>{NUMBER})\s+(?:is\s+)?divided\s+by\s+(?P<b>{NUMBER})"
    rf"\s*,?\s*(?:is|=|equals)\s+(?P<c>{NUMBER})"
    rf"|\b(?P<a2>{NUMBER})\s+(?:divided\s+by\s+(?P<b2>{NUMBER})\s+)?leaves\s+(?:a\s+)?remainder"
    rf"\s+(?:of\s+)?(?P<c2>{NUMBER})(?(b2)|\s+when\s+divided\s+by\s+(?P<b3>{NUMBER}))",
    re.IGNORECASE,
)
# "The prime factorization of 900 is 2^2 \times 3^2 \times 5^2": a number said to be a
# product of whole powers (`K = 20812` may name it first); "900 = ..." is the `=` reader's.
_FACTOR = r"\d{1,6}(?:\s*\^\s*(?:\{\s*\d{1,3}\s*\}|\d{1,3}(?!\d)))?"
_FACTORIZATION = re.compile(
    rf"\bfactori[sz]ation\s+of\s+(?:[A-Za-z]\s*=\s*)?(?P<n>{NUMBER})\s+(?:is|equals)\s*:?\s*"
    rf"(?P<p>{_FACTOR}(?:\s*(?:\\times|\\cdot|\*|×)\s*{_FACTOR})*)",
    re.IGNORECASE,
)
# What may not come right before a subject: it would end an expression or a list (glued
# to it, or before the space: "a \\times 111111111", "12 and 18", "a factor of 24").
_GLUED = re.compile(r"[\w.+\-*/^_{!]$")
_EXPRESSION_END = re.compile(
    r"(?:[+\-*/^_{]|[\d)}]\s*,|\\times|\\cdot|\\div|\b(?:and|or|of|than|by|times|plus|minus))$",
    re.IGNORECASE,
)
# What may not come right after the last number: the expression or the list goes on.
_GOES_ON = re.compile(
    r"^(?:[\w^!*/+\-{_(]|\.\d|\\times|\\cdot|\\div|\s*,\s*(?:and\s+)?\d"
    r"|\s*[*/+\-^!]|\s+(?:and|or|minus|plus|times|squared|cubed|factorial|to|factors?|divisors?"
    r"|powers?|numbers|of)\b)",
    re.IGNORECASE,
)
# Not "!": "3! = 6" is a factorial.
_SENTENCE_END = re.compile(r"[?;:\n]|\.(?!\d)")
_LIMIT = 10**40
_TOO_LONG = re.compile(r"\d(?:,?\d){40}")


def _plain(text: str) -> str:
    """The step with its math delimiters and spacing commands gone (positions move)."""
    text = re.sub(r"\\text\w*\{([^{}]*)\}|\\math(?:rm|bf)\{([^{}]*)\}", r" \1\2 ", text)
    # A value boxed, bold or italic (words only: one star also multiplies) states the fact.
    text = re.sub(r"\\boxed\{([^{}]*)\}|\*\*([^*\n]{1,80})\*\*", r" \1\2 ", text)
    text = re.sub(r"(?<![\w*])\*([A-Za-z][A-Za-z -]{0,40})\*(?![\w*])", r"\1", text)
    text = re.sub(r"\\[()\[\]]|\$|\\[,;!]|\{,\}", " ", text)
    text = re.sub(r"\\operatorname\{(gcd|lcm)\}|\\(gcd)", r"\1\2", text)
    return re.sub(r"[ \t]+", " ", text)


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _sentence(text: str, start: int, end: int) -> tuple[str, str, str]:
    """(the sentence before the fact, the rest of it, the next sentence)."""
    opens = [m.end() for m in _SENTENCE_END.finditer(text, 0, start)]
    head = text[opens[-1] if opens else 0 : start]
    close = _SENTENCE_END.search(text, end)
    tail = text[end : close.end() if close else len(text)]
    after = _SENTENCE_END.search(text, close.end()) if close else None
    following = text[close.end() : after.end() if after else len(text)] if close else ""
    return head, tail, following


def _claimed(text: str, match: re.Match, spans: list[tuple[int, int]]) -> str | None:
    """The rest of the sentence when the sentence states the fact: no hedge before it (other
    facts' own words set aside), no question in it, no rejection after it in it or the next
    sentence; else None."""
    head, tail, following = _sentence(text, match.start(), match.end())
    offset = match.start() - len(head)
    for s, e in sorted(spans, reverse=True):
        if offset <= s and e <= match.start():
            head = head[: s - offset] + " " + head[e - offset :]
    head = re.sub(r"\b(?:find|determine)\s+that\b", " ", head)  # a finding, not a task
    # "(which might involve a systematic check)": an aside on how it was found, no supposition.
    head = re.sub(r"\((?:which|that)\b[^()]*\)", " ", head, flags=re.I)
    # "After checking several numbers, we find that ...": a check done, its result stated.
    head = re.sub(r"\b(?:after|by)\s+(?:checking|testing|trying)\b[^,]*,", " ", head, flags=re.I)
    if "?" in head + tail or word_set(head) & _HEDGES:
        return None
    return None if word_set(tail + " " + following) & _REJECTS else tail


def _stands_alone(text: str, start: int | None, end: int) -> bool:
    """No expression or list goes on from the fact's subject (`start`; None: no subject to
    ask about) or from its last number."""
    if start is not None and (
        _GLUED.search(text[:start]) or _EXPRESSION_END.search(text[:start].rstrip())
    ):
        return False
    return not _GOES_ON.match(text[end:])


def primality(n: int) -> tuple[bool, int | None]:
    """Whether `n` is prime, and its smallest prime factor under a million when it is not (run
    in the calculator's sympy worker, under its time limit: the main process never imports
    sympy)."""
    import sympy

    if n < 2 or sympy.isprime(n):
        return n >= 2, None
    smallest = min(sympy.factorint(n, limit=10**6))
    return False, smallest if smallest < n else None


Primality = Callable[[int], "tuple[bool, int | None] | None"]


def _judge(m: re.Match, tail: str, prime_of: Primality | None) -> ClaimResult | None:
    n = _number(m["n"])
    negated = bool(m["neg"])
    text = re.sub(r"\s+", " ", m.group(0))
    if n > _LIMIT:
        return None
    if m["prime"] is not None:
        found = None if prime_of is None else prime_of(n)
        if found is None:
            return None  # no worker, or it ran out of time: not read
        return _judge_prime(n, found, negated, "composite" in m["prime"].lower(), text)
    if m["power"] is not None:
        return _judge_power(n, negated, m["power"].lower(), text)
    # A divisibility: "n is divisible by d", "a multiple of d"; "n is a factor of m" says it
    # of m by n. Not the verb: "9 divides 5 of the numbers", "25 divides 2" count.
    if m["d"] is not None and m["more"]:
        return _judge_list(n, negated, m["d"] + m["more"], text)
    if m["d"] is not None:
        whole, divisor = n, _number(m["d"])
    else:
        whole, divisor = _number(m["m"]), n
    if divisor == 0 or whole > _LIMIT:
        return None
    q, r = divmod(whole, divisor)
    holds = (r == 0) != negated
    true = _division(whole, divisor)
    claimed = "does not divide" if negated else "divides"
    if not holds and r and {q, r} <= {int(x) for x in re.findall(r"\d+", tail)}:
        # "16 is divisible by 7 (16 = 7 * 2 + 2)": the step divides with its remainder
        # shown; "divisible" names the division, loosely, and claims nothing false.
        return ClaimResult("skipped", text, reason="the step shows the remainder")
    return ClaimResult("holds" if holds else "false", text, claimed, true)


def _division(whole: int, divisor: int) -> str:
    """The division as evidence shows it: `30 = 4 · 7 + 2`, `30 = 5 · 6`."""
    q, r = divmod(whole, divisor)
    return f"{whole} = {divisor} · {q}" + (f" + {r}" if r else "")


def _judge_list(n: int, negated: bool, listed: str, text: str) -> ClaimResult | None:
    """A list of divisors ("n is (not) divisible by 3 and 6"): "and" may mean both or either,
    "not ... and" not both or neither, so only a list every member of which answers alike is
    judged: all divide or none does."""
    divisors = [_number(d) for d in re.findall(NUMBER, listed)]
    if 0 in divisors or n > _LIMIT:
        return None
    divides = [n % d == 0 for d in divisors]
    if any(divides) and not all(divides):
        return None
    holds = all(divides) != negated
    shown = "; ".join(_division(n, d) for d in divisors)
    claimed = "does not divide" if negated else "divides"
    return ClaimResult("holds" if holds else "false", text, claimed, shown)


def _judge_prime(
    n: int, found: tuple[bool, int | None], negated: bool, composite: bool, text: str
) -> ClaimResult:
    prime, factor = found
    truth = (n > 1 and not prime) if composite else prime
    claimed = ("not " if negated else "") + ("composite" if composite else "prime")
    if truth != negated:
        return ClaimResult("holds", text, claimed, claimed)
    if n < 2:
        true = f"{n} is neither prime nor composite"
    elif prime:
        true = "prime"
    else:
        true = f"{n} = {factor} · {n // factor}" if factor else "composite"
    return ClaimResult("false", text, claimed, true)


def _judge_power(n: int, negated: bool, power: str, text: str) -> ClaimResult:
    k = 2 if power == "square" else 3
    root = whole_root(n, k, floor=True)  # exact: a float root is off by more than 1 past 2^53
    root = root if root**k == n else None
    holds = (root is not None) != negated
    true = f"{n} = {root}^{k}" if root is not None else f"no whole number's {power}"
    return ClaimResult("holds" if holds else "false", text, "perfect " + power, true)


def _judge_coprime(m: re.Match, tail: str, prime_of: Primality | None) -> ClaimResult | None:
    a, b = _number(m["n"]), _number(m["b"])
    if max(a, b) > _LIMIT:
        return None
    common = math.gcd(a, b)
    holds = (common == 1) != bool(m["neg"])
    text = re.sub(r"\s+", " ", m.group(0))
    return ClaimResult("holds" if holds else "false", text, "coprime", f"gcd {common}")


class _Named:
    """A value stated for the pair named before it, read like a match of `_GCD` (its place in
    the text is the value's)."""

    def __init__(self, named: re.Match, value: re.Match):
        self.parts = {"what": value["what"], "a": named["a"], "b": named["b"], "c": value["c"]}
        self.start, self.end, self.span = value.start, value.end, value.span

    def __getitem__(self, key: str) -> str:
        return self.parts[key]

    def group(self, _: int = 0) -> str:
        return f"the {self['what']} of {self['a']} and {self['b']} is {self['c']}"


def _least(what: str) -> bool:
    return what.lower() in ("lcm", "least common multiple") or "multiple" in what.lower()


def _named_values(text: str) -> list[_Named]:
    """Each "the GCD is C" whose pair the step named last before it ("We find the GCD of 2187
    and 5625. By the Euclidean algorithm, the GCD is 3."), with no value stated between."""
    out = []
    for value in _GCD_LATER.finditer(text):
        names = list(_GCD_NAMED.finditer(text, 0, value.start()))
        if not names or _GCD.search(text, names[-1].start(), value.start()):
            continue
        if _least(names[-1]["what"]) == _least(value["what"]):
            out.append(_Named(names[-1], value))
    return out


def _judge_gcd(m, tail: str, prime_of: Primality | None) -> ClaimResult | None:
    a, b, c = (_number(m[k]) for k in "abc")
    if max(a, b, c) > _LIMIT or not a or not b:
        return None
    least = _least(m["what"])
    true = math.lcm(a, b) if least else math.gcd(a, b)
    text = re.sub(r"\s+", " ", m.group(0))
    return ClaimResult("holds" if true == c else "false", text, str(c), str(true))


def _judge_remainder(m, tail: str, prime_of: Primality | None) -> ClaimResult | None:
    """A remainder stated in words: false only where the stated one is not congruent to the
    true one (a remainder of 20 on dividing by 19 is loose wording, not a slip)."""
    a, c = _number(m["a"] or m["a2"]), _number(m["c"] or m["c2"])
    b = _number(m["b"] or m["b2"] or m["b3"])
    if max(a, b, c) > _LIMIT or not b:
        return None
    text = re.sub(r"\s+", " ", m.group(0))
    return ClaimResult("holds" if (a - c) % b == 0 else "false", text, str(c), str(a % b))


def _judge_factorization(m, tail: str, prime_of: Primality | None) -> ClaimResult | None:
    n = _number(m["n"])
    factors = re.split(r"\\times|\\cdot|\*|×", m["p"])
    if len(factors) < 2 and "^" not in m["p"] or n > _LIMIT or re.match(r"\s*=", tail):
        return None  # one number, not a product; or "is 2^2 \\cdot 5 = 20", an equation
    product = 1
    for factor in factors:
        base, _, power = factor.partition("^")
        product *= int(base) ** int(power.strip(" {}") or 1)
        if product > _LIMIT:
            return None
    text = re.sub(r"\s+", " ", m.group(0))
    written = re.sub(r"\s+", " ", m["p"].strip())
    return ClaimResult(
        "holds" if product == n else "false", text, str(n), f"{written} = {product}"
    )


def stated_facts(step: str, prime_of: Primality | None = None) -> list[ClaimResult]:
    """The verdicts on the facts about whole numbers `step` states in words. `prime_of(n)`:
    `primality(n)` as the sympy worker runs it, None when it could not (facts about primes
    are read only with it)."""
    text = _plain(step)
    if not re.search(
        r"divisib|multiple|factor|divisor|prime|composite|perfect|common|gcd|gcf|hcf|lcm|digit|remainder"
        r"|\bends?\b|\bthere\s+(?:are|were|will)\b|smallest|least|largest|greatest|than|between"
        r"|at\s+most", text, re.I,
    ):
        return []
    found = [(m, _judge) for m in _FACTS.finditer(text)]
    if not re.search(r"\bbase\b|\d_\{?\d", text, re.I):  # digits in another base: not read
        found += [(m, judge_digits) for p in DIGIT_FACTS for m in p.finditer(text)]
    found += [(m, _judge_coprime) for m in _COPRIME.finditer(text)]
    found += [(m, _judge_gcd) for m in _GCD.finditer(text)]
    found += [(m, _judge_gcd) for m in _named_values(text)]
    found += [(m, _judge_factorization) for m in _FACTORIZATION.finditer(text)]
    found += [(m, _judge_remainder) for m in _REMAINDER.finditer(text)]
    found += [(m, judge_range_count) for m in RANGE_COUNTS.finditer(text)]
    found += [(m, judge_extremal) for p in EXTREMAL for m in p.finditer(text)]
    found += [(m, judge_multiples) for m in MULTIPLES_COUNTS.finditer(text)]
    found += [(m, judge_divisor_count) for p in DIVISOR_COUNTS for m in p.finditer(text)]
    found += [(m, judge_order) for p in ORDER_FACTS for m in p.finditer(text)]
    spans = [m.span() for m, _ in found]
    out = []
    for m, judge in sorted(found, key=lambda f: f[0].start()):
        # ("the units digit of 7^4 is 1": its subject follows "of", which ends no expression)
        # (so does "the prime factorization of 900 is ...")
        subject = (
            None
            if judge in (_judge_gcd, _judge_factorization, judge_range_count, _judge_remainder)
            or judge is judge_multiples
            or m.re in (DIGIT_FACTS[0], DIVISOR_COUNTS[0], DIVISOR_COUNTS[2])
            or m.re is EXTREMAL[0]
            else m.start("y" if m.re is EXTREMAL[1] else "n")
        )  # fmt: skip
        if _TOO_LONG.search(m.group(0)) or not _stands_alone(text, subject, m.end()):
            continue  # a number past `_LIMIT` is not read (nor turned into an int)
        if (tail := _claimed(text, m, spans)) is None:
            continue
        if (result := judge(m, tail, prime_of)) is not None:
            out.append(result)
    return out
