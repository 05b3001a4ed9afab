"""Text handling every floor shares: the Unicode policy of what is written, LaTeX answers.

Modules (import them by their full path; this file imports nothing):
- `labeling.text.unicode`: text that can be written: checks, repairs and escapes for UTF-8.
- `labeling.text.latex`: the last boxed answer of a text.
"""

__all__ = ["latex", "unicode"]
