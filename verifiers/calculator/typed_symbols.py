"""Characters typed for math, written the way the readers read them (`context.one_spelling`).

The numeric reader ends a clause at a character it does not know, so the expression after one
was read without it: `∛27 × 2 = 6` as `27 × 2`, `1⁄2 × 10 = 5` as `2 × 10`, `√2 * 5 = 7.07` as
`2 * 5`, each a False on a right step. Each such character is spelled out instead:

- a root sign (`√`, `∛`, `∜`) is `\\sqrt` (`\\sqrt[3]`, `\\sqrt[4]`) of the number, the letter
  or the bracket right after it (`3√3`, `√(b^2 - 4ac)`); any other operand is not read;
- a vulgar fraction is a fraction in brackets (`½` is `(1/2)`), and one glued to a whole
  number, or a space after it, is a mixed number (`2½`, `2 ½` are `(2+1/2)`); glued to a
  decimal it is a fragment (`…`: nothing next to it is read);
- superscript digits are a power (`x²` is `x^2`, `2¹⁰` is `2^{10}`, `10⁻¹` is `10^{-1}`; so
  the symbolic readers read `(x+3)² = x² + 6x + 6`, and `cm²` is the unit `cm^2`), subscript
  digits an index (`x₁` is `x_{1}`);
- the fraction slash `⁄` and the division slash `∕` are `/`, the asterisk operator `∗` is `*`;
- the minus sign `−`, and the hyphens and small or wide minus forms typed for it (`‐3 + 5` was
  read as `3 + 5`), are `-` (the en dash is one already, `normalize`; the em dash stays prose);
- inside LaTeX only, `×`, `·` (and the dot operators `⋅`, `∙`), `÷` are `\\times`, `\\cdot`,
  `\\div`, `°` is `^\\circ` (`$\\cos 60°$`) and a Greek letter its command (`2πr` is
  `2\\pi r`, `sin θ` is `sin \\theta`); in prose they stay characters, which the plain-text
  readers know ("from 4° to 176°" counts a range), and a temperature's degree (`30°C`) is no
  angle.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

from verifiers.calculator.relations import math_regions

__all__ = ["GREEK", "typed_symbols"]

_ROOTS = {"√": "\\sqrt", "∛": "\\sqrt[3]", "∜": "\\sqrt[4]"}
_ROOT_OPERAND = re.compile(r"\s*(\d+(?:\.\d+)?|[A-Za-z](?![A-Za-z]))")
_VULGAR = "¼½¾⅐⅑⅒⅓⅔⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞"
_VULGAR_FRACTION = re.compile(rf"(?:(?<![\d.])(\d+) ?)?([{_VULGAR}])")
_SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺"
_SUPERSCRIPT_RUN = re.compile(rf"[{_SUPERSCRIPTS}]+")
_SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉"
_SUBSCRIPT_RUN = re.compile(rf"[{_SUBSCRIPTS}]+")
_PLAIN_DIGITS = str.maketrans(_SUPERSCRIPTS + _SUBSCRIPTS, "0123456789-+" + "0123456789")
_SLASHES = str.maketrans({"⁄": "/", "∕": "/", "∗": "*"})
_ANY = re.compile(rf"[√∛∜⁄∕∗{_VULGAR}{_SUPERSCRIPTS}{_SUBSCRIPTS}]")
_MINUS_SIGNS = str.maketrans(dict.fromkeys("\u2212\u2010\u2011\u2012\ufe63\uff0d", "-"))
_GREEK_NAMES = "pi theta alpha beta gamma delta lambda mu phi psi omega sigma tau rho".split()
GREEK = dict(zip("πθαβγδλμφψωστρ", _GREEK_NAMES, strict=True))  # letter: its command's name
_IN_LATEX = {
    "×": "\\times ", "·": "\\cdot ", "⋅": "\\cdot ", "∙": "\\cdot ", "÷": "\\div ",
    "°": "^\\circ ", **{letter: f"\\{name}" for letter, name in GREEK.items()},
}  # fmt: skip
_TYPED_IN_LATEX = re.compile(f"[×·⋅∙÷{''.join(GREEK)}]|°(?![CFK](?![A-Za-z]))")


def typed_symbols(text: str) -> str:
    """`text` with the characters above spelled out (unchanged when it has none)."""
    text = text.translate(_MINUS_SIGNS)
    if _ANY.search(text):
        text = _roots(text.translate(_SLASHES))
        text = _VULGAR_FRACTION.sub(_vulgar, text)
        text = _SUPERSCRIPT_RUN.sub(_power, text)
        text = _SUBSCRIPT_RUN.sub(lambda m: f"_{{{m[0].translate(_PLAIN_DIGITS)}}}", text)
    if _TYPED_IN_LATEX.search(text):
        for start, end, body in reversed(math_regions(text)):
            spelled = _TYPED_IN_LATEX.sub(_in_latex, body)
            text = text[:start] + text[start:end].replace(body, spelled, 1) + text[end:]
    return text


def _in_latex(m: re.Match) -> str:
    # `πr` is `\\pi r`, but `θ_1` is `\\theta_1`: a space only before what would join the name
    after = m.string[m.end() : m.end() + 1]
    return _IN_LATEX[m[0]] + (" " if m[0] in GREEK and after.isalnum() else "")


def _vulgar(m: re.Match) -> str:
    if m[1] is None and m.start() > 0 and m.string[m.start() - 1] in "0123456789.":
        return "…"  # glued to a decimal (`3.5½`): a fragment, nothing next to it is read
    value = Fraction(unicodedata.numeric(m[2])).limit_denominator(10)
    fraction = f"{value.numerator}/{value.denominator}"
    return f"({m[1]}+{fraction})" if m[1] else f"({fraction})"


def _power(m: re.Match) -> str:
    plain = m[0].translate(_PLAIN_DIGITS)
    return f"^{plain}" if len(plain) == 1 else f"^{{{plain}}}"


def _roots(text: str) -> str:
    out, i = [], 0
    while (found := _next_root(text, i)) is not None:
        j, command = found
        out.append(text[i:j])
        i = j + 1
        if m := _ROOT_OPERAND.match(text, i):
            out.append(f"{command}{{{m[1]}}}")
            i = m.end()
            continue
        k = len(text) - len(text[i:].lstrip())
        close = _closing(text, k) if text[k : k + 1] in ("(", "{") else None
        if close is None:
            out.append(f"{command} ")
            continue
        out.append(f"{command}{{{text[k + 1 : close]}}}")
        i = close + 1
    return "".join(out) + text[i:]


def _next_root(text: str, start: int) -> tuple[int, str] | None:
    places = [
        (j, command) for sign, command in _ROOTS.items() if (j := text.find(sign, start)) >= 0
    ]
    return min(places) if places else None


def _closing(text: str, start: int) -> int | None:
    """The index of the bracket that closes the one at `start`, or None."""
    depth = 0
    for k in range(start, len(text)):
        depth += (text[k] in "({[") - (text[k] in ")}]")
        if depth == 0:
            return k
    return None
