"""From a step's LaTeX to written relations: chains of members joined by `=`, `<`, `\\le`, ...

The reader of the symbolic checks. Pure text work, no evaluation: it finds the math a step
writes (`$...$`, `\\(...\\)`, `\\[...\\]`, `$$...$$`, `align`-like environments), cuts it into
clauses (line breaks, `\\quad`, `\\text{...}` words, top-level commas and semicolons), and each
clause into a chain of members at its top-level relation signs. A member is kept only when every
piece of it is on a whitelist the parser reads exactly (`admissible`): numbers, one-letter and
Greek symbols, `\\frac`, `\\sqrt`, powers, implicit products, `\\cdot`, `\\times`, `\\div`,
logs, trig, `\\binom`, finite sums and products with written bounds, factorials, a letter
with primes applied (`f'(x)`, `f^{\\prime}(2)`: a derivative, read where the chain defined f).
Anything else (`\\text`, degrees but of a number or a letter, `\\%`, `\\pm`, other primes,
`\\overline`, juxtaposed capitals that name points or segments, `e` and `i` whose meaning is not
ours to guess) makes the member unreadable, and a chain with an unreadable member keeps only
the links between readable neighbours (a `\\pm` is read through `verifiers.calculator.signs`,
which writes out its two signs first).

What this does NOT do: read relations written in words ("is equal to"), read plain-text math
outside LaTeX delimiters (`verifiers.calculator.plain_algebra` puts the spans it can read in
delimiters first; the numeric reader reads plain-text numbers), or decide what a relation
claims (`verifiers.calculator.symbolic` does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

__all__ = [
    "REST_CHARS", "TURNED", "Clause", "Relation", "admissible", "clauses", "depth_split",
    "math_regions", "primes_written", "written",
]  # fmt: skip

# Relation signs at the top level of a clause, longest spelling first.
_RELATIONS = (
    (r"\leqslant", "<="), (r"\geqslant", ">="), (r"\leq", "<="), (r"\geq", ">="),
    (r"\le", "<="), (r"\ge", ">="), (r"\neq", "!="), (r"\ne", "!="), (r"\approx", "~"),
    (r"\equiv", "==="), (r"\sim", "~"), (r"\nmid", "!|"), (r"\mid", "|"), ("<=", "<="),
    (">=", ">="), ("=", "="), ("<", "<"), (">", ">"), ("≈", "~"), ("≤", "<="), ("≥", ">="),
    ("≠", "!="),
)  # fmt: skip
# Each sign with both sides swapped (or both multiplied by a negative number).
TURNED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "="}
# How LaTeX writes the signs this module spells otherwise, for evidence.
_LATEX_SIGNS = {"<=": "\\le", ">=": "\\ge"}
# Signs that end a clause: what follows is another statement.
_CLAUSE_BREAKS = (
    r"\implies", r"\Rightarrow", r"\Longrightarrow", r"\rightarrow", r"\Leftrightarrow",
    r"\iff", r"\therefore", r"\to", r"\quad", r"\qquad", r"\\", ";", r"\text", r"\textbf",
    r"\mathrm", r"\mbox", r"\hspace", r"\because",
)  # fmt: skip
_REGION = re.compile(
    r"\\\[(?P<a>.+?)\\\]|\$\$(?P<b>.+?)\$\$|\\\((?P<c>.+?)\\\)|(?<!\\)\$(?P<d>[^$]+?)(?<!\\)\$"
    r"|\\begin\{(?P<env>align\*?|aligned|equation\*?|gather\*?|eqnarray\*?|split)\}"
    r"(?P<e>.+?)\\end\{(?P=env)\}",
    re.S,
)
# Commands a member may hold: the parser reads each of them exactly.
_ALLOWED_COMMANDS = frozenset(
    "frac dfrac tfrac sqrt cdot times div pi sin cos tan cot sec csc log ln exp binom dbinom"
    " tbinom"
    " sum prod"
    " cdots ldots dots left right"
    " alpha beta gamma delta theta lambda mu phi psi omega sigma tau rho".split()
)
_COMMAND = re.compile(r"\\([A-Za-z]+)")
# `$$ \begin{align*} ... \end{align*} $$`: an environment of rows inside another region is
# read as its rows (the outer delimiters already made it one region).
_NESTED_ALIGN = re.compile(
    r"\\(?:begin|end)\{(?:align|aligned|equation|gather|eqnarray|split)\*?\}"
)
# A number of degrees: `30^\\circ`, `22.5^{\\circ}` (read as that many 180ths of pi); so is a
# letter's (`x^\\circ`, `\\cos (8k^\\circ)`: the degree mark binds to the letter, and a product
# before it multiplies it). A bracket's (`(x + 30)^\\circ`) is not read.
DEGREES = re.compile(
    r"(\d+(?:\.\d+)?|(?<![\\A-Za-z])[A-Za-z])\s*\^\s*(?:\{\s*\\circ\s*\}|\\circ(?![A-Za-z]))"
)
# A letter with primes, applied: `f'(x)`, `f''(2)`, `f^{\prime}(x)`, `f^{\prime\prime}(x)`.
_PRIMED = re.compile(
    r"(?<![\\A-Za-z])([A-Za-z])('+|\^\s*\{\s*(?:\\prime\s*)+\}|\^\s*\\prime(?![A-Za-z]))"
    r"\s*(?=\(|\\left\s*\()"
)


def primes_written(text: str) -> str:
    """Primes spelled one way, as apostrophes: `f^{\\prime\\prime}(x)` is `f''(x)`."""
    return _PRIMED.sub(lambda m: m[1] + "'" * max(m[2].count("'"), m[2].count("prime")), text)


# Spacing and sizing, and strike-through marks: `\\cancel{a}` still stands in the expression
# (the mark shows what the next line drops), so it reads as the group it marks. A row break
# `\\` before a space is no `\ ` spacing.
_SPACING = re.compile(
    r"(?<!\\)\\[,;:! ]|\\(?:displaystyle|limits|big|Big|bigg|Bigg|cancel|bcancel|xcancel)"
    r"(?![A-Za-z])"
)
_SPACED_GROUP = re.compile(r"\{\s*(\\q?quad\b[^{}]*)\}")
_JOINING = re.compile(
    r"\s*,?\s*(?:(?:or|and|so|then|thus|hence|therefore|since|because|where|which|gives?|giving"
    r"|we|get|have|implies|that|i\.e\.)\s*,?\s*)+"
)
_TEXT_ARG = re.compile(r"\\(?:text|textbf|mathrm|mbox|operatorname)\s*\{([^{}]*)\}")
_LETTERS = re.compile(r"(?<![\\A-Za-z])[A-Za-z]+")
# Two capitals side by side name points or segments (AB, ABC), never a product we may read.
# Unit spellings written bare in math ("5 cm"): letters that are no product of unknowns.
_UNITS = frozenset("cm mm km kg mg ft yd mph hr hrs min mins sec ml lb lbs oz sq".split())
_CAPITALS = re.compile(r"(?<![\\A-Za-z])[A-Za-z]*[A-Z][A-Z]")


REST_CHARS = 300  # enough for the sentence after a relation, never the whole step


@dataclass(frozen=True, slots=True)
class Relation:
    """`left op right`, two neighbouring members of a chain; `index` is the link's place."""

    left: str
    op: str
    right: str
    index: int  # 0 for the chain's first link
    length: int  # members in the whole chain


