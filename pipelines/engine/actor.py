"""Text generation behind one small interface: a vLLM engine, or a simulated one.

A request is an `EngineRequest` (labeling/engine_request.py): a chat, the assistant's prefix
and the sampling fields. A result is an `EngineResult` (labeling/engine_result.py): its
completions, each with a `Finish`.

The engine formats prompts itself (chat template + the assistant prefix, tokenised once
without extra special tokens) so that sampling and Monte Carlo rollouts see exactly the same
text for the same prefix, and vLLM's prefix cache can share it.

`ray.data.llm` was not used: it keeps only the first of `n` samples and asks for GPUs.
"""

from __future__ import annotations

import asyncio
import copy
import os
import random
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from labeling.engine_request import EngineRequest
from labeling.engine_result import EngineResult, Finish
from labeling.steps.thinking import THINK_OPEN, template_opener, thinking_open
from labeling.text.loops import ended_in_loop
from pipelines.engine import device, loops, nucleus, preload
from pipelines.engine.feed import EngineFeed
from pipelines.generation_config import EngineConfig, ModelConfig


def prompt_head(tokenizer: Any, messages: list[dict[str, str]], chat: bool) -> str:
    """The prompt before the assistant's prefix: the chat template with the generation
    prompt (which may open a thinking part: `labeling.steps.thinking.template_opener`)."""
    if chat and tokenizer is not None and getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    return "\n\n".join(m["content"] for m in messages) + "\n\n"


def format_prompt(tokenizer: Any, messages: list[dict[str, str]], prefix: str, chat: bool) -> str:
    """The full prompt text: chat template with the generation prompt, then the prefix. When
    the template opens a thinking part and the prefix starts with its own `<think>` (a
    sampled trace, which keeps the template's opener: `EngineResult.with_opener`), the
    prefix's stands in for the template's, so a rollout sees exactly the text the chain was
    sampled with."""
    head = prompt_head(tokenizer, messages, chat)
    opener = template_opener(head)
    if opener and prefix.startswith(THINK_OPEN):
        head = head[: len(head) - len(opener)]
    return head + prefix


