"""The words and marks around written relations that decide what they claim.

One set of abstention rules for the symbolic checks: the vocabularies (`NOT_CLAIMED`,
`CASES`, `TRIES`, ...) and the small readers of a member's text (`lone`, `free_letters`). What
each word does is said where `claims_kind`, `identities` and `solutions` use it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from verifiers.calculator.applications import confirmable
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.extract import extract_links
from verifiers.calculator.readers import fixed_names, readings, written_exactly
from verifiers.calculator.relations import math_regions, primes_written
from verifiers.calculator.symbolic import compare_identity

WORD = re.compile(r"[a-z]+|\?")
# Commands that only space or set type: other commands (`\\therefore`, `\\pmod`) are words.
_LAYOUT = re.compile(r"\\(?:q?quad|text[a-z]*|mathrm|mbox|hspace)(?![a-z])")
# The clause is tested, supposed, rejected or corrected, not claimed.
NOT_CLAIMED = frozenset(
    "if suppose supposing assume assuming check checking test testing verify verifying try"
    " trying whether when otherwise not isn incorrect wrong mistake instead should error"
    " false contradiction impossible extraneous reject rejected discard invalid doesn"
    " cannot never no neither nor hypothetically would could might ? approximately"
    " about roughly nearly around mod modulo pmod congruent estimate estimated recheck"
    " correction correct actually wait remainder remainders either".split()
)
# Words that set a value aside, suppose, test or round it ("x = 3 is not a solution").
SET_ASIDE = NOT_CLAIMED | {"but", "however", "fails", "works"}


def set_aside(before: str, after: str = "") -> bool:
    """Whether the words before a value, or after it in its sentence, set it aside, suppose,
    test or round it; after it, "if" and "when" open the next case, not this one's."""
    said_after = word_set(after.split(".")[0]) - {"if", "when"}
    return bool((word_set(before) | said_after) & SET_ASIDE)


# Two expressions set equal because each equals a third: a condition, whatever the chain.
# "Setting each factor equal to zero" solves a product: no two expressions are set equal.
SET_EQUAL = re.compile(
    r"\bthe same\b|\bset(ting)?\b(?!\W+each\W+(?:of\W+the\W+)?factors?\W+equal\W+to\W+(?:zero|0)\b)"
    r".{0,25}\bequal|equat(e|ing)\b|are equal"
)
# Words that derive an equation from the one before it.
DERIVES = re.compile(
    r"\bso\b|then|thus|hence|therefore|implies|gives|giving|\bget|obtain|subtract|\badd|divid"
    r"|multipl|simplif|rearrang|\bmov|becomes|yields|leads|expand|isolat|solv|⟹|\\implies"
    r"|\\rightarrow|\\to\b|\\Rightarrow|\\Longrightarrow|\bhave\b|factor|rewr|equivalent"
    r"|combin|distribut|collect",
)
# Arrows that draw one relation from the one before it, in any case (`\\Rightarrow`,
# `\\implies`, the Unicode ones); text is often lowered before it is searched.
ARROWS = re.compile(r"\\(?:implies|rightarrow|longrightarrow)|⟹|⇒", re.IGNORECASE)
# Words that make the next equation a case, an alternative or another equation of a system.
CASES = frozenset(
    "or either case cases if when where suppose otherwise and also second another alternatively"
    " similarly whereas while given for each first other".split()
)
# Words that present values as what solving gave (after equations: "give", "yield"), or an
# arrow, read as "so" (text is lowered before it is searched).
SOLVES = re.compile(
    r"\bso\b|thus|hence|therefore|solv|\bget|gives|\bgive\b|obtain|\bfind|found|\byields?\b|"
    + ARROWS.pattern
)
# ... or as a system's solution: "From these two equations, x = 7 and y = 3".
SOLVES_SYSTEM = re.compile(SOLVES.pattern + r"|\bequations\b|\bsystem\b|\bsolutions?\b", re.I)
# Words that open a trial: a value the step gives after them may answer the trial.
TRIES = frozenset(
    "if for when suppose let plug plugging substitute substituting try trying test testing"
    " check checking".split()
)
# Words after a value that say what it gives when tried ("x = 2 gives us (x - 2) = 0").
TRIAL_RESULT = frozenset("gives give yields yield makes make into".split())
# Words that only join an equation to the value it gives ("... = c, or c = 2336").
CONNECTS = frozenset("or so i e that is which means we get have then giving and".split())
# ... and the words that give values as what solving gave ("Solving ... gives $x = 3$ or $x =
# -3$"): values after them answer the equation before them even when none solves it.
GIVES_VALUES = CONNECTS | frozenset("gives give yields yield obtain find".split())
# Words that make the values a step gives belong to different cases of a system.
ALTERNATIVES = frozenset("or either case cases if suppose otherwise when".split())
# `f(x) = ...`, `g(x, y) = ...`: a function defined by its arguments, each one letter.
FUNC_DEF = re.compile(r"^([a-zA-Z])\s*\(\s*([a-z](?:\s*,\s*[a-z])*)\s*\)$")
# A letter outside a command: the member may hold an unknown.
LETTER = re.compile(
    r"(?<![\\A-Za-z])[A-Za-z]|\\(?:alpha|beta|gamma|delta|theta|lambda|mu|phi|psi|omega|sigma"
    r"|tau|rho)(?![A-Za-z])"
)
COMMANDS = re.compile(r"\\[A-Za-z]+")
GREEK_COMMAND = re.compile(
    r"\\(?:alpha|beta|gamma|delta|theta|lambda|mu|phi|psi|omega|sigma|tau|rho)(?![A-Za-z])"
)
BARE_LETTERS = re.compile(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])")
PLAIN = re.compile(r"^\s*-?\s*\d+(\.\d+)?\s*$")
LONE = re.compile(
    r"^(?:[A-Za-z]|\\(?:alpha|beta|gamma|delta|theta|lambda|mu|phi|psi|omega|sigma|tau|rho))"
    r"(?:_\{?\w+\}?)?$"
)


