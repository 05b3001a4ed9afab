"""Throughput of the label job's engine stages against the bare engine, side by side, one run.

    flock /tmp/heavy.lock .venv/bin/python benchmarks/bench_throughput.py \
        [--problems 16 --n 4 --max-tokens 128 --mc-chains 24 --mc-tokens 64 --peer-chains 8
         --repeats 2]

1. The job's way (`EnginePool` on a local Ray with every core, the job's defaults: engines
   auto (on CPU one single-thread engine per core), dtype auto, in-process core):
   (a) sampling: the requests for `--dataset`'s problems (builtin_math), as `LabelJob`
   sends them, `--repeats` times with new seeds; (b) Monte Carlo rollouts:
   `MonteCarloVerifier` + `EngineCompleter` (continuous: one future per probe, speculation
   when the engines have room) with the job's MC defaults over the first `--mc-chains`
   sampled chains; every request it sent is recorded (the useful ratio leaves out
   speculative rollouts a settled step dropped);
   (c) those recorded requests again as one flat call through fresh engine actors.
2. Bare `vllm.LLM.generate` in fresh processes without Ray (`bare_engine.py`; engine core
   in-process, KV blocks of 32 tokens, tcmalloc and Intel OpenMP preloaded where found, as
   the job's), in each layout the device allows: one process on every core, and (CPU) one
   single-thread process per core, each given a balanced share of whole prompts. `auto`'s
   dtype runs every layout: the same sampling requests as one call per repeat, the recorded
   rollout requests as ONE flat batch (the ceiling: no search, no waiting); the other dtype
   samples in the first layout, and the last layout samples once more without preloading.
   Every ratio is against the best bare configuration for that stage: vLLM as shipped, whose
   CPU sampler sorts the vocabulary for top-p. On CPU the job's layout also runs every phase
   with the job's own top-p (`pipelines.engine.nucleus`, same tokens, faster), and
   `window_vs_bare_window` gives the ratios against that: the job's own overhead alone.
3. Peer baseline, in the bare layout with the best flat batch: a straightforward
   Math-Shepherd labeler (per-step N=8 completions of every prefix, one chain's prefixes per
   `generate` call, as public implementations do, the chains dealt out over the processes)
   over the first `--peer-chains` of the same chains, same outcome check.
4. First-error accuracy of the two estimators from the simulation (`bench_mc_simulation`,
   hard preset, chains as long as the median sampled chain).
Prints one JSON object; nothing is asserted. Figures are for the machine it runs on.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from pathlib import Path

from labeling.engine_request import EngineRequest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def chains_of(problems: list, requests: list[dict], results: list[dict]) -> list:
    """(problem, chain) pairs of the sampled texts that split into two or more steps."""
    from labeling.ids import chain_id
    from labeling.schema import Chain
    from labeling.steps.splitters import split_steps

    items = []
    for p, req, res in zip(problems, requests, results, strict=True):
        for i, text in enumerate(res.texts):
            steps = tuple(split_steps(text))
            if len(steps) >= 2:
                cid = chain_id(p.problem_id, "m", i)
                items.append((p, Chain(p.problem_id, cid, i, text, steps, "m", req["seed"])))
    return items


def sample_repeats(pool, requests: list[dict], repeats: int) -> tuple[list[dict], list]:
    """Per pass {tokens, s}, and the first pass's results, of `repeats` passes over the same
    prompts with new seeds (one pass is too noisy a figure; the first one's chains are rolled
    out, and the first pass is the one an end-to-end job would run)."""
    passes, results = [], []
    for rep in range(repeats):
        again = [EngineRequest.from_plain(r | {"seed": r["seed"] + rep}) for r in requests]
        t = time.perf_counter()
        got = pool.collect(pool.submit(again, tag="sample"))
        passes.append({"tokens": sum(sum(r.tokens) for r in got), "s": time.perf_counter() - t})
        results = results or got
    return passes, results


def flat_in_job_engine(pool, samples: list[dict], sent: list) -> tuple[int, float, dict]:
    """Tokens and seconds of the recorded rollout requests as one flat call through a fresh
    engine actor of the job's, after one sampling pass (the prefix cache as the stage found
    it): splits the gap to the bare flat batch into the schedule's part and Ray's. With the
    engines' own time inside `step()` and their steps, summed: a gap at the same time per
    step is idle engines (an uneven split, feeding, routing), one at a longer step is the
    engine's process."""
    pool.generate([EngineRequest.from_plain(r) for r in samples], tag="sample")
    flat = list(sent)  # the rollout requests are engine requests already
    before = pool.stats()
    t = time.perf_counter()
    tokens = sum(sum(r.tokens) for r in pool.generate(flat, tag="rollout"))
    seconds = time.perf_counter() - t
    after = pool.stats()
    engines = len(pool.actors)
    pool.shutdown()
    return tokens, seconds, {"busy_s": after["busy_s"] - before["busy_s"],
                             "steps": after["steps"] - before["steps"], "engines": engines}


