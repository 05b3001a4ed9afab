"""Which steps of a chain can be its first error, read from the text alone.

Monte Carlo blames the step across which the completer's success rate falls. A step that
names nothing cannot be a first error whatever the rollouts show, so the `posterior` rule's
model gives it no prior mass (`FirstErrorModel(may_err=...)`, `labels.mc.spare_steps`): no
number (digits of any script, Chinese numerals; an ordinal like "4th" or a list marker "2."
is a position, not a value), no number word, no symbol, formula or variable, and no
operation prescribed ("divide the boxes by the
pencils" can be a wrong plan; "find the total number of marbles" cannot). Such a step is an
opening line ("To solve this problem, we need to follow the order of operations") or a goal
restated. A weak completer's rate can fall across it all the same (the text derails it: it
goes on listing steps or restating the goal), and MC then measured the completer, not the
step (2 right opening lines of the hand-checked first-run chains were blamed so). On
ProcessBench's dev split (`benchmarks/bench_blame.py`) such steps are 90 of the 5,221 steps
a human called right and 5 of the 858 human first errors (prose claims and a list of cases
in olympiad problems: those are given up).

A step that only **restates** cannot be a first error either: every sentence of it says again
what a sentence of the question or of an earlier step said, or is how a sentence of the
question ends (`restates`). If it were wrong, the sentence it repeats would be wrong too,
and that one comes first (or is given). A weak completer loops so ("She has 5 boxes with 2
pencils in each box, which means she has 5 * 2 = 10 pencils." six times over), or lists the
givens ("1. 5 boxes with 2 pencils in each box. 2. 2 pencils in each box."), and its rate
falls after such text: blaming it measured the completer again (the hand-checked chain
c2b63f8c4a9d52043, whose 13 restatements drew 5-8 wrong MC Falses a run). "Says again" is
strict: the same numbers, symbols, math spans and negations in the same order, the words
nearly the same (`SIMILAR`: a pronoun for a name, "Now," for "To solve this problem,"), no
word of a relation among those that differ ("Tom has 5 apples" does not say "Tom has 5 more
apples" again) and no mere reordering ("Ann gives Tom" is not "Tom gives Ann"). The end of a
question's sentence counts from `FRAGMENT` words, with the values at its end, and not from a
sentence with a condition. A word that differs but stands elsewhere in the other sentence has
moved, and roles swapped with it ("Lisa spends a quarter as much as Carly" is not "Carly
spends a quarter as much as Lisa" said again, even where a name occurs twice). A sentence of
the question may also be said again **in other words** (`_paraphrases_a_given`: "2 bags of 8
marbles each" for "Dev has 2 bags with 8 marbles in each bag"): all of its values and no
other in the same order, the same relation words as often ("of" aside), and its other words
a subsequence of the given's: words may be dropped, never added, changed or moved. A step of
under `MIN_WORDS` words is not read as a restatement:
in a case analysis a short "so y = 2" repeated under another case is a new claim. On
ProcessBench's dev split no human first error restates, and 5 of the 5,221 right steps do;
of GSM8K's givens changed as a misreading changes them (a relation word changed or dropped,
a negation added, names or words swapped), `benchmarks/bench_blame.py` counts how many are
still read as said again.

The last step can always err (a wrong outcome must lie somewhere). A spared step after the
first error still gets `after_error`'s label (the chain has gone wrong by then), and one
between right steps is right with them (it adds nothing that could be wrong). Since such a
line can derail the completer for the rest of the chain, the model takes the rate after it
as its own baseline (`labeling.mc.posterior.DERAIL`).
Pure: `re` and `difflib` only.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher

# list markers at the start of a line: "1.", "2)", "-", "*", "•", "(a)", "Step 3:"
_MARKER = re.compile(r"^\s*(?:\d+[.)]|[-*•]|\([a-z0-9]\)|step\s*\d+\s*[:.])\s+", re.I | re.M)
_ORDINAL = re.compile(r"\b\d+(?:st|nd|rd|th)\b", re.I)
_NUMBER_WORD = (r"\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                r"thirteen|fifteen|twenty|thirty|forty|fifty|hundred|thousand|million|billion|"
                r"half|halves|twice|double|triple|dozen|percent)\b")
# an operator, relation or money sign, a backslash (LaTeX) or a math symbol (a class's body)
_SYMBOLS = r"=+\-*/^<>%$\\×÷·√π∞∑∫≤≥≠≈±"
# a lone letter other than "a" and "I", in either case: a variable
_VARIABLE = r"(?<![\w'’])(?![aAiI]\b)[A-Za-z](?![\w'’])"
# a digit of any script, a symbol, Greek or math symbols, a Chinese numeral or operation
# (三, 两, 半, 乘, 除), a variable, a number word, an operation applied
_CONTENT = re.compile(
    r"[\d" + _SYMBOLS + r"\u0370-\u03ff\u2200-\u22ff"
    r"零〇一二三四五六七八九十百千万亿两半倍加减乘除]"
    r"|" + _VARIABLE + r"|" + _NUMBER_WORD
    + r"|\b(?:add|adds|adding|added|subtract\w*|multiply|multiplies|multiplying|multiplied|"
    r"divide|divides|dividing|divided|sum of|product of|difference (?:between|of)|"
    r"quotient of|square root)\b", re.I)


MIN_WORDS = 6  # a shorter step is never read as a restatement (the module docstring)
SIMILAR = 0.85  # word-sequence similarity (difflib's ratio) of a sentence said again
FRAGMENT = 3  # words of the shortest end of a question's sentence read as said again
# words of a relation: a sentence that changes one of them says something else
_RELATION = frozenset(
    "more less fewer than each per every all only times twice half total left remaining "
    "except other another extra additional before after same different but both either "
    "neither and or of by from".split())
_CONDITION = frozenset("if when whenever suppose assume unless".split())
# words that carry no claim of their own: a pronoun for a name, an article, a copula, a
# connective, "to"; "with" and "in" name a containment as "of" does ("2 bags with 8 marbles
# in each bag" is "2 bags of 8 marbles each"). Prepositions that fix a price or a rate
# ("for", "at") are not among them: "3 shirts for $12" is not "3 shirts at $12".
_FUNCTION = frozenset(
    "a an the he she it they we you i his her its their our my your him them us is are was "
    "were be been has have had there this that these those so now then thus hence therefore "
    "which who also with in to".split())
_CONTAINS = "of"  # a relation word a paraphrase may add or drop (above)
# sentence ends, line breaks (a list item each), LaTeX display breaks
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+|\\\\")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?|\d+(?:[.,]\d+)*|[^\w\s]", re.U)
# what a sentence says in values, in order (read lower-cased): a math span whole ($...$,
# \(...\), \[...\]: "arccos" and "arctan" are different claims), numbers, number words,
# function names, symbols, variables
_VALUE = re.compile(r"\$\$.+?\$\$|\$.+?\$|\\\(.+?\\\)|\\\[.+?\\\]|\d+(?:[.,]\d+)*"
                    r"|[" + _SYMBOLS + r"]|" + _VARIABLE
                    + r"|\b(?:sin|cos|tan|cot|sec|csc|arc\w+|log|ln|exp|gcd|lcm|mod|max|min)\b|"
                    + _NUMBER_WORD, re.S)
_NEGATION = re.compile(r"\b(?:not|no|never|none|nor|cannot|\w+n['’]t)\b|≠", re.I)


def _plain(step: str) -> str:
    return _ORDINAL.sub(" ", _MARKER.sub("", step))


def names_nothing(step: str) -> bool:
    """The step names no value, variable or formula (see the module docstring)."""
    return not _CONTENT.search(_plain(step))


def _sentences(text: str) -> list[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]]:
    """(words, values, negations) of each sentence of `text`, lower-cased, without list
    markers or end punctuation."""
    out = []
    for raw in _SENTENCE.split(_MARKER.sub("", text)):  # "1. " is no sentence of its own
        line = raw.strip().rstrip(".!?:;,").lower()
        words = tuple(_WORD.findall(line))
        if words:
            out.append((words, tuple(re.sub(r"\s+", "", v) for v in _VALUE.findall(line)),
                        tuple(m.lower() for m in _NEGATION.findall(line))))
    return out


def _says_again(words: tuple[str, ...], earlier: list[tuple[str, ...]]) -> bool:
    """Some earlier sentence (of the same values and negations) has the same words or nearly:
    difflib's ratio >= SIMILAR, not a mere reordering ("Tom gives Ann" is not "Ann gives
    Tom"), and no word of a relation among the words that differ ("Tom has 5 apples" does
    not say "Tom has 5 more apples" again). Cheap bounds first: a long trace has thousands
    of sentences."""
    for w in earlier:
        if w == words:
            return True
        if 2 * min(len(w), len(words)) < SIMILAR * (len(w) + len(words)):
            continue  # the ratio cannot reach SIMILAR
        matcher = SequenceMatcher(None, words, w, autojunk=False)
        if matcher.quick_ratio() < SIMILAR or sorted(words) == sorted(w) \
                or matcher.ratio() < SIMILAR:
            continue
        ops = [o for o in matcher.get_opcodes() if o[0] != "equal"]
        mine = {x for _, i1, i2, _, _ in ops for x in words[i1:i2]}
        theirs = {x for _, _, _, j1, j2 in ops for x in w[j1:j2]}
        # a word that differs here but stands elsewhere in the other sentence moved: roles
        # swapped ("Lisa spends a quarter as much as Carly" is not "Carly spends a quarter as
        # much as Lisa", though the multisets differ when a name occurs twice)
        moved = {x for x in (mine & set(w)) | (theirs & set(words))
                 if x.isalpha() and x not in _FUNCTION}
        if not (mine | theirs) & _RELATION and not moved:
            return True
    return False


def _stem(word: str) -> str:
    """A plural's singular, roughly ("boxes" -> "box", "berries" -> "berry"): only to match
    "bag" with "bags" in a paraphrase."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("es") and word[:-2].endswith(("x", "ch", "sh", "ss", "z")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _gist(words: tuple[str, ...]) -> tuple[tuple[str, ...], Counter]:
    """(the numbers and the words that carry a claim, in order, plurals as singulars; the
    relation words counted, "of" aside) of a sentence's words."""
    seq = tuple(_stem(x) for x in words if x[0].isdigit() or (
        x.isalpha() and x not in _FUNCTION and x not in _RELATION))
    return seq, Counter(x for x in words if x in _RELATION and x != _CONTAINS)


