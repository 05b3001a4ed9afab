"""Label quality against human step labels: every source alone and every policy, on a fixed
sample of ProcessBench dev chains (GSM8K and MATH subsets).

    flock /tmp/heavy.lock .venv/bin/python benchmarks/bench_label_quality.py --sample 24
    .venv/bin/python benchmarks/bench_label_quality.py --engine simulated   # quick check

Sample: Monte Carlo rollouts need a reference answer and ProcessBench has none, so only chains
whose problem has a chain marked `final_answer_correct` qualify (that chain's boxed answer is
the reference). From those, per subset, half human-erroneous and half human-correct chains,
taken in the order of a hash of their ids (fixed for a given --seed): `--sample` chains in all.

Sources run once each through the label job's own wiring (`build_sources` on a composed
`prm-label` config): calc, answer, mc (the model completes the chain, `labels.mc` defaults
unless overridden), judge (the same model as critic, `labels.judge`). Policies are computed
from those same verdicts with `labeling.combine` (verifier_first; consensus [mc,calc];
consensus [mc,judge]; judge). Scoring: a row's prediction is its first negative step (-1 for
none); a chain a source could not label at all (judge: no parsable vote) counts as wrong, as
ProcessBench counts an unparsable critic answer. F1 = harmonic mean of the accuracy on
erroneous and on correct chains (`labeling.prm.processbench`), per subset and pooled;
first-flag precision = share of flagged chains whose first flag is the human first error.
Policies that drop chains are scored on the chains they keep. Tokens per labeled step =
tokens the row's sources generated / steps the row labeled. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections import defaultdict
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "processbench_dev"
SUBSETS = ("gsm8k", "math")
NO_LABEL = -2  # a chain the row could not label: never equal to a human first error


def _key(seed: int, rid: str) -> str:
    return hashlib.blake2b(f"{seed}\x1f{rid}".encode(), digest_size=8).hexdigest()


def sample_chains(data: Path, n: int, seed: int) -> list[tuple[str, dict, str]]:
    """(subset, record, reference) for a balanced, hash-ordered sample of `n` chains."""
    from verifiers.answer import extract_answer

    out = []
    per_subset = [n // len(SUBSETS) + (i < n % len(SUBSETS)) for i in range(len(SUBSETS))]
    for subset, quota in zip(SUBSETS, per_subset, strict=True):
        records = json.loads((data / f"{subset}.json").read_text())
        refs: dict[str, str] = {}
        for r in records:
            answer, how = extract_answer("\n\n".join(r["steps"]))
            if r["final_answer_correct"] and answer and how == "boxed":
                refs.setdefault(r["problem"], answer)
        usable = sorted((r for r in records if r["problem"] in refs),
                        key=lambda r: _key(seed, r["id"]))
        wrong = [r for r in usable if r["label"] >= 0][: (quota + 1) // 2]
        right = [r for r in usable if r["label"] < 0][: quota - len(wrong)]
        out += [(subset, r, refs[r["problem"]]) for r in wrong + right]
    return out


def items_of(sample):
    from labeling.datasets.common import make_problem
    from labeling.datasets.processbench import human_step_labels
    from labeling.ids import chain_id
    from labeling.schema import Chain, GivenChain

    items = []
    for subset, r, ref in sample:
        steps = tuple(r["steps"])
        given = GivenChain(steps, r["generator"], r["label"],
                           human_step_labels(r["label"], len(steps)), r["final_answer_correct"])
        p = make_problem("math", f"processbench_{subset}", r["problem"], ref, given=(given,),
                         id_salt=r["id"])
        c = Chain(p.problem_id, chain_id(p.problem_id, r["generator"], 0, steps), 0,
                  "\n\n".join(steps), steps, r["generator"], human_first_error=r["label"],
                  human_labels=given.human_labels, given_outcome=r["final_answer_correct"])
        items.append((subset, p, c))
    return items


def config(args):
    from hydra import compose, initialize_config_dir

    from pipelines.confdir import CONF_DIR
    from pipelines.label.app import typed
    from pipelines.label.config import register

    register()
    overrides = [f"model={args.model}", f"engine={args.engine}", "ray=inprocess",
                 "labels=[answer,calc,mc,judge]", *args.override]
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        return typed(compose(config_name="prm-label", overrides=overrides))


def engine_pool(cfg):
    """The job's engine pool for the sampler's model (the judge shares it)."""
    from pipelines.engine.pool import EnginePool
    from pipelines.generation_config import RayConfig
    from pipelines.unit_job import resolve_model

    cfg.engine.batch_size = 4096  # one round of the search = one generate() call
    import ray

    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    path = resolve_model(cfg.model, cfg.engine.kind)
    # Ray on: the engine in its own actor (vLLM must not start in this process).
    return EnginePool(path, cfg.model, cfg.engine, RayConfig(num_cpus=2)), path


def run_sources(cfg, items, pool):
    """{source: (verdict lists, seconds)}; every source sees every chain once."""
    from pipelines.engine.completer import EngineCompleter
    from pipelines.engine.judge import EngineJudge
    from pipelines.label.sources import build_sources

    sources = build_sources(cfg, "math", EngineCompleter(pool, cfg.model.name),
                            EngineJudge(pool, cfg.model.name))
    out = {}
    for name, verifier in sources.items():
        t = time.perf_counter()
        verdicts = verifier.verify([(p, c) for _, p, c in items])
        out[str(name)] = (verdicts, time.perf_counter() - t)
        print(f"  {name}: {time.perf_counter() - t:.1f}s", flush=True)
    return out


def first_false(labels) -> int:
    return next((i for i, x in enumerate(labels) if x is False), -1)


def score_row(name, items, per_chain, used, by_source):
    """Metrics of one row. `per_chain(i)` gives (kept, failed, labels, statuses) for chain
    i; `failed`: the row could not label the chain at all (scored as wrong)."""
    from labeling.prm.processbench import ChainScore, subset_metrics

    scores: dict[str, list] = defaultdict(list)
    kept = labeled = 0
    for i, (subset, _, c) in enumerate(items):
        keep, failed, labels, statuses = per_chain(i)
        if not keep:
            continue
        kept += 1
        labeled += sum(x is not None for x in labels)
        predicted = NO_LABEL if failed else first_false(labels)
        scores[subset].append(ChainScore(c.human_first_error, predicted, tuple(statuses)))
    tokens = sum(v.tokens for s in used for vs in by_source[s][0] for v in vs)
    seconds = sum(by_source[s][1] for s in used)
    pooled = subset_metrics([x for rows in scores.values() for x in rows])
    return {
        "row": name, "kept": kept, "of": len(items),
        **{f"f1_{s}": subset_metrics(scores[s])["f1"] for s in SUBSETS},
        "f1": pooled["f1"], "acc_err": pooled["acc_erroneous"], "acc_ok": pooled["acc_correct"],
        "ffp": pooled["first_flag_precision"], "flagged": pooled["chains_flagged"],
        "tok_per_step": tokens / labeled if labeled else None, "seconds": seconds,
    }


def rows(items, by_source):
    from labeling.combine import combine
    from labeling.schema import Status

    def alone(src):
        def per_chain(i):
            vs = by_source[src][0][i]
            failed = all(v.status == Status.ERROR for v in vs)
            return True, failed, [v.label for v in vs], [str(v.status) for v in vs]
        return per_chain

    def policy(name, consensus=("mc", "calc")):
        def per_chain(i):
            vs = {s: by_source[s][0][i] for s in by_source}
            comb = combine(vs, len(items[i][2].steps), name, "negative", consensus)
            failed = name == "judge" and all(v.status == Status.ERROR for v in vs["judge"])
            statuses = ["incorrect" if x is False else "correct" for x in comb.labels]
            return comb.keep, failed, comb.labels, statuses
        return per_chain

    out = [score_row(s, items, alone(s), [s], by_source) for s in ("calc", "mc", "judge")
           if s in by_source]
    for name, cons, used in [
        ("verifier_first", (), ("answer", "calc", "mc")),
        ("consensus [mc,calc]", ("mc", "calc"), ("answer", "calc", "mc")),
        ("consensus [mc,judge]", ("mc", "judge"), ("answer", "calc", "mc", "judge")),
        ("judge policy", (), ("judge",)),
    ]:
        pol = name.split()[0] if name != "judge policy" else "judge"
        if all(u in by_source for u in used):
            out.append(score_row(name, items, policy(pol, cons or ("mc", "calc")), used,
                                 by_source))
    return out


def chain_records(items, by_source) -> list[dict]:
    """Per chain: the human first error and each source's first negative step and first
    evidence, for reading what a source got wrong."""
    out = []
    for i, (subset, p, c) in enumerate(items):
        rec = {"subset": subset, "problem_id": p.problem_id, "human": c.human_first_error,
               "steps": len(c.steps)}
        for src, (verdicts, _) in by_source.items():
            vs = verdicts[i]
            rec[src] = first_false([v.label for v in vs])
            rec[f"{src}_evidence"] = next((v.evidence for v in vs if v.evidence), "")[:300]
        out.append(rec)
    return out


def _f(x, digits=3):
    return "-" if x is None else f"{x:.{digits}f}"


def markdown(results) -> str:
    head = ("| labels | chains kept | F1 GSM8K | F1 MATH | F1 pooled | acc err / ok | "
            "first-flag precision (flagged) | tokens / labeled step | wall s |")
    lines = [head, "|" + "---|" * 9]
    for r in results:
        lines.append(
            f"| {r['row']} | {r['kept']}/{r['of']} | {_f(r['f1_gsm8k'])} | {_f(r['f1_math'])} "
            f"| {_f(r['f1'])} | {_f(r['acc_err'], 2)} / {_f(r['acc_ok'], 2)} | "
            f"{_f(r['ffp'], 2)} ({r['flagged']}) | {_f(r['tok_per_step'], 1)} | "
            f"{r['seconds']:.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=24, help="chains in all (half per subset)")
    ap.add_argument("--seed", type=int, default=0, help="which fixed sample")
    ap.add_argument("--engine", default="vllm", choices=["vllm", "simulated"])
    ap.add_argument("--model", default="qwen_coder_0_5b", help="conf/model option")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--json", type=Path, default=None, help="also write the rows here")
    ap.add_argument("override", nargs="*", help="prm-label overrides, e.g. labels.mc.k=4")
    args = ap.parse_args()

    import ray

    cfg = config(args)
    sample = sample_chains(args.data, args.sample, args.seed)
    items = items_of(sample)
    t = time.perf_counter()
    pool, path = engine_pool(cfg)
    start = time.perf_counter() - t
    print(f"{len(items)} chains ({sum(c.human_first_error >= 0 for *_, c in items)} with a "
          f"human first error); model {cfg.model.name} ({path}); engine start {start:.0f}s")
    by_source = run_sources(cfg, items, pool)
    results = rows(items, by_source)
    j, m = cfg.labels.judge, cfg.labels.mc
    print(f"\nmc: {m.estimator} k={m.k} max_tokens={m.max_tokens}; judge: votes={j.votes} "
          f"max_tokens={j.max_tokens} temperature={j.temperature}; engine={args.engine}\n")
    print(markdown(results))
    if args.json:
        args.json.write_text(json.dumps({"args": vars(args) | {"data": str(args.data),
                                                               "json": str(args.json)},
                                         "rows": results,
                                         "chains": chain_records(items, by_source)}, indent=1))
    pool.shutdown()
    ray.shutdown()


if __name__ == "__main__":
    main()
