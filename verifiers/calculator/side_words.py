"""Words around the sides of an equation written in prose, and what each says about the
expression beside it (`extract` reads sides with them; `claims` and `context` ask whether a
unit is a scale word)."""

from verifiers.calculator.parse import ParseError, Tok, parse_expression

# A word right before an expression makes it the tail of something we cannot read. A bound
# ("at most 101*18 + 20*9 = 2007") is not one: the arithmetic after it is claimed.
MODIFIERS = frozenset(
    "of times half twice double triple thrice quarter third thirds fourth fourths fifth fifths"
    " percent mod modulo pmod by from than minus plus over per and or square cube root sqrt"
    " log ln sin cos tan exp factorial choose digit digits base remainder each every ratio"
    " only mathop subscripted clocktime bignumber commanum to code mixednumber"
    " ordinal".split()
)
# "This simplifies to 5J + 20 = 100": after these verbs "to" introduces a result, not a range
# end or a ratio, so the expression after it is whole.
RESULT_VERBS = frozenset(
    "simplifies simplify simplified simplifying reduces reduce reduced equal equals amounts"
    " comes up sum sums total totals".split()
)
# Words that end a sentence's arithmetic rather than name a unit ("= 3 or c = -3").
STOP_WORDS = frozenset(
    "or and so then which that is are was were thus hence therefore we gives get gets but if"
    " when where since because mathop subscripted not commanum code clocktime bignumber"
    " mixednumber to satisfy satisfies leads lead yields yield remainder ordinal".split()
)
POISON = frozenset(
    "mathop subscripted commanum code clocktime bignumber mixednumber ordinal".split()
)
END_STOP = frozenset("of the for than as".split())
SCALE_WORDS = frozenset(
    "thousand thousands million millions billion billions k dozen dozens"
    " hundred hundreds trillion".split()
)
# Verbs that join a letter to the expression it names ("the sum of x is -3 + 11").
COPULAS = frozenset("is are was equals".split())
# Nouns that name what the whole expression after "of" computes ("a total of 9 * 8 = 72", "a
# height of 8/2 = 4 feet"), unlike words that take part of it ("half of 12 + 4", "the average
# of 4 + 6", "the absolute value of -3 + 5").
QUANTITY_NOUNS = frozenset(
    "total sum length width height depth cost price distance speed weight mass area perimeter"
    " volume age profit score capacity salary balance elevation".split()
)


def modifies(word: str, before: str) -> bool:
    """`word`, right before an expression (`before`: the word before it), makes the expression
    the tail of something we cannot read (`MODIFIERS`, a scale word), but for "of" after a
    noun that names the whole quantity (`QUANTITY_NOUNS`)."""
    if word == "of" and before in QUANTITY_NOUNS:
        return False
    return word in MODIFIERS or word in SCALE_WORDS


def noun_phrase(kind: str, after: str) -> bool:
    """After a modifier, a number that is only part of a noun phrase: one a copula ends ("the
    digits of 1521 is ..."), after which the scan for a side goes on. (Not the article "a"
    read as a letter, "the angles of a 14-gon is ...": nothing after it opens a side but the
    one `after_copula` reads.)"""
    return kind == "num" and after in COPULAS


def after_copula(toks: list[Tok], end: int) -> tuple[int, tuple, int] | None:
    """(start, tree, end) of the one expression a copula after a fragment ending at `end` opens
    and the side ends with ("the value of x + y is 9 + 11", "the product of 6 and 7 is 6 * 7":
    the subject named, then its value, whole); None where the first copula after it opens
    none."""
    for j in range(end, len(toks) - 1):
        if toks[j].kind == "word" and toks[j].text in COPULAS:
            try:
                node, stop = parse_expression(toks, j + 1)
            except ParseError:
                return None
            return (j + 1, node, stop) if stop == len(toks) else None
    return None


def article(toks: list[Tok], start: int) -> bool:
    """The article "a" before a noun that names a whole quantity and "of" ("up to a height of
    16/2 = 8 feet", "to a total of 9 * 8"): no operand, so a modifier before it bears on none,
    and "of" after the noun opens a whole side. Elsewhere "a" may be the letter ("any value of
    a that solves a^2 - 8a = 20")."""
    return (
        toks[start].text == "a"
        and start + 2 < len(toks)
        and toks[start + 1].text in QUANTITY_NOUNS
        and toks[start + 2].text == "of"
    )
