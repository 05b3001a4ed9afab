"""The Monte Carlo driver's completer, implemented with the engine pool.

Each `CompletionRequest` becomes one engine request with the problem as the user message and
the chain prefix as the start of the assistant's answer; the engine renders both exactly as
it rendered the sampled chain, so vLLM's prefix cache shares the prompt and the prefix.

`submit` (the `AsyncCompleter` protocol) sends one engine call per request and returns one
future per request, so the driver sends a chain's next probe the moment its last one is
done, while the engine keeps generating every other chain's; `capacity` (the engines' batch
room) lets it send later rollouts early when the engine has room. `complete` is the batch
form.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any

from pipelines.engine.request import EngineRequest
from verifiers.rollout.protocol import Completion, CompletionRequest


def engine_request(r: Any, top_p: float, prefix: str = "") -> EngineRequest:
    """The engine's request for a completion or critique request: its prompt as the user
    message, `prefix` as the start of the answer."""
    return EngineRequest.user(r.prompt_text, prefix=prefix, n=r.n, seed=r.seed,
                              max_tokens=r.max_tokens, temperature=r.temperature, top_p=top_p)


class EngineCompleter:
    def __init__(self, pool: Any, model_name: str = "", top_p: float = 1.0) -> None:
        self.pool = pool
        self.model_name = model_name
        self.top_p = top_p

    @property
    def capacity(self) -> int:
        """Requests the engines run at once: the driver speculates up to it (chunk=1)."""
        return int(self.pool.capacity())

    def _engine_request(self, r: CompletionRequest) -> EngineRequest:
        return engine_request(r, self.top_p, r.prefix_text)

    @staticmethod
    def _completions(r: CompletionRequest, res: dict[str, Any]) -> list[Completion]:
        completions = [
            Completion(text, tokens)
            for text, tokens in zip(res["texts"], res["tokens"], strict=True)
        ]
        if len(completions) != r.n:  # e.g. a prompt too long for the context
            completions += [Completion("", 0)] * (r.n - len(completions))
        return completions

    def submit(self, requests: Sequence[CompletionRequest]) -> list[Future[list[Completion]]]:
        out = []
        for r in requests:
            done: Future[list[Completion]] = Future()
            call = self.pool.future([self._engine_request(r)], tag="rollout")
            call.add_done_callback(lambda f, r=r, done=done: _relay(f, done, self, r))
            out.append(done)
        return out

    def complete(self, requests: Sequence[CompletionRequest]) -> list[list[Completion]]:
        if not requests:
            return []
        results = self.pool.generate([self._engine_request(r) for r in requests], tag="rollout")
        return [self._completions(r, res) for r, res in zip(requests, results, strict=True)]


def _relay(call: Future, done: Future, completer: EngineCompleter, r: CompletionRequest) -> None:
    try:
        (res,) = call.result()
        done.set_result(completer._completions(r, res))
    except BaseException as exc:  # the engine's error reaches the driver, which raises it
        done.set_exception(exc)
