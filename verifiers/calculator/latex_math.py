"""A member of a relation (whitelisted LaTeX) to a sympy expression, built directly.

Why not only `latex2sympy2_extended`: its ANTLR grammar runs in pure Python and takes tens of
milliseconds on an expression it has not seen (most of them), and it reads `2(3)` as 5 and
lowercases symbols unless told not to. This reader covers the whitelist `relations.admissible`
lets through and builds sympy objects node by node (no text is ever evaluated); a False the
symbolic checker finds is read again by `latex2sympy2_extended` and stands only if both
readers agree on both sides (`claim_words.confirmed`).

Grammar, loosest first: sum of terms; a term is factors joined by `\\cdot`, `\\times`, `/`,
`\\div` or juxtaposition (`2x`, `ab`, `x(x-3)`); a factor is an optional sign and a power; a
power is a primary with `^` and `!`. Primaries: numbers, one-letter symbols (with a
subscript), Greek letters, `\\pi`, groups in `()`, `[]`, `{}`, absolute values `|...|` (a
bar opens where an operand starts and closes the innermost one open), `\\frac`, `\\sqrt[n]{}`,
`\\binom` (and `!`) of letters too (`counting`), functions (trig, `\\ln`, `\\exp`, `\\log`,
`\\log_b`, a letter the chain defined), finite `\\sum`/`\\prod` with integer bounds. A
function's argument without parentheses runs over the juxtaposed factors that follow it (`\\sin
2x` is sin(2x)) and stops at the next function.
`ParseError` for anything else: what is not read whole is not read.
"""

from __future__ import annotations

import re
from functools import lru_cache

from verifiers.calculator.counting import binomial_too_large, of_letters
from verifiers.calculator.relations import primes_written
from verifiers.calculator.written_sums import covers_unwritten, total, written_bounds

__all__ = ["LEIBNIZ", "ParseError", "read_member"]


class ParseError(ValueError):
    """The member holds something outside the grammar."""


_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<cmd>\\[A-Za-z]+)|(?P<letter>[A-Za-z])"
    r"|(?P<sym>[-+*/^_!(){}\[\],'=|]))"
)
_GREEK = frozenset("alpha beta gamma delta theta lambda mu phi psi omega sigma tau rho".split())
_TRIG = frozenset("sin cos tan cot sec csc".split())
# Letters that name functions more often than numbers: `f(x)` is no product we may read.
_FUNCTION_LETTERS = frozenset("f g h p q".split())
_IGNORED = frozenset("left right displaystyle".split())
_OPERATORS = {"cdot": "*", "times": "*", "div": "/"}
# `\frac{d}{dx}(...)` over the whole member: the derivative of what the brackets hold.
LEIBNIZ = re.compile(r"^\s*\\frac\s*\{\s*d\s*\}\s*\{\s*d\s*([a-z])\s*\}(.*)$", re.S)
# `\frac{d}{dx}`, `\frac{dy}{dx}`, `dx`: Leibniz notation (`\frac{d}{a}` is a quotient).
_DERIVATIVE = re.compile(r"\\frac\s*\{\s*d\s*[a-z]?\s*\}\s*\{\s*d\s*[a-z]|\bd[a-z]\b")
_MAX_EXPONENT = 10_000


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = primes_written(text.rstrip())
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ParseError(f"unreadable at {text[pos:pos + 10]!r}")
        pos = m.end()
        kind = m.lastgroup or ""
        value = m.group(kind)
        if kind == "cmd":
            name = value[1:]
            if name in _IGNORED:
                continue
            if name in _OPERATORS:
                kind, value = "sym", _OPERATORS[name]
            elif name in ("dfrac", "tfrac"):
                value = "\\frac"
        out.append((kind, value))
    return out


