"""Tokens and a bounded recursive-descent parser for the arithmetic in reasoning steps.

Expressions become nested tuples (hashable, so evaluation can be cached):
  ("num", Fraction, decimals) ("var", name) ("pi",) ("neg", a) ("pct", a) ("fact", a)
  ("sqrt", a) ("+"|"-"|"*"|"/"|"^", a, b)
Implicit multiplication is read only before "(", a variable, pi or sqrt ("4(40)", "2x", "3\\pi"):
two numbers side by side ("Step 2 3 + 4", "1 1/2") are never multiplied, the expression ends.
An implicit product with pi, a root or a bracket right after a divisor ("3/2\\pi",
"a \\div b(c)") is refused: it reads as a/(b*c) or (a/b)*c depending on the writer; "1/3b" is
read as (1/3)*b.
The parser refuses more than MAX_DEPTH levels of nesting and MAX_TOKENS tokens: a bound on
work for pathological input, which then simply yields no claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

NUM, OP, VAR = "num", "op", "var"
MAX_DEPTH = 40
MAX_TOKENS = 200
MAX_DIGITS = 300  # a literal with more digits is not a quantity anyone computes by hand

Node = tuple[Any, ...]


class ParseError(Exception):
    """The tokens do not start with an expression we can read."""


@dataclass(frozen=True, slots=True)
class Tok:
    kind: str  # num op var lp rp pct fact eq approx word pi sqrt
    text: str
    value: Fraction | None = None
    decimals: int = 0
    space: bool = False  # whitespace follows this token

    def spaced(self) -> Tok:
        # Built directly: the lexer marks most tokens, and `dataclasses.replace` is slow.
        return Tok(self.kind, self.text, self.value, self.decimals, True)


_IMPLICIT = frozenset(("lp", VAR, "pi", "sqrt"))


class _Parser:
    def __init__(self, toks: list[Tok], start: int) -> None:
        if len(toks) - start > MAX_TOKENS:
            raise ParseError("too many tokens")
        self.toks = toks
        self.i = start
        self.depth = 0

    def peek(self) -> Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def is_op(self, chars: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == OP and tok.text in chars

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParseError("nested too deeply")

    def expr(self) -> Node:
        self.enter()
        node = self.term()
        while self.is_op("+-"):
            op = self.toks[self.i].text
            self.i += 1
            node = (op, node, self.term())
        self.depth -= 1
        return node

    def term(self) -> Node:
        node = self.unary()
        divided = False  # the last operand of this term was a divisor
        while True:
            tok = self.peek()
            if tok is None:
                return node
            if tok.kind == OP and tok.text in "*/":
                self.i += 1
                node = (tok.text, node, self.unary())
                divided = tok.text == "/"
            elif tok.kind in _IMPLICIT:
                if divided and tok.kind != VAR:
                    # "500\pi \div \frac{2}{3}\pi", "3/2\pi", "6/2(1+2)": the writer may mean
                    # the product as the divisor or the quotient times it; we cannot tell.
                    # ("1/3b" is a coefficient: word problems write b/3 that way.)
                    raise ParseError("implicit product after a division")
                save = self.i
                try:
                    node = ("*", node, self.power())
                except ParseError:
                    self.i = save  # "2 (mod 5)": the expression ends before the bracket
                    return node
            else:
                return node

    def unary(self) -> Node:
        self.enter()
        if self.is_op("-+"):
            sign = self.toks[self.i].text
            self.i += 1
            inner = self.unary()
            self.depth -= 1
            return ("neg", inner) if sign == "-" else inner
        node = self.power()
        self.depth -= 1
        return node

    def power(self) -> Node:
        base = self.postfix()
        if self.is_op("^"):
            self.i += 1
            return ("^", base, self.unary())  # right-associative: 9^9^9 = 9^(9^9)
        return base

    def postfix(self) -> Node:
        node = self.atom()
        while (tok := self.peek()) is not None and tok.kind in ("pct", "fact"):
            self.i += 1
            node = (tok.kind, node)
        return node

    def atom(self) -> Node:
        tok = self.peek()
        if tok is None:
            raise ParseError("expression expected")
        if tok.kind == NUM:
            self.i += 1
            return ("num", tok.value, tok.decimals)
        if tok.kind == VAR:
            self.i += 1
            return ("var", tok.text)
        if tok.kind == "pi":
            self.i += 1
            return ("pi",)
        if tok.kind == "sqrt":
            self.i += 1
            if (nxt := self.peek()) is None or nxt.kind != "lp":
                raise ParseError("sqrt without argument")
            return ("sqrt", self.atom())
        if tok.kind == "lp":
            self.i += 1
            self.enter()
            node = self.expr()
            self.depth -= 1
            close = self.peek()
            if close is None or close.kind != "rp":
                raise ParseError("unbalanced bracket")
            self.i += 1
            return node
        raise ParseError(f"unexpected {tok.text!r}")


def parse_expression(toks: list[Tok], start: int) -> tuple[Node, int]:
    """Longest expression starting at toks[start]: (tree, index after it). Raises ParseError."""
    parser = _Parser(toks, start)
    node = parser.expr()
    return node, parser.i


def operands(node: Node) -> list[Node]:
    """Number leaves of a tree, left to right (for rounding and run-on checks)."""
    if node[0] == "num":
        return [node]
    out: list[Node] = []
    for child in node[1:]:
        if isinstance(child, tuple):
            out.extend(operands(child))
    return out


def replaced(node: Node, old: Node, new: Node) -> Node:
    """The tree with every subtree equal to `old` replaced by `new`."""
    if node == old:
        return new
    return (node[0], *(replaced(c, old, new) if isinstance(c, tuple) else c for c in node[1:]))


def has_ops(node: Node) -> bool:
    """True when the tree does any arithmetic (not just a signed or percent number)."""
    if node[0] in ("num", "var", "pi"):
        return False
    if node[0] in ("neg", "pct"):
        return has_ops(node[1])
    return True


def variables(node: Node) -> set[str]:
    if node[0] == "var":
        return {node[1]}
    out: set[str] = set()
    for child in node[1:]:
        if isinstance(child, tuple):
            out |= variables(child)
    return out
