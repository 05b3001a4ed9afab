"""The Monte Carlo driver's completer, implemented with the engine pool.

The driver's `EngineRequest`s (the problem as the user message, the chain prefix as the start
of the assistant's answer) go to the engine as they are; the engine renders both exactly as it
rendered the sampled chain, so vLLM's prefix cache shares the prompt and the prefix.

`submit` (the `AsyncCompleter` protocol) sends one engine call per request and returns one
future per request, so the driver sends a chain's next probe the moment its last one is
done, while the engine keeps generating every other chain's; `capacity` (the engines' batch
room) lets it send later rollouts early when the engine has room. `complete` is the batch
form.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future

from labeling.engine_request import EngineRequest
from labeling.engine_result import EngineResult
from pipelines.engine.pool import EnginePool
from verifiers.mc.protocol import Completion


class EngineCompleter:
    def __init__(self, pool: EnginePool, model_name: str = "") -> None:
        self.pool = pool
        self.model_name = model_name

    @property
    def capacity(self) -> int:
        """Requests the engines run at once: the driver speculates up to it."""
        return int(self.pool.room()[0])

    @property
    def look_ahead(self) -> int:
        """Probes deep a search may look ahead on these engines (`device.look_ahead`)."""
        return int(self.pool.room()[1])

    def submit(self, requests: Sequence[EngineRequest]) -> list[Future[list[Completion]]]:
        out = []
        for r in requests:
            done: Future[list[Completion]] = Future()
            call = self.pool.future([r], tag="rollout")
            call.add_done_callback(lambda f, r=r, done=done: _relay(f, done, r))
            out.append(done)
        return out

    def complete(self, requests: Sequence[EngineRequest]) -> list[list[Completion]]:
        if not requests:
            return []
        results = self.pool.generate(list(requests), tag="rollout")
        return [completions(r, res) for r, res in zip(requests, results, strict=True)]


def _relay(call: Future, done: Future, r: EngineRequest) -> None:
    try:
        (res,) = call.result()
        done.set_result(completions(r, res))
    except BaseException as exc:  # the engine's error reaches the driver, which raises it
        done.set_exception(exc)


def completions(r: EngineRequest, res: EngineResult) -> list[Completion]:
    """The `r.n` completions of one engine result (empty ones where it has fewer: a prompt
    too long for the context)."""
    out = list(res.completions)
    return out + [Completion("", 0)] * (r.n - len(out))