# Words of a step without math that take back what the step before it wrote ("Wait, that
# equation is wrong; let me redo it."): nothing that step ended on is carried past them.
_RETRACTS = frozenset(
    "wait wrong mistake mistakes incorrect error oops actually recheck correction redo"
    " reconsider contradiction contradicts impossible invalid extraneous".split()
)


def retracts(text: str) -> bool:
    return bool(word_set(text) & _RETRACTS)


# "Simplifying $x-7=x+1$ gives $0=8$, which has no solutions": the sentence shows the equation
# has none, so it is a case solved to nothing, not an identity claimed. The phrase is read in
# the equation's sentence; NO_SOLUTION_WORDS, any of its words anywhere in a step, is the wider
# net `linear_equations` casts before it calls a linear identity's constants a slip.
NO_SOLUTION_WORDS = frozenset("no solution solutions contradiction impossible never cannot".split())
_NO_SOLUTION = re.compile(
    r"\bno\s+(?:real\s+)?(?:solutions?|roots?|values?)\b|\bimpossible\b|\bcontradict\w*|\bnever\b",
    re.IGNORECASE,
)


def says_none_solve(before: str, rest: str) -> bool:
    """Whether the equation's sentence (the words before it, the rest after it) says it has no
    solution ("so no values of $x$ satisfy $x-7 = x+1$" too)."""
    sentence = last_sentence(before) + " " + first_sentence(rest)
    return bool(_NO_SOLUTION.search(sentence))


# "If $\log 2 - \log 3 = 0$, then $\log 2 = \log 3$. This cannot be true": what a
# supposition leads to, refuted in its sentence or the next, is not claimed (a proof by
# contradiction). A bare negation ("so A cannot be more than 3") refutes nothing.
_SUPPOSES = frozenset("if suppose supposing assume assuming".split())
_SUPPOSITION = re.compile(rf"\b(?:{'|'.join(_SUPPOSES)})\b", re.IGNORECASE)
_REFUTES = re.compile(
    r"\b(?:contradict\w*|impossible|absurd|(?:not|cannot|can't|isn't)\W+(?:\w+\W+)?"
    r"(?:true|possible|valid|hold|holds|happen))\b",
    re.IGNORECASE,
)


