"""Algebra written in plain text, outside LaTeX delimiters, put inside them for the symbolic
checks: "Simplify the equation: 6r^2 = 12r." reads as "Simplify the equation: \\(6r^2 = 12r\\).".

Chains that write no LaTeX (`k * (k + 1) / 2 = 4501`, then "we get: k^2 + k - 9000 = 0") make
the same claims as those that do, but prose and math share one alphabet there: "a" is an
article, "s" a unit, "x" a times sign, "5/3x" either grouping. So a span is taken only where
its reading is not in doubt, and everything else is left as prose (a missed claim, never an
invented one):
- tokens are numbers, lower-case names of one or two letters or one capital with an optional
  coefficient glued before them (`2r`, `ar^3`, `2W`; never an English word or an ordinal
  suffix, "a", "A", "I" only before an operator; two capitals may be an abbreviation),
  brackets, the operators `+ - * / ^ × ÷ · −` (an en dash is a minus), the relation signs,
  and (`plain_tokens`) functions with a power or a base (`sin^2(t)`, `log_2 8`, `sqrt(x +
  1)`), Greek letters, a factorial glued to an operand (`(n-1)!`; "x = 5! That is" may
  exclaim), primes on a name glued to a bracket (`f'(x)`);
  a space between two operands ends the span (`3600 s`, `60 x 60`), as does anything else;
- the span holds a relation sign outside brackets with an expression on both sides, and a name;
- it does not go on an expression or a quantity around it: nothing but punctuation touches it
  (`πr^2`), no number, operator, relation sign or word of an operation ("of", "by", "times")
  stands just before it, no name (a unit?), number, bracket, `%`, `!`, degree or prime just
  after it (a bracket opening words is a remark: "= 200 (which is too large)"), nor words
  that go on with its last number (`= 30 feet / 6`, "times 3");
- an arrow typed between two relations (`=>`, `-->`, `→`, `⟹`) is spelled `⟹`, which the
  checks read as "so", as they read `\\implies` in LaTeX;
- no fraction whose denominator is a product written without brackets (`5/3x`, `1/ab`), no
  exponent but a number, a lone name or a bracket (`2^3x`), no unit of two letters (`100cm`),
  no minus spaced only before it between two relation signs (`0 = y + 4 -4 = y`).
A relation in doubt is not dropped but marked unread (`UNREAD`): the chain of derivations it
interrupts ends there, as it does at an equation in LaTeX that cannot be read.

Only the symbolic checks read the result (`ChainAlgebra`): relations between numbers stay the
numeric reader's, which reads plain text itself.
"""

from __future__ import annotations

import re
from functools import lru_cache

from verifiers.calculator.claims import APPROX_WORDS
from verifiers.calculator.congruences import MODULAR_WORDS
from verifiers.calculator.plain_tokens import (
    GREEK,
    LATEX,
    closing,
    factorial_end,
    function_head,
    primed,
)
from verifiers.calculator.relations import math_regions
from verifiers.calculator.tokens import ATTACHED_UNITS

__all__ = ["UNREAD", "delimited"]

# What stands for a relation written in plain text and not read: a clause whose members no
# check reads (an unknown command), so that it ends the chain of derivations it interrupts.
UNREAD = r"\unread = \unread"

_TOKEN = re.compile(
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|\d+(?:\.\d+)?)"
    r"|(?P<fn>log(?:2|10)(?=\()|(?:sqrt|sin|cos|tan|cot|sec|csc|log|ln|exp)"
    r"(?:\^\{?\d\}?)?(?:_\{?\d+\}?)?)(?![A-Za-z])"
    rf"|(?P<name>[a-z]{{1,2}}|[A-Z]|[{''.join(GREEK)}])(?![A-Za-z])"
    r"|(?P<op>[-+*/^×÷·−–])"
    r"|(?P<rel><=|>=|[=≤≥<>≠≈])"
    r"|(?P<lp>\()|(?P<rp>\))"
    r"|(?P<space>\s+)"
    r"|(?P<word>[A-Za-z]+)"
    r"|(?P<other>.)",
    re.S,
)
# Words of one or two letters, and suffixes glued to numbers ("2nd"), that are never names.
_NOT_NAMES = frozenset(
    "a i am an as at be by do eg go he ie if in is it me my no of ok on or so to up us we vs"
    " st nd rd th A I".split()
)
_ARTICLES = ("a", "i", "A", "I")  # names only before an operator (`a + b = 5`)
# Words right before a span that make it the tail of an expression written in words.
_OPERATION_WORDS = frozenset(
    "of half twice thrice times by mod modulo than minus plus over per less more".split()
)
# What may not follow a span: it goes on the last number.
_GOES_ON = frozenset("%!°'’")
_GOES_ON_WORDS = _OPERATION_WORDS - {"mod", "modulo"} | {"divided", "multiplied", "squared"}
# The only characters a span may touch with no space between: punctuation.
_GLUED_BEFORE = frozenset(':;,"“')
_GLUED_AFTER = frozenset('.,;:?)"”')
# What may stand between a span and the prose around it.
_PUNCTUATION = frozenset(':;,.?!"“”[]⟹')


