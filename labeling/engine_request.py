"""The one request every caller sends an engine: prm-label's sampling, the Monte Carlo
rollouts (`verifiers.mc`), the judge's critiques (`verifiers.judge`) and prm-search's
strategies all build an `EngineRequest`, and the engines (vLLM or simulated), the router and
the pool read only its fields.

It lives here, on the lowest floor, because both sides of the engine import it: the verifiers
that ask for text (which may not import `pipelines/`) and the engine in `pipelines/engine`
that answers. It is plain data, like the shard schemas: no engine code.

A request is a chat (`messages`, normally one user message) and `prefix`, the start of the
assistant's answer: the engine renders both with the chat template, tokenised once, so a
rollout from a chain's prefix sees exactly the text the chain was sampled with and vLLM's
prefix cache shares it. The request is frozen and pickles as a plain dataclass (it crosses Ray
process boundaries). The answer is an `EngineResult` (labeling/engine_result.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from labeling.text.loops import repeats_ok

Messages = tuple[tuple[str, str], ...]  # a chat: (role, content) pairs, in order


@dataclass(frozen=True)
class EngineRequest:
    messages: Messages
    n: int
    seed: int
    max_tokens: int
    temperature: float
    top_p: float = 1.0
    prefix: str = ""
    stop: tuple[str, ...] = ()
    # k >= 2: the engine ends a completion once a line came k times in a row (0: never;
    # `labeling.text.loops`). Rollouts ask for it: a looping one decides nothing more.
    end_loops: int = 0
    key: str = field(default="", compare=False)  # the caller's own name for it (a problem id)

    def __post_init__(self) -> None:
        # A request built by hand with a wrong value fails where it is built, not in an
        # engine process minutes later.
        if self.n < 1 or self.max_tokens < 1:
            raise ValueError(f"an engine request needs n >= 1 and max_tokens >= 1, got "
                             f"n={self.n}, max_tokens={self.max_tokens}")
        if not self.messages:
            raise ValueError("an engine request needs at least one message")
        if not repeats_ok(self.end_loops):
            raise ValueError(f"end_loops must be 0 (off) or >= 2, got {self.end_loops}")

    @classmethod
    def user(cls, content: str, **fields: object) -> EngineRequest:
        """A request whose chat is one user message (every caller's case)."""
        return cls(messages=(("user", content),), **fields)  # type: ignore[arg-type]

    @property
    def user_text(self) -> str:
        """The last user message (the prompt of every request built with `user`)."""
        return next((c for role, c in reversed(self.messages) if role == "user"), "")

    def chat(self) -> list[dict[str, str]]:
        """The messages as a chat template takes them."""
        return [{"role": role, "content": content} for role, content in self.messages]

    @classmethod
    def from_plain(cls, d: dict[str, Any]) -> EngineRequest:
        """A request from its JSON form (benchmarks keep requests in JSON files): the fields
        by name, `messages` as chat dicts."""
        fields = {k: v for k, v in d.items() if k not in ("messages", "stop")}
        return cls(messages=tuple((m["role"], m["content"]) for m in d["messages"]),
                   stop=tuple(d.get("stop") or ()), **fields)

    def to_plain(self) -> dict[str, Any]:
        """The JSON form `from_plain` reads: every sampling field, so a replay (a bare engine
        in a benchmark) samples exactly as this request did."""
        return {"messages": self.chat(), "prefix": self.prefix, "n": self.n, "seed": self.seed,
                "max_tokens": self.max_tokens, "temperature": self.temperature,
                "top_p": self.top_p, "stop": list(self.stop),
                "end_loops": self.end_loops}  # fmt: skip


__all__ = ["EngineRequest", "Messages"]