@dataclass(frozen=True, slots=True)
class Clause:
    """One clause of math: its chain of members and the words written just before it."""

    members: tuple[str, ...]
    ops: tuple[str, ...]
    before: str  # the prose (or `\\text` words) between the previous clause and this one
    region: int  # which math region of the step
    after: str = ""  # the prose right after the region, when this is its last clause
    # Everything written since the last region that held a clause, math without relations
    # included ("divide both sides by $2$:"); for a region's later clauses, `before`.
    lead: str = ""
    # The text right after the region as written, math included ("... for all real numbers
    # $a$ and $b$."), when this is its last clause: the words `after` stops at math.
    rest: str = ""

    @property
    def links(self) -> list[Relation]:
        return [
            Relation(self.members[i], op, self.members[i + 1], i, len(self.members))
            for i, op in enumerate(self.ops)
        ]


def math_regions(text: str) -> list[tuple[int, int, str]]:
    """(start, end, body) of every delimited math region, in order."""
    out = []
    for m in _REGION.finditer(text):
        body = next(g for g in (m.group(k) for k in "abcde") if g is not None)
        out.append((m.start(), m.end(), body))
    return out


def _unboxed(body: str) -> str:
    """`\\boxed{X}` as `(X)`: the box marks the answer, the brackets keep X whole."""
    while (start := body.find("\\boxed")) >= 0:
        open_at = body.find("{", start)
        if open_at < 0 or body[start + 6 : open_at].strip():
            return body
        depth = 0
        for end in range(open_at, len(body)):
            depth += {"{": 1, "}": -1}.get(body[end], 0)
            if depth == 0:
                break
        else:
            return body  # unbalanced: left as written (and unread)
        body = f"{body[:start]}({body[open_at + 1 : end]}){body[end + 1 :]}"
    return body


