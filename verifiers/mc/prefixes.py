"""The text of each prefix of a chain, as the model wrote it (what a rollout continues)."""

from __future__ import annotations

from labeling.schema import Chain


def prefix_texts(chain: Chain, step_separator: str = "\n\n") -> list[str]:
    """Text of each prefix as the model wrote it, ending with its last step's last character.

    Cut from `chain.text` when every step can be found there in order (keeps the model's own
    spacing inside the prefix, which keeps its tokens and the prefix cache); otherwise the
    steps joined with `step_separator`. No prefix ends with the whitespace that separates it
    from the next step: the model writes that itself. A separator at the very end of a prompt
    tokenizes unlike the same text mid-chain (SmolLM2's BPE reads a final "\n\n" as one token
    that it writes as two before a new paragraph), and the model, fed a token it never wrote
    there, continued "6 * 5 = 30" with "30 = 6 * 5" instead of "The final answer is 30."
    (0 of 8 against 6 of 8 from the bare question): every such prefix looked wrong.
    """
    steps, text = chain.steps, chain.text
    starts, pos = [], 0
    for step in steps:
        at = text.find(step, pos) if text else -1
        if at < 0:
            starts = []
            break
        starts.append(at)
        pos = at + len(step)
    if starts:
        return [text[: starts[i + 1]].rstrip() for i in range(len(steps) - 1)] + [text[:pos]]
    return [step_separator.join(steps[: i + 1]) for i in range(len(steps))]
