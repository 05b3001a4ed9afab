"""A value written with `\\pm`, then written out: "$x = \\frac{3 \\pm 7}{2}$, so $x = 5$ or $-3$".

The quadratic formula's last display often stands for two numbers that the text then writes out,
and a slip there (here (3 - 7)/2 = -2, not -3) escapes every other check: the values are no
rewrite of a link, and the equation they solve may lie steps back. Read where a lone letter is
given a member with one `\\pm` (or `\\mp`, last in a chain of `=`) whose two values are plain
numbers, and right after it, with nothing but words that draw (", i.e.", "so", "this gives",
"we get") before the first and "or", "and" before the next, the same letter is given numbers
(the last member of its clause): each must be one of the two, judged for one value, or for two
of which one is right (the other then claims the other sign). Three or more are a list
gathered from elsewhere too ("the solutions are $x = 1$, $x = \\frac{3 + \\sqrt{21}}{2}$,
..."), and so are two that are neither: not judged. The letter's values may open the next step
after the step before ended on the `\\pm` value. A value set aside (words before it, or after
it in its sentence), or written with decimals within a hundredth of one of the two (a
rounding), is not judged; any other words or relation between end the reading.
"""

from __future__ import annotations

from verifiers.calculator.claim_words import compact, lone, set_aside, word_set
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.readers import DECIMAL, plain_number, readings
from verifiers.calculator.signs import SIGN, signed_texts
from verifiers.calculator.symbolic import fmt, near, same_value

__all__ = ["signed_values"]

# The only words that may draw the values from the `\\pm` value.
_DRAWS = frozenset(
    "so i e ie that is this these gives give giving thus hence therefore we get have obtain"
    " which means the two solutions roots values are or".split()
)


def signed_values(clauses: list, defs: dict, last_relation: tuple) -> list:
    """(outcome, members to confirm) for each value written out of a `\\pm` value that is
    neither of its two (see the module docstring). `last_relation`: the step before's last
    relation as (members, ops), or ()."""
    out = []
    sources = [(-1, tuple(last_relation))] if last_relation else []
    sources += [(k, tuple(c[:2])) for k, c in enumerate(clauses)]
    for k, (members, ops) in sources:
        if len(members) < 2 or set(ops) != {"="} or not lone(members[0]):
            continue
        member = members[-1]
        if not SIGN.search(member) or len(texts := signed_texts(member)) != 2:
            continue
        values = [plain_number(t, defs) for t in texts]
        if any(v is None for v in values):
            continue
        written = _written_out(clauses[k + 1 :], compact(members[0]), defs)
        kept = [any(_one_of(text, value, v) for v in values) for text, value in written]
        if len(written) > 2 or len(written) == 2 and not any(kept):
            continue  # a list gathered from elsewhere too ("the solutions are $x = 1$, ...")
        for (text, _), is_kept in zip(written, kept, strict=True):
            if is_kept:
                continue
            name = members[0].strip()
            true = f"{name} in {{{fmt(values[0])}, {fmt(values[1])}}}"
            why = f"`{name} = {member}` stands for {fmt(values[0])} and {fmt(values[1])}"
            out.append((ClaimResult("false", f"{name} = {text}", text, true, why), (*texts, text)))
    return out


def _one_of(text: str, value, signed) -> bool:
    """The value is the signed one, or a decimal within a hundredth of it (a rounding)."""
    return same_value(value, signed) or bool(DECIMAL.search(text)) and near(value, signed)


def _written_out(rest: list, name: str, defs: dict) -> list[tuple[str, object]]:
    """The numbers the letter `name` is given right after its `\\pm` value (see the module
    docstring), as (text as written, value)."""
    found: list[tuple[str, object]] = []
    for members, ops, before, after, *_ in rest:
        joins = {"or", "and"} if found else _DRAWS
        if not (word_set(before) <= joins and (found or word_set(before))):
            break
        if len(members) < 2 or set(ops) != {"="} or compact(members[0]) != name:
            break
        if SIGN.search(members[-1]) or set_aside(before, after):
            break
        if DECIMAL.search(members[-1]):
            read = readings(members[-1], defs, decimals=True)
            value = read[0] if len(read) == 1 and not read[0].free_symbols else None
        else:
            value = plain_number(members[-1], defs)
        if value is None:
            break
        found.append((members[-1].strip(), value))
    return found