def depth_split(body: str, seps: tuple[str, ...]) -> list[tuple[str, str]]:
    """Cut `body` at top-level occurrences of `seps` (outside braces, brackets and parentheses):
    [(piece, separator that ended it)]. A command separator (`\\le`) must not run on into
    letters (`\\left`)."""
    out: list[tuple[str, str]] = []
    firsts = {sep[0] for sep in seps}  # a character no separator starts with is passed by
    depth, start, i = 0, 0, 0
    while i < len(body):
        ch = body[i]
        if ch not in firsts and ch not in "\\{([])}":
            i += 1
            continue
        if ch == "\\" and body.startswith(("\\{", "\\}"), i):
            depth += 1 if body[i + 1] == "{" else -1
            i += 2
            continue
        if ch in "{([":
            depth += 1
        elif ch in "})]":
            depth -= 1
        elif depth == 0:
            if ch == "," and body[i - 1 : i].isdigit() and re.match(r"\d{3}(?!\d)", body[i + 1 :]):
                i += 1  # "1,999,999": a thousands separator, not a list
                continue
            for sep in seps:
                if body.startswith(sep, i) and not (
                    sep[-1].isalpha() and body[i + len(sep) : i + len(sep) + 1].isalpha()
                ):
                    out.append((body[start:i], sep))
                    i += len(sep)
                    start = i
                    break
            else:
                i += 1
                continue
            continue
        i += 1
    out.append((body[start:], ""))
    return out


def _relation_split(clause: str) -> tuple[list[str], list[str]]:
    spellings = tuple(s for s, _ in _RELATIONS)
    canon = dict(_RELATIONS)
    pieces = depth_split(clause, spellings)
    # A sentence's full stop or comma written inside the math belongs to the prose.
    members = [p.strip().rstrip(".,;").strip() for p, _ in pieces]
    ops = [canon[sep] for _, sep in pieces[:-1]]
    return members, ops


def _text_words(m: re.Match) -> str:
    # Connectives alone ("or", "and", "so", "which gives") join two relations, each a clause
    # of its own (`x = 2 \\text{ or } x = 4`: the piece a `\\text` ends is read as words, and
    # the words after it had taken `x = 4` along); a unit (`\\text{cm}`) and other words stay
    # where they were.
    words = m.group(1).replace("\\", " ")
    if _JOINING.fullmatch(words):
        return f" \\quad \\text {words} \\quad "  # as `x = 2 \\quad\\text{or}\\quad x = 4` reads
    return f"\\text {words} "