def job_side(args: argparse.Namespace) -> dict:
    """Sampling and MC stages through the job's own pool and driver."""
    import ray

    from benchmarks.bench_mc_simulation import mc_method
    from labeling.datasets import load_problems
    from labeling.ids import derive_seed
    from labeling.mc import DEFAULT_METHOD
    from labeling.prompts import user_message
    from pipelines.engine.actor import describe_startup
    from pipelines.engine.completer import EngineCompleter
    from pipelines.engine.pool import EnginePool
    from pipelines.engine.prepare_model import prepare
    from pipelines.engine.runtime import init_ray
    from pipelines.generation_config import EngineConfig, ModelConfig, RayConfig, SamplerConfig
    from pipelines.label.mc_sections import SECTIONS
    from verifiers.mc.driver import MonteCarloVerifier

    s = SamplerConfig(n=args.n, max_tokens=args.max_tokens)
    path = args.model or str(prepare())
    t = time.perf_counter()
    init_ray(RayConfig())  # as prm-label starts its local Ray: every core
    ray_s = time.perf_counter() - t
    model = ModelConfig(name=Path(path).name, path=path, enforce_eager=not args.gpu)
    # GPU: one engine on one GPU, the same as the bare side (not the auto count).
    engine = EngineConfig(actors=1 if args.gpu else 0, num_gpus=1 if args.gpu else 0)
    t = time.perf_counter()
    pool = EnginePool(path, model, engine, RayConfig())
    start_s = time.perf_counter() - t
    choice = f"{len(pool.actors)} x {ray.get(pool.actors[0].choice.remote())}"
    timeline = [describe_startup(m, pool.started_at)
                for m in ray.get([a.startup.remote() for a in pool.actors])]  # fmt: skip
    problems = [p for p in load_problems({"name": args.dataset, "limit": args.problems})]
    requests = [
        {"messages": [{"role": "user", "content": user_message(p, s.math_instruction)}],
         "prefix": "", "n": s.n, "seed": derive_seed(s.seed, p.problem_id),
         "max_tokens": s.max_tokens, "temperature": s.temperature, "top_p": s.top_p, "stop": []}
        for p in problems
    ]  # fmt: skip
    passes, results = sample_repeats(pool, requests, args.repeats)

    items = chains_of(problems, requests, results)[: args.mc_chains]
    sent: list = []

    class Recording(EngineCompleter):
        def submit(self, reqs):
            sent.extend(reqs)
            return super().submit(reqs)

    name = args.mc_rule or DEFAULT_METHOD
    m = SECTIONS[name](max_tokens=args.mc_tokens)
    max_tokens, temperature = m.sampling(s)
    mc = MonteCarloVerifier(
        Recording(pool), domain="math", method=mc_method(name, args.mc),
        self_rollouts=m.self_rollouts, speculate=not args.no_speculate,
        max_tokens=max_tokens, temperature=temperature, top_p=s.top_p,
        prompt_fn=functools.partial(user_message, math_instruction=s.math_instruction),
    )  # fmt: skip
    t = time.perf_counter()
    verdicts = mc.verify(items)
    mc_s = time.perf_counter() - t
    labeled = sum(v.label is not None for vs in verdicts for v in vs)
    # Labels MC placed itself (the last step is the chain's own outcome): with a completer
    # that never reaches these answers every label is an outcome and the stage's rollouts
    # were the question's (builtin_math for SmolLM2).
    placed = sum(v.label is not None for vs in verdicts for v in vs[:-1])
    st = mc.last_stats
    rollout = pool.stats()["tags"]["rollout"]
    pool.shutdown()
    flat_tokens, flat_s, flat_steps = flat_in_job_engine(
        EnginePool(path, model, engine, RayConfig()), requests, sent)  # fmt: skip
    ray.shutdown()
    return {
        "engine": choice, "engine_start_s": round(start_s, 2), "ray_init_s": round(ray_s, 2),
        "engine_timeline": timeline,
        "sample": {"requests": requests, "tokens": sum(x["tokens"] for x in passes),
                   "seconds": sum(x["s"] for x in passes), "passes": passes,
                   "repeats": args.repeats},
        "mc": {"chains": len(items), "requests": len(sent), "tokens": st.tokens,
               "seconds": mc_s, "labeled_steps": labeled, "placed_before_last": placed,
               "hopeless_chains": st.hopeless_chains, "question_rollouts": st.self_completions,
               "max_in_flight": st.max_in_flight,
               "wasted_rollouts": st.wasted_rollouts, "wasted_tokens": st.wasted_tokens,
               "ahead_requests": st.ahead_requests,
               "prefix_cache_hit_rate": round(rollout["cached_tokens"]
                                              / max(rollout["prompt_tokens"], 1), 3),
               "steps": sum(len(c.steps) for _, c in items),
               "flat_in_job_engine": {"tokens": flat_tokens, "seconds": flat_s} | flat_steps},
        # Whole requests: the bare replay samples with the same top_p (a nucleus costs a
        # sort of the vocabulary per step on CPU: 2.5x slower rollouts, 2026-11-26).
        "mc_requests": [r.to_plain() for r in sent],
        "chains": [[p.question, p.reference, p.problem_id, c.text, list(c.steps)]
                   for p, c in items],
    }  # fmt: skip