def delimited(text: str) -> str:
    """`text` with each plain-text span of algebra outside its math regions put in `\\(...\\)`."""
    return _delimited(text) if re.search(r"[\w)!]\s*(?:=|≤|≥|<|>|≠|≈)", text) else text


# Arrows typed in plain text (`-2x > 6 => x > -3`): one spelling, the one the checks read as
# "so" (`claim_words.ARROWS`). Typed as two signs, `=>` was read as `=` and `>`, which left
# both relations unread.
_TYPED_ARROWS = re.compile(r"\s*(?:==?>|--?>|[⇒⟹→⟶])\s*")


@lru_cache(maxsize=4096)
def _delimited(text: str) -> str:
    out, last = [], 0
    for start, end, _ in math_regions(text) + [(len(text), len(text), "")]:
        out.append(_plain(_TYPED_ARROWS.sub(" ⟹ ", text[last:start])))
        out.append(text[start:end])
        last = end
    return "".join(out)


def _plain(prose: str) -> str:
    tokens = _resolved([(m.lastgroup, m.group(), m.start()) for m in _TOKEN.finditer(prose)])
    pieces, done = [], 0
    for first, last in _spans(tokens):
        body = _body(tokens[first : last + 1])
        if body is None or not _stands_alone(tokens, first, last):
            if not _relational(tokens[first : last + 1]):
                continue
            # A relation written here that is not read: nothing after it may be taken as
            # drawn from the one before it (`9m = 27` unread, then "dividing by 9, m = 3").
            body = UNREAD
        start, end = tokens[first][2], tokens[last][2] + len(tokens[last][1])
        pieces += [prose[done:start], f"\\({body}\\)"]
        done = end
    pieces.append(prose[done:])
    return "".join(pieces)


def _resolved(tokens: list) -> list:
    """Short English words are words; "a" and "i" are names only before an operator."""
    out = []
    for n, (kind, text, at) in enumerate(tokens):
        if kind == "name" and text in _NOT_NAMES:
            if text not in _ARTICLES or not _between_operators(tokens, n):
                kind = "word"
        out.append((kind, text, at))
    return out


def _between_operators(tokens: list, n: int) -> bool:
    after, before = _neighbour(tokens, n, 1), _neighbour(tokens, n, -1)
    return after in ("op", "rel") or (after == "rp" and before in ("op", "lp"))


def _neighbour(tokens: list, n: int, step: int) -> str:
    """The kind of the nearest token other than a space on one side of token `n` ("": none)."""
    k = n + step
    while 0 <= k < len(tokens) and tokens[k][0] == "space":
        k += step
    return tokens[k][0] if 0 <= k < len(tokens) else ""


