"""How well the section cut finds the turns of a trace, measured so that nothing is tuned to the
records it is scored on. Prints figures.

    .venv/bin/python benchmarks/bench_sections.py loo        # DeltaBench's 4 dev records
    .venv/bin/python benchmarks/bench_sections.py composed   # restarts in sampled attempts

`loo`: leave-one-out over DeltaBench's dev records for the cut's free choices (`CLOSED_BONUS`,
`SMALL_SHARE` in `labeling.steps.sections`, and the strength of a correction cue in
`labeling.steps.cues`): for each record, the choice from a small grid with the best boundary
recall on the other three (ties: the shipped one, then the grid's order) cuts the held-out
record; the held-out hits are summed. Recall is
`bench_traces.py split`'s: human section starts 2..n that one of our starts hits within one
paragraph. Also prints, per record, our section count over the human one.

`composed`: long traces made of several sampled attempts at one problem (the BiRM samples of
`math_shepherd_sample/`, three generators, ten problems each; an attempt's steps are its
paragraphs), one attempt after another the way a thinking model starts over. The marked
boundaries are where each attempt after the first starts; nobody chose them by looking at the
cut. Two forms: the attempts as sampled (each ends "The answer is: ..."), and with that last
line dropped (a restart without a closed thought). Recall at `max_sections` = the marked
count and twice it: whether the restarts are among the strongest turns of the trace.
"""

from __future__ import annotations

import bisect
import itertools
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_traces import DELTABENCH, _even, _para_starts, _records, _score  # noqa: E402
from labeling.steps import cues, sections  # noqa: E402
from labeling.steps.sections import SectionOptions, section_spans  # noqa: E402

SHEPHERD = ROOT.parent / "shared" / "data" / "math_shepherd_sample"
PROCESSBENCH = ROOT.parent / "shared" / "data" / "processbench_dev"
GRID = {"CLOSED_BONUS": (0.0, 0.5, 1.0, 2.0, 3.0), "SMALL_SHARE": (0.05, 0.1, 0.25),
        "correction": (2, 3)}
_TABLE = cues._COMPILED


def _hits(text: str, human: list[int], last: int, opts: SectionOptions) -> tuple[int, int]:
    """(human boundaries hit within one paragraph, our section count) for one trace."""
    starts = _para_starts(text)
    mine = [bisect.bisect_right(starts, a) for a, _ in section_spans(text, opts)]
    return _score(mine, human, last)[0], len(mine)


def _with(choice: dict[str, float]) -> None:
    """Cut with `choice`: the sections module's constants, and the correction cues' strength
    (the compiled cue table rebuilt with it)."""
    for name, value in choice.items():
        if name == "correction":
            cues._COMPILED = tuple((move, int(value) if move == cues.Move.correction else k,
                                    lang, pattern) for move, k, lang, pattern in _TABLE)
        else:
            setattr(sections, name, value)


def loo(path: Path, opts: SectionOptions) -> None:
    records = _records(path)
    shipped = {name: getattr(sections, name) for name in GRID if name != "correction"}
    shipped["correction"] = next(k for move, k, _, _ in _TABLE if move == cues.Move.correction)
    pairs = [dict(zip(GRID, values, strict=True)) for values in itertools.product(*GRID.values())]
    table: list[list[tuple[int, int]]] = []  # [pair][record] -> (hits, count)
    for pair in pairs:
        _with(pair)
        table.append([_hits(d["long_cot"], [s["start"] for s in d["sections"]][1:],
                            d["sections"][-1]["end"], opts) for d in records])
    _with(shipped)
    bounds = [len(d["sections"]) - 1 for d in records]
    print(f"section_tokens={opts.tokens} max_sections={opts.max_sections}; grid {GRID}")
    held = 0
    for r, d in enumerate(records):
        rest = [k for k in range(len(records)) if k != r]
        best = max(range(len(pairs)), key=lambda p: (sum(table[p][k][0] for k in rest),
                                                      pairs[p] == shipped, -p))
        hits, count = table[best][r]
        held += hits
        print(f"{d['id'][:8]} held out: chosen {pairs[best]}, recall {hits}/{bounds[r]}, "
              f"sections {count} / human {len(d['sections'])} = "
              f"{count / len(d['sections']):.2f}")
    p0 = pairs.index(shipped)
    print(f"leave-one-out recall {held}/{sum(bounds)} = {held / sum(bounds):.3f}; shipped "
          f"constants on all four {sum(h for h, _ in table[p0])}/{sum(bounds)} = "
          f"{sum(h for h, _ in table[p0]) / sum(bounds):.3f}")