def simulated_accuracy(length: int) -> dict:
    from benchmarks.bench_mc_simulation import PRESETS, make_chains, run

    chains = make_chains(500, length, 0.0, 0)
    p_ok, p_bad = PRESETS["hard"]
    peer = run(chains, p_ok, p_bad, "per_step", 8, 8, 1, 0, 200)
    ours = run(chains, p_ok, p_bad, "binary_search", 5, 1, 2, 0, 200)
    return {
        "length": length,
        "per_step_n8": round(peer["accuracy"], 3),
        "binary_k5_chunk1_confirm2": round(ours["accuracy"], 3),
    }


def bare_layouts(gpu: bool) -> list[tuple[int, int]]:
    """(processes, threads each) to try: one engine on every core, and one per core."""
    if gpu:
        return [(1, 0)]
    from pipelines.engine.device import visible_cores

    cores = visible_cores()
    return [(1, cores)] + ([(cores, 1)] if cores > 1 else [])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="builtin_math",
                    help="problems (labeling.datasets): builtin_math is beyond SmolLM2 (every "
                    "label an outcome), starter_math partly within it")  # fmt: skip
    ap.add_argument("--problems", type=int, default=16)
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--mc-chains", type=int, default=24)
    ap.add_argument("--mc-tokens", type=int, default=64)
    ap.add_argument("--peer-chains", type=int, default=8)
    ap.add_argument("--mc-rule", default="", help="the MC method of the MC stage (labels/mc; "
                    "default: the job's; `absolute` sends one rollout per request)")  # fmt: skip
    ap.add_argument("--no-speculate", action="store_true",
                    help="labels.mc.speculate=false: one probe at a time per chain")
    ap.add_argument("--mc", nargs="*", default=[], metavar="KEY=VALUE",
                    help="other labels.mc fields of the MC stage, typed like their defaults, e.g. "
                    "probe_max=2")  # fmt: skip
    ap.add_argument("--repeats", type=int, default=2, help="sampling passes per side (new seeds)")
    ap.add_argument(
        "--runs",
        type=int,
        default=1,
        help="whole measurements (both sides, fresh processes each), for the spread",
    )
    ap.add_argument("--model", default="", help="model dir (default: the embedded SmolLM2)")
    ap.add_argument("--gpu", action="store_true", help="one GPU engine, bf16 only")
    ap.add_argument("--job-json", help="keep the job side's results here (reused if present)")
    args = ap.parse_args()
    runs = [measure(args) for _ in range(max(1, args.runs))]
    from pipelines.engine.device import cpu_flags, cpu_kind

    kind = cpu_kind()
    flags = sorted(f for f in cpu_flags() if f.startswith(("avx", "amx")))
    print(
        json.dumps(
            {
                "cpu": f"{kind.vendor} {kind.model}",
                "cpu_flags": flags,
                "runs": runs,
                "spread": spread(runs),
            },
            indent=2,
        )
    )


