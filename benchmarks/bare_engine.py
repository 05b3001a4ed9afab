"""The bare side of `bench_throughput.py`: `vllm.LLM.generate` in fresh processes, no Ray.

One *layout* is `parts` processes of `threads` torch threads each, all started together and
held at a barrier before every phase, each generating its share of the phase's requests (a
static split by prompt, balanced over the whole phase's work, which the job's online router
cannot know ahead). With `spec["window"]` the processes find top-p's nucleus as the job's CPU
engines do (`pipelines.engine.nucleus`); otherwise by vLLM's own sort. A phase's time is from
the barrier to the last process's end. Phases:
the sampling passes, the Monte Carlo requests as one flat call, and the Math-Shepherd peer
(one chain's prefixes per call, its chains dealt out over the processes; its time is the
largest per-process sum of `generate` time, its checks left out).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections import defaultdict
from typing import Any
from unittest import mock


def share(requests: list[dict], part: int, parts: int) -> list[dict]:
    """This part's requests: whole prompts, the heaviest first to the lightest part."""
    weight: dict[str, int] = defaultdict(int)
    for r in requests:
        weight[r["messages"][0]["content"]] += r["n"] * r["max_tokens"]
    load, owner = [0] * parts, {}
    for prompt, w in sorted(weight.items(), key=lambda kv: (-kv[1], kv[0])):
        j = load.index(min(load))
        owner[prompt], load[j] = j, load[j] + w
    return [r for r in requests if owner[r["messages"][0]["content"]] == part]


def run_layout(spec: dict, dtype: str, parts: int, threads: int,
               env: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    """Every phase of `spec` in one layout; {phase: {"tokens", "s", ...}} plus "start_s".
    `env`: variables the processes start with (LD_PRELOAD acts only at a process's start)."""
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(parts)
    queue = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(spec, dtype, i, parts, threads, barrier, queue))
             for i in range(parts)]  # fmt: skip
    spawned = time.time()
    with mock.patch.dict(os.environ, env or {}):  # restored once the processes started
        for p in procs:
            p.start()
    got = [queue.get() for _ in procs]
    for p in procs:
        p.join()
    if any("error" in g for g in got):
        raise RuntimeError(next(g["error"] for g in got if "error" in g))
    # start_s: the engine's constructor alone; spawn_to_ready_s: from the processes' spawn to
    # the last engine ready (interpreter, imports and constructor: what a user waits for).
    out: dict[str, Any] = {"start_s": max(g["start_s"] for g in got),
                           "spawn_to_ready_s": max(g["ready_at"] for g in got) - spawned}
    for phase in got[0]["phases"]:
        runs = [g["phases"][phase] for g in got]
        out[phase] = {"tokens": sum(r["tokens"] for r in runs),
                      "s": max(r["t1"] for r in runs) - min(r["t0"] for r in runs),
                      "busy_s": sum(r.get("busy_s", 0.0) for r in runs),
                      "steps": sum(r.get("steps", 0) for r in runs), "engines": parts}
        if phase == "peer":
            out[phase] = {"chains": sum(r["chains"] for r in runs),
                          "labeled_steps": sum(r["labeled"] for r in runs),
                          "engine_s": max(r["engine_s"] for r in runs),
                          "tokens": out[phase]["tokens"]}  # fmt: skip
    return out


def _worker(spec, dtype, part, parts, threads, barrier, queue) -> None:
    try:
        queue.put(_phases(spec, dtype, part, parts, threads, barrier))
    except BaseException as exc:  # the parent raises it; a stuck barrier would hang it
        barrier.abort()
        queue.put({"error": f"part {part}: {exc!r}"})


