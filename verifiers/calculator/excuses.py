"""What a step's own text says about a false link: tested, staged, modular, or recovered.

`excused` is the calculator's one question to the text around a false link: does the chain
correct the slip itself (a later side has the true value), take the link up as a stage of a
longer computation (`claims.staged`), compute with an approximation it states or announces
(`approximations`), mean "congruent" by "=" (the chain ends with "(mod m)" or goes on with
"≡"), or test the equation rather than claim it (`tested`; its words: `rejection_words`)?

Competition solutions write equations they do not claim: "substituting a = 1, c = 2 we get
2 + 8 = 4, i.e. 10 = 4, which is false"; "0 + (15 - 1) * 71 = 999, which simplifies to
14 * 71 = 994, which is not 999"; "Is 2^3 + 1 = 10? No."; "29 = 5 * 14" then "29 ≠ 70". A
false link is *tested* (`tested` gives the reason; the calculator then abstains) when:

- it is a question: its clause ends with "?" (or a short tag does: ", right?"), or
  "whether" / "check if" opens it ("we check whether 3^2 + 4^2 = 26");
- the words right after it reject it: "which is false", "is not correct", "does not hold",
  "✗", "(false)", or a negation that names its claimed value ("= 999, which is not 999");
  or "neither" before it and "holds" after ("neither 3 + 4 = 8 nor 3 * 4 = 13 holds"), or
  "not an integer" after a quotient that is not whole ("1999 / 31 ≈ 64.1613, which is not an
  integer": its digits only show that).
  Words that reject a *trial* rather than an equation ("a contradiction", "impossible", "not
  a root", "does not work") count only when the claimed value was written before the link
  (in the problem, an earlier step or earlier in the step): then it is a target being tried;
- the step shows the true value against the claimed one elsewhere: "29 ≠ 70", "10 = 4", or a
  computation of the true value ("14 * 71 = 994") together with words that reject something.

A negation or a comparison that names another number ("= -68, not 0", "4 + 5 = 10, not 9",
"= 222, which exceeds 196") says the claimed value is meant: the link stays a claim. So does
a "≠" chained to the link itself ("= 12 ≠ 10"). What this does NOT do: decide what a
rejection refers to when a sentence holds several equations (the first false one of the
sentence is excused), or read rejections more than one sentence away.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from verifiers.calculator.approximations import approximated
from verifiers.calculator.claims import sides, staged
from verifiers.calculator.context import congruent
from verifiers.calculator.evaluate import EvalError, approximate, exact
from verifiers.calculator.extract import Link, Side
from verifiers.calculator.normalize import normalize
from verifiers.calculator.parse import NUM, OP, Tok, operands
from verifiers.calculator.rejection_words import (
    ASK_FILLERS,
    ASKS,
    COMPARES,
    CROSSES,
    FALSE_WORDS,
    HOLDS,
    NEGATIONS,
    NEXT_OPENERS,
    OPENERS,
    TRIAL_FAILS,
    WHOLE_WORDS,
    WORKS,
)
from verifiers.calculator.tokens import clause_ends, tokenize

Value = Fraction | float

_SENTENCE_ENDS = frozenset(".!?")
_COMMENT_CLAUSES = 4  # at most this many clauses after the link are read as its comment


@dataclass(frozen=True, slots=True)
class _Step:
    clauses: tuple[tuple[Tok, ...], ...]
    ends: tuple[str, ...]
    sentence: tuple[int, ...]  # the sentence each clause belongs to


@lru_cache(maxsize=4096)
def _read(step: str) -> _Step:
    plain = normalize(step)
    clauses, ends = tokenize(plain), clause_ends(plain)
    sentence, k = [], 0
    for clause, end in zip(clauses, ends, strict=True):
        sentence.append(k)
        # "i.e." and "e.g." end no sentence: a lone letter before the dot
        if end in _SENTENCE_ENDS and not (len(clause) == 1 and clause[0].kind == "letter"):
            k += 1
    return _Step(clauses, ends, tuple(sentence))


def _signed(toks: tuple[Tok, ...]) -> Iterator[tuple[int, Fraction]]:
    """(index, value) of each number, with a minus sign that is not a binary operator."""
    for i, tok in enumerate(toks):
        if tok.kind != NUM or tok.value is None:
            continue
        minus = i > 0 and toks[i - 1].kind == OP and toks[i - 1].text == "-"
        binary = i > 1 and toks[i - 2].kind in (NUM, "rp", "var", "letter", "pi")
        yield i, -tok.value if minus and not binary else tok.value


def numbers(text: str) -> frozenset[Fraction]:
    """Every number a text writes (signed as written), for "was it written before?"."""
    return frozenset(v for clause in _read(text).clauses for _, v in _signed(clause))


def _same(a: Value | None, b: Value | None) -> bool:
    if a is None or b is None:
        return False
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a == b
    try:
        x, y = float(a), float(b)
    except OverflowError:
        return False
    return abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))


def _near(side: Side) -> Value | None:
    """The side's exact value, else a float one (pi, roots), else None."""
    try:
        return exact(side.node)
    except EvalError:
        return approximate(side.node)


