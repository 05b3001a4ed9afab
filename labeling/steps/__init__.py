"""How a chain becomes steps: math text split into steps, reasoning traces cut into
sections at reasoning moves, the thinking part of a trace, code chains as steps. Pure
functions on strings.

Modules (import them by their full path; this file imports nothing):
- `labeling.steps.splitters`: a math chain's text split into steps (`split.mode`).
- `labeling.steps.sections`: reasoning traces cut into sections within a budget.
- `labeling.steps.cues`: the cue words of reasoning moves, per language.
- `labeling.steps.thinking`: where a trace's thinking part is and whether it closed.
- `labeling.steps.code`: code chains: the prompt, the code in an answer, its steps, prefix syntax.
"""

__all__ = ["code", "cues", "sections", "splitters", "thinking"]