def _spans(tokens: list) -> list[tuple[int, int]]:
    """(first, last) token indices of each maximal run that reads as operands joined by
    operators and relation signs, brackets balanced; spaces between tokens are skipped, but
    two operands with only a space between end a run."""
    out = []
    i = 0
    while i < len(tokens):
        if tokens[i][0] not in ("num", "name", "lp", "fn") and not _leading_sign(tokens, i):
            i += 1
            continue
        first, depth, expect_operand, last_good = i, 0, True, None
        j, spaced = i, False
        while j < len(tokens):
            kind, text = tokens[j][0], tokens[j][1]
            if kind == "space":
                spaced = True
                j += 1
                continue
            if expect_operand:
                if kind == "lp":
                    depth += 1
                elif kind == "op" and text in "-−–" or kind == "fn":
                    pass  # a sign, or a function its operand follows (`sin^2(t)`, `log_2 8`)
                elif kind in ("num", "name"):
                    expect_operand = False
                    if depth == 0:
                        last_good = j
                else:
                    break
            else:
                glued = not spaced
                if kind == "rp" and depth > 0:
                    depth -= 1
                    if depth == 0:
                        last_good = j
                elif kind in ("op", "rel"):
                    if kind == "rel" and depth > 0:
                        break
                    expect_operand = True
                elif glued and kind == "lp":  # `k(k + 1)`, `2(x - 3)`, `)(`
                    depth += 1
                    expect_operand = True
                elif glued and kind == "fn" and tokens[j - 1][0] in ("num", "rp"):
                    expect_operand = True  # `3sqrt(3)`, `2sin x`
                elif glued and text == "'" and primed(tokens, j):
                    pass  # `f'(x)`: a derivative, applied to the bracket after its primes
                elif glued and kind == "name" and tokens[j - 1][0] in ("rp", "num"):
                    if depth == 0:  # `(2/3)x`, `2r`
                        last_good = j
                elif glued and text == "!" and tokens[j - 1][0] in ("rp", "num", "name"):
                    # A factorial (`(n-1)! - 2`); at a span's end only before lower-case words
                    # or a comma (`= n! for every n`): "So x = 5! Then" may be an exclamation.
                    if depth == 0 and factorial_end(tokens, j):
                        last_good = j
                else:
                    break
            spaced = False
            j += 1
        if last_good is None:
            i = j if j > i else i + 1
            continue
        out.append((first, last_good))
        i = last_good + 1
    return out


def _leading_sign(tokens: list, i: int) -> bool:
    """`-2x > 6`: a minus glued to the operand it opens a span with (`_stands_alone` then
    asks what stands before the sign: "have -2x" is a span, "5 -2x" is not one)."""
    return (
        tokens[i][0] == "op" and tokens[i][1] in "-−" and i + 1 < len(tokens)
        and tokens[i + 1][0] in ("num", "name", "lp")
    )  # fmt: skip


def _relational(tokens: list) -> bool:
    """Whether a run holds a relation sign outside brackets and a letter."""
    depth, relations = 0, False
    for kind, _, _ in tokens:
        depth += {"lp": 1, "rp": -1}.get(kind, 0)
        relations = relations or (kind == "rel" and depth == 0)
    return relations and any(re.search("[A-Za-z]", t) for _, t, _ in tokens)


def _body(tokens: list) -> str | None:
    """The span as LaTeX, or None when it claims nothing readable or its reading is in doubt."""
    kinds = [t[0] for t in tokens]
    texts = [t[1] for t in tokens]
    depth, relations = 0, 0
    for kind in kinds:
        depth += {"lp": 1, "rp": -1}.get(kind, 0)
        relations += kind == "rel" and depth == 0
    if depth != 0 or not relations or not any(re.search("[A-Za-z]", t) for t in texts):
        return None
    if any(len(t) > 1 and t in ATTACHED_UNITS for t in texts):
        return None  # `1m = 100cm`: units, not a product of unknowns
    if _run_together(tokens):
        return None
    solid: list[tuple[str, str]] = []
    glued_to_last = False
    for kind, text in zip(kinds, texts, strict=True):
        if kind == "name" and solid and solid[-1][0] == "num" and glued_to_last:
            # `2r`: one term, its coefficient glued to it
            solid[-1] = ("name", solid[-1][1].replace(",", "") + text)
        elif kind != "space":
            solid.append((kind, text))
        glued_to_last = kind != "space"
    parts = []
    for n, (kind, text) in enumerate(solid):
        after = solid[n + 1] if n + 1 < len(solid) else ("", "")
        if kind == "fn":
            if (head := function_head(solid, n)) is None:
                return None
            parts.append(head)
            continue
        lone_name = after[0] == "name" and re.fullmatch("[A-Za-z]", after[1])
        if kind == "op" and text in "/÷" and after[0] == "name" and not lone_name:
            return None  # `5/3x`, `1/ab`: which product is the denominator?
        if kind == "op" and text == "^":
            if after[0] not in ("num", "name", "lp") or (after[0] == "name" and not lone_name):
                return None
            if after[0] == "lp":
                parts.append("^")
                continue
            parts.append("^{" + after[1].replace(",", "") + "}")
            solid[n + 1] = ("space", "")
            continue
        if kind == "lp" and n > 0 and solid[n - 1] == ("op", "^"):
            close = closing(solid, n)
            inner = "".join(t for _, t in solid[n : close + 1])
            parts.append("{" + inner.replace("*", r" \cdot ") + "}")
            for k in range(n, close + 1):
                solid[k] = ("space", "")
            continue
        if kind == "num":
            text = text.replace(",", "")
        parts.append(LATEX.get(text, text) if kind == "op" else GREEK.get(text, text))
    text = " ".join(p for p in parts if p).replace("( ", "(").replace(" )", ")")
    return re.sub(r"\s*\^\s*", "^", re.sub(r"\s*'\s*", "'", text)).replace(" !", "!")