def _arithmetic(clause: tuple[Tok, ...]) -> bool:
    """The clause computes something (a binary operator): it is no comment on another link."""
    for i, tok in enumerate(clause):
        if tok.kind == OP and (tok.text != "-" or (i and clause[i - 1].kind in (NUM, "rp"))):
            return True
    return False


def _items(toks: tuple[Tok, ...]) -> list[tuple[str, object]]:
    values = dict(_signed(toks))
    out: list[tuple[str, object]] = []
    for i, tok in enumerate(toks):
        if tok.kind in ("word", "letter"):
            out.append(("w", tok.text))
        elif i in values:
            out.append(("n", values[i]))
    return out


def _comment(st: _Step, ci: int) -> list[tuple[str, object]]:
    """What follows the link's chain: words ("w"), numbers ("n") and separators ("s"), from the
    end of the chain's last side through the clauses that comment on it (`OPENERS`)."""
    toks = st.clauses[ci]
    last = max(i for i, t in enumerate(toks) if t.kind in ("eq", "approx"))
    k = last + 1
    while k < len(toks) and toks[k].kind != "word":
        k += 1  # the last side itself
    out = [*_items(toks[k:]), ("s", st.ends[ci])]
    crossed = False
    for j in range(ci + 1, min(len(st.clauses), ci + 1 + _COMMENT_CLAUSES)):
        clause = st.clauses[j]
        if _arithmetic(clause):
            break
        first = clause[0].text
        if st.sentence[j] != st.sentence[j - 1]:
            if crossed or first not in NEXT_OPENERS:
                break
            crossed = True
        elif clause[0].kind in ("word", "letter") and first not in OPENERS:
            break
        out += [*_items(clause), ("s", st.ends[j])]
    return out


def _negated(items: list[tuple[str, object]], vocabulary: frozenset[str]) -> bool:
    """A negation followed within three words by a word of `vocabulary`."""
    for i, (kind, text) in enumerate(items):
        if kind == "w" and text in NEGATIONS:
            if any(k == "w" and w in vocabulary for k, w in items[i + 1 : i + 4]):
                return True
    return False


def _named(items: list[tuple[str, object]]) -> list[Fraction]:
    """Numbers a negation or a comparison names ("not 0", "is not equal to 999", "which
    exceeds 196"). (A "≠" after the link's chain keeps it a claim; a "≠" relation further on
    is `_shown_elsewhere`'s.)"""
    out = []
    for i, (kind, text) in enumerate(items):
        if kind == "w" and (text in NEGATIONS or text in COMPARES):
            out += [v for k, v in items[i + 1 : i + 5] if k == "n"][:1]  # type: ignore[misc]
    return out


def _first_relation(toks: Sequence[Tok]) -> int:
    """Index of the first "=" or "≈" (the caller's clause holds one)."""
    return next(i for i, t in enumerate(toks) if t.kind in ("eq", "approx"))


