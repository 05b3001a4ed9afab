"""The first error of a chain: one rule, for every place that asks.

`first_error(labels)` reads per-step labels (True right, False wrong, None unlabeled):
- the index of the first step labeled False. An unlabeled step before it does not hide it:
  a step proven wrong is wrong whatever came before it, and later steps follow a wrong one;
- -1 only when every step is labeled True (ProcessBench's "all steps correct");
- None when no step is labeled False and some step is unlabeled: nothing was located and
  nothing proven right, so "no error" would be a guess.
The shard column `first_error_step`, each source's first error in the label policies and
the audit, and the review pack all use it.

`first_flag(flags)` is a different question, asked where a labeler *flags* steps (a
`calc`/`tests` `incorrect` verdict, a PRM score under the ProcessBench threshold): the
prediction ProcessBench scores, which takes every unflagged step as accepted. So it is
`first_error` over "flagged = wrong, else right", and -1 when nothing is flagged; an
exact source that flagged nothing has found no error, which is not a claim that there is none
(`labeling.combine` treats it so).

`located_first_error(labels)` answers "has the first error been found exactly?": the same
index only when every step before it is labeled True, else None. A search for the first error
(MC's binary search, `labeling.mc`) and the benchmarks that grade it ask this:
`[None, None, False]` has a first step labeled wrong (2) but its first error may be any of
the three steps.

`prefix_claim(labels)` is its complement for a labeler that judges every step (MC, the
judge): the first step labeled False when it is *not* located (an unlabeled step comes
before it) and is not the last step (the chain's own answer). Such a False says "the chain
has gone wrong by here" (`labeling.audit.claims`: a prefix claim), not "this step is wrong".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def first_error(labels: Sequence[bool | None]) -> int | None:
    """The chain's first error under the module's rule: the first False; -1 only when every
    step is True (and for no step at all); None when no step is False and one is None."""
    for i, x in enumerate(labels):
        if x is False:
            return i
    return -1 if all(x is True for x in labels) else None


def first_flag(flags: Iterable[bool]) -> int:
    """The first flagged step, -1 when none is flagged: a flagging labeler's prediction,
    unflagged steps taken as accepted (see the module docstring)."""
    found = first_error([not f for f in flags])
    assert found is not None  # every step is labeled here
    return found


def located_first_error(labels: Sequence[bool | None]) -> int | None:
    """`first_error(labels)` when every step before it is labeled True, else None."""
    found = first_error(labels)
    if found is None or found < 0 or all(x is True for x in labels[:found]):
        return found
    return None


def prefix_claim(labels: Sequence[bool | None]) -> int | None:
    """The first False when an unlabeled step comes before it and it is not the last step;
    else None (no False, a located one, or only the last step's)."""
    found = first_error(labels)
    if found is None or found < 0 or found == len(labels) - 1:
        return None
    return None if located_first_error(labels) == found else found


__all__ = ["first_error", "first_flag", "located_first_error", "prefix_claim"]