def supposed_numbers(before: str, words: set[str], members: tuple, defs: dict) -> bool:
    """A relation between numbers after a supposition in words that closed before it ("with
    a sign change if the degree is even: \\[\\tan\\frac{\\pi}{7} \\cdots = \\sqrt{7}\\]"):
    arithmetic in a case is claimed, as the numeric reader reads it. Not a relation the
    supposition governs ("if \\(\\log 2 - \\log 3 = 0\\)"), nor one words after it qualify."""
    said = word_set(before) & NOT_CLAIMED
    if not said or said != words & NOT_CLAIMED or not said <= _SUPPOSES:
        return False
    tail = _SUPPOSITION.split(before)[-1]
    if not re.search(r"[A-Za-z]\W*[:,;]\s*$", tail):
        return False  # the supposition goes on into this relation
    return all(numeric(m, defs) for m in members)


def refuted_supposition(clauses: list, k: int) -> bool:
    """Clause `k` (members, ops, before, after, ...) follows a supposition made earlier in its
    sentence, and the words after it, to the end of the next sentence, refute it."""
    said = []
    for j in range(k, -1, -1):
        before = clauses[j][5] or clauses[j][2]  # inline math in the words too (`$x$`)
        said.append(last_sentence(before))
        if j < k and lone(clauses[j][0][0]):
            return False  # a value tried ("if n = 4, then ..."): what it leads to is claimed
        if last_sentence(before) != before or word_set(said[-1]) & _SUPPOSES:
            break  # the sentence opened in these words, or the supposition was made in them
    if not word_set(" ".join(said)) & _SUPPOSES:
        return False
    after = clauses[k][6] or clauses[k][3]  # past the relations joined to it ("or $10=-10$")
    return bool(_REFUTES.search(" ".join(re.split(r"(?<=[.!?])\s", after)[:2])))


def first_sentence(text: str) -> str:
    """What `text` says up to its first ".", "!" or "?" followed by a space, that included."""
    return re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]


def last_sentence(text: str) -> str:
    """What `text` says after its last ".", "!" or "?" and a space: the words of the sentence
    the next relation stands in (empty when a new sentence opens right before it)."""
    return re.split(r"[.!?]\s", text)[-1]


def prose(text: str) -> str:
    """The text with its math regions cut out: the words that stand between two clauses."""
    out, last = [], 0
    for start, end, _ in math_regions(text):
        out.append(text[last:start])
        last = end
    return " ".join([*out, text[last:]]).strip()


def sentence_words(lead: str) -> set[str]:
    """The words before a clause in its sentence, those before inline math too: in "If the
    width is $w,$ then $2x = 10$" the words right before the clause are only "then" (`lead`:
    the text since the clause before, math in it)."""
    return word_set(last_sentence(prose(lead)))


# ", which is not 100%": after a relation, the value is claimed and another one denied (the
# numeric reader's `excuses.tested` reads the comment so); "which is not correct" rejects it.
_DENIES_ANOTHER = re.compile(
    r"^\W*(?:which|that|this)\s+is\s+not\s+(?:equal\s+to\s+)?(?:-?\d[\d.,]*\s*%?(?!\w)|$)",
    re.IGNORECASE,
)


def after_words(after: str) -> set[str]:
    """The words of the sentence after a relation that speak of it (`word_set`)."""
    return word_set(_DENIES_ANOTHER.sub("", after.split(".")[0], count=1))


