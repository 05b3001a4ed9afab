"""The user message the sampler sends for a problem. Pure; the engine applies the chat template.

Math: the question, then `sampler.math_instruction` (step-per-paragraph and \\boxed{} so that
the blank-line splitter and the answer extractor see what they expect).
Code: the question, asking for one fenced Python block (see `labeling.code_steps`).
"""

from __future__ import annotations

from typing import Any

from labeling.schema import Problem


def user_message(problem: Problem, sampler: dict[str, Any]) -> str:
    if problem.domain == "code":
        from labeling.code_steps import build_code_prompt

        return build_code_prompt(problem)
    return f"{problem.question.strip()}\n\n{sampler['math_instruction']}"
