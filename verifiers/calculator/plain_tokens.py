"""Tokens of plain-text algebra (`plain_algebra`) that mean more than themselves: a
function's head, a Greek letter, a factorial, a prime.

- A function is read with a power or a base glued to its name (`sin^2(t)` is
  `\\sin^{2}(t)`, `log_2 8` is `\\log_{2} 8`), and a square root takes the bracket, number or
  letter after it as its braced operand (`sqrt(x + 1)` is `\\sqrt{x + 1}`, `3sqrt(3)` a
  product); what it applies to is read as LaTeX reads it after `\\sin`.
- θ, α, β, γ, φ are names (`sin²θ`, once `typed_symbols` wrote the power).
- `!` glued to an operand is a factorial inside a span (`(n-1)! - 2`); it ends one only before
  lower-case words, a comma or an operator (`= n! for every n`), since "so x = 5! That is
  the answer" may exclaim.
- Quotes glued to a name and then to a bracket are primes: a derivative applied (`f'(x)`).
"""

from __future__ import annotations

import re

from verifiers.calculator.typed_symbols import GREEK as TYPED_GREEK

__all__ = ["GREEK", "LATEX", "closing", "factorial_end", "function_head", "primed"]

LATEX = {"*": r"\cdot", "·": r"\cdot", "×": r"\times", "÷": r"\div", "−": "-", "–": "-"}
# The Greek letters plain text uses as names, as their commands (pi is a constant, not a name).
GREEK = {letter: f"\\{name}" for letter, name in TYPED_GREEK.items() if letter in "θαβγφ"}


def function_head(solid: list, n: int) -> str | None:
    """A function's head as LaTeX (`sin^2` is `\\sin^{2}`, `log_2` is `\\log_{2}`); a square
    root takes the bracket, number or letter after it as its braced operand (`sqrt(18)` is
    `\\sqrt{18}`), and its brackets are consumed here (None: no such operand)."""
    # `log2(8)`, `log10(x)`: the base glued to the name, as programming languages write it.
    m = re.fullmatch(r"([a-z]+)(?:\^\{?(\d)\}?)?(?:_?\{?(\d+)\}?)?", solid[n][1])
    name, power, base = m[1], m[2], m[3]
    if name != "sqrt":
        return f"\\{name}" + (f"^{{{power}}}" if power else "") + (f"_{{{base}}}" if base else "")
    after = solid[n + 1] if n + 1 < len(solid) else ("", "")
    if power or base or after[0] not in ("lp", "num", "name"):
        return None
    close = closing(solid, n + 1) if after[0] == "lp" else n + 1
    inner = [t for _, t in solid[n + 1 : close + 1]]
    inner = inner[1:-1] if after[0] == "lp" else inner
    for k in range(n + 1, close + 1):
        solid[k] = ("space", "")
    return r"\sqrt{" + " ".join(LATEX.get(t, GREEK.get(t, t)) for t in inner) + "}"


def closing(solid: list, at: int) -> int:
    """The index of the bracket that closes the one at `at` (the last token: never)."""
    depth = 0
    for k in range(at, len(solid)):
        depth += {"lp": 1, "rp": -1}.get(solid[k][0], 0)
        if depth == 0:
            return k
    return len(solid) - 1


def primed(tokens: list, j: int) -> bool:
    """Whether the quote at `j` is a prime on a name, the primes then glued to a bracket
    (`f'(x)`, `f''(2)`); any other quote ends the span."""
    k = j
    while k > 0 and tokens[k - 1][1] == "'":
        k -= 1
    n = j + 1
    while n < len(tokens) and tokens[n][1] == "'":
        n += 1
    return k > 0 and tokens[k - 1][0] == "name" and n < len(tokens) and tokens[n][0] == "lp"


def factorial_end(tokens: list, j: int) -> bool:
    """Whether the `!` at `j` may end a span: lower-case words, a comma or an operator after it."""
    n = j + 1
    while n < len(tokens) and tokens[n][0] == "space":
        n += 1
    if n == len(tokens):
        return False
    kind, text = tokens[n][0], tokens[n][1]
    return kind == "word" and text.islower() or text in (",", ";") or kind in ("op", "rel")
