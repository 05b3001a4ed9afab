"""The pure parts of a PRM used as an RL reward: reading what trainers send, folding step
scores into one finite number, and locating each step in the completion.

Plain functions on plain data (no model, no tokenizer object), used by `pipelines.reward`:
- `completion_text` / `prompt_text` read a completion or prompt in any shape a trainer sends
  (a string, TRL's chat messages, a chat-template string); anything else is malformed (None).
- `split_query` cuts OpenRLHF's `query` (prompt + response, decoded with special tokens) into
  the question and the response.
- `fold` turns a completion's step scores (and, optionally, a verified outcome) into ONE
  finite reward: the promise every trainer relies on (a NaN turns GRPO's advantages into NaN).
- `step_ends` gives each step's end offset in the completion; `token_ends` maps those to the
  policy's tokens.

What this module does not do: split text into steps (`labeling.steps.splitters`, the one splitter
training used), score steps (a PRM) or judge answers (`verifiers.answer`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from labeling.prm.search import Aggregation, aggregate

# The default aggregation, and why: `min` cannot be raised by adding steps (with `mean` or a
# sum, a policy can pad a solution with many easy, "safe" steps: the reward hacking that
# min-form credit assignment avoids, Cheng et al. 2025, "Stop Summation"), it does not shrink
# with length the way `prod` does (which pays for short answers), and a chain is as good as
# its weakest step, which is what a PRM trained on first-error labels measures.
DEFAULT_AGGREGATION = Aggregation.min
# A completion with nothing to score (empty, no text, every step past the PRM's length) gets
# this much by default: the reward of a solution the PRM rates wrong at every step, so the
# policy is never paid for saying nothing or for running past what the PRM can read.
DEFAULT_EMPTY_REWARD = 0.0
# With a reference, the verified answer counts this much beside the PRM (`fold`): at 0.5 a
# right final answer (>= 0.5) always out-earns a wrong one (<= 0.5) whatever the PRM says,
# and among answers alike the PRM orders the working: a policy cannot be paid more for
# well-formed steps to a wrong answer than for the right one.
DEFAULT_OUTCOME_WEIGHT = 0.5
# End-of-text tokens a trainer's decode may leave at the end of a completion
# (skip_special_tokens=False); removed before splitting so the last step is the model's text.
END_TOKENS = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end|>", "</s>", "<eos>",
              "<end_of_turn>", "<|end_of_text|>")  # fmt: skip


class Note(StrEnum):
    """Why a completion got the stated empty value (or, for a format failure, the format
    reward) instead of a PRM aggregate; `scored` when it got the aggregate."""

    scored = "scored"  # at least one step was scored
    no_steps = "no_steps"  # the text splits into no step (empty, whitespace, tags only)
    unscored = "unscored"  # steps exist, but the PRM scored none (all past max_length)
    malformed = "malformed"  # the trainer sent something that is not text
    split_error = "split_error"  # the splitter raised on this text
    unfinished = "unfinished"  # format: the thinking never closed (no </think>)
    no_answer = "no_answer"  # format: no final answer after the thinking


# The notes of the format rule (`pipelines.reward.format_check`): these get the format reward.
FORMAT_NOTES = frozenset({Note.unfinished, Note.no_answer})


@dataclass(frozen=True, slots=True)
class StepReward:
    """One step: its P(correct) (None: not scored, past the PRM's `max_length`), where it ends
    in the completion text (exclusive character offset; None if the splitter rewrote the text
    so it cannot be found) and, when the caller gave the policy's token ids, the index of the
    policy token holding the step's last character."""

    score: float | None
    char_end: int | None
    token_end: int | None = None


@dataclass(frozen=True, slots=True)
class CompletionReward:
    """The reward of one completion. `reward` is always finite. `prm` is the aggregate of the
    scored steps (None: nothing scored, see `note`); `outcome` is 1.0/0.0 from the answer
    check (None: not asked, no reference, or undecided); `capped`: how many of the last
    `steps` lay past `max_steps`/`max_tokens` and were not sent to the PRM."""

    reward: float
    prm: float | None
    outcome: float | None
    steps: tuple[StepReward, ...]
    note: Note
    capped: int = 0  # steps past the reward's caps: counted in `steps`, never scored


def fold(
    scores: Sequence[Any],
    how: Aggregation | str = DEFAULT_AGGREGATION,
    empty: float = DEFAULT_EMPTY_REWARD,
    outcome: bool | None = None,
    outcome_weight: float = 0.0,
) -> tuple[float, float | None, list[float | None]]:
    """(reward, prm aggregate or None, cleaned step scores). A score that is not a finite
    number counts as not scored; finite ones are clamped to [0, 1]. With no scored step the
    reward is `empty`, outcome or not (an answer with no working the PRM could read earns
    what saying nothing earns). With a decided `outcome` and a scored step,
    reward = (1 - w) * prm + w * outcome.
    Raises ValueError for a non-finite `empty` or a weight outside [0, 1] (config errors)."""
    if not (isinstance(empty, int | float) and math.isfinite(empty)):
        raise ValueError(f"the empty reward must be a finite number, not {empty!r}")
    if not 0.0 <= outcome_weight <= 1.0:
        raise ValueError(f"the outcome weight must lie in [0, 1], not {outcome_weight!r}")
    clean = [_probability(s) for s in scores]
    prm = aggregate(clean, how) if any(s is not None for s in clean) else None
    base = prm if prm is not None and math.isfinite(prm) else float(empty)
    reward = base
    if outcome is not None and outcome_weight > 0.0 and prm is not None:
        reward = (1.0 - outcome_weight) * base + outcome_weight * (1.0 if outcome else 0.0)
    return (reward if math.isfinite(reward) else float(empty)), prm, clean


def _probability(s: Any) -> float | None:
    if isinstance(s, bool) or not isinstance(s, int | float) or not math.isfinite(s):
        return None
    return min(1.0, max(0.0, float(s)))


def clean_text(s: str) -> str:
    """`s` with lone UTF-16 surrogates (valid JSON escapes, invalid text) replaced by '?',
    so tokenizers accept it; the length and every other character stay the same."""
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-8", "replace").decode("utf-8")


def _content(message: Any) -> str | None:
    """The text of one chat message: `content` as a string or a list of text parts."""
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "".join(p for p in parts if isinstance(p, str))
    return None


def completion_text(value: Any) -> str | None:
    """A completion as text: a string, or chat messages (TRL's conversational format; the
    assistant messages' text joined by newlines). None when it is neither (malformed)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        value = [value]
    if isinstance(value, list | tuple) and value and all(isinstance(m, dict) for m in value):
        said = [_content(m) for m in value if m.get("role", "assistant") == "assistant"]
        texts = [t for t in said if t is not None]
        return clean_text("\n".join(texts)) if texts else None
    return None


_CHATML_USER = re.compile(r"<\|im_start\|>user\n(.*?)(?:<\|im_end\|>|$)", re.S)
_LLAMA3_USER = re.compile(
    r"<\|start_header_id\|>user<\|end_header_id\|>\n\n(.*?)(?:<\|eot_id\|>|$)", re.S
)


def prompt_text(value: Any) -> str | None:
    """The question a PRM expects as its prompt: a string as it is, except that a chat-template
    string (ChatML, Llama 3) gives its last user turn; chat messages give the last user
    message. None when it is none of these (malformed). Other templates pass unchanged."""
    if isinstance(value, str):
        for pattern in (_CHATML_USER, _LLAMA3_USER):
            turns = pattern.findall(value)
            if turns:
                return clean_text(turns[-1].strip())
        return clean_text(value)
    if isinstance(value, list | tuple) and all(isinstance(m, dict) for m in value):
        users = [_content(m) for m in value if m.get("role") == "user"]
        users = [u for u in users if u is not None]
        return clean_text(users[-1]) if users else ""
    return None


_ASSISTANT_OPEN = re.compile(
    r"<\|im_start\|>assistant\n|<\|start_header_id\|>assistant<\|end_header_id\|>\n\n"
)


def split_query(query: str, prompt: str | None) -> tuple[str, str]:
    """(question, response) from OpenRLHF's `query` (the prompt text followed by the response)
    and its `prompts` entry. The response is what follows the prompt in the query; without a
    prompt, or when the query does not contain it, what follows the last assistant turn's
    opening (ChatML, Llama 3), else the whole query."""
    if prompt:
        if query.startswith(prompt):
            return prompt_text(prompt) or "", query[len(prompt) :]
        at = query.find(prompt)
        if at >= 0:
            return prompt_text(prompt) or "", query[at + len(prompt) :]
    opens = list(_ASSISTANT_OPEN.finditer(query))
    if opens:
        head = query[: opens[-1].start()]
        return prompt_text(prompt or head) or "", query[opens[-1].end() :]
    return prompt_text(prompt or "") or "", query


def strip_end_tokens(text: str, tokens: Sequence[str] = END_TOKENS) -> str:
    """`text` without trailing end-of-text tokens (and the blank space around them)."""
    while True:
        stripped = text.rstrip()
        for t in tokens:
            if t and stripped.endswith(t):
                stripped = stripped[: -len(t)]
        if stripped == text.rstrip():
            return stripped
        text = stripped


def step_ends(text: str, steps: Sequence[str]) -> list[int | None]:
    """End offset (exclusive) of each step in `text`, searching left to right from the previous
    step's start (steps are stripped substrings of the text in every split mode). A step not
    found verbatim gets None and the search goes on from where it was."""
    ends: list[int | None] = []
    pos = 0
    for step in steps:
        at = text.find(step, pos) if step else -1
        if at < 0:
            ends.append(None)
            continue
        ends.append(at + len(step))
        pos = at + 1
    return ends


def token_ends(
    char_ends: Sequence[int | None], n_tokens: int, decoded_length: Callable[[int], int]
) -> list[int | None]:
    """For each character end, the index of the first token whose decoded prefix reaches it
    (the token holding the step's last character): `decoded_length(k)` is the length of the
    text the first k tokens decode to (non-decreasing in k). None where the char end is None
    or lies past the decoded text (the text was cleaned after decoding)."""
    out: list[int | None] = []
    for end in char_ends:
        if end is None or n_tokens <= 0:
            out.append(None)
            continue
        lo, hi = 1, n_tokens
        if decoded_length(hi) < end:
            out.append(None)
            continue
        while lo < hi:  # smallest k with decoded_length(k) >= end
            mid = (lo + hi) // 2
            if decoded_length(mid) >= end:
                hi = mid
            else:
                lo = mid + 1
        out.append(lo - 1)
    return out
