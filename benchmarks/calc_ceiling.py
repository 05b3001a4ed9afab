"""How far reading written relations could take the calculator on human first errors.

    PYTHONPATH=. .venv/bin/python benchmarks/calc_ceiling.py [--subset math ...] [--show]

Data: the ProcessBench dev split, as `benchmarks/calc_first_flag.py` reads it. For each chain
with a human first error that the calculator does not flag there, the first-error step's
equalities are read member by member with the calculator's own reader, without any context
(no definitions, no conditions, no words) and without any of its abstentions: a link whose two
members differ as numbers, or as expressions in the same letters at random points, is a
relation false as written. Those steps are what a checker of written relations could still
reach; every other unflagged first error is wrong in a way no written relation shows (a
setup, a count, a formula, a claim in words), or in a relation the reader cannot read.

`ceiling` = (first errors flagged + unflagged first errors with such a link) / erroneous
chains. `unread`: the other unflagged first errors with an equality the reader cannot read
(a member outside its grammar), where a wider reader might find more. `blind` counts the
steps humans judged right (before the first error, or in an all correct chain) that hold such
a link: equations set up or tested, cases, roundings, the relations a checker must abstain on.
It says what reading without context would cost, and why the calculator's guards exist.

Derivations and claimed solutions are equations in unknowns, not links false as written:
`drawn` counts the other unflagged first errors holding an equation in one unknown whose
roots differ from those of the last equation in that unknown before it (`drawn_links`), an
over-count, since cases, values tried and new set-ups reuse letters; `+drawn` is the ceiling
with them, `blind_drawn` the right steps holding one. Not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "processbench_dev"
SUBSETS = ("gsm8k", "math", "olympiadbench", "omnimath")


def false_links(step: str, unread: list | None = None) -> list[str]:
    """The equality links of `step` false as written (see the module docstring); the links
    with a member the reader cannot read go to `unread`."""
    from verifiers.calculator.plain_algebra import delimited
    from verifiers.calculator.readers import readings
    from verifiers.calculator.relations import clauses
    from verifiers.calculator.symbolic import compare_identity

    found = []
    for clause in clauses(delimited(step)):
        if set(clause.ops) != {"="}:
            continue
        for left, right in zip(clause.members, clause.members[1:], strict=False):
            a, b = readings(left, {}), readings(right, {})
            if (not a or not b) and unread is not None:
                unread.append(f"{left} = {right}")
            if len(a) != 1 or len(b) != 1 or a[0].free_symbols != b[0].free_symbols:
                continue  # unread, read two ways, or an equation in unknowns
            try:
                verdict = compare_identity(a[0], b[0])[0]
            except Exception:  # noqa: BLE001 - a reading sympy cannot evaluate is not counted
                continue
            if verdict == "false":
                found.append(f"{left} = {right}")
    return found


def _one_unknown(clause) -> tuple | None:
    """(unknown, its roots) for a clause that is one polynomial equation in one unknown."""
    from verifiers.calculator.readers import readings
    from verifiers.calculator.symbolic import roots_of

    if clause.ops != ("=",):
        return None
    a, b = (readings(m, {}) for m in clause.members)
    if len(a) != 1 or len(b) != 1 or len((a[0] - b[0]).free_symbols) != 1:
        return None
    (x,) = (a[0] - b[0]).free_symbols
    try:
        roots = roots_of(a[0] - b[0], x)
    except Exception:  # noqa: BLE001 - an equation sympy cannot solve is not counted
        return None
    return (x, roots) if roots else None


def drawn_links(steps: list[str]) -> list[list[str]]:
    """For each step, its equations in one unknown whose roots neither lie among those of
    the last equation in that unknown before them in the chain nor hold them all: every
    derivation that changes the roots of the one it came from, and every value claimed
    against it (`2x + 5 = 11`, then `2x = 16`; `x = 4` for `x^2 - 5x + 6 = 0`). An
    over-count: cases, values tried and new set-ups reuse letters too."""
    from verifiers.calculator.plain_algebra import delimited
    from verifiers.calculator.relations import clauses

    last, out = {}, []
    for step in steps:
        out.append([])
        for clause in clauses(delimited(step)):
            if (cur := _one_unknown(clause)) is None:
                continue
            before = last.get(cur[0])
            if before and not (cur[1] <= before or before <= cur[1]):
                out[-1].append(" = ".join(clause.members))
            last[cur[0]] = cur[1]
    return out


def census(subset: str, data: Path = DATA) -> tuple[dict[str, int], list[tuple[str, int, list]]]:
    """(counts, the unflagged first errors holding a false link) for one subset."""
    from verifiers.calculator.verifier import CalculatorVerifier

    counts = dict.fromkeys(
        ("erroneous", "recalled", "reachable", "drawn", "unread", "blind", "blind_drawn"), 0
    )
    reachable = []
    calc = CalculatorVerifier(timeout_s=2.0)
    try:
        for r in json.loads((data / f"{subset}.json").read_text()):
            human = r["label"]
            verdicts = calc.check_steps(r["steps"], r["problem"])
            drawn = drawn_links(r["steps"])
            for i, step in enumerate(r["steps"][: human if human >= 0 else None]):
                if verdicts[i].status != "incorrect":
                    counts["blind"] += bool(false_links(step))
                    counts["blind_drawn"] += bool(drawn[i])
            if human < 0:
                continue
            counts["erroneous"] += 1
            if verdicts[human].status == "incorrect":
                counts["recalled"] += 1
            elif links := false_links(r["steps"][human], unread := []):
                counts["reachable"] += 1
                reachable.append((r["id"], human, links))
            elif links := drawn[human]:
                counts["drawn"] += 1
                reachable.append((r["id"], human, ["drawn:", *links]))
            else:
                counts["unread"] += bool(unread)
    finally:
        calc.close()
    return counts, reachable


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subset", nargs="+", choices=SUBSETS, default=list(SUBSETS))
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--show", action="store_true", help="print each reachable first error")
    args = parser.parse_args()
    rows = []
    for subset in args.subset:
        counts, reachable = census(subset, args.data)
        rows.append((subset, counts))
        for chain, step, links in reachable if args.show else ():
            print(f"[{chain} step {step}] " + " ;; ".join(links)[:300])
    print(
        f"\n{'subset':14} {'err':>5} {'recalled':>8} {'reachable':>9} {'recall':>7}"
        f" {'ceiling':>7} {'drawn':>5} {'+drawn':>6} {'unread':>6} {'blind':>6}"
        f" {'blind_drawn':>11}"
    )
    for subset, c in rows:
        n = c["erroneous"] or 1
        print(
            f"{subset:14} {c['erroneous']:>5} {c['recalled']:>8} {c['reachable']:>9}"
            f" {c['recalled'] / n:>7.3f} {(c['recalled'] + c['reachable']) / n:>7.3f}"
            f" {c['drawn']:>5} {(c['recalled'] + c['reachable'] + c['drawn']) / n:>6.3f}"
            f" {c['unread']:>6} {c['blind']:>6} {c['blind_drawn']:>11}"
        )


if __name__ == "__main__":
    main()
