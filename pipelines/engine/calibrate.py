"""Measure on this machine whether CPU engines run faster with tcmalloc and Intel OpenMP
preloaded, and keep the answer where `engine.preload=null` (auto, the default) finds it.

    prm-prepare-model --calibrate [--runs 3]

Why measured: the libraries made sampling faster on some CPUs and slower on others of the same
vector tier (docs/benchmarks.md); a rule written for one CPU is a guess on another. The
method, in the job's own CPU layout (one single-thread engine per visible
core, dtype `auto`, engine core in-process, KV blocks of 32, the job's `vllm.LLM` arguments),
each engine in a fresh process (LD_PRELOAD acts only at a process's start): `runs` rounds,
each one run with and one without the libraries, the order alternating from round to round
so that drift (another process, thermal state) falls on both; a run starts the engines,
warms them up with one short batch, then times one batch of sampling requests built from
the builtin math problems (n=4, 96 tokens, fixed seeds), all engines released together. The
decision: preload when the median tokens per second with the libraries is higher.

Written to `<PRM_CACHE>/calibration/<cpu key>.json` (`preload.calibration_path`), keyed by
the CPU's vendor, vector tier and model name, so a cluster of mixed nodes keeps one answer
per kind. Not covered: models other than the one measured (the embedded SmolLM2 by
default), other layouts (`engine.threads`), GPUs (nothing is preloaded there).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import statistics
import time
from datetime import UTC, datetime
from typing import Any

from labeling.datasets import load_problems
from labeling.prompts import user_message
from pipelines.engine import device, preload
from pipelines.engine.actor import format_prompt, llm_kwargs
from pipelines.engine.device import cpu_kind, visible_cores
from pipelines.generation_config import SamplerConfig

# One run's work: enough tokens that a run lasts several seconds per engine.
PROMPTS, N, MAX_TOKENS = 16, 4, 96


def _requests() -> list[tuple[list[dict[str, str]], int]]:
    instruction = SamplerConfig().math_instruction
    problems = list(load_problems({"name": "builtin_math", "limit": PROMPTS}))
    return [([{"role": "user", "content": user_message(p, instruction)}], 1000 + i)
            for i, p in enumerate(problems)]  # fmt: skip


def _engine(model_path: str, part: int, parts: int, barrier: Any, queue: Any) -> None:
    """One engine process: start, warm up, wait for the others, generate its share."""
    try:
        choice = device.choose("auto", 0, 1)
        # The job's KV cache (model.kv_cache_gib's default); without it the CPU backend
        # reserves a share of all RAM and refuses to start beside other processes.
        os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "2")
        device.apply(choice)
        from vllm import LLM, SamplingParams

        llm = LLM(**llm_kwargs(model_path, choice, 2048, True, True))
        tok = llm.get_tokenizer()
        mine = _requests()[part::parts]
        prompts = [{"prompt_token_ids": tok.encode(format_prompt(tok, m, "", True),
                                                   add_special_tokens=False)}
                   for m, _ in mine]  # fmt: skip
        llm.generate(prompts[:1], SamplingParams(max_tokens=8, seed=0), use_tqdm=False)
        params = [SamplingParams(n=N, temperature=0.8, top_p=0.95, max_tokens=MAX_TOKENS,
                                 seed=seed) for _, seed in mine]  # fmt: skip
        barrier.wait()
        t0 = time.time()
        outs = llm.generate(prompts, params, use_tqdm=False)
        tokens = sum(len(c.token_ids) for o in outs for c in o.outputs)
        queue.put({"tokens": tokens, "t0": t0, "t1": time.time()})
    except BaseException as exc:  # the parent reports it; a stuck barrier would hang it
        barrier.abort()
        queue.put({"error": f"engine {part}: {exc!r}"})


def run_once(model_path: str, env: dict[str, str], parts: int) -> float:
    """Tokens per second of one run: `parts` single-thread engines started with `env`."""
    from unittest import mock

    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(parts), ctx.Queue()
    procs = [ctx.Process(target=_engine, args=(model_path, i, parts, barrier, queue))
             for i in range(parts)]  # fmt: skip
    drop = {} if "LD_PRELOAD" in env else {"LD_PRELOAD": "", "KMP_BLOCKTIME": ""}
    with mock.patch.dict(os.environ, env | drop):  # restored once the processes started
        for p in procs:
            p.start()
    got = [queue.get() for _ in procs]
    for p in procs:
        p.join()
    errors = [g["error"] for g in got if "error" in g]
    if errors:
        raise RuntimeError(errors[0])
    return sum(g["tokens"] for g in got) / (max(g["t1"] for g in got) - min(g["t0"] for g in got))


def calibrate(model_path: str, runs: int = 3, say: Any = print) -> dict[str, Any]:
    """Measure (see the module docstring), write the result for this CPU kind and return it."""
    libs = preload.find_libs()
    env = preload.preload_env(libs)
    if not env:
        raise RuntimeError("neither tcmalloc nor Intel OpenMP is installed here: nothing to "
                           "compare (apt-get install libtcmalloc-minimal4)")
    parts = visible_cores()
    rates: dict[bool, list[float]] = {True: [], False: []}
    for r in range(runs):
        for on in ((True, False) if r % 2 == 0 else (False, True)):
            rate = run_once(model_path, env if on else {}, parts)
            rates[on].append(rate)
            say(f"run {r + 1}/{runs}, {'preloaded' if on else 'not preloaded'}: "
                f"{rate:.1f} tok/s")
    with_, without = statistics.median(rates[True]), statistics.median(rates[False])
    kind = cpu_kind()
    result = {
        "cpu": {"vendor": kind.vendor, "tier": kind.tier, "model": kind.model},
        "preload": {
            "preload": with_ > without, "with_tok_s": round(with_, 1),
            "without_tok_s": round(without, 1), "runs": runs,
            "with_all": [round(x, 1) for x in rates[True]],
            "without_all": [round(x, 1) for x in rates[False]],
            "libraries": preload.labels(libs), "layout": f"{parts} x 1 thread",
            "model": model_path,
            "measured_at": datetime.now(UTC).date().isoformat(),
        },
    }  # fmt: skip
    path = preload.calibration_path(kind.key())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1))
    say(f"{kind.family()} ({kind.model}): median {with_:.1f} tok/s preloaded, {without:.1f} "
        f"without -> engine.preload auto = {'on' if with_ > without else 'off'} ({path})")
    return result


__all__ = ["calibrate", "run_once"]