def word_set(text: str) -> set[str]:
    # "or equivalently" restates what came before; it opens no alternative. "Solving for k"
    # names the unknown solved for; its "for" opens no case. Spacing is no word: the
    # `\\quad` around typed words (`x = 3 \\quad\\text{or}\\quad x = -3`) says nothing.
    # "Setting each factor equal to zero" sets every factor at once: its "each" opens no case.
    text = _RESTATED.sub("", _METHOD_TRIED.sub("", _LAYOUT.sub(" ", text.lower())))
    return set(WORD.findall(_SOLVING_FOR.sub(r"\1", _EVERY_FACTOR.sub("", text))))


def solving_for(words: list[str]) -> list[str]:
    """A clause's words in order, less the "for" of "solving for" (see `word_set`)."""
    return [w for i, w in enumerate(words) if not (i and w == "for" and _SOLVE.match(words[i - 1]))]


_RESTATED = re.compile(r"\bor\W+(?=equivalently\b)")
_EVERY_FACTOR = re.compile(r"\beach\W+(?=(?:of\W+the\W+)?factors?\b)")
# "Add the three equations to see if we can simplify:" tries a method, not a value: what
# follows is what the method gives ("see if we can satisfy it" still tries one).
_METHOD_TRIED = re.compile(
    r"\bsee (?:if|whether) we can (?=(?:simplify|manipulate|combine|eliminate|factor|rewrite)\b)"
)
_SOLVE = re.compile(r"solv(?:e|es|ed|ing)$", re.IGNORECASE)
_SOLVING_FOR = re.compile(r"\b(solv(?:e|es|ed|ing))\W+for\b")


# Words that bring a relation in as a fact used on something else ("Using the fact that
# \(ar^3 = 17\), we can rewrite this as: ..."): what follows is not drawn from it alone.
_USED = re.compile(
    r"\b(?:using|use|with|given|knowing|recall(?:ing)?|remember(?:ing)?)"
    r"(?:\s+(?:the|this|our))?(?:\s+(?:fact|relation|equation|identity|result|condition))?"
    r"(?:\s+that)?[\s,:]*$",
    re.IGNORECASE,
)


def used_fact(before: str) -> bool:
    """Whether the words before a relation bring it in as a fact used on something else."""
    return bool(_USED.search(before))


def lone(member: str) -> bool:
    return bool(LONE.match(member.replace(" ", "")))


def compact(text: str) -> str:
    return re.sub(r"\s+", "", text)


def writes(text: str, name: str) -> bool:
    """Whether the text writes the name (`x`, `a_1`) as a whole, not inside a longer name or
    a command."""
    return re.search(rf"(?<![A-Za-z\\_]){re.escape(name)}(?![A-Za-z_])", text) is not None


def in_terms_of_itself(members: tuple[str, ...]) -> bool:
    """A lone unknown whose one other member writes it again (`x = \\frac{6}{x - 1}`)."""
    return len(members) == 2 and writes(members[1], compact(members[0]))


def name_of(member: str) -> str:
    """A lone unknown's name as the reader names its symbol (`a_{10}` is `a_10`)."""
    return re.sub(r"_\{(\w+)\}", r"_\1", compact(member))



def numeric(member: str, defs: dict) -> bool:
    if LETTER.search(member) and not applies(member, defs) and not fixed_names(defs):
        return False
    found = readings(member, defs)
    return bool(found) and not any(e.free_symbols for e in found)


def free_letters(text: str, defs: dict) -> bool:
    """Whether the text names an unknown: a letter that is neither a sum's or product's bound
    variable (`\\sum_{k=1}^{10} k`) nor a function the chain defined, applied."""
    bound = set(re.findall(r"_\s*\{\s*([A-Za-z])\s*=", text))
    if defs:
        text = applied(defs).sub("(", primes_written(text))
    if GREEK_COMMAND.search(text):
        return True
    letters = set("".join(re.findall(r"[A-Za-z]+", COMMANDS.sub(" ", text))))
    return bool(letters - bound - fixed_names(defs))


def applies(text: str, defs: dict) -> bool:
    functions = set(defs) - fixed_names(defs)  # a letter fixed to a number is applied to nothing
    return bool(functions) and applied(defs).search(primes_written(text)) is not None


