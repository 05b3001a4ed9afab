"""Which written relations a step claims, and which it only sets up or solves.

The symbolic checks' abstention rules, in one place. A relation between expressions is one of:

- a **claim** (checked): a link of a chain of rewrites `A = B = C` after its first (the first
  link may be the equation being solved, `2^{x-1} + 3^x = 2^{2x} 3^{-x} = (4/3)^x`); any
  `A = B` whose sides differ by a nonzero constant, or in two letters or more no real point
  satisfies (as an equation it would have no solution, and the text does not say it has
  none: `identities.no_real_point`); a relation between numbers where an exact reading
  adds to the numeric reader's (a log, a binomial, a sum, trig, a factorial, a function the
  chain defined). A false identity stands only if it is also false given every condition the
  problem and the chain wrote about its symbols (`ideals.follows`): "x^3 + y^3 = (x + y)(4(x
  + y) - xy)" after "x^2 + y^2 = 4(x + y)" is a substitution, not a slip.
- a **condition** (not checked as written): an equation with a lone symbol on one side (a
  definition, a substitution, an assignment), one with a number on one side and symbols on the
  other, any other two-member equation. Derivations and claimed solutions are checked
  against conditions.
- a **definition** `f(x) = ...` with no unknown but its argument: read, never checked; later
  `f(2)` is read through it. A function defined twice in different ways is not read at all.
  The links after a definition's first (`f(x) = A = B`) are a chain's, claims as any.

Nothing is judged in a clause the text tests, supposes or rejects ("if", "suppose", "check",
"?", "not", "incorrect", "instead", "extraneous", ...), approximates (`\\approx`, "about"),
reads modulo something (`\\equiv`, "mod"), or sets equal ("same", "equate", "both"). An
equation is compared with the condition just before it only when it follows it directly (in one
display, or across words that derive: "so", "then", "subtract", ...) and never across a case or
an alternative ("or" but "or equivalently", "case", "if", "for" but "solving for", "each"), an
assignment of the unknown, or when both equations share a side ("x - 4 = 1", "x - 4 = 11":
cases). An alternative joined by "or" alone to an equation drawn from another is drawn from
that other too (`2\\sin^2 x - \\sin x - 1 = 0`, "giving" `\\sin x = 1` "or" `\\sin x =
\\frac{1}{2}`: the second keeps none of its roots). A claimed solution is put back into the
condition written just before it in the same step, or, in a step that opens with it, into the
equation (or system) the step before ended on. An equation that keeps one side of the condition
before it after words that rewrite ("expanding", "simplifying", "factor out \\(a\\) on the
right-hand side") claims its other side is the first one's rewritten (`rewritten_sides`), and
so does an unknown given an expression again (`R = (450 - 5n)(500 + 10n)`, then "expanding, R =
..."). A linear inequality in one unknown drawn from the one just before it (in the step or
ending the one before) with only a connective or the words of an operation on both sides
between them is judged against it (`inequalities.Premise`). A value the problem's own equations
force is judged against them (`forced_values`). An old letter's values given right after a new
letter's (`back_substitution`: "Let $a = 2^x$ ... $a = 4$, i.e. $x = 2$") must give the new
letter one of them, and a value a supposed equation gives must solve it (`supposed_values`:
"If $2x - 3 = -5$, then $x = -1$"), and a value read off at a given one must satisfy the
equation its letter was last written in (`evaluated_values`: "When $x = 4$, $y = 9$"), a
`\\pm` value's two written out must be its two (`signed_values`), values named the roots of
the equation after them (`roots_named`) or bare ones of the equation before them must solve it
(`listed_roots`; these six in `value_claims`). An
equation that does not follow from the one before it may be spared by the others written with
it (`spared`).
"""

from __future__ import annotations

import re

