"""The user message the sampler sends for a problem. Pure; the engine applies the chat template.

Math: the question, then `math_instruction` (config `sampler.math_instruction`: one step per
paragraph and \\boxed{}, so that the blank-line splitter and the answer extractor see what
they expect).
Code: the question, asking for one fenced Python block (see `labeling.steps.code`).
"""

from __future__ import annotations

from labeling.schema import Problem
from labeling.steps.code import build_code_prompt


def user_message(problem: Problem, math_instruction: str) -> str:
    if problem.domain == "code":
        return build_code_prompt(problem)
    return f"{problem.question.strip()}\n\n{math_instruction}"
