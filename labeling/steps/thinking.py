"""The thinking part of a reasoning model's trace: where it is, whether it closed. Pure.

Thinking models (DeepSeek-R1 and its distills, QwQ, Qwen3 in thinking mode) write
`<think> ... </think>` and then a short answer. Three shapes reach the tool:
- both tags in the text (`<think>` written by the model, or put back by the engine when the
  chat template opened it: `pipelines.engine.actor`);
- only `</think>`: the chat template opened the thinking and the text starts inside it;
- neither: no thinking part (a plain chain), unless the text was cut inside a thinking the
  template opened, which only the engine can tell (it then puts the opener back).

What this module promises:
- `parse_trace` ends the thinking at the LAST `</think>` (a tag the model merely mentions
  inside its thinking does not end it early); a text with `<think>` and no `</think>` is
  unfinished (cut at `max_tokens`);
- `answer_region` is where a final answer may be read: after the thinking, never inside it;
  None when the thinking never closed (its final answer is unknown);
- `rollout_answer_text` is the same for a Monte Carlo rollout that continues a prefix.
What it does not do: judge the answer, or tell a cut plain chain from a cut thinking that
the template opened (no tag is left to see).
"""

from __future__ import annotations

from dataclasses import dataclass

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


@dataclass(frozen=True, slots=True)
class Trace:
    """Character spans of a trace's parts. `thinking`: the inside of the thinking (tags
    excluded), None when the text has none; `close`: where `</think>` starts (None when it
    never closed or there is no thinking); `answer`: what follows the thinking (the whole
    text for a plain chain; None when the thinking never closed)."""

    thinking: tuple[int, int] | None
    close: int | None
    answer: tuple[int, int] | None

    @property
    def has_thinking(self) -> bool:
        return self.thinking is not None

    @property
    def finished(self) -> bool | None:
        """True: the thinking closed; False: it was cut (no closing tag); None: no thinking."""
        return None if self.thinking is None else self.close is not None


def parse_trace(text: str) -> Trace:
    """The parts of `text` (see the module docstring)."""
    close = text.rfind(THINK_CLOSE)
    open_ = text.find(THINK_OPEN)
    if close >= 0:
        # The thinking starts after the first opener before the close, or at the start of
        # the text when the chat template opened it.
        start = open_ + len(THINK_OPEN) if 0 <= open_ < close else 0
        end = close + len(THINK_CLOSE)
        return Trace((start, close), close, (end, len(text)))
    if open_ >= 0:
        return Trace((open_ + len(THINK_OPEN), len(text)), None, None)
    return Trace(None, None, (0, len(text)))


def answer_region(text: str) -> str | None:
    """The text a final answer may be read from: after `</think>`, the whole text when there
    is no thinking, None when the thinking never closed (the answer is unknown)."""
    span = parse_trace(text).answer
    return None if span is None else text[span[0] : span[1]]


def thinking_open(text: str) -> bool:
    """Whether `text` ends inside a thinking part (an opener with no closing tag after it)."""
    return text.rfind(THINK_OPEN) > text.rfind(THINK_CLOSE)


def rollout_answer_text(prefix: str, completion: str) -> str | None:
    """Where a rollout's answer may be read: `completion` continues `prefix`. An empty
    completion asks about the prefix itself (the chain's own outcome). When the prefix ends
    inside the thinking, only what the completion writes after closing it counts; a
    completion that never closes it has no answer (None: it decides nothing). Answers the
    prefix already stated never count as the rollout's."""
    if not completion.strip():
        return answer_region(prefix)
    if thinking_open(prefix):
        close = completion.rfind(THINK_CLOSE)
        return None if close < 0 else completion[close + len(THINK_CLOSE) :]
    return answer_region(completion)


def compose(reasoning: str, content: str) -> str:
    """One trace from the two fields vLLM's reasoning parsers return (`reasoning_content` or
    `reasoning`, and `content`): the thinking in its tags, then the answer."""
    return f"{THINK_OPEN}\n{reasoning.strip()}\n{THINK_CLOSE}\n\n{content.strip()}"


def template_opener(head: str) -> str:
    """The thinking opener a chat template leaves open at the end of its generation prompt
    (`<think>` plus the whitespace after it, e.g. DeepSeek-R1's and QwQ's templates), or ""
    when the prompt does not end inside a thinking part."""
    at = head.rfind(THINK_OPEN)
    if at < 0 or head.rfind(THINK_CLOSE) > at or head[at + len(THINK_OPEN) :].strip():
        return ""
    return head[at:]


__all__ = [
    "THINK_CLOSE", "THINK_OPEN", "Trace", "answer_region", "compose", "parse_trace",
    "rollout_answer_text", "template_opener", "thinking_open",
]  # fmt: skip