from verifiers.calculator.affirmed import affirmed
from verifiers.calculator.affirmed_orders import interval_order
from verifiers.calculator.circle_roots import identity_on_circle
from verifiers.calculator.claim_words import (
    ALTERNATIVES,
    CASES,
    LETTER,
    NOT_CLAIMED,
    SET_EQUAL,
    TRIAL_RESULT,
    TRIES,
    after_words,
    compact,
    confirm_first,
    in_terms_of_itself,
    last_sentence,
    lone,
    name_of,
    numeric,
    refuted_supposition,
    sentence_words,
    supposed_numbers,
    used_fact,
    word_set,
)
from verifiers.calculator.claims import ClaimResult
from verifiers.calculator.complex_numbers import complex_context, complex_link
from verifiers.calculator.congruences import (
    DIVIDES,
    MODULAR_WORDS,
    congruences,
    divisibility,
    drawn_congruence,
)
from verifiers.calculator.definitions import (
    define,
    defining,
    definitions,
    fixing,
    piece_of,
    unfixed,
)
from verifiers.calculator.derivations import derivation, follows_directly, only_rewrites
from verifiers.calculator.eliminations import eliminated
from verifiers.calculator.euler_number import euler_link
from verifiers.calculator.evaluated_values import letters_given
from verifiers.calculator.floor_identities import floor_links
from verifiers.calculator.forced_values import forced
from verifiers.calculator.identities import judge_link
from verifiers.calculator.in_place import numbers_in_place
from verifiers.calculator.inequalities import Premise
from verifiers.calculator.known import defined_anew, rewrites_only
from verifiers.calculator.operations import operated
from verifiers.calculator.paired_displays import paired, system_ended
from verifiers.calculator.relations import admissible
from verifiers.calculator.restated_values import restated_value
from verifiers.calculator.rewritten_sides import named_after, names_rewrite, rewritten_side
from verifiers.calculator.sign_words import signed_value
from verifiers.calculator.signs import SIGN, judged_signed, restated_signed, signed, signed_texts
from verifiers.calculator.solutions import (
    Assignment,
    Condition,
    Step,
    claimed_root,
    solutions,
    unknowns,
)
from verifiers.calculator.spared import spared
from verifiers.calculator.substitutions import substituted, substituting, valued
from verifiers.calculator.sum_formulas import sum_formulas
from verifiers.calculator.value_claims import value_claims
from verifiers.calculator.vieta import vieta_links
from verifiers.calculator.worked_values import worked_links

__all__ = ["judge_step"]

_MAX_KNOWN = 40
# An equation not read (LaTeX, or plain text `plain_algebra.UNREAD`), kept in its place among
# the known ones: it says nothing of any letter, but a root claimed of "the equation" may be its.
_UNREAD = (r"\unread", r"\unread")
_OR = re.compile(r"[\s,]*or[\s,]*")  # nothing but "or" between two alternatives
# Words right after a chain that solve it ("Solving, we find x = 8/5").
_SOLVED_AFTER = re.compile(r"^\W*(?:\w+\W+){0,2}?(?:solving|solve|solved)\b")