def process_started_at(pid: int | str = "self") -> float | None:
    """Wall-clock time this process was created (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        boot = next(float(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))
    except (OSError, StopIteration, IndexError, ValueError):
        return None
    return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: starttime in ticks


class StartupClock:
    """Where an engine's start-up went: (phase, wall-clock end) pairs, from the process's
    creation (`process`, 10 ms resolution) through `actor` (the engine object begins),
    `torch` (device set up, torch imported), `vllm` (vLLM imported), `loaded` (weights and
    KV cache ready) to `ready`. The pool logs them at `debug.verbose_engine`."""

    def __init__(self) -> None:
        started = process_started_at()
        self.marks: list[tuple[str, float]] = [("process", started)] if started else []
        self.mark("actor")

    def mark(self, phase: str) -> None:
        self.marks.append((phase, time.time()))


def describe_startup(marks: list[tuple[str, float]], since: float) -> str:
    """`process +0.4s, actor +2.1s, ...`: each phase's end after `since` (the pool's start)."""
    return ", ".join(f"{phase} {at - since:+.1f}s" for phase, at in marks)


def llm_kwargs(model_path: str, choice: device.DeviceChoice, max_model_len: int,
               enforce_eager: bool, prefix_caching: bool,
               verbose: bool = False) -> dict[str, Any]:  # fmt: skip
    """`vllm.LLM`'s arguments for one engine of the job (`choice`: the device's choice);
    the bare engines of the benchmarks and the calibration take the same."""
    kwargs: dict[str, Any] = {
        "model": model_path,
        "dtype": choice.dtype,
        "max_model_len": max_model_len,
        "enforce_eager": enforce_eager,
        "enable_prefix_caching": prefix_caching,
        "seed": 0,
        # Per-request seeds (our reproducibility) crash vLLM's CPU backend when a prompt is
        # prefilled in chunks ("CPU Generator does not use offset"); whole prefills with a
        # budget that fits many prompts avoid it at no cost on CPU.
        "enable_chunked_prefill": False,
        "max_num_batched_tokens": max(8192, int(max_model_len)),
        "use_tqdm_on_load": verbose,  # the weights' progress bar is start-up noise
        # Inert unless a request asks for it (`EngineRequest.end_loops`); by name, so that an
        # engine core in its own process imports it there.
        "logits_processors": [loops.FQCN],
    }
    if choice.block_size:
        kwargs["block_size"] = choice.block_size
    return kwargs


class VLLMEngine:
    """One vLLM engine fed continuously (`EngineFeed`). Create it inside a Ray actor or under
    `if __name__ == "__main__":` (vLLM may spawn processes).

    `threads`: torch threads on CPU, from the pool's plan (`layout.py`); 0: `engine.threads`,
    or every core this process sees. `verbose` keeps vLLM's INFO logs. The dtype, core
    placement and KV block size are chosen by `pipelines.engine.device`; `choice()` says which
    and why.
    """

    def __init__(
        self, model_path: str, model: ModelConfig, engine: EngineConfig, threads: int = 0,
        verbose: bool = False,
    ) -> None:  # fmt: skip
        self.clock = StartupClock()
        self._pieces: Any = None
        threads = threads or int(getattr(engine, "threads", 0) or 0)
        self.device = device.choose(
            str(model.dtype), engine.num_gpus, threads,
            block_size=int(getattr(engine, "block_size", 0) or 0),
        )  # fmt: skip
        # Must be in the environment before vLLM is imported (CPU backend reads it once).
        os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", str(model.kv_cache_gib))
        device.apply(self.device, verbose)
        self.clock.mark("torch")
        from vllm import LLM

        self.clock.mark("vllm")
        # In the engine's process (its core runs in-process on CPU), before it samples.
        self.window_top_p = self.device.device == "cpu" and nucleus.install(
            str(getattr(engine, "nucleus", "auto")) != "sort")  # fmt: skip

        kwargs = llm_kwargs(model_path, self.device, model.max_model_len, model.enforce_eager,
                            engine.enable_prefix_caching, verbose)
        if engine.num_gpus:
            kwargs["tensor_parallel_size"] = model.tensor_parallel_size
            kwargs["gpu_memory_utilization"] = model.gpu_memory_utilization
        self.chat = bool(model.use_chat_template)
        self.max_model_len = int(kwargs["max_model_len"])
        # The feed's thread builds the engine and is the only one to run it (see feed.py).
        self.feed = EngineFeed(lambda: self._build(LLM, kwargs), finish_of=self._finish_of)
        self.clock.mark("loaded")
        self.tokenizer = self.llm.get_tokenizer()
        # Callers format and encode prompts while the feed's thread steps the engine, which
        # decodes with its tokenizer: a Rust tokenizer used from two threads at once can fail
        # ("Already borrowed"), so callers get a copy of their own.
        try:
            self.encoder = copy.deepcopy(self.tokenizer)
        except Exception:  # an uncopyable tokenizer: share it (calls are then serialised)
            self.encoder = self.tokenizer
        self.clock.mark("ready")

    def _build(self, llm_class: Any, kwargs: dict[str, Any]) -> tuple[Any, int]:
        self.llm = llm_class(**kwargs)
        seqs = self.llm.llm_engine.vllm_config.scheduler_config.max_num_seqs
        return self.llm.llm_engine, int(seqs)

    def _finish_of(self, params: Any, output: Any) -> Finish:
        """vLLM's finish reason of a completion, or `LOOP` where `LoopEnd` ended it (read
        back from its tokens with the same runs). Runs in the feed's thread, which decodes."""
        k = loops.loop_length(params)
        if k and Finish.of(output.finish_reason) is Finish.STOP:
            if self._pieces is None:
                self._pieces = loops.Pieces(self.tokenizer)
            if ended_in_loop([self._pieces(t) for t in output.token_ids], k):
                return Finish.LOOP
        return Finish.of(output.finish_reason)

    def _item(self, r: EngineRequest) -> tuple[dict, Any] | None:
        from vllm import SamplingParams
        from vllm.sampling_params import RequestOutputKind

        text = format_prompt(self.encoder, r.chat(), r.prefix, self.chat)
        ids = self.encoder.encode(text, add_special_tokens=False)
        # A prompt too long for the context cannot be cut from the left (the question would
        # be lost): max_tokens shrinks to the room left, and without room the request is
        # answered with one empty completion marked `PROMPT_TOO_LONG`.
        room = self.max_model_len - len(ids)
        if room < 2:
            return None
        params = SamplingParams(
            n=r.n,
            temperature=r.temperature,
            top_p=r.top_p,
            max_tokens=max(1, min(r.max_tokens, room - 1)),
            seed=r.seed,
            stop=list(r.stop),
            extra_args={loops.KEY: r.end_loops} if r.end_loops else None,
        )
        params.output_kind = RequestOutputKind.FINAL_ONLY  # only finished outputs come back
        return {"prompt_token_ids": ids}, params

    def submit(self, requests: list[EngineRequest], tag: str = "sample") -> Future:
        """A future of the results, in request order; resolves when all are done. A
        request without a prefix whose chat template opens a thinking part gets the opener
        back at the start of its texts (`EngineResult.with_opener`)."""
        inner = self.feed.submit([self._item(r) for r in requests], tag, EngineResult.too_long())
        openers = [
            "" if r.prefix else template_opener(prompt_head(self.encoder, r.chat(), self.chat))
            for r in requests
        ]
        if not any(openers):
            return inner
        outer: Future = Future()

        def done(fut: Future) -> None:
            try:
                results = fut.result()
            except BaseException as exc:  # the caller sees the engine's own error
                outer.set_exception(exc)
                return
            outer.set_result([res.with_opener(o)
                              for res, o in zip(results, openers, strict=True)])

        inner.add_done_callback(done)
        return outer

    def generate(self, requests: list[EngineRequest],
                 tag: str = "sample") -> list[EngineResult]:  # fmt: skip
        return self.submit(requests, tag).result()

    async def agenerate(self, requests: list[EngineRequest],
                        tag: str = "sample") -> list[EngineResult]:  # fmt: skip
        """`generate` for Ray: an async actor serves many calls at once, all in one batch."""
        return await asyncio.wrap_future(self.submit(requests, tag))

    def stats(self) -> dict[str, Any]:
        return self.feed.stats()

    def choice(self) -> str:
        text = self.device.describe()
        if self.device.device == "cpu":
            names, paths = preload.loaded(), preload.loaded_paths()
            text += f"; {preload.describe(names)}"
            if paths:  # resolved on this engine's node, mapped in its own process
                text += f" from {', '.join(paths)} on this node"
            why = os.environ.get(preload.REASON_ENV)
            if why:
                text += f" ({why})"
            text += ("; top-p from each row's largest probabilities (engine.nucleus=window)"
                     if self.window_top_p else "; top-p by vLLM's sort (engine.nucleus=sort)")
        return text

    def room(self) -> tuple[int, int]:
        """Sequences the engine runs at once (vLLM's max_num_seqs), and probes deep an MC
        search may look ahead on it (`device.look_ahead`)."""
        return self.feed.max_num_seqs, device.look_ahead(self.device)

    def ping(self) -> str:
        return "ok"

    def startup(self) -> list[tuple[str, float]]:
        """When each start-up phase ended (wall-clock seconds, comparable across the
        processes of one node): see `StartupClock`."""
        return self.clock.marks

    def pid(self) -> int:
        return os.getpid()

    def timing(self) -> float:
        """Seconds the engine spent stepping so far (busy time; benchmarks read it)."""
        return self.feed.stats()["busy_s"]


