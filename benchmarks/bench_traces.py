"""Reasoning traces: how the section cut compares with DeltaBench's human sections, what MC
costs over sections against over paragraphs, and how many human error sections `calc` or
the judge flags. Prints figures; times are wall clock of this process.

    .venv/bin/python benchmarks/bench_traces.py split      # DeltaBench's 4 dev examples
    .venv/bin/python benchmarks/bench_traces.py mc --traces 20 --paragraphs 300
    .venv/bin/python benchmarks/bench_traces.py flags runs/db_human runs/db_sections

`split`: per record, paragraphs (`long_cot.split("\\n\\n")`, DeltaBench's indexing), the
human section count and ours, the share of human section boundaries (starts of sections 2..n)
that one of our section starts hits within one paragraph (recall), the share of our starts
within one paragraph of a human one (precision; our starts past the last human section are
left out, as DeltaBench leaves those paragraphs unsectioned), and the time to cut the trace.
`mc`: synthetic 300-paragraph traces (tests/synthetic_traces.py) with one uncorrected error
at a paragraph drawn uniformly; a simulated engine (`TraceCompleter`: a rollout reaches the
right answer with probability 0.8 from a prefix before the error, 0.05 after it, closing the
thinking and boxing an answer) through the real MC driver with prm-label's default MC
settings; the same traces labeled three ways: binary search over sections, binary search
over paragraphs, per-step MC over paragraphs. `flags`: from prm-label output dirs of
DeltaBench (the `deltabench` adapter: human sections; or the generic adapter with
`response=long_cot`: our sections), the human error sections that `calc`/`judge` label False.
"""

from __future__ import annotations

import argparse
import bisect
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from labeling.schema import Chain, Problem  # noqa: E402
from labeling.steps.sections import SectionOptions, section_spans  # noqa: E402
from labeling.steps.splitters import split_spans  # noqa: E402

DELTABENCH = ROOT.parent / "shared" / "data" / "deltabench" / "deltabench_examples_dev.jsonl"


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _para_starts(text: str) -> list[int]:
    starts, pos = [], 0
    for p in text.split("\n\n"):
        starts.append(pos)
        pos += len(p) + 2
    return starts


def _even(text: str, count: int) -> list[int]:
    """Starts of `count` sections spaced evenly by tokens over the paragraphs (the baseline:
    the same number of cuts, no cue words)."""
    from labeling.steps.sections import approx_tokens, paragraphs

    paras = paragraphs(text)
    sizes = [approx_tokens(text[a:b]) for a, b in paras]
    total, acc, starts = sum(sizes), 0, []
    for (a, _), size in zip(paras, sizes, strict=True):
        if acc >= total * len(starts) / count:
            starts.append(a)
        acc += size
    return starts


def _score(mine: list[int], human: list[int], last: int) -> tuple[int, int, int]:
    """(human boundaries hit within one paragraph, our starts within one paragraph of a
    human one, our starts counted): 1-based paragraph indices; our first start is not a
    boundary, nor are starts past the last human section."""
    inside = [m for m in mine[1:] if m <= last]
    hit = sum(any(abs(m - b) <= 1 for m in mine) for b in human)
    near = sum(any(abs(m - b) <= 1 for b in human) for m in inside)
    return hit, near, len(inside)