def _asks(st: _Step, ci: int) -> bool:
    """The link is a question: its clause ends with "?" (or a short tag does: "= 26, right?"),
    or "whether" / "check if" opens it ("we check whether 3^2 + 4^2 = 26")."""
    if st.ends[ci] == "?":
        return True
    nxt = ci + 1
    if nxt < len(st.clauses) and st.ends[nxt] == "?" and len(st.clauses[nxt]) <= 3:
        return not _arithmetic(st.clauses[nxt])
    toks = list(st.clauses[ci])
    if ci and st.ends[ci - 1] in (":", ","):  # "we check whether: 3^2 + 4^2 = 26"
        toks = [*st.clauses[ci - 1][-2:], *toks]
    first_eq = _first_relation(toks)
    words = [t.text if t.kind == "word" else "" for t in toks[:first_eq]]
    for i, word in enumerate(words):
        asks = word == "whether" or (word == "if" and i and words[i - 1] in ASKS)
        if asks and all(w in ASK_FILLERS for w in words[i + 1 :] if w):
            return True
    return False


def _neither(clause: tuple[Tok, ...]) -> bool:
    """The clause opens its equations with "neither" (its "holds" then denies them all)."""
    return any(t.kind == "word" and t.text == "neither" for t in clause[:_first_relation(clause)])


def _rejects(items: list[tuple[str, object]]) -> bool:
    """Any word of rejection or comparison at all (for a step that also shows the true value:
    "so 15 does not work", "which is less than 999", "994 < 999")."""
    words = {text for kind, text in items if kind == "w"}
    seps = {text for kind, text in items if kind == "s"}
    return bool(
        words & (FALSE_WORDS | TRIAL_FAILS | NEGATIONS | COMPARES)
        or seps & (CROSSES | {"≠", "?", "<", ">"})
    )


def _shown_elsewhere(st: _Step, ci: int, link: Link, links: tuple[Link, ...], true: Value) -> str:
    """The step writes the link again outside its chain with the computed side worked out:
    "29 = 5 * 14" then "29 ≠ 70" (or "0 + 14 * 71 = 999" then "994 < 999"); "2 + 8 = 4, i.e.
    10 = 4"; or computes the true value from the same numbers ("14 * 71 = 994"), or in the
    clause right after, and rejects or compares something after the link. A relation must
    keep the link's order: "4 + 5 = 10" then "10 ≠ 9" (or "10 > 9") compares the claimed
    result with a target, it does not reject the claim."""
    left, right = _near(link.left), _near(link.right)
    for k, end in enumerate(st.ends):
        if end not in ("≠", "<", ">") or k == ci or k + 1 >= len(st.clauses):
            continue
        before = [v for _, v in _signed(st.clauses[k])][-1:]
        after = [v for _, v in _signed(st.clauses[k + 1])][:1]
        if not (before and after):
            continue
        if _same(before[0], left) and _same(after[0], right):
            return "the text shows the true value is not the claimed one"
    computed_leaves = {leaf[1] for leaf in operands(sides(link)[0].node)}
    later: list[tuple[str, object]] = []
    for j in range(ci + 1, len(st.clauses)):
        later += [*_items(st.clauses[j]), ("s", st.ends[j])]
    for other in links:
        if other.clause == ci:
            continue
        if other.left.plain and other.right.plain:
            if _same(_plain(other.left.node), left) and _same(_plain(other.right.node), right):
                return "the text writes the link again with its sides worked out"
            continue
        computed, claimed_side = sides(other)
        if not claimed_side.plain or not _same(_plain(claimed_side.node), true):
            continue
        # the same numbers worked out, or the clause right after ("which simplifies to ...")
        shared = computed_leaves & {leaf[1] for leaf in operands(computed.node)}
        if (shared - {1} or other.clause == ci + 1) and _rejects(later):
            return "the text computes the true value itself and rejects the claim"
    return ""


def _plain(node: tuple) -> Fraction | None:
    if node[0] == "num":
        return node[1]
    if node[0] == "neg" and node[1][0] == "num":
        return -node[1][1]
    return None