def spread(runs: list[dict]) -> dict:
    """Median, min and max of every number the runs share (nested keys joined by '.')."""

    def leaves(d: dict, prefix: str = "") -> dict[str, float]:
        out: dict[str, float] = {}
        for k, v in d.items():
            if isinstance(v, dict):
                out |= leaves(v, f"{prefix}{k}.")
            elif isinstance(v, int | float) and not isinstance(v, bool):
                out[f"{prefix}{k}"] = float(v)
        return out

    flat = [leaves(r) for r in runs]
    keys = [k for k in flat[0] if all(k in f for f in flat)]
    return {k: {"median": round(statistics.median(f[k] for f in flat), 3),
                "min": round(min(f[k] for f in flat), 3),
                "max": round(max(f[k] for f in flat), 3)} for k in keys}  # fmt: skip


def measure(args: argparse.Namespace) -> dict:
    """One whole measurement: the job's side, then the bare processes; its figures."""
    from benchmarks.bare_engine import run_layout
    from labeling.prompts import user_message
    from labeling.schema import Problem
    from pipelines.engine.device import choose_dtype, cpu_flags
    from pipelines.engine.placement import resolve_preload
    from pipelines.engine.prepare_model import prepare
    from pipelines.generation_config import SamplerConfig

    cache = Path(args.job_json) if args.job_json else None
    if cache is not None and cache.exists():
        job = json.loads(cache.read_text())
    else:
        job = job_side(args)
        if cache is not None:
            cache.write_text(json.dumps(job))
    sampler = SamplerConfig()
    prompts = {pid: user_message(Problem(pid, "math", "bench", q, reference=ref),
                                 sampler.math_instruction)
               for q, ref, pid, _, _ in job["chains"]}  # fmt: skip
    # The peer samples as the job does (temperature, top_p): only the labeling differs.
    spec = {"model": args.model or str(prepare()), "gpu": args.gpu,
            "sample": job["sample"]["requests"], "repeats": job["sample"].get("repeats", 1),
            "mc": job["mc_requests"], "chains": job["chains"][: args.peer_chains],
            "prompt": prompts, "mc_tokens": args.mc_tokens, "top_p": sampler.top_p}  # fmt: skip
    auto = "bfloat16" if args.gpu else choose_dtype("auto", False, cpu_flags(), None)[0]
    layouts = bare_layouts(args.gpu)
    # The bare processes start as the job's CPU engines do: preloaded or not by the same
    # decision (engine.preload auto); the job's layout also samples the other way, to show
    # what the decision is worth here.
    env = {} if args.gpu else resolve_preload("", None)[0]
    preloaded = "LD_PRELOAD" in env
    bare: dict[str, dict] = {}
    # The dtype `auto` does not pick samples in one layout (does the measurement agree?);
    # `auto`'s dtype runs every layout with every phase.
    for dtype in [] if args.gpu else [d for d in ("bfloat16", "float32") if d != auto]:
        parts, threads = layouts[0]
        bare[f"{dtype} {parts}x{threads}"] = run_layout(spec | {"rollouts": False}, dtype,
                                                        parts, threads, env)  # fmt: skip
    for parts, threads in layouts:
        bare[f"{auto} {parts}x{threads}"] = run_layout(spec | {"rollouts": True}, auto, parts,
                                                       threads, env)  # fmt: skip
    if not args.gpu:
        parts, threads = layouts[-1]
        # vLLM with the job's top-p (engine.nucleus=window), the job's layout: the job's
        # own overhead, apart from what the window gains over vLLM's sort
        bare[f"{auto} {parts}x{threads} window"] = run_layout(
            spec | {"rollouts": True, "window": True}, auto, parts, threads, env
        )
        other = {} if preloaded else resolve_preload("", True)[0]
        bare[f"{auto} {parts}x{threads} {'not ' if preloaded else ''}preloaded"] = run_layout(
            spec | {"rollouts": False}, auto, parts, threads, other
        )
    job_layout = f"{auto} {layouts[-1][0]}x{layouts[-1][1]}"
    return report(job, bare, env.get("LD_PRELOAD", ""), job_layout)