class _Reader:
    def __init__(self, tokens: list[tuple[str, str]], log_base: str, functions: frozenset):
        import sympy

        self.sp = sympy
        self.toks = tokens
        self.i = 0
        self.log_base = log_base
        self.functions = functions
        self.bars = 0  # absolute values open: there a `|` closes, at the top it opens

    def peek(self, ahead: int = 0) -> tuple[str, str]:
        j = self.i + ahead
        return self.toks[j] if j < len(self.toks) else ("end", "")

    def take(self, value: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if tok[0] == "end" or (value is not None and tok[1] != value):
            raise ParseError(f"expected {value!r}, found {tok[1]!r}")
        self.i += 1
        return tok

    def group(self):
        """`{...}` or a single token's primary (`^2`, `\\frac12`)."""
        if self.peek()[1] == "{":
            self.take("{")
            value = self.sum()
            self.take("}")
            return value
        kind, value = self.peek()
        if kind == "num" and len(value) > 1:
            raise ParseError("`^23`, `\\frac12`: which digits the group takes is a guess")
        return self.primary()

    # --- grammar ----------------------------------------------------------------------------
    def sum(self):
        value = self.term()
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            right = self.term()
            value = value + right if op == "+" else value - right
        return value

    def term(self):
        value = self.signed()
        while True:
            kind, tok = self.peek()
            if tok in ("*", "/"):
                self.take()
                right = self.signed()
                value = value * right if tok == "*" else value / right
                after = self.peek()
                if tok == "/" and self._starts_primary(*after):
                    raise ParseError("`1/2x`: what the division covers is a guess")
            elif self._starts_primary(kind, tok):
                value = value * self.power()
            else:
                return value

    def signed(self):
        if self.peek()[1] == "-":
            self.take()
            return -self.signed()
        if self.peek()[1] == "+":
            self.take()
            return self.signed()
        return self.power()

    def _starts_primary(self, kind: str, tok: str) -> bool:
        return kind in ("num", "letter", "cmd") or tok in ("(", "[", "{") or (
            tok == "|" and not self.bars)

    def power(self):
        base = self.primary()
        while True:
            tok = self.peek()[1]
            if tok == "^":
                self.take()
                exponent = self.signed_group()
                if exponent.is_number and abs(exponent) > _MAX_EXPONENT:
                    raise ParseError("exponent too large")
                base = self.sp.Pow(base, exponent)
            elif tok == "!":
                self.take()
                if not (base.is_Integer and 0 <= base <= 1000 or of_letters(base)):
                    raise ParseError("factorial of something other than a small integer")
                base = self.sp.factorial(base)
            else:
                return base

    def signed_group(self):
        if self.peek()[1] == "-":
            self.take()
            return -self.group()
        return self.group()

    def primary(self):
        sp = self.sp
        kind, tok = self.take()
        if kind == "num":
            return sp.Rational(tok)
        if kind == "letter":
            if tok in self.functions:
                # `f''(x)`: the second derivative, a name of its own `readers` differentiates
                # the definition for; three primes at most (`f^{(4)}(x)` is not read).
                primes = 0
                while self.peek(primes)[1] == "'":
                    primes += 1
                if self.peek(primes)[1] == "(" and primes <= 3:
                    self.i += primes
                    self.take("(")
                    args = [self.sum()]
                    while self.peek()[1] == "," and self.take(","):  # `g(0, y)`
                        args.append(self.sum())
                    self.take(")")
                    return sp.Function(tok + "'" * primes)(*args)
            if self.peek()[1] == "(" and (tok.isupper() or tok in _FUNCTION_LETTERS):
                raise ParseError(f"`{tok}(...)`: a function nobody defined, or a product")
            return sp.Symbol(tok + self.subscript())
        if tok in ("(", "["):
            value = self.sum()
            self.take(")" if tok == "(" else "]")
            return value
        if tok == "{":
            value = self.sum()
            self.take("}")
            return value
        if tok == "|":  # `|2x - 3|`, `||x| - 1|`: where an operand starts, a bar opens
            self.bars += 1
            value = self.sum()
            self.take("|")
            self.bars -= 1
            return sp.Abs(value)
        if kind != "cmd":
            raise ParseError(f"unexpected {tok!r}")
        name = tok[1:]
        if name in _GREEK:
            return sp.Symbol(name + self.subscript())
        if name == "pi":
            return sp.pi
        if name == "frac":
            num = self.group()
            den = self.group()
            return num / den
        if name == "sqrt":
            index = None
            if self.peek()[1] == "[":
                self.take("[")
                index = self.sum()
                self.take("]")
            radicand = self.group()
            return sp.sqrt(radicand) if index is None else sp.root(radicand, index)
        if name in ("binom", "dbinom", "tbinom"):
            n, k = self.group(), self.group()
            if of_letters(n, k):
                return sp.binomial(n, k)
            if not (n.is_Integer and k.is_Integer):
                raise ParseError("binomial of non-integers")
            if 0 <= k <= n and binomial_too_large(int(n), int(k)):
                # `\binom{1000000000}{500000000}` would hold sympy past any time limit
                raise ParseError("binomial too large")
            return sp.binomial(n, k)
        if name in _TRIG or name in ("ln", "log", "exp"):
            return self.function(name)
        if name in ("sum", "prod"):
            return self.big_operator(name)
        raise ParseError(f"command {tok}")

    def subscript(self) -> str:
        if self.peek()[1] != "_":
            return ""
        self.take("_")
        if self.peek()[1] == "{":
            self.take("{")
            parts = []
            while self.peek()[1] != "}":
                kind, value = self.take()
                if kind not in ("num", "letter"):
                    raise ParseError("subscript")
                parts.append(value)
            self.take("}")
            return "_" + "".join(parts)
        kind, value = self.take()
        if kind not in ("num", "letter"):
            raise ParseError("subscript")
        return "_" + value

    def function(self, name: str):
        sp = self.sp
        base = None
        if name == "log" and self.peek()[1] == "_":
            self.take("_")
            base = self.group()
        exponent = None
        if self.peek()[1] == "^":
            self.take("^")
            exponent = self.signed_group()
            if exponent.is_number and exponent < 0:
                raise ParseError("an inverse function written as a power")
        arg = self.argument()
        if name == "ln":
            value = sp.log(arg)
        elif name == "exp":
            value = sp.exp(arg)
        elif name == "log":
            if base is None:
                base = sp.Integer(10) if self.log_base == "10" else None
            value = sp.log(arg) if base is None else sp.log(arg, base)
        else:
            if arg != 0 and not arg.has(sp.pi) and (
                not arg.free_symbols or arg.as_coeff_Add()[0] != 0
            ):
                # `\\tan 45`, `\\sin(90 - x)`: a number in an angle without pi is in degrees as
                # often as in radians (writers drop the degree mark), so which one is a guess;
                # `\\cos 0` is the same angle either way.
                raise ParseError("an angle in degrees or in radians is a guess")
            value = getattr(sp, name)(arg)
        return value if exponent is None else value**exponent

    def argument(self):
        """`(x)`, `{x}`, or the juxtaposed factors up to the next function or operator."""
        if self.peek()[1] in ("(", "{", "["):
            return self.primary()  # `\\sin(x)^2` squares the sine, not x
        value = None
        while True:
            kind, tok = self.peek()
            if kind == "cmd" and tok[1:] in _TRIG | {"ln", "log", "exp", "sum", "prod"}:
                break
            if not (kind in ("num", "letter") or tok in ("\\pi", "\\frac", "\\sqrt")
                    or tok[1:] in _GREEK):  # fmt: skip
                break
            factor = self.power()
            value = factor if value is None else value * factor
        if value is None or value.is_Number and self.peek()[1] == "(":
            raise ParseError("no argument, or `\\log 2 (8)`: a base or a factor is a guess")
        return value

    def big_operator(self, name: str):
        """A sum or product inside a larger expression, read where its extent is written: it
        opens a bracket, its body is one bracketed group, and the bracket closes right after
        (`2(\\sum_{k=0}^{9} (1 + k))`, as `elided_terms` writes it); elsewhere it is a guess."""
        if self.i < 2 or self.toks[self.i - 2][1] not in ("(", "[", "{"):
            raise ParseError(f"\\{name} inside a larger expression")
        bounds = [self.take() for _ in range(10)]
        shape = [value if kind == "sym" else kind for kind, value in bounds]
        if shape != ["_", "{", "letter", "=", "num", "}", "^", "{", "num", "}"]:
            raise ParseError(f"\\{name} with bounds other than `_{{k=0}}^{{9}}`")
        if not (bounds[4][1] + bounds[8][1]).isdigit() or self.peek()[1] not in ("(", "["):
            raise ParseError(f"\\{name} whose body is not one bracketed group")
        body = self.primary()
        if self.peek()[1] not in (")", "]", "}"):
            raise ParseError(f"\\{name} followed by more inside its bracket")
        symbol = self.sp.Symbol(bounds[2][1])
        return _summed(name, int(bounds[4][1]), int(bounds[8][1]), symbol, body)


@lru_cache(maxsize=8192)
def read_member(text: str, log_base: str = "10", functions: frozenset = frozenset()):
    """The member as a sympy expression (`ParseError` when outside the grammar): an unbased
    `\\log` in base 10 for `log_base` "10", natural otherwise; `functions`, letters the chain
    defined (`f(2)` and `g(0, y)` are then applications)."""
    if (leibniz := LEIBNIZ.match(text)) is not None:
        return _derivative(leibniz[1], leibniz[2], log_base, functions)
    if _DERIVATIVE.search(text):
        raise ParseError("a derivative in Leibniz notation")
    if (big := written_bounds(text)) is not None:
        return _big_operator(*big, log_base, functions)
    reader = _Reader(_tokens(text), log_base, functions)
    value = reader.sum()
    if reader.peek()[0] != "end":
        raise ParseError(f"left over: {reader.peek()[1]!r}")
    return value


def _derivative(var: str, operand: str, log_base: str, functions: frozenset):
    """`\\frac{d}{dx}` applied to the rest of the member, read only when the rest is one
    bracketed group (`\\frac{d}{dx} x^3 + 1`: where the operand ends is a guess)."""
    import sympy
    from sympy.core.function import AppliedUndef

    operand = re.sub(r"\\(?:left|right)(?![A-Za-z])", "", operand).strip()
    closing = {"(": ")", "[": "]", "{": "}"}.get(operand[:1])
    if closing is None or operand[-1:] != closing or _group_end(operand) != len(operand):
        raise ParseError("a derivative of something other than one bracketed group")
    body = read_member(operand[1:-1], log_base, functions)
    if body.free_symbols - {sympy.Symbol(var)}:
        # `\\frac{d}{dt}(x^2)`: in related rates x moves with t; which letters are constants
        # the words say, not the formula.
        raise ParseError("a derivative of an expression in other letters")
    derivative = sympy.Derivative(body, sympy.Symbol(var))
    # A function the chain defined is put in by `readers`, which then differentiates.
    return derivative if body.atoms(AppliedUndef) else derivative.doit()


def _group_end(text: str) -> int:
    """Where the group the text opens with ends (after its closing bracket; -1: never)."""
    depth = 0
    for pos, char in enumerate(text):
        depth += (char in "([{") - (char in ")]}")
        if depth == 0:
            return pos + 1
    return -1


def _big_operator(
    op: str, low: int, high: int, var: str, body_text: str, log_base: str, functions: frozenset
):
    """A written sum or product whole (see `written_sums`), its body read by `read_member`."""
    import sympy

    body = read_member(body_text, log_base, functions)
    if covers_unwritten(body_text):
        raise ParseError("which terms a sum covers is not written")
    return _summed(op, low, high, sympy.Symbol(var), body)


def _summed(op: str, low: int, high: int, symbol, body):
    try:
        return total(op, low, high, symbol, body)
    except ValueError as exc:  # a range or body `written_sums` does not read
        raise ParseError(str(exc)) from exc
