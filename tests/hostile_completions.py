"""Completions written to break a reward (empty, tags only, unfinished thinking, thousands of
steps, huge numbers, unicode junk...) and one right solution, for the reward's tests and
`benchmarks/bench_reward_hostile.py`. The same text every time (no randomness). Never
imported by production code."""

from __future__ import annotations

PROMPT = "What is 12 * 7?"
REFERENCE = "84"

SOLUTION = ("<think>\n12 * 7 = 12 * 5 + 12 * 2.\n\n12 * 5 = 60 and 12 * 2 = 24.\n\n"
            "60 + 24 = 84.\n\nWait, let me double-check: 84 / 7 = 12. Yes.\n</think>\n\n"
            "12 * 7 = 84, so the answer is \\boxed{84}.")  # fmt: skip

# name -> completion; the names say what each one tries.
HOSTILE: dict[str, str] = {
    "empty": "",
    "whitespace": " \n\n\t \n",
    "only_think": "<think>",
    "only_tags": "<think></think>",
    "unfinished": "<think>\nLet me compute 12 * 7. 12 * 7 = 84.\n\nWait, 12 * 7 is 84 not 74, "
                  "so",
    "no_answer": "This is a classic problem. We should think about it carefully and patiently.",
    "many_paragraphs": "\n\n".join(f"Step {i}: 1 + 1 = 2." for i in range(3000)),
    "long_chars": "12 * 7 " * 2300,  # 16,100 characters, one paragraph
    "unicode_junk": "\u200b\u202e\u0301\ud800 😀 你好 \ufeff\u0000 ﷽ " * 200 + "\\boxed{\u202e84}",
    "huge_numbers": "9" * 5000 + " * " + "9" * 5000 + " = " + "8" * 10000 + "\n\n\\boxed{1e99999}",
    "end_tokens": "<|im_end|>" * 500,
    "nested_think": "<think>" * 300 + "84" + "</think>" * 300,
    "latex_bomb": "\\boxed{" * 2000 + "\\frac{" * 1000 + "84",
    "answer_only_in_thinking": "<think>\nThe answer is \\boxed{84}.\n",
}