def _attempts(source: str) -> list[list[list[str]]]:
    """Groups of attempts (each a list of steps) to compose traces from. `birm`: the sampled
    attempts at one problem, per problem of every BiRM file; `processbench`: solutions of six
    different problems in file order (a trace that moves on to a new sub-problem), from
    ProcessBench's OlympiadBench and Omni-MATH sets."""
    if source == "birm":
        return [[[s.strip() for s in o["response"].split("ки") if s.strip()]
                 for o in row["outputs"]]
                for path in sorted(SHEPHERD.glob("birm_*.jsonl")) for row in _records(path)]
    groups = []
    for name in ("olympiadbench", "omnimath"):
        rows = json.loads((PROCESSBENCH / f"{name}.json").read_text())
        steps = [[s.strip() for s in r["steps"] if s.strip()] for r in rows]
        groups += [steps[k:k + 6] for k in range(0, len(steps) - 5, 6)]
    return groups


def _composed(source: str, attempts_per_trace: int,
              closed: bool) -> list[tuple[str, list[int]]]:
    """(trace, 1-based paragraph numbers where attempts 2.. start) for every group of
    `_attempts(source)`: its first `attempts_per_trace` attempts with at least three steps;
    `closed=False` drops each attempt's last step (its stated answer)."""
    out = []
    for group in _attempts(source):
        attempts = [steps if closed else steps[:-1] for steps in group]
        attempts = [steps for steps in attempts if len(steps) >= 3][:attempts_per_trace]
        if len(attempts) < 2:
            continue
        marks, paras = [], []
        for steps in attempts:
            marks.append(len(paras) + 1)
            paras.extend(steps)
        out.append(("\n\n".join(paras), marks[1:]))
    return out


def composed(attempts_per_trace: int) -> None:
    for source, closed in itertools.product(("birm", "processbench"), (True, False)):
        traces = _composed(source, attempts_per_trace, closed)
        form = "as sampled" if closed else "last step dropped"
        for factor in (1, 2):
            hit = even = total = 0
            for text, marks in traces:
                opts = SectionOptions(max_sections=factor * (len(marks) + 1))
                starts = _para_starts(text)
                h, count = _hits(text, marks, len(starts), opts)
                spread = [bisect.bisect_right(starts, a) for a in _even(text, count)]
                hit, total = hit + h, total + len(marks)
                even += _score(spread, marks, len(starts))[0]
            print(f"{source}: {len(traces)} traces of {attempts_per_trace} attempts, {form}, "
                  f"max_sections = {factor}x marked: starts hit within one paragraph "
                  f"{hit}/{total} = {hit / total:.3f} (as many cuts spaced evenly: "
                  f"{even / total:.3f})")


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    s = sub.add_parser("loo")
    s.add_argument("--path", type=Path, default=DELTABENCH)
    s.add_argument("--tokens", type=int, default=SectionOptions().tokens)
    s.add_argument("--max-sections", type=int, default=SectionOptions().max_sections)
    c = sub.add_parser("composed")
    c.add_argument("--attempts", type=int, default=6)
    args = ap.parse_args()
    if args.what == "loo":
        loo(args.path, SectionOptions(args.tokens, args.max_sections))
    else:
        composed(args.attempts)


if __name__ == "__main__":
    main()