def _phases(spec, dtype, part, parts, threads, barrier) -> dict:
    # The job's settings for this device and the job's `vllm.LLM` arguments
    # (pipelines/engine/device.py, actor.llm_kwargs).
    from pipelines.engine import device
    from pipelines.engine.actor import llm_kwargs

    choice = device.choose(dtype, 1 if spec["gpu"] else 0, threads)
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "2")
    device.apply(choice)
    from vllm import LLM

    if spec.get("window"):  # the job's CPU engines' top-p (engine.nucleus=window)
        from pipelines.engine import nucleus

        nucleus.install()

    t = time.perf_counter()
    llm = LLM(**llm_kwargs(spec["model"], choice, 2048, not spec["gpu"], True))
    start = time.perf_counter() - t
    tok = llm.get_tokenizer()
    ready_at = time.time()
    phases: dict[str, dict] = {}
    for rep in range(spec["repeats"]):  # the job's repeats: same prompts, seeds + rep
        mine = share([r | {"seed": r["seed"] + rep} for r in spec["sample"]], part, parts)
        phases[f"sample{rep}"] = _timed(llm, tok, mine, barrier)
    if spec["rollouts"]:
        phases["flat"] = _timed(llm, tok, share(spec["mc"], part, parts), barrier)
        barrier.wait()
        phases["peer"] = _peer(llm, tok, spec, spec["chains"][part::parts])
    return {"start_s": start, "ready_at": ready_at, "phases": phases}


def _timed(llm, tok, requests: list[dict], barrier) -> dict:
    """The phase's tokens and times, and the engine's own time inside `step()` and its
    steps (as the job's feed counts them: `busy_s`, `steps`)."""
    engine, clock = llm.llm_engine, {"busy_s": 0.0, "steps": 0}
    step = engine.step

    def timed_step():
        t = time.perf_counter()
        try:
            return step()
        finally:
            clock["busy_s"] += time.perf_counter() - t
            clock["steps"] += 1

    barrier.wait()
    t0 = time.time()
    engine.step = timed_step
    try:
        outs = generate(llm, tok, requests) if requests else []
    finally:
        engine.step = step
    return {"tokens": sum(len(c.token_ids) for o in outs for c in o.outputs), "t0": t0,
            "t1": time.time()} | clock  # fmt: skip


def generate(llm, tok, reqs: list[dict]) -> list:
    """One flat `generate` call; prompts formatted as the job's engine formats them."""
    from vllm import SamplingParams

    from pipelines.engine.actor import format_prompt
    from pipelines.engine.loops import KEY

    prompts = [
        {"prompt_token_ids": tok.encode(format_prompt(tok, r["messages"], r["prefix"], True),
                                        add_special_tokens=False)}
        for r in reqs
    ]  # fmt: skip
    params = [SamplingParams(n=r["n"], temperature=r["temperature"], top_p=r["top_p"],
                             max_tokens=r["max_tokens"], seed=r["seed"], stop=r.get("stop") or [],
                             extra_args={KEY: r["end_loops"]} if r.get("end_loops") else None)
              for r in reqs]  # fmt: skip
    return llm.generate(prompts, params, use_tqdm=False)


def _peer(llm, tok, spec: dict, chains: list) -> dict:
    """Math-Shepherd as public implementations run it: every prefix but the whole chain,
    N=8 completions each, one chain per call, every completion checked; sampled as the job
    samples (its temperature and top_p), so the two differ only in how they label."""
    from labeling.schema import Chain, Problem
    from verifiers.mc.outcome import MathOutcome
    from verifiers.mc.prefixes import prefix_texts

    check = MathOutcome()
    t0, engine_s, labeled, tokens = time.time(), 0.0, 0, 0
    for question, reference, pid, text, steps in chains:
        problem = Problem(pid, "math", "bench", question, reference=reference)
        prefixes = prefix_texts(Chain(pid, "c", 0, text, tuple(steps), "m"))[:-1]
        batch = [{"messages": [{"role": "user", "content": spec["prompt"][pid]}], "prefix": pre,
                  "n": 8, "seed": 1000 + i, "max_tokens": spec["mc_tokens"], "temperature": 0.8,
                  "top_p": spec["top_p"]} for i, pre in enumerate(prefixes)]  # fmt: skip
        t = time.perf_counter()
        outs = generate(llm, tok, batch)
        engine_s += time.perf_counter() - t
        tokens += sum(len(c.token_ids) for o in outs for c in o.outputs)
        for pre, o in zip(prefixes, outs, strict=True):
            for c in o.outputs:  # the labeler's own work: check every completion
                check(problem, pre, c.text)
        labeled += len(steps)  # Math-Shepherd labels every step (the last by the outcome)
    check.close()
    return {"chains": len(chains), "labeled": labeled, "engine_s": engine_s, "tokens": tokens,
            "t0": t0, "t1": time.time()}  # fmt: skip