def tested(
    step: str,
    link: Link,
    links: tuple[Link, ...],
    true: Value | None,
    claimed: Value | None,
    known: frozenset[Fraction] = frozenset(),
) -> str:
    """Why a false link of `step` is an equation the text tests, not one it claims ("" if
    nothing says so). `true`/`claimed`: the link's computed and claimed values (None for an
    equation in an unknown: then only a question or words that reject it count); `known`:
    numbers written before the step (the problem, earlier steps)."""
    st = _read(step)
    ci = link.clause
    if ci >= len(st.clauses) or not any(t.kind in ("eq", "approx") for t in st.clauses[ci]):
        return ""
    if st.ends[ci] == "≠":
        return ""  # "= 12 ≠ 10": the claimed value is meant, and compared with a target
    if _asks(st, ci):
        return "a question, not a claim"
    items = _comment(st, ci)
    named = _named(items)
    if claimed is not None and any(_same(n, claimed) for n in named):
        return "the text says it does not hold"  # "= 999, ..., which is not 999"
    if None not in (true, claimed) and _negated(items, WHOLE_WORDS):
        # "1999 / 31 ≈ 64.1613, which is not an integer": the digits only show that the
        # quotient is not whole, and it is not.
        if true != int(true) and claimed != int(claimed):
            return "a quotient tested for being whole"
    if named:
        return ""  # "= -68, not 0", "= 10, not 9": the value is claimed, another denied
    words = [text for kind, text in items if kind == "w"]
    seps = {text for kind, text in items if kind == "s"}
    if set(words) & FALSE_WORDS or seps & CROSSES or _negated(items, HOLDS):
        return "the text says it does not hold"
    if _neither(st.clauses[ci]) and set(words) & (HOLDS | WORKS):
        return "the text says it does not hold"  # "neither 3 + 4 = 8 nor 3 * 4 = 13 holds"
    if true is None or claimed is None:
        return ""
    if set(words) & TRIAL_FAILS or _negated(items, WORKS):
        before = known | {v for j in range(ci) for _, v in _signed(st.clauses[j])}
        if any(_same(claimed, v) for v in before):
            return "a trial of a target the text rejects"
    return _shown_elsewhere(st, ci, link, links, true)


def _recovered(link: Link, links: tuple[Link, ...]) -> bool:
    """A later side of the same chain has the value this link got wrong: a slip of the pen
    ("= 28*27*13*25/4 = 7*27*13*25 = 20475"), not a wrong step. Sides with pi or roots
    ("\\frac{500\\pi}{2\\pi/3} = \\frac{500\\pi(3/2)}{2\\pi} = 750") compare as floats:
    this only excuses a mismatch."""
    computed = _near(sides(link)[0])
    if computed is None:
        return False
    at = links.index(link)
    later = [x for x in links[at + 1 :] if x.clause == link.clause]
    if any(_same(_near(x.right), computed) for x in later):
        return True
    # "5!/2! = (5*4*3)/(2*1) = 60": the side before the slip already had the claimed value.
    claimed = _near(sides(link)[1])
    earlier = [x for x in links[:at] if x.clause == link.clause]
    return claimed is not None and any(_same(_near(x.left), claimed) for x in earlier)


def excused(
    step: str, link: Link, links: tuple[Link, ...], known: frozenset[Fraction] = frozenset()
) -> str:
    """Why the step's own text makes a false link of it no error ("" if nothing does): a slip
    the chain recovers from, a stage of a computation the step takes up again, a rounding it
    states or announces (`approximations`), a congruence written with "=", or an equation the
    text tests rather than claims (`tested`)."""
    if _recovered(link, links):
        return "typo the chain recovers from"
    computed_side, claimed_side = sides(link)
    if staged(computed_side.node, claimed_side.node, links):
        return "a stage of the computation, taken up again below"
    computed, claimed = (_near(side) for side in sides(link))
    if computed is None or claimed is None:
        return ""
    if reason := approximated(step, link, links, computed, claimed):
        return reason
    if _modular(_read(step), link.clause) and congruent(step, computed, claimed):
        return "a congruence: the chain is read modulo a number the step names"
    return tested(step, link, links, computed, claimed, known)


def _modular(st: _Step, ci: int) -> bool:
    """The chain of clause `ci` goes on with "≡" or ends with "(mod m)": its "=" may mean
    congruent ("4^4 = (4^2)^2 = (-1)^2 = 1 \\pmod{17}"). Prose after the chain ("= 5^8 is
    what we need to reduce modulo 10") does not make it modular."""
    if st.ends[ci] == "≡":
        return True
    toks = st.clauses[ci]
    last = max(i for i, t in enumerate(toks) if t.kind in ("eq", "approx"))
    words = [t.text for t in toks[last + 1 :] if t.kind == "word"][:2]
    return bool(words) and (words[0] in ("mod", "modulo") or words == ["mathop", "modulo"])