def clauses(step: str) -> list[Clause]:
    """Every clause of math in the step, with the words before it. A line that starts with
    `=` (in an `align`, or a display right after another) goes on with the chain before it."""
    out: list[Clause] = []
    last_end = 0
    regions = math_regions(step)
    open_chain = False  # the last clause read may go on in a line that starts with `=`
    clause_end = 0  # where the last region that held a clause ends
    for region, (start, end, body) in enumerate(regions):
        prose = step[last_end:start]
        lead = step[clause_end:start]
        last_end = end
        following = step[end : regions[region + 1][0] if region + 1 < len(regions) else None]
        first = len(out)
        # `275,\!562`: a thousands separator written with a negative space.
        body = _SPACING.sub(" ", body.replace("&", " ").replace(",\\!", ","))
        body = _unboxed(_NESTED_ALIGN.sub(" ", body))
        # `35 = a + b + c{\qquad (1)\qquad \rm and\qquad}441 = ...`: a spacing group holds
        # words between two relations, not a part of either.
        body = _SPACED_GROUP.sub(lambda m: " " + m.group(1) + " ", body)
        # `\text{or}` and friends are words between clauses; keep them as the next one's words.
        body = _TEXT_ARG.sub(_text_words, body)
        pieces = depth_split(body, _CLAUSE_BREAKS + (",",))
        words = prose
        open_chain = open_chain and not prose.strip()
        bare = None  # a row of bare math, then the words before it: `&(x + 1)^2 \\ &= ...`
        for piece, sep in pieces:
            text = piece.strip()
            if sep in (r"\text", r"\textbf", r"\mathrm", r"\mbox"):
                words += " " + text
                continue
            if not text:
                words += " " + sep
                continue
            members, ops = _relation_split(text)
            if not ops:
                if open_chain and text[0] in "+-" and out[-1].region == region:
                    # `&= z^3(z - 1)(...) \\ &\quad + z^2(z - 1)(...)`: the last member goes on
                    # past the line; its first line alone is not the member, so it is dropped.
                    last = out[-1]
                    if len(last.members) > 2:
                        out[-1] = replace(last, members=last.members[:-1], ops=last.ops[:-1])
                    else:
                        out.pop()
                        open_chain = False
                    continue
                # No relation: words (`\quad \text{or} \quad` leaves "or") or bare math; they
                # stand between the clauses around them.
                math_only = not re.search(r"(?<![\\A-Za-z])[A-Za-z]{2,}", text)  # not "Case 1:"
                if text[0] in "+-":  # `&8\cos 0 + ... \\ &- (8 \sin \pi + ...) \\ &= ...`
                    bare = (f"{bare[0]} {text}", bare[1]) if bare is not None else None
                else:
                    bare = (text, words)
                if not (sep == "\\\\" and math_only):
                    bare = None
                words += " " + text
                open_chain = False
                continue
            if members[0].startswith("+") and len(members) > 1:
                # `&\quad + (z^6 + ...) \\ &= ...`: the tail of a member begun on a line above.
                members, ops = members[1:], ops[1:]
                if not ops:
                    continue
            attached = True
            if len(members) > 1 and members[0] == "" and open_chain and all(members[1:]):
                last = out[-1]
                out[-1] = replace(
                    last, members=last.members + tuple(members[1:]), ops=last.ops + tuple(ops)
                )
            elif members[0] == "" and bare is not None and all(members[1:]):
                # The row above held the first member alone: the chain starts there.
                members[0], words = bare
            elif not all(members):
                attached = False  # a line that opens with `=` and goes on with nothing read
            if attached and members[0]:
                said = words.strip()
                out.append(
                    Clause(tuple(members), tuple(ops), said, region,
                           lead=lead.strip() if len(out) == first else said)
                )  # fmt: skip
            bare = None
            open_chain = attached and all(members[1:])
            words = sep if sep not in (",",) else ","
        if len(out) > first:
            out[-1] = replace(out[-1], after=following, rest=step[end : end + REST_CHARS])
            clause_end = end
    return out


# A `!` that is no factorial of a number, a bracket or a lone letter written against it
# (`n!`, `(n-k)!`; "x !" or a word's "!" is not one).
_NO_FACTORIAL = re.compile(r"[^\d)\sa-z]\s*!|[a-z]\s+!|[A-Za-z]{2}!")