def _paraphrases_a_given(words: tuple[str, ...], values: tuple[str, ...],
                         given: list[tuple[tuple[str, ...], tuple[str, ...]]]) -> bool:
    """The sentence says a sentence of the question again in other words ("2 bags of 8 marbles
    each" for "Dev has 2 bags with 8 marbles in each bag"): all of its values and no other, in
    the same order; the same relation words as often ("of" aside: it names a containment as
    "with ... in" does); and its numbers and other words, in order, a subsequence of the
    given's (a plural for a singular), so that it may drop a word but never add, change or
    move one ("Lisa spends ... than Carly" is no paraphrase of "Carly spends ... than Lisa").
    Not from a sentence with a condition."""
    if not values:
        return False
    seq, rel = _gist(words)
    for w, v in given:
        if v != values or _CONDITION & set(w):
            continue
        theirs, their_rel = _gist(w)
        rest = iter(theirs)
        if rel == their_rel and all(x in rest for x in seq):
            return True
    return False


def _ends_a_given(words: tuple[str, ...], values: tuple[str, ...],
                  given: list[tuple[tuple[str, ...], tuple[str, ...]]]) -> bool:
    """The sentence is how a sentence of the question ends, `FRAGMENT` words or more ("2
    pencils in each box" of "Grace has 5 boxes with 2 pencils in each box"), with the values
    at its end; not from a sentence with a condition (its end alone would drop the "if")."""
    n, k = len(words), len(values)
    return n >= FRAGMENT and any(
        w[len(w) - n:] == words and v[len(v) - k:] == values and not _CONDITION & set(w)
        for w, v in given)


