"""Text generation behind one small interface: a vLLM engine, or a simulated one.

A request is a plain dict (it crosses Ray process boundaries):
    {"messages": [{"role": "user", "content": ...}], "prefix": "assistant text so far",
     "n": 4, "seed": 123, "max_tokens": 256, "temperature": 0.8, "top_p": 0.95, "stop": []}
A result is {"texts": [...n], "tokens": [...n], "finish": [...n]}.

The engine formats prompts itself (chat template + the assistant prefix, tokenised once
without extra special tokens) so that sampling and Monte Carlo rollouts see exactly the same
text for the same prefix, and vLLM's prefix cache can share it.

`ray.data.llm` was not used: it keeps only the first of `n` samples and asks for GPUs.
"""

from __future__ import annotations

import os
import random
import time
from typing import Any

SIMULATED_MODEL = "simulated"


def format_prompt(tokenizer: Any, messages: list[dict[str, str]], prefix: str, chat: bool) -> str:
    """The full prompt text: chat template with the generation prompt, then the prefix."""
    if chat and tokenizer is not None and getattr(tokenizer, "chat_template", None):
        head = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    else:
        head = "\n\n".join(m["content"] for m in messages) + "\n\n"
    return head + prefix


class VLLMEngine:
    """One `vllm.LLM`. Create it inside a Ray actor or under `if __name__ == "__main__":`
    (vLLM spawns processes)."""

    def __init__(self, model_path: str, model: Any, engine: Any) -> None:
        # model: ModelConfig, engine: EngineConfig (pipelines.label.config)
        # Must be in the environment before vLLM is imported (CPU backend reads it once).
        os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", str(model.kv_cache_gib))
        os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
        from vllm import LLM

        kwargs: dict[str, Any] = {
            "model": model_path,
            "dtype": model.dtype,
            "max_model_len": model.max_model_len,
            "enforce_eager": model.enforce_eager,
            "enable_prefix_caching": engine.enable_prefix_caching,
            "seed": 0,
            # Per-request seeds (our reproducibility) crash vLLM's CPU backend when a prompt
            # is prefilled in chunks ("CPU Generator does not use offset"); whole prefills
            # with a budget that fits many prompts avoid it at no cost on CPU.
            "enable_chunked_prefill": False,
            "max_num_batched_tokens": max(8192, int(model.max_model_len)),
        }
        if engine.num_gpus:
            kwargs["tensor_parallel_size"] = model.tensor_parallel_size
            kwargs["gpu_memory_utilization"] = model.gpu_memory_utilization
        self.llm = LLM(**kwargs)
        self.tokenizer = self.llm.get_tokenizer()
        self.chat = bool(model.use_chat_template)
        self.max_model_len = int(kwargs["max_model_len"])
        self.generate_seconds = 0.0  # time inside llm.generate only (benchmarks read it)

    def generate(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        from vllm import SamplingParams

        prompts, params = [], []
        for r in requests:
            text = format_prompt(self.tokenizer, r["messages"], r.get("prefix", ""), self.chat)
            ids = self.tokenizer.encode(text, add_special_tokens=False)
            # Leave room for the completion: a prompt too long for the context is cut from
            # the left is wrong (the question would be lost); instead shrink max_tokens and,
            # if nothing is left, return an empty completion marked "length".
            room = self.max_model_len - len(ids)
            prompts.append({"prompt_token_ids": ids})
            params.append(
                SamplingParams(
                    n=int(r.get("n", 1)),
                    temperature=float(r.get("temperature", 0.8)),
                    top_p=float(r.get("top_p", 1.0)),
                    max_tokens=max(1, min(int(r["max_tokens"]), room - 1)),
                    seed=int(r["seed"]),
                    stop=list(r.get("stop") or []),
                )
            )
        limit = self.max_model_len - 1
        keep = [i for i, p in enumerate(prompts) if len(p["prompt_token_ids"]) < limit]
        t0 = time.perf_counter()
        outs = self.llm.generate(
            [prompts[i] for i in keep], [params[i] for i in keep], use_tqdm=False
        )
        self.generate_seconds += time.perf_counter() - t0
        results: list[dict[str, Any]] = [
            {"texts": [""], "tokens": [0], "finish": ["prompt_too_long"]} for _ in requests
        ]
        for i, out in zip(keep, outs, strict=True):
            results[i] = {
                "texts": [c.text for c in out.outputs],
                "tokens": [len(c.token_ids) for c in out.outputs],
                "finish": [str(c.finish_reason) for c in out.outputs],
            }
        return results

    def ping(self) -> str:
        return "ok"

    def pid(self) -> int:
        return os.getpid()

    def timing(self) -> float:
        """Seconds spent inside `llm.generate` so far."""
        return self.generate_seconds


class SimulatedEngine:
    """Deterministic fake text, no model: exercises the whole pipeline at any scale.

    Each completion is 2-6 "Step k:" paragraphs with small arithmetic claims, some wrong,
    ending in \\boxed{n}; it depends only on the request's seed, so runs are reproducible.
    Token counts are word counts.
    """

    def __init__(self, model_path: str = "", model: Any = None, engine: Any = None) -> None:
        self.calls = 0
        # Latency per generate() call, to model a real engine in fault tests and benchmarks.
        self.delay_s = float(engine.simulated_delay_s if engine is not None else 0.0)

    @staticmethod
    def _one(rng: random.Random, prefix: str) -> str:
        steps = []
        start = prefix.count("Step ") + 1
        for k in range(start, start + rng.randint(1, 5)):
            a, b = rng.randint(2, 40), rng.randint(2, 40)
            c = a * b if rng.random() > 0.2 else a * b + rng.randint(1, 9)
            steps.append(f"Step {k}: {a} * {b} = {c}.")
        steps.append(f"The answer is \\boxed{{{rng.randint(0, 60)}}}.")
        return "\n\n".join(steps)

    def generate(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        self.calls += 1
        if self.delay_s:
            time.sleep(self.delay_s)
        results = []
        for r in requests:
            texts = []
            for j in range(int(r.get("n", 1))):
                rng = random.Random(int(r["seed"]) * 1_000_003 + j)
                texts.append(self._one(rng, r.get("prefix", "")))
            results.append(
                {
                    "texts": texts,
                    "tokens": [len(t.split()) for t in texts],
                    "finish": ["stop"] * len(texts),
                }
            )
        return results

    def ping(self) -> str:
        return "ok"

    def pid(self) -> int:
        return os.getpid()