# `225,000 + 4000n`: a number grouped in thousands, as the numeric reader joins them.
THOUSANDS = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?![\d,.])")


@lru_cache(maxsize=16384)  # asked of the same members many times over a chain
def admissible(member: str) -> bool:
    """Whether every piece of a member is one the parser reads exactly and we read alike."""
    if not member or len(member) > 400:
        return False
    # A function's derivative (`f'(x)`) is a name: whether the chain defined f is the reader's.
    member = _PRIMED.sub(r"\1", member)
    # Bars are absolute values (`latex_math` pairs them, or reads nothing: `3 | 12`).
    if any(c in member for c in "'%&$\"?:") or _NO_FACTORIAL.search(member):
        return False
    # Degrees are read after a number or a letter (`30^\\circ`); a composition `f \\circ g`
    # is not.
    member = DEGREES.sub(" 1 ", member)
    for name in _COMMAND.findall(member):
        if name not in _ALLOWED_COMMANDS:
            return False
    if _SUBSCRIPT_APPLIED.search(member):
        return False  # `f_1(x)`: a function applied, not a product we may read
    if "_" in _strip_bounds(member):
        return False
    if _CAPITALS.search(_COMMAND.sub(" ", member)):
        return False
    bound = set(re.findall(r"_\s*\{\s*([a-z])\s*=", member))  # a sum's index, `i` too
    words = [w for w in _LETTERS.findall(_COMMAND.sub(" ", member)) if w not in bound]
    if any("e" in w or "i" in w or w in _UNITS for w in words):
        return False
    if re.search(r"\d\s*\\[dt]?frac", member):  # 2\frac{1}{2}: a mixed number or a product
        return False
    member = THOUSANDS.sub("1", member)
    if re.search(r"\d\s*,\s*\d{3}", member):
        return False  # `1, 234`: a list, or a number cut at its comma
    if re.search(r"\d\.\d*\.", member):
        return False
    if re.search(r"\^\s*\{?\s*-\s*1\s*\}?\s*\(", member):
        return False  # `f^{-1}(5)`: an inverse function, not a reciprocal
    if re.search(r"(?<![\d.])0\d", member):
        return False  # `000`: the tail of a number cut at a comma
    return True


def _strip_bounds(member: str) -> str:
    """The member without the subscripts the whitelist reads (`\\log_2`, `\\sum_{k=1}`, and a
    letter's one digit or letter, `x_3`, `a_{12}`, `r_k`: a name of its own)."""
    member = re.sub(r"\\(log|sum|prod)\s*_\s*(\{[^{}]*\}|\w)", r"\\\1", member)
    return _NAMED.sub("", member)


# `f_1(x)`, `P_2(x_2, y_2)`, `a_n(1, 2)`: a function or a point; `a_3(a_1 - a_2)`, `x_1(1 - x_2)`:
# a letter that names no function, then one bracket without a comma, is a product.
_BRACKETED = r"_(?:\d|\{[^{}]*\}|[a-z])\s*(?:\(|\\left\s*\()"  # a subscript, then a bracket
_SUBSCRIPT_APPLIED = re.compile(
    rf"(?<![\\A-Za-z])(?:[A-Zfghpqsuvw]{_BRACKETED}|[a-z]{_BRACKETED}[^()]*,)"
)
# A letter's subscript that only names it: digits, or one letter (`a_n`; not `a_{n+1}`).
_NAMED = re.compile(r"(?<=[A-Za-z])_(?:\d|\{\d+\}|\{[a-z]\}|[a-z](?![A-Za-z]))")


def written(members: tuple[str, ...], ops: tuple[str, ...]) -> str:
    """A chain of relations as LaTeX writes it (this module spells `\\le` as `<=`)."""
    parts = [members[0]]
    for op, member in zip(ops, members[1:], strict=True):
        parts += [_LATEX_SIGNS.get(op, op), member]
    return " ".join(parts)
