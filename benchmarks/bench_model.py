"""Can a prepared model solve problems, and how fast: GSM8K accuracy (greedy) and tokens/s.

    flock /tmp/heavy.lock .venv/bin/python benchmarks/bench_model.py \
        --model qwen_coder_0_5b --problems 24 --max-tokens 400

The first `--problems` GSM8K train problems (`../shared/data/gsm8k/train.jsonl`, a fixed
slice) go to one vLLM engine actor on a local Ray runtime (the label job's `EnginePool`) in
one batch, greedy, with the sampler's math instruction; each answer is checked by the answer
source's checker (exact numbers, then Math-Verify). Prints accuracy and tokens/s (generated
tokens / time inside `LLM.generate`, and / wall time of the call). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from labeling.engine_request import EngineRequest
from labeling.engine_result import Finish

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "gsm8k" / "train.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="qwen_coder_0_5b", help="prepare_model profile key")
    ap.add_argument("--problems", type=int, default=24, help="GSM8K problems (first N)")
    ap.add_argument("--max-tokens", type=int, default=400)
    ap.add_argument("--dtype", default="float32", help="vLLM weights dtype")
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args()

    import ray

    from labeling.datasets import load_problems
    from labeling.prompts import user_message
    from labeling.schema import Problem
    from pipelines.engine.pool import EnginePool
    from pipelines.engine.prepare_model import prepare
    from pipelines.generation_config import EngineConfig, ModelConfig, RayConfig, SamplerConfig
    from verifiers.answer import AnswerChecker

    path = prepare(model=args.model)
    problems = [p for p in load_problems({"name": "gsm8k", "path": str(args.data),
                                          "limit": args.problems}) if isinstance(p, Problem)]
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    model = ModelConfig(name=path.name, path=str(path), dtype=args.dtype, max_model_len=2048)
    engine = EngineConfig(actors=1, num_cpus=1, batch_size=4096)
    t = time.perf_counter()
    pool = EnginePool(str(path), model, engine, RayConfig())
    print(f"model {path.name} ({args.dtype}); engine start {time.perf_counter() - t:.1f}s")

    instruction = SamplerConfig().math_instruction
    requests = [
        {"messages": [{"role": "user", "content": user_message(p, instruction)}], "prefix": "",
         "n": 1, "seed": i, "max_tokens": args.max_tokens, "temperature": 0.0, "top_p": 1.0,
         "stop": []}
        for i, p in enumerate(problems)
    ]
    t = time.perf_counter()
    results = pool.generate([EngineRequest.from_plain(r) for r in requests])
    wall = time.perf_counter() - t
    inside = ray.get(pool.actors[0].timing.remote())
    checker = AnswerChecker()
    right = 0
    for p, res in zip(problems, results, strict=True):
        right += bool(checker.outcome(res.texts[0], p.reference).correct)
    checker.close()
    tokens = sum(r.tokens[0] for r in results)
    cut = sum(r.finish[0] is Finish.LENGTH for r in results)
    print(f"GSM8K (first {len(problems)} train problems, greedy, {args.max_tokens} tokens): "
          f"{right}/{len(problems)} = {right / len(problems):.0%} correct; {cut} cut at the cap")
    print(f"{tokens} tokens: {tokens / inside:.1f} tok/s inside generate, "
          f"{tokens / wall:.1f} tok/s wall ({wall:.1f}s)")
    pool.shutdown()


if __name__ == "__main__":
    main()