class SimulatedEngine:
    """Deterministic fake text, no model: exercises the whole pipeline at any scale.

    Each completion is 2-6 "Step k:" paragraphs with small arithmetic claims, some wrong,
    ending in \\boxed{n} (after `</think>` when the prefix ends inside a thinking part); it
    depends only on the request's seed + j (vLLM's seed of completion j) and prefix, so runs
    are reproducible.
    Token counts are word counts.
    """

    def __init__(
        self, model_path: str = "", model: ModelConfig | None = None,
        engine: EngineConfig | None = None, threads: int = 0, verbose: bool = False,
    ) -> None:  # fmt: skip
        self.calls = 0
        self.counts = {"requests": 0, "tokens": 0}
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
        # A prefix inside a thinking part (a reasoning trace's rollout) is continued as a
        # thinking model would: the thinking closes before the answer.
        close = ["</think>"] if thinking_open(prefix) else []
        steps += [*close, f"The answer is \\boxed{{{rng.randint(0, 60)}}}."]
        return "\n\n".join(steps)

    def generate(self, requests: list[EngineRequest],
                 tag: str = "sample") -> list[EngineResult]:  # fmt: skip
        self.calls += 1
        if self.delay_s:
            time.sleep(self.delay_s)
        results = []
        for r in requests:
            texts = []
            for j in range(r.n):
                rng = random.Random(r.seed + j)  # vLLM's seed of a request's j-th completion
                texts.append(self._one(rng, r.prefix))
            results.append(EngineResult.of(texts, [len(t.split()) for t in texts],
                                           [Finish.STOP] * len(texts)))
        self.counts["requests"] += len(requests)
        self.counts["tokens"] += sum(sum(r.tokens) for r in results)
        return results

    def submit(self, requests: list[EngineRequest], tag: str = "sample") -> Future:
        fut: Future = Future()
        fut.set_result(self.generate(requests, tag))
        return fut

    async def agenerate(self, requests: list[EngineRequest],
                        tag: str = "sample") -> list[EngineResult]:  # fmt: skip
        return self.generate(requests, tag)

    def stats(self) -> dict[str, Any]:
        n, k = self.counts["requests"], self.counts["tokens"]
        tag = {"requests": n, "done": n, "budget": k, "done_budget": k, "tokens": k}
        return {"tags": {"all": tag}, "busy_s": 0.0, "steps": self.calls, "live_tokens": k}

    def choice(self) -> str:
        return "simulated engine (no model)"

    def room(self) -> tuple[int, int]:
        return 0, 0  # answers at once: nothing to fill

    def ping(self) -> str:
        return "ok"

    def pid(self) -> int:
        return os.getpid()