def split_quality(path: Path, opts: SectionOptions) -> None:
    hits = bounds = near = ours = 0
    even_hits = even_near = even_ours = 0
    print(f"section_tokens={opts.tokens} max_sections={opts.max_sections}")
    print("record    paragraphs  human  ours  recall@1   precision@1  ms/trace")
    for d in _records(path):
        text = d["long_cot"]
        starts = _para_starts(text)
        t0 = time.perf_counter()
        spans = section_spans(text, opts)
        ms = (time.perf_counter() - t0) * 1000
        mine = [bisect.bisect_right(starts, a) for a, _ in spans]  # 1-based paragraphs
        last = d["sections"][-1]["end"]
        human = [s["start"] for s in d["sections"]][1:]
        h, p, n = _score(mine, human, last)
        hits, bounds, near, ours = hits + h, bounds + len(human), near + p, ours + n
        even = [bisect.bisect_right(starts, a) for a in _even(text, len(spans))]
        eh, ep, en = _score(even, human, last)
        even_hits, even_near, even_ours = even_hits + eh, even_near + ep, even_ours + en
        print(f"{d['id'][:8]}  {len(starts):10d}  {len(d['sections']):5d}  {len(spans):4d}  "
              f"{h:3d}/{len(human):<3d}    {p:3d}/{n:<3d}      {ms:7.1f}")
    print(f"all: boundary recall within one paragraph {hits}/{bounds} = {hits / bounds:.3f}, "
          f"precision {near}/{ours} = {near / max(ours, 1):.3f}")
    print(f"baseline, as many cuts spaced evenly by tokens: recall {even_hits}/{bounds} = "
          f"{even_hits / bounds:.3f}, precision {even_near}/{even_ours} = "
          f"{even_near / max(even_ours, 1):.3f}")


class TraceCompleter:
    """A simulated engine for traces with a known error: rollout j of a request reaches the
    right answer with probability 0.8 when its prefix ends before the error, 0.05 after it
    (seeded by (request seed, j): the same in any batch order); every rollout closes the
    thinking and boxes an answer, `tokens` generated tokens each."""

    def __init__(self, traces: list, tokens: int = 300) -> None:
        self.by_prompt = {t.question: t for t in traces}
        self.tokens = tokens

    def complete(self, requests):
        from verifiers.mc.driver import Completion

        out = []
        for r in requests:
            trace = self.by_prompt[r.user_text]
            p = 0.8 if len(r.prefix) <= trace.error_offset else 0.05
            got = []
            for j in range(r.n):
                ok = random.Random(r.seed + j).random() < p
                answer = trace.reference if ok else str(int(trace.reference) + 1)
                got.append(Completion("Continuing.\n</think>\n\nThe answer is "
                                      f"\\boxed{{{answer}}}.", self.tokens))
            out.append(got)
        return out


def mc_cost(n_traces: int, paragraphs: int, seed: int, k: int, confirm: int,
            opts: SectionOptions) -> None:
    from labeling.mc import method
    from tests.synthetic_traces import long_trace
    from verifiers.mc.driver import MonteCarloVerifier

    rng = random.Random(seed)
    traces = [long_trace(paragraphs, seed=seed + i, error_at=rng.randrange(5, paragraphs - 5))
              for i in range(n_traces)]
    print(f"{n_traces} traces of {paragraphs} paragraphs, one uncorrected error each; "
          f"k={k}, chunk=1, confirm={confirm}, probe_right=true")
    results = {}
    for mode, estimator in [("sections", "binary_search"), ("blank_line", "binary_search"),
                            ("blank_line", "per_step")]:
        items, spans_of = [], []
        for i, t in enumerate(traces):
            spans = split_spans(t.text, mode, opts)
            steps = tuple(t.text[a:b] for a, b in spans)
            problem = Problem(f"p{i}", "math", "sim", t.question, t.reference)
            items.append((problem, Chain(f"p{i}", f"c{i}", 0, t.text, steps, "sim")))
            spans_of.append(spans)
        # The absolute rule: what the rollout counts compare (the fall rule's adaptive
        # rollouts would make the cost depend on the fake completer's rates, not the cut).
        options = method("absolute", estimator=estimator, k=k, chunk=1, confirm=confirm,
                         probe_right=True)
        mc = MonteCarloVerifier(TraceCompleter(traces), method=options, self_rollouts=0,
                                max_tokens=100, temperature=0.8, after_error="keep")
        t0 = time.perf_counter()
        verdicts = mc.verify(items)
        wall = time.perf_counter() - t0
        rollouts = [sum(v.rollouts for v in vs) for vs in verdicts]
        tokens = [sum(v.tokens for v in vs) for vs in verdicts]
        labeled = [sum(v.label is not None for v in vs) for vs in verdicts]
        located = 0
        for vs, spans, t in zip(verdicts, spans_of, traces, strict=True):
            first = next((i for i, v in enumerate(vs) if v.label is False), None)
            located += first is not None and spans[first][0] <= t.error_offset < spans[first][1]
        steps = statistics.mean(len(c.steps) for _, c in items)
        results[(mode, estimator)] = sum(rollouts)
        print(f"{mode:10s} {estimator:13s} steps/chain {steps:6.1f}  rollouts/chain "
              f"{statistics.mean(rollouts):7.1f}  tokens/chain {statistics.mean(tokens):8.0f}  "
              f"labeled steps/chain {statistics.mean(labeled):6.1f}  rollouts per labeled step "
              f"{sum(rollouts) / max(sum(labeled), 1):5.2f}  tokens per labeled step "
              f"{sum(tokens) / max(sum(labeled), 1):6.0f}  first error located "
              f"{located}/{len(items)}  ({wall:.1f} s)")
    sec = results[("sections", "binary_search")]
    print(f"rollouts, sections binary search / paragraphs binary search: "
          f"{sec / results[('blank_line', 'binary_search')]:.3f}")
    print(f"rollouts, sections binary search / paragraphs per-step MC: "
          f"{sec / results[('blank_line', 'per_step')]:.3f}")