def restates(steps: Sequence[str], question: str = "") -> tuple[bool, ...]:
    """Per step: every sentence of it says again a sentence of the question or of an earlier
    step, is how a sentence of the question ends, or says one of the question's sentences in
    other words, and it has at least `MIN_WORDS` words (the module docstring)."""
    seen: dict[tuple, list[tuple[str, ...]]] = {}  # (values, negations) -> their sentences
    # negations -> (words, values) of the question's sentences, whose ends and
    # paraphrases are given too
    given: dict[tuple, list[tuple[tuple[str, ...], tuple[str, ...]]]] = {}
    for words, values, negations in _sentences(question):
        seen.setdefault((values, negations), []).append(words)
        given.setdefault(negations, []).append((words, values))
    out = []
    for step in steps:
        mine = _sentences(step)
        size = sum(x[0].isalnum() for w, _, _ in mine for x in w)  # words, not punctuation
        out.append(bool(mine) and size >= MIN_WORDS and all(
            _says_again(w, seen.get((v, n), [])) or _ends_a_given(w, v, given.get(n, []))
            or _paraphrases_a_given(w, v, given.get(n, [])) for w, v, n in mine))
        for words, values, negations in mine:
            seen.setdefault((values, negations), []).append(words)
    return tuple(out)


def may_err(steps: Sequence[str], question: str = "") -> tuple[bool, ...]:
    """Per step: whether it can be the chain's first error (the module docstring): not when
    it names nothing or restates the question or an earlier step; the last step always."""
    again = restates(steps, question)
    return tuple(i == len(steps) - 1 or not (names_nothing(s) or again[i])
                 for i, s in enumerate(steps))


__all__ = ["may_err", "names_nothing", "restates"]
