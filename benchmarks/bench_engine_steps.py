"""What one decode step of the job's CPU engine costs, by the number of sequences in it.

The `posterior` MC search sends one probe per chain at a time, so the end of a stage runs a
few sequences per step for many steps: its speed is the step's fixed cost, not the engine's
throughput at full batch (docs/benchmarks.md, "the MC stage's tail"). This prints, for one
bare in-process engine with the job's settings for this machine (dtype `auto` unless
`--dtype` names others, KV block size, preload decision, `vllm.LLM` arguments of
`actor.llm_kwargs`; one torch thread, as each engine of the default layout on two cores),
the milliseconds per decode step and the tokens per second at each batch size, with
`enforce_eager` (the CPU default) and, with `--compiled`, with torch.compile; each with
top-p found by vLLM's sort of the vocabulary and by the window of `pipelines.engine.nucleus`
(`engine.nucleus`, with the share of rows it left to the sort). Each mode runs in a fresh
process (the preload acts at a process's start). Prompts are distinct (no shared prefix),
48 tokens each, every sequence decoding all of them, the job's top_p. Nothing is asserted.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_engine_steps.py [--compiled] [--rows 2 8 256]
        [--dtype bfloat16 float32]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TOKENS = 48


def _curve(model: str, eager: bool, window: bool, threads: int, rows: list[int], top_p: float,
           dtype: str, queue) -> None:  # fmt: skip
    from pipelines.engine import device, nucleus
    from pipelines.engine.actor import llm_kwargs

    choice = device.choose(dtype, 0, threads)
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "2")
    device.apply(choice)
    from vllm import LLM, SamplingParams

    if window:  # as the job's engine does (engine.nucleus)
        nucleus.install()
    started = time.perf_counter()
    llm = LLM(**llm_kwargs(model, choice, 2048, eager, True))
    start = round(time.perf_counter() - started, 1)
    out = {"eager": eager, "window": window, "dtype": choice.dtype, "start_s": start}
    for n in rows:
        params = SamplingParams(max_tokens=TOKENS, min_tokens=TOKENS, temperature=0.7,
                                top_p=top_p, seed=0)  # fmt: skip
        for rep in range(2):  # the first pass warms the shapes; the second is timed
            prompts = [f"Problem {rep}-{i}: what is {i} + {3 * i + rep}? Think step by step."
                       for i in range(n)]  # fmt: skip
            t = time.perf_counter()
            llm.generate(prompts, params, use_tqdm=False)
            seconds = time.perf_counter() - t
        out[str(n)] = {"ms_per_step": round(seconds / TOKENS * 1000, 1),
                       "tok_s": round(n * TOKENS / seconds, 1)}  # fmt: skip
    seen = nucleus.counts()
    out["rows_sorted"] = round(seen["sorted"] / seen["rows"], 3) if seen["rows"] else None
    queue.put(out)


def _result(proc, queue) -> dict:
    """The child's figures; an error (not a hang) if it dies without sending them."""
    import queue as q

    while True:
        try:
            out = queue.get(timeout=5)
            proc.join()
            return out
        except q.Empty:
            if not proc.is_alive():
                sys.exit(f"the engine process exited with {proc.exitcode} before its figures")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[2, 8, 32, 128, 256])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--compiled", action="store_true", help="also run with torch.compile")
    ap.add_argument("--nucleus", nargs="+", choices=["sort", "window"], default=["sort", "window"],
                    help="top-p by vLLM's sort and/or the window (engine.nucleus)")
    ap.add_argument("--dtype", nargs="+", default=["auto"],
                    choices=["auto", "bfloat16", "float32"],
                    help="weights dtype (model.dtype); several: one curve each")
    ap.add_argument("--model", default="", help="model directory (default: the embedded one)")
    args = ap.parse_args()
    from pipelines.engine.device import cpu_flags, cpu_kind
    from pipelines.engine.placement import resolve_preload
    from pipelines.engine.prepare_model import prepare
    from pipelines.generation_config import SamplerConfig

    model = args.model or str(prepare())
    env = resolve_preload("", None)[0]
    os.environ.update(env)  # inherited by the spawned processes: a preload acts at start
    os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"  # the job's engine core, in-process
    flags = sorted(f for f in cpu_flags() if f.startswith(("avx512_bf16", "amx", "avx2")))
    kind = cpu_kind()
    print(f"CPU: {kind.vendor} {kind.model}; flags {' '.join(flags)}; "
          f"preload {env.get('LD_PRELOAD') or 'off'}; {args.threads} thread(s); "
          f"{TOKENS} tokens per sequence")
    ctx = mp.get_context("spawn")
    results = []
    modes = [(eager, way == "window", dtype)
             for eager in ([True, False] if args.compiled else [True])
             for way in args.nucleus for dtype in args.dtype]  # fmt: skip
    for eager, window, dtype in modes:
        queue = ctx.Queue()
        proc = ctx.Process(target=_curve, args=(model, eager, window, args.threads, args.rows,
                                                SamplerConfig().top_p, dtype, queue))  # fmt: skip
        proc.start()
        results.append(_result(proc, queue))
    print("| mode | start | " + " | ".join(f"{n} seqs: ms/step, tok/s" for n in args.rows)
          + " | rows left to the sort |")
    print("|---|---|" + "---|" * (len(args.rows) + 1))
    for r in results:
        cells = [f"{r[str(n)]['ms_per_step']}, {r[str(n)]['tok_s']}" for n in args.rows]
        mode = ("enforce_eager" if r["eager"] else "torch.compile") + (
            ", top-p window" if r["window"] else ", top-p sort")
        sorted_share = "all" if r["rows_sorted"] is None else f"{r['rows_sorted']:.1%}"
        print(f"| {mode} ({r['dtype']}) | {r['start_s']} s | " + " | ".join(cells)
              + f" | {sorted_share} |")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