def _run_together(tokens: list) -> bool:
    """`0 = y + 4 -4 = y`: two relations whose line break was lost, the second opening with a
    sign. A minus spaced before and glued after, after an operand and between two relation
    signs, is read so; `x^2 -4x + 3 = 0` has no relation before its minus."""
    rels = [n for n, t in enumerate(tokens) if t[0] == "rel"]
    return bool(rels) and any(
        tokens[n][0] == "op" and tokens[n][1] in "-−–"
        and tokens[n - 1][0] == "space" and tokens[n + 1][0] != "space"
        and _neighbour(tokens, n, -1) in ("num", "name", "rp")
        for n in range(rels[0] + 1, rels[-1])
    )  # fmt: skip


def _stands_alone(tokens: list, first: int, last: int) -> bool:
    """Whether the span is a whole expression, not part of one the prose around it writes."""
    before = tokens[first - 1] if first > 0 else None
    if before is not None and before[0] != "space" and before[1] not in _GLUED_BEFORE:
        return False  # glued to a name, a number or a symbol: `60x60 = 3600`, `πr^2 = ...`
    k = first - 1
    while k >= 0 and tokens[k][0] == "space":
        k -= 1
    if k >= 0:
        kind, text = tokens[k][0], tokens[k][1]
        if kind in ("num", "op", "rel", "rp", "name"):
            return False  # `3600 s = ...`, `... = x + 1 = 5` read from its middle
        if kind == "word" and text.lower() in _OPERATION_WORDS:
            return False
        if kind == "other" and text not in _PUNCTUATION:
            return False  # `38 – x + x = ...` (a dash), `√ x = 3`
    after = tokens[last + 1] if last + 1 < len(tokens) else None
    if after is not None and after[0] != "space" and after[1] not in _GLUED_AFTER:
        return False  # `= 2πrh`, `= 5%`, `= 5cm`
    k = last + 1
    while k < len(tokens) and tokens[k][0] == "space":
        k += 1
    if k < len(tokens):
        kind, text = tokens[k][0], tokens[k][1]
        if kind == "lp" and _remark(tokens, k):
            return True  # `= 200 (which is too large)`, `(Equation 1)`: a remark, no factor
        if kind in ("name", "num", "op", "rel", "lp", "fn") or text[:1] in _GOES_ON:
            return False  # `= 5 cm`, `= 5 x 3`, `= 2 sqrt(3)`: the span stops short of a factor
        if kind == "other" and text not in _PUNCTUATION:
            return False
        if kind == "word" and (text.lower() in _GOES_ON_WORDS or _operation_after(tokens, k)):
            return False  # `= 30 feet / 6`, `= 5 times 3`: the last number goes on in words
    return True


def _remark(tokens: list, k: int) -> bool:
    """Whether the bracket at `k` opens words (`(which is too large)`, `(since x > 0)`), not
    an operand: its first token is an English word of three letters or more, and not one that
    changes what the relation says (`(mod 7)`, `(approximately)`)."""
    n = k + 1
    while n < len(tokens) and tokens[n][0] == "space":
        n += 1
    if n == len(tokens) or tokens[n][0] != "word" or len(tokens[n][1]) < 3:
        return False
    return tokens[n][1].lower() not in APPROX_WORDS | MODULAR_WORDS


def _operation_after(tokens: list, k: int) -> bool:
    """Whether an operator (not a sign opening an operand: "or -5") follows word `k`."""
    n = k + 1
    while n < len(tokens) and tokens[n][0] == "space":
        n += 1
    if n >= len(tokens) or tokens[n][0] != "op":
        return False
    return not _leading_sign(tokens, n)