def judge_step(payload: tuple) -> tuple[list[ClaimResult], tuple, tuple, dict]:
    """(outcomes, last condition, known conditions, functions) after one step.

    `payload` is (clauses, last, known, defs, given): the step's clauses as (members, ops, before,
    after, region, lead, rest) tuples; what the step before left: its last condition and last
    unknown given an expression, each a (left, right) tuple or (), its last relation as (members,
    ops) or (), the equations it ends on as a group (members, or ()), the last inequality it claimed
    as (left, op, right) or (), and that group again when it may be a system (`system_ended`), or ()
    for all six; every condition the problem and the chain wrote as (left, right) tuples; the
    chain's function definitions {name: (arg, body) or None when ambiguous}; the problem's
    relations' texts; whether the step's numeric claims already hold a False (then no False here is
    confirmed: it could not change the step's verdict)."""
    clauses, last, known, def_texts, given, decided = payload
    known = list(known)
    def_texts = dict(def_texts)
    defs = definitions(def_texts)
    step = Step()
    last_condition, last_named, last_relation, last_group, last_premise, system, written = (
        last or ((),) * 7
    )
    previous = Condition(*last_condition, -1, -1) if last_condition else None
    carried = previous  # the equation the step before ended on: the step may open by solving it
    drawn_from = None  # (source, words) the last condition was drawn from: its alternatives' too
    named = Condition(*last_named, -1, -1) if last_named else None  # the last unknown's expression
    step_words = set().union(*(word_set(c[2]) for c in clauses)) if clauses else set()
    skipped_region = -1
    trials, tried = False, set()  # the letters a trial or a case gave values
    premise = Premise(last_premise)  # the last inequality claimed, to draw the next one from
    pending = opening = None  # values being put into an equation (`substitutions`)
    step_fixed: list[str] = []  # letters this step's own "let" fixed
    # What the text says after a display ("This is a contradiction") speaks of all of it.
    region_after = {c[4]: c[3] for c in clauses}
    unit_i = complex_context(clauses, given)
    for k, (members, ops, before, after, region, lead, rest) in enumerate(clauses):
        words = word_set(before) | after_words(region_after[region])
        # A case, a supposition or another setting named before inline math ("If the width is
        # $w,$ then") cuts it from the relation before, as words right before the clause do.
        opened = sentence_words(lead)
        cased = bool(opened & CASES - {"and", "or"})
        source = clauses[k - 1][:2] if k else last_relation or None  # the relation before it
        if unfixed(def_texts, members, ops, defs):
            defs = definitions(def_texts)  # the problem's constant given another value
        elif (fixed := fixing(members, ops, before, clauses[k + 1 :], def_texts)) is not None:
            define(def_texts, fixed[0], "", members[1])
            defs = definitions(def_texts)
            step_fixed += [] if fixed[1] else [fixed[0]]  # "let a = 3": this step's only
        defined = defining(members, ops, defs)
        if defined:
            # "Completing the square, $g(t) = (t - 2)^2 + 4$" where g(t) was defined: a
            # rewrite of the definition's side, as of any equation's (`rewritten_side`).
            if (old := def_texts.get(defined[0])) and old[0] == defined[1] and len(members) == 2:
                first, here = Condition(members[0], old[1], -1, -1), Condition(*members, k, region)
                if found := rewritten_side(first, here, before, defs, known):
                    step.add(found, (old[1], members[1]), defs)
            if piece_of(rest):  # "$g(x) = 2x$ for $x > 0$, else ...": one piece, the rest unread
                def_texts[defined[0]] = None
            else:
                defined_anew(def_texts, known, *defined, members[1])
            defs = definitions(def_texts)
            if len(members) == 2:
                continue
            previous = None  # `f(x) = A = B`: A defines f; the links after it are rewrites
        # "..., which is true for all x, y > 0": an identity claimed, whatever set it up.
        next_one = clauses[k + 1] if k + 1 < len(clauses) else None
        domain = next_one[1] if next_one and next_one[4] == region + 1 else None
        if after and (found := affirmed(members, ops, after, domain, defs, rest, known)):
            step.add(found, members[-2:], defs)
        # "By inspection, x = 3 is a root of the equation" claims it whatever the sentences
        # before it tried; in a sentence that supposes or checks it, it is not claimed.
        if lone(members[0]) and not word_set(last_sentence(before)) & NOT_CLAIMED:
            if found := claimed_root(members, ops, after, known, defs):
                step.out.append(found)
        if found := signed_value(members, ops, before, defs, source):  # "the positive root: x = -2"
            step.out.append(found)
        if (words | opened) & TRIES:
            # From here on a value this step gives may answer a trial: only a value of another
            # unknown drawn right from its own equation is a solution (`solutions`).
            trials = True
            tried |= {compact(members[0])} if lone(members[0]) else set()
            step.barriers.append(k)
        # "At least one of $2^{20} \\equiv 1 \\pmod{125}$ or ...": alternatives, not claims.
        if not words & (NOT_CLAIMED - MODULAR_WORDS | ALTERNATIVES) and region != skipped_region:
            # `\\gcd(12, 18) = 6`, `\\sum_{k=1}^{n} k = ...`, `\\lfloor 7k/2 \\rfloor = 3k`
            for links in (congruences, divisibility, worked_links, sum_formulas, floor_links):
                step.out.extend(links(members, ops, defs))
            step.out.extend(vieta_links(members, ops, defs, known, step_words))  # `r + s = 5`
            if (found := drawn_congruence(source, (members, ops), before, defs)) is not None:
                step.out.append(found)
            found = not (trials or words & NOT_CLAIMED) and forced(members, ops, defs, known, given)
            if found:  # `a^2 + b^2 = 19` where the problem gave `a + b = 5, ab = 6`
                step.add(*found, defs)
        if set(ops) & DIVIDES:
            continue  # what divides what is judged above (between numbers) or a condition
        if (
            words & NOT_CLAIMED and not supposed_numbers(before, words, members, defs)
            or refuted_supposition(clauses, k)
            or set(ops) & {"~", "===", "!="}
            or SET_EQUAL.search(before.lower())
            or region == skipped_region
        ):
            # A trial or a case, and whatever the same display derives from it; a congruence
            # is judged above, and what the display draws from it with it.
            previous = None
            premise.drop()
            named = None
            judged_above = (
                set(ops) == {"==="}
                and words & NOT_CLAIMED <= MODULAR_WORDS  # only words naming the arithmetic
                and not SET_EQUAL.search(before.lower())
                and region != skipped_region
            )
            if not judged_above:
                skipped_region = region
            step.barriers.append(k)
            continue
        # "Multiply both sides by 20: ...": the relation before it with that operation done.
        said_of = clauses[k - 1][5] if k else ""  # the words before the relation before
        operation = source and operated(lead, source, (members, ops), defs, known, said_of)
        if operation is not None:
            step.add(operation, (*source[0], *members), defs)
        told = lead if not before.strip(" ,.;:") and lead else before  # words cut by math
        if drawn := premise.judged(k, members, ops, (before, after, lead), region, defs):
            step.add(*drawn, defs)
        if found := interval_order(clauses, k, defs):  # "For $0 < x < 1$, $x^2 > x$"
            step.add(*found, defs)
        # The values the clause before put in (for this one), and what this clause puts in.
        earlier = (last_relation, clauses)
        pending, opening = opening, substituting(opening, (members, ops), before, k, earlier)
        # `a = \frac{36000}{2ac}`: an unknown in terms of itself is an equation, not a value.
        assigned = lone(members[0]) and not in_terms_of_itself(members)
        if assigned and ops[0] == "=":
            if k and (found := restated_value(clauses[k - 1], members, ops, before, defs)):
                step.add(*found, defs)
            previous = None  # an unknown given a value: the next equation starts afresh
            named = named_after(named, members, ops, before, k, region, defs, known, step)
            # The value an equation gives with others put in ("Plugging a = 3 into ... gives").
            if not (opening or cased) and (put := valued(pending, members, k, before, known, defs)):
                step.add(*put, defs)
            if (
                len(members) >= 2
                and all(numeric(v, defs) for v in signed_texts(members[-1]))
                and compact(members[0]) not in tried
                and not word_set(after.split(".")[0]) & TRIAL_RESULT
                and set(ops) == {"="}  # `A = C/3 < 60^\\circ` gives A no value
                and not cased  # a value in another setting solves none of these equations
            ):
                step.assignments.append(
                    Assignment(name_of(members[0]), members[-1], k, region, before, after, trials)
                )
        signs = signed(members)
        if k and (found := restated_signed(clauses[k - 1], members, ops, before, defs, known)):
            step.out.append(found)
        for i, op in enumerate(ops):
            left, right = members[i], members[i + 1]
            if SIGN.search(left + right):
                # Two relations at once, judged together; never a condition carried on.
                if signs is not None and not (i == 0 and lone(left)):
                    text = f"{left} {op} {right}"
                    if found := judged_signed(signs, i, op, defs, known, before, text):
                        step.out.append(found)
                continue
            found = complex_link(left, op, right) if unit_i else euler_link(left, op, right, defs)
            if found is not None:  # `(5 - 8i)(30 + 48i) = 150 + 384`, `\\ln e^3 = 3`
                step.add(found, (left, right), defs)
                continue
            if not (admissible(left) and admissible(right)):
                previous = None if op == "=" else previous  # nothing is drawn from it unread
                if op == "=":
                    known.append(_UNREAD)  # "the equation" after it may be this one
                continue
            if compact(f"{left}={right}") in given:
                if op == "=" and len(members) == 2 and LETTER.search(left + right):
                    # The problem's equation restated: the next one may be drawn from it, and
                    # values given after it may solve it (`x = 2` is a value, no equation).
                    previous = Condition(left, right, k, region)
                    if not assigned and unknowns(previous, defs):
                        step.conditions.append(previous)
                continue
            if i == 0 and (assigned or defined):
                continue
            # "(3 - x)^2 = x^2 + 9 - 6x \\cos 60^\\circ = x^2 - 3x + 9. Solving, ...": the text
            # after the chain solves its first link, an equation however its rewrites go on.
            solved = i == 0 and len(members) > 2 and _SOLVED_AFTER.match(after.lower())
            outcome = None if solved else judge_link(
                members, i, op, defs, known, told, said=(lead, rest))
            if outcome is not None:
                step.add(outcome, (left, right), defs)
                # An identity with no equation before it: the next display may rewrite it.
                if previous is None and outcome.outcome == "holds" and LETTER.search(left + right):
                    previous = Condition(left, right, k, region) if len(members) == 2 else None
                continue
            if op != "=" or not LETTER.search(left + right):
                continue
            here = Condition(left, right, k, region)
            if pending and (found := substituted(pending, here, before, known, defs)):
                step.add(*found, defs)
            # A display right after another, with no words between, goes on with the words
            # before the first ("Combine like terms: \\[...\\] \\[...\\]") when they rewrite;
            # after other words ("Subtracting the first equation gives:") both are read bare.
            said = before
            if k and not before.strip(" ,.;:") and names_rewrite(clauses[k - 1][2]):
                said = clauses[k - 1][2]
            elif len(lead) > len(before) and lead.endswith(before.strip()):
                # "Now, factor out \\(a\\):": the words naming the rewrite, then no relation.
                said = last_sentence(lead)
            rewrite = None if previous is None or operation else rewritten_side(
                previous, here, said, defs, known
            )
            if rewrite is not None:
                step.add(rewrite, (previous.left, previous.right, left, right), defs)
            elif previous is not None and not (operation or cased) and follows_directly(
                previous, here, before
            ):
                # Arithmetic done in place is judged as arithmetic: no other equation spares it.
                result = numbers_in_place(previous, here)
                if result is None:
                    result = derivation(previous, here, before, defs, lead)
                    mine = i == 0 and previous.clause >= 0  # the words stand between the two
                    facts = [] if mine and only_rewrites(before, lead) else known
                    if result is not None and spared(here, previous, step, facts, defs, before):
                        result = None
                if result is not None:
                    step.add(result, (previous.left, previous.right, left, right), defs)
                drawn_from = (previous, before)
            elif drawn_from is not None and _OR.fullmatch(before):
                # "giving \\sin x = 1 or \\sin x = \\frac{1}{2}": an alternative is drawn from
                # the equation the first one was (it must keep some of its roots, as that one).
                source, words = drawn_from
                result = derivation(source, here, words, defs)
                if result is not None and not spared(here, source, step, known, defs, words):
                    step.add(result, (source.left, source.right, left, right), defs)
            else:
                drawn_from = None
            if not (i or operation) and (found := eliminated(here, lead, step, system, defs)):
                step.add(found, (left, right), defs)  # "Adding the equations gives $2x = 15$"
            if identity_on_circle(here, defs):
                continue  # a fact used (`\\sin^2 x + \\cos^2 x = 1`): no condition, no source
            step.conditions.append(here)
            if not rewrites_only(members, defs):
                known.append((left, right))
            previous = None if used_fact(before) else here  # no source of the next alone
    for name in step_fixed:
        def_texts.pop(name, None)
    found_pairs, ends_on = paired(clauses, defs, last_group)
    ended = [last_relation or ((), ()), (last_condition, ("=",)), (last_named, ("=",))]
    found_pairs += value_claims(clauses, defs, [*payload[2], *written], ended)
    for found, members_read in found_pairs:
        step.add(found, members_read, defs)
    step.out.extend(solutions(step, defs, step_words, carried, system))
    step.out = confirm_first(step.out, step.unconfirmed, decided)
    last_out = (
        (previous.left, previous.right) if previous is not None else (),
        (named.left, named.right) if named is not None else (),
        (clauses[-1][0], clauses[-1][1]) if clauses else (),  # a supposition too
        ends_on,
        premise.carried(clauses),
        system_ended(clauses, ends_on),
        letters_given(clauses, written),
    )
    return step.out, last_out, tuple(known[-_MAX_KNOWN:]), def_texts
