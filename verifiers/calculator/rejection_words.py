"""The words a step uses around an equation it tests or rejects rather than claims
("which is false", "is not 999", "a contradiction", "check whether", "exceeds 196"), read by
`excuses.tested`; what each list means is said beside it.
"""

NEGATIONS = frozenset(
    "not isn't doesn't don't aren't wasn't won't wouldn't didn't couldn't "
    "cannot can't never no nor neither".split()
)
# Words that reject an equation as written.
FALSE_WORDS = frozenset("false untrue incorrect wrong".split())
# After a negation: the equation does not hold.
HOLDS = frozenset(
    "true correct hold holds equal equals right match matches agree agrees balance".split()
)
# After a negation: the value is not a whole number.
WHOLE_WORDS = frozenset("integer whole integral".split())
# Words that reject a trial (the value tried, the case): only a target's trial is excused.
TRIAL_FAILS = frozenset(
    "contradiction contradicts contradictory impossible absurd fails fail "
    "failed invalid inconsistent".split()
)
# After a negation: the trial does not work.
WORKS = frozenset(
    "possible valid work works satisfy satisfies satisfied solution solutions root roots"
    " consistent help helps".split()
)
# A comparison of the claimed value with a number ("= 222, which exceeds 196"): the value is
# meant, whatever the text rejects next.
COMPARES = frozenset(
    "exceeds exceed exceeding greater less larger smaller bigger more fewer above below than"
    " under over".split()
)
CROSSES = frozenset("✗ ✘ ❌".split())
# A clause of the same sentence that comments on the link opens with one of these.
OPENERS = frozenset(
    "which that this it is isn't does doesn't do don't would so but however no not false hence thus"
    " therefore giving gives a an contradiction clearly obviously wrong incorrect i e that's it's"
    " wait oops hmm actually".split()
)
# A new sentence that still comments on the link opens with one of these.
NEXT_OPENERS = frozenset(
    "this that which it no not false wrong incorrect but however so hence thus therefore"
    " clearly obviously contradiction impossible that's it's wait oops hmm actually".split()
)
ASKS = frozenset("check checking test testing verify verifying see determine confirm".split())
# Between "whether" and the equation only these words may stand ("check whether the equation
# 3^2 + 4^2 = 26 holds"); "to see whether n is prime, we compute 3 * 7 = 22" asks no equation.
ASK_FILLERS = frozenset("the equation identity relation claim statement that indeed really".split())