def applied(defs: dict) -> re.Pattern:
    """A function the chain defined, applied (`f(`), or its derivative (`f'(`, `f''(`), in a
    text whose primes are written as apostrophes (`relations.primes_written`)."""
    names = "".join(sorted(set(defs) - fixed_names(defs))) or "^\\s\\S"  # none: nothing matches
    return re.compile(rf"(?<![A-Za-z\\])[{names}]'*\s*\(")



def confirmed(members: tuple[str, ...], defs: dict | None = None) -> bool:
    """Whether `latex2sympy2_extended` reads every member as the same expression we do: a
    False stands only when two readers agree on what is written."""
    for member in members:
        # Decimals read as written: whether a rounding excuses the claim is the caller's.
        ours = readings(member, defs, decimals=True)
        if not ours and (parts := confirmable(member))[1:]:
            # A function nobody defined, applied: its arguments and what stands around them.
            if not confirmed(tuple(parts), defs):
                return False
            continue
        theirs = [written_exactly(e) for e in readings(member, defs, library=True, decimals=True)]
        if not ours:
            return False
        if applies(member, defs):
            continue  # `h(-1)` applies a function the chain defined; the library reads -h
        if not theirs:
            continue  # the library cannot read it (`\\log_2 (4x)`, `f(x + 1)`): ours stands
        if len(ours) != len(theirs):
            return False
        for a, b in zip(ours, theirs, strict=True):
            if (b.free_symbols - a.free_symbols) or compare_identity(a, b)[0] != "holds":
                return False
    return True


def numeric_reads(outcome: ClaimResult) -> bool:
    """Whether a relation between numbers is one the numeric reader reads as well: then it is
    that reader's to judge (it knows the roundings, units and stages that excuse one)."""
    return outcome.numbers and _numeric_reader_reads(outcome.text)


def left_to_numbers(text: str) -> ClaimResult | None:
    """The abstention for a relation between numbers that the numeric reader reads (None:
    it does not, and the symbolic checks judge it)."""
    if not _numeric_reader_reads(text):
        return None
    return ClaimResult("skipped", text, reason="the numeric reader's to judge", numbers=True)


@lru_cache(maxsize=8192)  # asked of each outcome, and a chain restates its relations
def _numeric_reader_reads(text: str) -> bool:
    return bool(extract_links(f"${text}$"))


def confirm_first(
    out: list[ClaimResult], unconfirmed: dict[int, tuple[tuple[str, ...], dict]], decided: bool
) -> list[ClaimResult]:
    """The outcomes with their Falses confirmed in order up to the first that stands: only a
    step's first False makes its verdict, and the library's reader costs tens of
    milliseconds a new member. Past it (or when the step's numeric claims already hold a
    False, `decided`), a False left unconfirmed is set aside, not claimed."""
    done = []
    for i, outcome in enumerate(out):
        if i in unconfirmed:
            if decided:
                outcome = ClaimResult("skipped", outcome.text, reason=_DECIDED)
            else:
                outcome = confirm(outcome, *unconfirmed[i])
        decided = decided or (outcome.outcome == "false" and not numeric_reads(outcome))
        done.append(outcome)
    return done


_DECIDED = "not confirmed: an earlier False decides the step"


def confirm(outcome: ClaimResult, members: tuple[str, ...], defs: dict) -> ClaimResult:
    """A False only where the library's reader reads every member as ours does (a relation
    the numeric reader reads is left to it, unconfirmed: the chain's verdict drops it)."""
    if numeric_reads(outcome) or confirmed(members, defs):
        return outcome
    disagree = "the two readers disagree on what is written"
    return ClaimResult("skipped", outcome.text, reason=disagree)


# What may stand between two displays that continue one another: arrows, `\\iff`, punctuation.
_JOINS = re.compile(ARROWS.pattern + r"|\\iff|[,;.:]", re.IGNORECASE)


def nothing_between(before: str) -> bool:
    """Nothing but arrows and punctuation between two relations."""
    return not re.search(r"[a-z]", _JOINS.sub(" ", before.lower()))
