"""Engine utilisation of the Monte Carlo rollout stage (real engine, embedded model, CPU).

    .venv/bin/python benchmarks/bench_engine_utilisation.py [--problems 24] [--k 4]

1. Start one vLLM engine actor on a local Ray runtime (the job's own `EnginePool`).
2. Sample chains for builtin math problems, split them into steps.
3. Run the rollout stage (`MonteCarloVerifier` + `EngineCompleter`, binary search) over all
   chains at once; record every batch it sent. Rollout tok/s = generated tokens / wall time
   of the whole stage (Ray calls, prompt formatting, answer checks and search included).
4. Replay the very same requests on the same actor, timing only `vllm.LLM.generate`:
   (a) wave by wave, as the search sent them (each wave waiting for the last), and (b) as
   one flat batch (the ceiling). Superseded by `bench_throughput.py` (sampling, rollouts and
   the peer baseline side by side); kept for the per-wave replay.
Prints both ratios. Figures are for the machine it runs on; nothing is asserted.
"""

from __future__ import annotations

import argparse
import functools
import json
import time

from labeling.engine_request import EngineRequest


def sample_chains(pool, problems_n: int, n: int, instruction: str) -> list:
    """(problem, chain) pairs sampled from builtin math problems, split into steps."""
    from labeling.datasets import load_problems
    from labeling.ids import chain_id, derive_seed
    from labeling.prompts import user_message
    from labeling.schema import Chain
    from labeling.steps.splitters import split_steps

    problems = list(load_problems({"name": "builtin_math", "limit": problems_n}))
    requests = [
        {"messages": [{"role": "user", "content": user_message(p, instruction)}], "prefix": "",
         "n": n, "seed": derive_seed(0, p.problem_id), "max_tokens": 160,
         "temperature": 0.8, "top_p": 0.95, "stop": []}
        for p in problems
    ]
    items = []
    sent = [EngineRequest.from_plain(r) for r in requests]
    for p, req, res in zip(problems, requests, pool.generate(sent), strict=True):
        for i, text in enumerate(res.texts):
            steps = tuple(split_steps(text))
            if steps:
                items.append((p, Chain(p.problem_id, chain_id(p.problem_id, "m", i), i, text,
                                       steps, "m", req["seed"])))
    return items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", type=int, default=24)
    ap.add_argument("--n", type=int, default=2, help="chains per problem")
    ap.add_argument("--k", type=int, default=4, help="rollouts per probe")
    ap.add_argument("--max-tokens", type=int, default=96, help="tokens per rollout")
    args = ap.parse_args()

    import ray

    from labeling.mc import method
    from labeling.prompts import user_message
    from pipelines.engine.completer import EngineCompleter
    from pipelines.engine.pool import EnginePool
    from pipelines.engine.prepare_model import prepare
    from pipelines.generation_config import EngineConfig, ModelConfig, RayConfig, SamplerConfig
    from verifiers.mc.driver import MonteCarloVerifier

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    t = time.perf_counter()
    pool = EnginePool(str(prepare()), ModelConfig(), EngineConfig(batch_size=4096), RayConfig())
    print(f"engine start: {time.perf_counter() - t:.1f}s")

    instruction = SamplerConfig().math_instruction
    items = sample_chains(pool, args.problems, args.n, instruction)

    class Recording(EngineCompleter):
        batches: list = []

        def submit(self, reqs):  # the driver's continuous path: one future per request
            self.batches.append(list(reqs))
            return super().submit(reqs)

    completer = Recording(pool)
    mc = MonteCarloVerifier(
        completer, domain="math",
        method=method("absolute", estimator="binary_search", k=args.k, chunk=2, confirm=2),
        self_rollouts=0,
        max_tokens=args.max_tokens, temperature=0.8,
        prompt_fn=functools.partial(user_message, math_instruction=instruction),
    )
    actor = pool.actors[0]
    g0 = ray.get(actor.timing.remote())
    t = time.perf_counter()
    mc.verify(items)
    stage_s = time.perf_counter() - t
    stage_gen_s = ray.get(actor.timing.remote()) - g0
    stats = mc.last_stats
    stage_tps = stats.tokens / stage_s

    def replay(batches) -> tuple[int, float]:
        before = ray.get(actor.timing.remote())
        tokens = 0
        for b in batches:
            for res in EngineCompleter(pool).complete(b):
                tokens += sum(c.tokens for c in res)
        return tokens, ray.get(actor.timing.remote()) - before

    tok_a, sec_a = replay(completer.batches)
    tok_b, sec_b = replay([[r for b in completer.batches for r in b]])
    figures = {
        "chains": len(items),
        "rounds": stats.rounds,
        "requests": stats.requests,
        "completions": stats.completions,
        "rollout_stage_tokens": stats.tokens,
        "rollout_stage_s": round(stage_s, 2),
        "rollout_stage_tok_per_s": round(stage_tps, 1),
        "stage_time_inside_generate_s": round(stage_gen_s, 2),
        "bare_same_batches_tok_per_s": round(tok_a / sec_a, 1),
        "bare_one_batch_tok_per_s": round(tok_b / sec_b, 1),
        "utilisation_vs_same_batches": round(stage_tps / (tok_a / sec_a), 3),
        "utilisation_vs_one_batch": round(stage_tps / (tok_b / sec_b), 3),
    }
    print(json.dumps(figures, indent=2))
    pool.shutdown()
    ray.shutdown()


if __name__ == "__main__":
    main()
