"""What the text around a link says about reading it: cut expressions, defined operations,
and the scale, moduli and bases a step names.

Before any reader looks, `one_spelling` drops what only sets a formula's size, style or
spacing (`f\\left(x\\right)` is `f(x)`, `\\Bigl|` a bar, `\\displaystyle` nothing, `x \\, + \\, 4`
is `x + 4`) and writes a binomial, an order and the characters typed for math one way
(`{7 \\choose 3}` is `\\binom{7}{3}`, MathJax's `\\gt` is `>`; `typed_symbols`: `−` is `-`, `×` in
LaTeX is `\\times`, `√18` is `\\sqrt{18}`, `½` is `(1/2)`; `tex_shorthand`: `\\frac12` is
`\\frac{1}{2}`, `\\sqrt2` is `\\sqrt{2}`; `repeating_decimals`: `0.\\overline{3}` is
`\\frac{1}{3}`; `plus_minus`: `$x = \\pm 2$` is `$x = 2 \\text{ or } x = -2$`), so that every
reader meets one spelling.

Things a single link cannot show:
- A splitter (lines, sentences) can cut an expression in two: "... there are $7\\cdot 6\\cdot"
  then "5\\cdot 4\\cdot 3 = 2520$ sequences". The side at the cut is a fragment; `mark_cuts`
  puts the fragment mark "…" there, so the extractor reads no claim that touches the cut.
- A problem may define an operation with `*` ("If $a*b=a^2+ab-b^2$, find $3*2$"), or a function
  or point named C ("let $C(m, n)$ count the paths"). Then `*` in its chains is that operation,
  not multiplication, and `C(3, 1)` is no count of choices; `read_as_defined` makes them
  unreadable.
- A step may name a scale ("5 thousand dollars"), a modulus ("mod 7") or a base ("in base
  8"): then "5 * 3 = 15,000", "2^10 = 4", "8 + 4 = 14" are not errors (`context_excuse`).

What this does NOT do: find the expression's other half, learn what a defined operation
computes, or read a base or modulus it cannot see in the step. All of it only removes claims,
never adds one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from verifiers.calculator.evaluate import EvalError, exact
from verifiers.calculator.extract import Side
from verifiers.calculator.parse import Node
from verifiers.calculator.plus_minus import plus_minus
from verifiers.calculator.repeating_decimals import repeating_decimals
from verifiers.calculator.side_words import SCALE_WORDS
from verifiers.calculator.tex_shorthand import tex_shorthand
from verifiers.calculator.typed_symbols import typed_symbols
from verifiers.calculator.worded_links import linked

# A step ends inside an expression: an operator or a subscripted operator is its last thing
# ("7\\cdot 6\\cdot", "...}{2}+", "\\log_{2002}"). Markdown bold ("**") and rules ("---") are
# no operators; a closing "=" cuts nothing (the next step opens with a whole side).
_ENDS_OPEN = re.compile(
    r"(?:[+/^]|(?<!\\)[(\[]|(?<!-)-|(?<!\*)\*|\\(?:cdot|times|div)|\\(?:log|ln)\s*(?:_\s*\{[^{}]*\}|_\w)?)\s*$"
)
# A step starts with an operator: it goes on with the expression of the step before
# ("24" then "- 4 = \\boxed{20}"). After an align row ("... \\\\") only a row that opens with
# "&" and then the operator goes on ("&\\qquad+ (80+7)"); "-2&=a" is a new row.
_OPERATOR = r"(?:[-+]\s*[\d(\\]|\\(?:cdot|times|div)(?![A-Za-z]))"
_STARTS_OPEN = re.compile(rf"^\s*{_OPERATOR}")
_ROW_GOES_ON = re.compile(rf"^\s*&\s*(?:\\q?quad\s*)*{_OPERATOR}")
_ROW_END = re.compile(r"\\\\\s*$")
# The step before ended a sentence: then a leading "-" is a minus sign or a bullet, not a cut.
_SENTENCE_END = re.compile(r"[.!?;:,]\s*(?:\$|\\\]|\\\))?\s*$")
_ROW_BREAK_END = re.compile(r"(?:\\\\|\s)*$")
CUT = "…"

# "$a*b = ...$", "$x * y$" in the problem: `*` between letters is an operation it defines.
_DEFINED_STAR = re.compile(r"(?<![A-Za-z])[A-Za-z]\s*(?<!\*)\*(?!\*)\s*[A-Za-z](?![A-Za-z])")
_STAR = re.compile(r"(?<!\*)\*(?!\*)")
# "C(m, n)", "C(x)", "C(2, 3)" in the problem: a C of its own (a function, a point), so a step's
# "C(3, 1) = 4" is not the binomial coefficient normalize reads "C(n, k) =" as.
_NAMED_C = re.compile(r"(?<![\w\\])C\s*(?:\\left\s*)?\(")


# `\\left.` (a null delimiter) goes with its command; `\\rightarrow` and `\\bigcup` stay.
_SIZING = re.compile(r"\\(?:left|right|middle|[bB]igg?[lrm]?)(?![A-Za-z])(?:\s*\.)?")
_STYLE = re.compile(r"\\(?:displaystyle|textstyle)(?![A-Za-z])")
# What a phantom holds takes room and shows nothing: `&\\phantom{=} \\binom42 ...` is a row
# that goes on with the sum above it, not a relation of its own.
_PHANTOM = re.compile(r"\\[hv]?phantom\s*\{[^{}]*\}")
# Thin, medium and thick spaces are spaces; a negative one joins (`275,\\!562`). A row break
# before a space (`\\\\ `) is no spacing.
_SPACE = re.compile(r"(?<!\\)\\[,;: ]")
_NEGATIVE_SPACE = re.compile(r"(?<!\\)\\!")
# Thousands grouped the way LaTeX writes them, `362{,}880` or `1\\,000`, are one number: as a
# space the thin one would leave two (`362 880`), and a reader of "is divisible by" took the
# last group for the number. A group of three digits after a first of one to three (`0{,}5`,
# `3{,}14` are decimal commas and stay unread).
_GROUP_MARK = re.compile(r"\{,\}|(?<!\\)\\,")
_DIGIT_GROUPS = re.compile(rf"(?<![\d.])[1-9]\d{{0,2}}(?:(?:{_GROUP_MARK.pattern})\d{{3}})+(?!\d)")
# A decimal written without its leading zero (`- .7(1 - 2y)`, `$.50`) is the one with it: the
# numeric reader read both, the symbolic ones only the second, and the rules that set decimals
# apart (rounded, approximated) look for the second. After a word or a digit a point is no
# decimal's (`x.5`, `1.5.3`).
_BARE_DECIMAL = re.compile(r"(?<![^\s(\[{=+\-*/^,<>$])\.(?=\d)")
# `{n \\choose k}`, TeX's own spelling of `\\binom{n}{k}`: each part without braces of its own.
_CHOOSE = re.compile(r"\{([^{}]*?)\\choose(?![A-Za-z])([^{}]*)\}")
_ORDER = re.compile(r"\\([gl])t(?![A-Za-z])")  # MathJax's `\\gt`, `\\lt`
# `\\leqslant` and `\\geqq` are `\\le` and `\\ge` drawn another way; `\\operatorname{gcd}` is
# `\\gcd` where LaTeX has that command (`\\operatorname{lcm}` stays a function nothing reads).
_SLANTED = re.compile(r"\\([lg])eq(?:slant|q)(?![A-Za-z])")
_NAMED_OPERATOR = re.compile(
    r"\\operatorname\s*\*?\s*\{\s*(sin|cos|tan|cot|sec|csc|arcsin|arccos|arctan|sinh|cosh|tanh"
    r"|log|ln|exp|gcd|max|min|det|deg)\s*\}"
)
# An equation's number or name (`\\tag{3}`, `\\label{eq:a}`, `\\nonumber`) is no part of it.
_NUMBERING = re.compile(r"\\(?:(?:tag\*?|label)\s*\{[^{}]*\}|(?:nonumber|notag)(?![A-Za-z]))")
# A `cases` environment that opens a display, whose rows are relations with no condition
# beside them, is a system written as one (`\\[ \\begin{cases} x + y = 10 \\\\ x - y = 4
# \\end{cases} \\]`): its rows are read as an aligned display's. `f(x) = \\begin{cases} ...` is a
# piecewise definition and stays unread, as does any row with an `&` or words beside it.
_CASES = re.compile(r"\\begin\{cases\}((?:(?!\\(?:begin|end)\{).)*?)\\end\{cases\}", re.S)
_OPENS_DISPLAY = re.compile(r"(?:\\\[|\\\(|\$)\s*$")
_ROWS = re.compile(r"\\\\")
_RELATION_SIGN = re.compile(r"=|<|>|\\(?:le|ge|leq|geq|neq|ne)(?![A-Za-z])")


def one_spelling(text: str) -> str:
    """The text in one spelling (see the module's docstring)."""
    text = linked(typed_symbols(text))
    if "{,}" in text or "\\," in text:
        text = _DIGIT_GROUPS.sub(lambda m: _GROUP_MARK.sub("", m.group()), text)
    if "." in text:
        text = _BARE_DECIMAL.sub("0.", text)
    if "\\" not in text:
        return text
    text = repeating_decimals(tex_shorthand(text))
    text = _ORDER.sub(lambda m: ">" if m[1] == "g" else "<", text)
    text = _NAMED_OPERATOR.sub(_command, _SLANTED.sub(_command, text))
    text = _SPACE.sub(" ", _NEGATIVE_SPACE.sub("", text))
    text = _CHOOSE.sub(lambda m: f"\\binom{{{m[1].strip()}}}{{{m[2].strip()}}}", text)
    text = _NUMBERING.sub(" ", text)
    if "{cases}" in text:
        text = _CASES.sub(_system, text)
    if "phantom" in text:
        text = _PHANTOM.sub(" ", text)
    # After spacing and sizing are gone: `\pm\, 2`, `\pm \left(1 + \sqrt{2}\right)`.
    return plus_minus(_STYLE.sub(" ", _SIZING.sub("", text)))


def _command(m: re.Match[str]) -> str:
    """The command a match names (`\\le` for `\\leqslant`), a space after it only where the name
    would join the next letter (`\\sin x`, but `\\gcd(12, 18)`)."""
    name = m[1] + "e" if m[1] in ("l", "g") else m[1]
    return f"\\{name}" + (" " if m.string[m.end() : m.end() + 1].isalpha() else "")


def _system(m: re.Match[str]) -> str:
    rows = [row.strip() for row in _ROWS.split(m[1]) if row.strip()]
    if (
        len(rows) < 2
        or not _OPENS_DISPLAY.search(m.string[: m.start()])
        or any("&" in row or "\\text" in row or not _RELATION_SIGN.search(row) for row in rows)
    ):
        return m.group()
    return f"\\begin{{aligned}} {m[1]} \\end{{aligned}}"


def mark_cuts(steps: list[str] | tuple[str, ...]) -> list[str]:
    """The steps, with "…" where a split cut an expression (at the start or end of a step), or
    where a step ends on a number inside a display it never closed."""
    out = list(steps)
    for i in range(len(out) - 1):
        before, after = steps[i], steps[i + 1]
        if _ENDS_OPEN.search(before):
            out[i + 1] = f"{CUT} {out[i + 1]}"
        row = _ROW_END.search(before)
        goes_on = _ROW_GOES_ON.match(after) if row else _STARTS_OPEN.match(after)
        if goes_on and not _SENTENCE_END.search(before):
            # before a closing row break: "\\" would put the mark on a line of its own
            out[i] = f"{_ROW_BREAK_END.sub('', out[i])} {CUT}"
    return [
        f"{text} {CUT}" if _ends_in_open_math(step) else text
        for step, text in zip(steps, out, strict=True)
    ]


def _ends_in_open_math(step: str) -> bool:
    """The step stops on a digit inside a display it never closed: a generation cut at its token
    limit ("\\[ 50 \\text{ minutes} + 400 \\text{ minutes} = 45") may have cut the number.
    ("$" is not counted: in word problems it is money.)"""
    tail = step.rstrip()
    if not tail or not tail[-1].isdigit():
        return False
    return tail.count("\\[") > tail.count("\\]") or tail.count("\\(") > tail.count("\\)")


def defined_operations(question: str) -> frozenset[str]:
    """The operations the problem defines for itself: "*" when it writes `*` between letters,
    "C" when it writes C before a bracket."""
    own = {"*"} if _DEFINED_STAR.search(question) else set()
    if _NAMED_C.search(question):
        own.add("C")
    return frozenset(own)


# A function defined at letters: `t(x) = \\sqrt{3x+1}`, `g(a, b) = ...`.
_FUNCTION_DEFINED = re.compile(
    r"(?<![\\A-Za-z])([A-Za-z])\s*(?:\\left\s*)?\(\s*[a-z]\s*(?:,\s*[a-z]\s*)*(?:\\right\s*)?\)\s*="
)


def function_letters(text: str) -> frozenset[str]:
    """The letters `text` defines as functions (`t(x) = ...`): applied to a number later
    (`t(1)`), such a letter names the function's value, not an unknown times the number."""
    return frozenset(_FUNCTION_DEFINED.findall(text))


def applies_function(text: str, letters: frozenset[str]) -> bool:
    """Whether `text` applies one of `letters` to a bracket (`t(1)`, `t (5)`)."""
    return any(re.search(rf"(?<![\\A-Za-z]){re.escape(c)}\s*\(", text) for c in letters)


def read_as_defined(step: str, own: frozenset[str]) -> str:
    """`step` with each single `*` and each `C(` made unreadable, where the problem defines what
    they compute."""
    if "*" in own and "*" in step:
        step = _STAR.sub(" mathop ", step)
    if "C" in own and "C" in step:
        step = _NAMED_C.sub(lambda m: f"C mathop {m.group()[1:].lstrip()}", step)
    return step


@dataclass(frozen=True, slots=True)
class StepContext:
    """What a whole step says about the numbers in its links (one link cannot show it)."""

    scaled: bool = False  # a scale word: "5 thousand dollars ... 5 * 3 = $15,000"
    moduli: tuple[int, ...] = ()  # "mod 7", "\\pmod{10}": "=" may mean congruent
    bases: tuple[int, ...] = ()  # "in base 8", "binary", "1011_2": numerals in another base
    rounds_up: bool = False  # "we need 17/5 = 4 boxes": whole items, counted up
    given: frozenset = frozenset()  # the problem's numbers: exact (`carried_rounding`)


# "mod 7", "Modulo 10", "modulo $7$", "\pmod{10}", "\bmod 5" (on the raw step: normalize()
# hides commands)
_MODULUS = re.compile(
    r"(?:\\[pb]?mod\s*\{?\s*|\bmod(?:ulo)?\s+\$?\s*)(\d{1,6})(?!\d)", re.IGNORECASE
)
# "the units digit of 7 * 3 is 1", "7 \cdot 3 = 1": a step about last digits computes modulo a
# power of ten.
_LAST_DIGITS = re.compile(
    r"\b(?:units?|ones)[\s-]+digits?\b|\blast[\s-]+(?:(two|three)[\s-]+digits|digit)\b", re.I
)
_DIGITS_MODULUS = {None: 10, "two": 100, "three": 1000}
# "the rules 0 + 1 = 1 and 1 + 1 = 0 compute the parity": a step about parity, or about even
# and odd together, may compute modulo 2 with "=".
_PARITY = re.compile(
    r"\bparit(?:y|ies)\b|\beven\W+(?:and|or)\W+odd\b|\bodd\W+(?:and|or)\W+even\b", re.I
)
_BASE = re.compile(r"\bbase[\s\-]*\{?\s*(\d{1,2})(?!\d)|\d_\{?(\d{1,2})\}?(?!\d)")
_BASE_WORDS = {"binary": 2, "octal": 8, "hexadecimal": 16}
# Words that count whole items up: a quotient written as the next whole number is what is
# needed, not a rounding slip.
_UP_WORDS = frozenset("need needs needed enough least up whole full cannot can't".split())
# Factors a scale word stands for: "hundred", "thousand", "million", "billion", "trillion".
_SCALES = frozenset(Fraction(10) ** k for k in (2, 3, 6, 9, 12))


def step_context(
    step: str, words: frozenset[str], given: frozenset[Fraction] = frozenset()
) -> StepContext:
    """The scale, moduli and bases a step names (`words`: its words, as the tokenizer reads);
    `given`: the exact numbers the problem gives (`carried_rounding.exact_given`)."""
    moduli = {int(m) for m in _MODULUS.findall(step) if int(m) > 1}
    moduli |= {
        _DIGITS_MODULUS[(m.group(1) or "").lower() or None] for m in _LAST_DIGITS.finditer(step)
    } | ({2} if _PARITY.search(step) else set())
    bases = {int(a or b) for a, b in _BASE.findall(step)} | {
        base for word, base in _BASE_WORDS.items() if word in words
    }
    return StepContext(
        bool(words & SCALE_WORDS),
        tuple(sorted(moduli)),
        tuple(sorted(b for b in bases if 2 <= b <= 36 and b != 10)),
        bool(words & _UP_WORDS),
        given,
    )


def _in_base(node: Node, base: int) -> Node:
    """The tree with every whole-number literal read as a numeral in `base` (or ValueError)."""
    if node[0] == "num":
        value, decimals = node[1], node[2]
        if decimals or value.denominator != 1 or value < 0:
            raise ValueError("not a numeral")
        return ("num", Fraction(int(str(value.numerator), base)), 0)
    return (node[0], *(_in_base(c, base) if isinstance(c, tuple) else c for c in node[1:]))


def _value_in_base(node: Node, base: int) -> Fraction | None:
    try:
        return exact(_in_base(node, base))
    except (ValueError, EvalError):
        return None


def context_excuse(
    ctx: StepContext, computed: Fraction, claimed: Fraction, computed_side: Side, claimed_side: Side
) -> str:
    """Why the step's context makes a mismatch no error ("" if it does not).

    A scale word excuses a factor of a power of ten; a modulus m excuses a plain claimed
    residue 0 <= r < m congruent to the computed value; a base b excuses a link that holds
    with its numerals (or only the claimed one) read in base b. Anything else still fails.
    """
    if (
        ctx.scaled
        and computed
        and claimed
        and (claimed / computed in _SCALES or computed / claimed in _SCALES)
    ):
        return "scale word in the step"
    if claimed_side.plain and claimed.denominator == 1 and computed.denominator == 1:
        for m in ctx.moduli:
            if 0 <= claimed < m and (computed - claimed) % m == 0:
                return f"holds modulo {m}"
    for base in ctx.bases:
        claimed_in_base = _value_in_base(claimed_side.node, base)
        if claimed_in_base is not None and claimed_in_base in (
            computed,
            _value_in_base(computed_side.node, base),
        ):
            return f"numerals in base {base}"
    return ""


def congruent(step: str, a, b) -> bool:
    """`a` and `b` are whole numbers congruent modulo a modulus the step names."""
    if not (isinstance(a, Fraction) and isinstance(b, Fraction)):
        return False
    if a.denominator != 1 or b.denominator != 1:
        return False
    return any((a - b) % m == 0 for m in step_context(step, frozenset()).moduli)