def flags(dirs: list[str], deltabench: Path) -> None:
    import polars as pl

    records = {d["question"]: d for d in _records(deltabench)}
    for root in dirs:
        rows = pl.read_parquet(Path(root) / "shards" / "*.parquet").to_dicts()
        total = calc = judge = either = 0
        for row in rows:
            d = records.get(row["prompt"])
            if d is None:
                continue
            errors = d["reason_error_section_numbers"]
            if row.get("human_labels"):  # the human sections are the steps
                hits = [[k - 1] for k in errors]
            else:  # our sections: the ones holding each error section's paragraphs
                starts = _para_starts(d["long_cot"])
                spans = [(s["start"], s["end"]) for s in row["step_spans"]]
                ours = [bisect.bisect_right(starts, a) for a, _ in spans]
                hits = []
                for k in errors:
                    lo, hi = d["sections"][k - 1]["start"], d["sections"][k - 1]["end"]
                    hits.append([i for i, m in enumerate(ours)
                                 if m <= hi and (i + 1 == len(ours) or ours[i + 1] > lo)])
            for steps in hits:
                total += 1
                c = any((row.get("calc_labels") or [None] * 999)[i] is False for i in steps)
                j = any((row.get("judge_labels") or [None] * 999)[i] is False for i in steps)
                calc, judge, either = calc + c, judge + j, either + (c or j)
        print(f"{root}: {total} human error sections; calc flags {calc}, judge flags {judge}, "
              f"either {either}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    s = sub.add_parser("split")
    s.add_argument("--path", type=Path, default=DELTABENCH)
    s.add_argument("--tokens", type=int, default=SectionOptions().tokens)
    s.add_argument("--max-sections", type=int, default=SectionOptions().max_sections)
    m = sub.add_parser("mc")
    m.add_argument("--traces", type=int, default=20)
    m.add_argument("--paragraphs", type=int, default=300)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--k", type=int, default=5)
    m.add_argument("--confirm", type=int, default=2)
    m.add_argument("--tokens", type=int, default=SectionOptions().tokens)
    m.add_argument("--max-sections", type=int, default=SectionOptions().max_sections)
    f = sub.add_parser("flags")
    f.add_argument("dirs", nargs="+")
    f.add_argument("--path", type=Path, default=DELTABENCH)
    args = ap.parse_args()
    if args.what == "split":
        split_quality(args.path, SectionOptions(args.tokens, args.max_sections))
    elif args.what == "mc":
        mc_cost(args.traces, args.paragraphs, args.seed, args.k, args.confirm,
                SectionOptions(args.tokens, args.max_sections))
    else:
        flags(args.dirs, args.path)


if __name__ == "__main__":
    main()