def _rate(phases: dict, prefix: str) -> float:
    runs = [v for k, v in phases.items() if k.startswith(prefix)]
    return sum(r["tokens"] for r in runs) / sum(r["s"] for r in runs)


def report(job: dict, bare: dict[str, dict], preloaded: str, job_layout: str) -> dict:
    """The figures: each bare one from the best layout (processes x threads) for it, and the
    start-up and flat-batch ones against the bare processes in the job's own layout."""
    s, m = job["sample"], job["mc"]
    sample_tps = {k: _rate(v, "sample") for k, v in bare.items()}
    flat_tps = {k: _rate(v, "flat") for k, v in bare.items() if "flat" in v}
    # "best bare" is vLLM as shipped (its own top-p sort); the window's layout apart
    shipped = [k for k in bare if not k.endswith(" window")]
    best_sample = max(shipped, key=sample_tps.get)
    best_flat = max((k for k in shipped if k in flat_tps), key=flat_tps.get)
    window = f"{job_layout} window"
    peer = bare[best_flat]["peer"]
    job_tps = s["tokens"] / s["seconds"]
    mc_tps = m["tokens"] / m["seconds"]
    in_job = m["flat_in_job_engine"]
    in_job_tps = in_job["tokens"] / in_job["seconds"]
    ours_rate = m["labeled_steps"] / m["seconds"]
    peer_rate = peer["labeled_steps"] / peer["engine_s"]
    lengths = [len(c[4]) for c in job["chains"]]
    same = bare[job_layout]
    # (a job side saved by an older bench (--job-json) has no step times: bare ones only)
    same_layout_flat = ({"job": in_job | {"s": in_job["seconds"]}} if "busy_s" in in_job
                        else {}) | {k: v["flat"] for k, v in bare.items()
                                    if "flat" in v and k.startswith(job_layout)}  # fmt: skip
    # End to end, as a user waits for a sampling job: the job from Ray's start (the label
    # job's first step) to the end of its first pass; the bare engines from their processes'
    # spawn (interpreter, imports, engine) to the end of the same pass.
    first, bare_first = s["passes"][0], same["sample0"]
    job_e2e = job["ray_init_s"] + job["engine_start_s"] + first["s"]
    bare_e2e = same["spawn_to_ready_s"] + bare_first["s"]
    return {
        "job_engines": job["engine"],
        "job_layout": job_layout,
        "start": {
            "job_ray_init_s": job["ray_init_s"],
            "job_engines_ready_s": job["engine_start_s"],
            "bare_spawn_to_ready_s": round(same["spawn_to_ready_s"], 2),
            "bare_engine_constructor_s": round(same["start_s"], 2),
            "job_minus_bare_spawn_to_ready_s": round(
                job["engine_start_s"] - same["spawn_to_ready_s"], 2
            ),
            "job_engine_timeline": job.get("engine_timeline"),
        },
        "sampling_end_to_end": {
            "job_s": round(job_e2e, 2),
            "bare_s": round(bare_e2e, 2),
            "job_tok_per_s": round(first["tokens"] / job_e2e, 1),
            "bare_tok_per_s": round(bare_first["tokens"] / bare_e2e, 1),
            "ratio": round(first["tokens"] / job_e2e / (bare_first["tokens"] / bare_e2e), 3),
        },
        "bare_ld_preload": preloaded,
        "bare_start_s": {k: round(v["start_s"], 1) for k, v in bare.items()},
        "bare_sample_tok_per_s": {k: round(v, 1) for k, v in sample_tps.items()},
        "bare_flat_batch_tok_per_s": {k: round(v, 1) for k, v in flat_tps.items()},
        "bare_best_sample": best_sample,
        "bare_best_flat": best_flat,
        "job_sample_tok_per_s": round(job_tps, 1),
        "sampling_ratio_vs_best_bare": round(job_tps / sample_tps[best_sample], 3),
        "mc": {k: v for k, v in m.items() if k != "seconds"} | {"seconds": round(m["seconds"], 1)},
        "mc_stage_tok_per_s": round(mc_tps, 1),
        "mc_ratio_vs_one_flat_batch": round(mc_tps / flat_tps[best_flat], 3),
        # The gap's two parts: the schedule (vs a flat call through the job's engine actors)
        # and the runtime (that flat call vs the bare flat batch: the best layout's, and the
        # bare processes in the job's own layout).
        "mc_ratio_vs_flat_batch_in_job_engine": round(mc_tps / in_job_tps, 3),
        # The flat batch inside the engines (all together; the job's and the bare processes'
        # in the job's layout): ms per step, and the share of the call's engine-time spent
        # stepping (the rest: an engine idle, done with its share or waiting to be fed).
        "flat_ms_per_step": {k: round(1000 * v["busy_s"] / max(v["steps"], 1), 1)
                             for k, v in same_layout_flat.items()},
        "flat_busy_share": {k: round(v["busy_s"] / (v["s"] * v["engines"]), 3)
                            for k, v in same_layout_flat.items()},
        "job_engine_flat_over_bare_flat": round(in_job_tps / flat_tps[best_flat], 3),
        "job_engine_flat_over_bare_flat_same_layout": round(in_job_tps / flat_tps[job_layout], 3),
        # Only the rollouts the labels used (speculative ones a settled step dropped are out).
        "mc_useful_ratio_vs_one_flat_batch": round(
            (m["tokens"] - m["wasted_tokens"]) / m["seconds"] / flat_tps[best_flat], 3
        ),
        "peer": peer | {"engine_s": round(peer["engine_s"], 1), "layout": best_flat},
        "ours_labeled_steps_per_engine_s": round(ours_rate, 3),
        "peer_labeled_steps_per_engine_s": round(peer_rate, 3),
        "ours_over_peer": round(ours_rate / peer_rate, 2),
        "ours_labeled_steps_per_engine_hour": round(ours_rate * 3600),
        "ours_tokens_per_labeled_step": round(m["tokens"] / max(m["labeled_steps"], 1), 1),
        "peer_tokens_per_labeled_step": round(peer["tokens"] / max(peer["labeled_steps"], 1), 1),
        "simulated_first_error_accuracy": simulated_accuracy(int(statistics.median(lengths))),
    } | ({} if window not in bare else {
        # against bare vLLM with the job's own top-p in the job's layout
        "window_vs_bare_window": {
            "sampling_ratio": round(job_tps / sample_tps[window], 3),
            "job_engine_flat_over_bare_flat": round(in_job_tps / flat_tps[window], 3),
            "mc_ratio_vs_one_flat_batch": round(mc_tps / flat_tps[window], 3),
            "ours_over_peer": round(ours_rate / (bare[window]["peer"]["labeled_steps"]
                                                 / bare[window]["peer"]["engine_s"]), 2),
        },
    })


if __name__ == "__main__":
    main()
