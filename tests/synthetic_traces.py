"""Synthetic reasoning-model traces for tests and benchmarks (never imported by production code).

A trace works through a sum of products the way R1-style models write: short paragraphs,
checks ("Wait, let me double-check"), new attempts ("Alternatively"), conclusions, inside
`<think> ... </think>`, then a short answer with `\\boxed{}`. Every arithmetic claim is true
except an optional slip ("23 × 6 = 128.") that the next paragraph corrects ("Wait, 23 × 6 =
138, not 128."). The same arguments give the same text.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class SyntheticTrace:
    question: str
    reference: str
    text: str
    paragraphs: int  # paragraphs inside the thinking
    slip_paragraph: int | None  # 0-based paragraph (inside the thinking) holding the slip
    error_offset: int | None = None  # where the uncorrected error's paragraph starts in text


_OPENERS = (
    "So, {a} × {b} = {p}.",
    "Next, {a} × {b} = {p}.",
    "Then {a} × {b} = {p}, which I add to the total.",
    "Now let's compute {a} × {b} = {p}.",
    "Multiplying, {a} × {b} = {p}.",
)
_MOVES = (
    "Wait, let me double-check that: {a} × {b} = {p}. Yes.",
    "Alternatively, I could add {a} to itself {b} times; that also gives {p}.",
    "Let me verify the running total so far: it is {t}.",
    "Hmm, so the total is now {t}.",
    "Therefore the partial sum is {t}.",
)


def long_trace(
    n_paragraphs: int = 300,
    seed: int = 0,
    slip_at: int | None = None,
    finished: bool = True,
    think_tags: bool = True,
    chinese_every: int = 0,
    error_at: int | None = None,
) -> SyntheticTrace:
    """A trace of `n_paragraphs` paragraphs of thinking. `slip_at`: the paragraph (>= 1)
    whose product is written 10 too low, corrected by the paragraph after it; `finished=False`
    cuts the trace inside the thinking (no `</think>`, no answer); `think_tags=False` writes
    a long chain of thought without tags (DeltaBench's form); `chinese_every=k` writes every
    k-th check in Chinese (等等，让我验证一下); `error_at`: the paragraph (>= 1) whose product is
    written 10 too high and never corrected, so that the final answer is wrong."""
    rng = random.Random(seed)
    # Which paragraphs compute a product (the rest check, try again, sum up): about half,
    # the first three, and the slip's and the error's.
    kinds = [i < 3 or rng.random() < 0.5 for i in range(n_paragraphs)]
    kinds[0] = False
    for forced in (slip_at, error_at):
        if forced is not None:
            if not 1 <= forced < n_paragraphs - (forced == slip_at):
                raise ValueError(f"paragraph {forced} is outside 1..{n_paragraphs - 1}")
            kinds[forced] = True
    if slip_at is not None:
        kinds[slip_at + 1] = False  # the correction
    pairs = [(rng.randint(11, 49), rng.randint(2, 9)) for _ in range(max(1, sum(kinds)))]
    question = ("Compute the sum " + " + ".join(f"{a} × {b}" for a, b in pairs)
                + ". Give the final answer in \\boxed{}.")
    reference = str(sum(a * b for a, b in pairs))
    paras = ["Okay, I need to add up several products. Let me go through them one at a time."]
    total, k = 0, 0
    for i in range(1, n_paragraphs):
        if i == (slip_at or 0) + 1 and slip_at is not None:
            a, b = pairs[k - 1]
            paras.append(f"Wait, {a} × {b} = {a * b}, not {a * b - 10}. Let me fix that.")
        elif kinds[i]:
            a, b = pairs[k]
            k += 1
            if i == slip_at:
                paras.append(f"Then {a} × {b} = {a * b - 10}.")
                total += a * b
            elif i == error_at:
                paras.append(f"Then {a} × {b} = {a * b + 10}, which I add to the total.")
                total += a * b + 10
            else:
                total += a * b
                paras.append(rng.choice(_OPENERS).format(a=a, b=b, p=a * b))
        else:
            a, b = pairs[max(k - 1, 0)]
            move = rng.choice(_MOVES).format(a=a, b=b, p=a * b, t=total)
            if chinese_every and i % chinese_every == 0:
                move = f"等等，让我验证一下：{a} × {b} = {a * b}。没错。"
            paras.append(move)
    for a, b in pairs[k:]:  # a trace of one paragraph has computed nothing yet
        total += a * b
    body = "\n\n".join(paras[:n_paragraphs])
    if not think_tags:
        text = f"{body}\n\n**Final Answer**\n\\boxed{{{total}}}"
    elif finished:
        text = (f"<think>\n{body}\n</think>\n\nAdding all the products gives {total}.\n\n"
                f"The final answer is \\boxed{{{total}}}.")
    else:
        text = f"<think>\n{body}"
    offset = None if error_at is None else text.find(paras[error_at])
    return SyntheticTrace(question, reference, text, n_paragraphs, slip_at, offset)


def self_correction_trace() -> SyntheticTrace:
    """The issue's example: a slip, its correction, and the right boxed answer."""
    text = ("<think>\nI need 23 × 6 + 4.\n\n23 × 6 = 128.\n\nWait, 23 × 6 = 138, not 128. "
            "Let me redo it.\n\nSo 138 + 4 = 142.\n</think>\n\nThe answer is \\boxed{142}.")
    return SyntheticTrace("What is 23 × 6 + 4?", "142", text, 4, 1)


def main() -> None:
    """Write synthetic traces as jsonl (`question`, `answer`, `trace`):
    `python -m tests.synthetic_traces OUT.jsonl [N_TRACES] [PARAGRAPHS]`."""
    import json
    import sys

    out, n, paragraphs = sys.argv[1], int(sys.argv[2:3] and sys.argv[2] or 4), \
        int(sys.argv[3:4] and sys.argv[3] or 300)
    with open(out, "w") as f:
        for i in range(n):
            t = long_trace(paragraphs, seed=i, slip_at=paragraphs // 4,
                           error_at=paragraphs // 2 if i % 2 else None)
            f.write(json.dumps({"question": t.question, "answer": t.reference, "trace": t.text},
                               ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
