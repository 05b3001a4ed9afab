"""The one answer an engine gives to an `EngineRequest` (labeling/engine_request.py): its
completions, in order, each with its text, its generated tokens and why it ended (`Finish`).

It lives beside the request, on the lowest floor, for the same reason: the verifiers that
ask for text (Monte Carlo, the judge) and prm-search's strategies read it, and the engines in
`pipelines/engine` make it. Every engine (vLLM's feed, the simulated one, a prompt too long
for the context) builds it through `EngineResult.of` or `EngineResult.too_long`; callers read
`completions` (or the `texts`/`tokens`/`finish` columns), never a dict.

Plain frozen data: it pickles across Ray process boundaries. `Finish` is a `StrEnum`: a
finish reason written to a shard (`Chain.finish_reason`) is its plain string value.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum


class Finish(StrEnum):
    """Why a completion ended: vLLM's reasons (`vllm.v1.engine.FINISH_REASON_STRINGS`) and
    the two this project adds."""

    STOP = "stop"  # the model ended it (end of sequence or a stop string)
    LENGTH = "length"  # cut at max_tokens (or at the room the context left)
    ABORT = "abort"  # vLLM aborted the request
    ERROR = "error"  # vLLM failed the request
    REPETITION = "repetition"  # vLLM's own repetition detection ended it
    LOOP = "loop"  # ended by `EngineRequest.end_loops` (a line repeated k times in a row)
    PROMPT_TOO_LONG = "prompt_too_long"  # no room in the context: one empty completion

    @classmethod
    def of(cls, reason: object) -> Finish:
        """The member for an engine's reason (vLLM's string or enum name). Raises ValueError
        for a reason this project does not know, so a new one is added here, not guessed."""
        text = str(getattr(reason, "name", reason)).lower()
        return cls(text)


@dataclass(frozen=True, slots=True)
class Completion:
    """One completion: the continuation only (without the request's prefix)."""

    text: str
    tokens: int  # generated tokens
    finish: Finish = Finish.STOP


@dataclass(frozen=True, slots=True)
class EngineResult:
    """The completions of one request, in order: `request.n` of them, or one empty
    `PROMPT_TOO_LONG` completion when the prompt left no room in the context."""

    completions: tuple[Completion, ...]

    @classmethod
    def of(cls, texts: Iterable[str], tokens: Iterable[int],
           finish: Iterable[Finish | str]) -> EngineResult:  # fmt: skip
        """A result from the engine's three columns (equal lengths, or ValueError)."""
        return cls(tuple(Completion(t, int(k), Finish.of(f))
                         for t, k, f in zip(texts, tokens, finish, strict=True)))

    @classmethod
    def too_long(cls) -> EngineResult:
        """The answer to a prompt that leaves no room in the context."""
        return cls((Completion("", 0, Finish.PROMPT_TOO_LONG),))

    @property
    def prompt_too_long(self) -> bool:
        return any(c.finish is Finish.PROMPT_TOO_LONG for c in self.completions)

    @property
    def texts(self) -> list[str]:
        return [c.text for c in self.completions]

    @property
    def tokens(self) -> list[int]:
        return [c.tokens for c in self.completions]

    @property
    def finish(self) -> list[Finish]:
        return [c.finish for c in self.completions]

    def with_opener(self, opener: str) -> EngineResult:
        """The same result with `opener` before every text: a sampling result whose chat
        template opened a thinking part for the model (DeepSeek-R1's and QwQ's templates end
        with `<think>\\n`) keeps its whole thinking part, so a trace cut inside it reads as
        unfinished, not as a plain chain. For requests without a prefix only (a continuation
        follows its prefix); a prompt-too-long answer stays empty."""
        if not opener or self.prompt_too_long:
            return self
        return EngineResult(tuple(replace(c, text=opener + c.text) for c in self.completions))


__all__ = ["Completion", "EngineResult", "Finish"]
