"""Code chains as text: the prompt, the code inside the answer, its steps, and prefix syntax.

Pure functions on strings (no execution; `verifiers/sandbox/` runs code).

- `build_code_prompt(problem)`: asks for reasoning, then one fenced Python block.
- `extract_code(text, entry_point, prompt)`: the solution inside a model's answer. Closed
  fences first (the last Python block that defines `entry_point`, else the last one with a
  `def`/`class`, else the last one), then an unclosed fence (cut-off answers), then unfenced
  code starting at the first top-level `def`/`class`/`import`. Repairs only what is
  unambiguous: a uniformly indented block is dedented, and an indented bare function body
  (HumanEval completion style) is appended to the prompt's signature.
- `split_code_steps(text, mode)`: reasoning paragraphs before the code are steps of their
  own; the code is split per `line` (logical line), per top-level `statement`, or per
  blank-line `block`; prose after the code is one step per paragraph. Every step is a
  substring of `text` (trailing space trimmed), so steps can be found in the text again.
- `prefix_parses(code)` and `code_prefixes(text, steps)`: whether the code up to each step can
  still be continued into a valid program.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from enum import StrEnum

from labeling.schema import Problem


class CodeSplitMode(StrEnum):
    """How the code of a code chain is cut into steps (`split.code_mode`)."""

    line = "line"
    statement = "statement"
    block = "block"


MODES = tuple(m.value for m in CodeSplitMode)
INSTRUCTIONS = (
    "Think it through briefly, then give the complete solution as one Python code block "
    "(```python ... ```). Do not add example usage or tests."
)
_PYTHON_TAGS = {"", "python", "py", "python3", "py3"}
_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+.#-]*)[^\n]*$", re.M)
_CODE_START = re.compile(r"^(?:def |async def |class |import |from \S+ import |@\w)", re.M)
_BLANK = re.compile(r"\n[ \t]*\n")
_CONTINUES = ("else", "elif", "except", "finally")
# PyCF_ONLY_AST | PyCF_ALLOW_INCOMPLETE_INPUT | PyCF_DONT_IMPLY_DEDENT: parser errors only
# (no compiler errors, which a continuation can sometimes fix), and "incomplete input" when
# the parser ran out of text rather than hit a wrong token.
_PREFIX_FLAGS = ast.PyCF_ONLY_AST | 0x4000 | 0x200


@dataclass(frozen=True, slots=True)
class CodeExtraction:
    """The code found in an answer. `start:end` is its raw span in the text (fences
    excluded); `code` is that span after repair; `prelude` lines were prepended from the prompt."""

    code: str
    how: str  # fenced | partial_fence | unfenced | none
    start: int = 0
    end: int = 0
    prelude: int = 0


def _is_humaneval(problem: Problem) -> bool:
    return bool(problem.entry_point) and any("def check(" in t for t in problem.tests)


def build_code_prompt(problem: Problem, show_tests: int | None = None) -> str:
    """Prompt for a code problem. Assert-style tests are shown (`show_tests` of them, all by
    default: MBPP names the function only there); HumanEval-style checks never are."""
    if _is_humaneval(problem):
        return (
            "Complete the following Python function.\n\n```python\n"
            f"{problem.question.strip()}\n```\n\n{INSTRUCTIONS}"
        )
    parts = [problem.question.strip()]
    tests = [t.strip() for t in problem.tests if t.strip()][:show_tests]
    if tests:
        shown = "\n".join(tests)
        parts.append(f"Your code should pass these tests:\n\n```python\n{shown}\n```")
    elif problem.entry_point:
        parts.append(f"The function must be named `{problem.entry_point}`.")
    return "\n\n".join(parts + [INSTRUCTIONS])


def _fenced_blocks(text: str) -> list[tuple[str, int, int, bool]]:
    """(language, content start, content end, closed) for each fenced block."""
    blocks, open_at, lang = [], None, ""
    for m in _FENCE.finditer(text):
        if open_at is None:
            lang, open_at = m.group(1).lower(), min(m.end() + 1, len(text))
        else:
            blocks.append((lang, open_at, max(m.start() - 1, open_at), True))
            open_at = None
    if open_at is not None:
        blocks.append((lang, open_at, len(text), False))
    return blocks


def _repair(raw: str, entry_point: str, prompt: str) -> tuple[str, int]:
    lines = [ln for ln in raw.splitlines() if ln.strip()]
    if not lines:
        return raw, 0
    def_re = rf"def\s+{re.escape(entry_point)}\s*\("
    if entry_point and lines[0][:1] in " \t" and not re.search(def_re, raw):
        if re.search("^" + def_re, prompt, re.M):
            # A bare body: the answer continues the prompt's signature and docstring.
            head = prompt.rstrip() + "\n"
            return head + raw, head.count("\n")
    return textwrap.dedent(raw), 0


def _trim_trailing_prose(text: str, start: int) -> int:
    """End of unfenced code: drop trailing column-0 prose lines while the code does not parse."""
    end = len(text)
    while end > start:
        body = text[start:end].rstrip()
        try:
            ast.parse(body)
            return start + len(body)
        except (SyntaxError, ValueError):
            pass
        last_nl = body.rfind("\n")
        last = body[last_nl + 1 :]
        looks_prose = last[:1].isalpha() and " " in last and not _CODE_START.match(last)
        if last_nl <= 0 or not looks_prose or last.split(" ", 1)[0] in _KEYWORDS:
            return start + len(body)
        end = start + last_nl
    return end


_KEYWORDS = frozenset(
    "return if for while with try else elif except finally raise assert print pass yield "
    "del global nonlocal lambda break continue".split()
)


def extract_code(text: str, entry_point: str = "", prompt: str = "") -> CodeExtraction:
    """The solution code in a model's answer (see the module docstring). Never raises."""
    blocks = [b for b in _fenced_blocks(text) if b[0] in _PYTHON_TAGS]
    if blocks:
        def_re = re.compile(rf"def\s+{re.escape(entry_point)}\s*\(") if entry_point else None
        chosen = (
            [b for b in blocks if def_re and def_re.search(text[b[1] : b[2]])]
            or [b for b in blocks if re.search(r"^\s*(def|class) ", text[b[1] : b[2]], re.M)]
            or blocks
        )[-1]
        _, start, end, closed = chosen
        fence_at = text.rfind("```", 0, start)
        if not closed and not _CODE_START.search(text[start:end]) and fence_at > 0:
            # A lone fence after code is the closing one (the model skipped the opening
            # fence): the code is before it, the prose after it.
            before = _unfenced(text[:fence_at], entry_point, prompt)
            if before is not None:
                return before
        code, prelude = _repair(text[start:end], entry_point, prompt)
        return CodeExtraction(code, "fenced" if closed else "partial_fence", start, end, prelude)
    found = _unfenced(text, entry_point, prompt)
    return found if found is not None else CodeExtraction("", "none", len(text), len(text))


def _unfenced(text: str, entry_point: str, prompt: str) -> CodeExtraction | None:
    start = _unfenced_start(text, entry_point, prompt)
    if start is None:
        return None
    end = _trim_trailing_prose(text, start)
    code, prelude = _repair(text[start:end], entry_point, prompt)
    return CodeExtraction(code, "unfenced", start, end, prelude)


def _unfenced_start(text: str, entry_point: str, prompt: str) -> int | None:
    m = _CODE_START.search(text)
    if m is not None:
        return m.start()
    body = text.lstrip("\n")
    if (
        entry_point
        and body[:1] in (" ", "\t")
        and re.search(rf"^def\s+{re.escape(entry_point)}\b", prompt, re.M)
    ):
        return len(text) - len(body)  # a bare indented body continuing the prompt
    return None


def _logical_ends(lines: list[str]) -> list[int]:
    """Index of the last physical line of each logical line (brackets, strings, `\\`)."""
    ends, depth, quote = [], 0, ""
    for i, line in enumerate(lines):
        j = 0
        while j < len(line):
            ch = line[j]
            if quote:
                if ch == "\\":
                    j += 1
                elif line.startswith(quote, j):
                    j += len(quote) - 1
                    quote = ""
            elif ch == "#":
                break
            elif ch in "\"'":
                quote = ch * 3 if line.startswith(ch * 3, j) else ch
                j += len(quote) - 1
            elif ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth = max(depth - 1, 0)
            j += 1
        if len(quote) == 1:
            quote = ""  # a one-quote string cannot span lines: the line is broken, move on
        if not quote and depth == 0 and not line.rstrip().endswith("\\"):
            ends.append(i)
    if not ends or ends[-1] != len(lines) - 1:
        ends.append(len(lines) - 1)
    return ends


def _code_groups(lines: list[str], mode: str) -> list[tuple[int, int]]:
    """[first, last] physical line ranges of the code steps; blank and comment lines join
    the step after them (the last step, at the end)."""
    groups: list[tuple[int, int]] = []
    if mode == "block":
        first = None
        for i, line in enumerate([*lines, ""]):
            if line.strip() and first is None:
                first = i
            elif not line.strip() and first is not None:
                groups.append((first, i - 1))
                first = None
        return groups
    pending = 0
    for end in _logical_ends(lines):
        code = [ln for ln in lines[pending : end + 1] if ln.strip() and ln.lstrip()[:1] != "#"]
        if not code:
            continue
        if mode == "statement" and groups:
            word = code[0].split(None, 1)[0].split(":")[0]
            last_code = [ln for ln in lines[groups[-1][0] : groups[-1][1] + 1] if ln.strip()]
            if code[0][:1] in " \t" or word in _CONTINUES or last_code[-1].lstrip()[:1] == "@":
                groups[-1] = (groups[-1][0], end)  # still the same top-level statement
                pending = end + 1
                continue
        groups.append((pending, end))
        pending = end + 1
    if groups and pending < len(lines):
        groups[-1] = (groups[-1][0], len(lines) - 1)
    return groups


def _spans(text: str, ext: CodeExtraction, mode: str) -> list[tuple[int, int]]:
    """Character spans of the code steps, fences included in the first and last."""
    lines = text[ext.start : ext.end].split("\n")
    offsets = [ext.start]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)
    spans = [(offsets[a], offsets[b] + len(lines[b])) for a, b in _code_groups(lines, mode)]
    if not spans:
        return []
    spans[0] = (ext.start, spans[0][1])
    if ext.how in ("fenced", "partial_fence"):
        fence = text[: ext.start].rstrip("\n").rfind("\n") + 1
        spans[0] = (fence, spans[0][1])
    if ext.how == "fenced":
        close = text.find("```", spans[-1][1])
        spans[-1] = (spans[-1][0], close + 3 if close >= 0 else spans[-1][1])
    elif ext.how == "partial_fence":
        spans[-1] = (spans[-1][0], len(text))
    return spans


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in _BLANK.split(text) if p.strip()]


def split_code_steps(
    text: str, mode: str = "statement", entry_point: str = "", prompt: str = ""
) -> list[str]:
    """Steps of a code chain (see the module docstring). Raises ValueError on unknown mode."""
    if mode not in MODES:
        raise ValueError(f"unknown code split mode {mode!r}; choose one of {', '.join(MODES)}")
    ext = extract_code(text, entry_point, prompt)
    spans = _spans(text, ext, mode) if ext.how != "none" else []
    if not spans:
        return _paragraphs(text)
    steps = _paragraphs(text[: spans[0][0]])
    steps += [text[a:b].strip("\n").rstrip() for a, b in spans]
    return [s for s in steps + _paragraphs(text[spans[-1][1] :]) if s]


def prefix_parses(code: str) -> tuple[bool, str]:
    """(False, reason) only when no continuation can turn `code` into a valid program.

    Conservative: an error on the last line of a prefix that does not end in a newline may
    be a cut-off token, so it counts as fixable. Compiler errors (e.g. `nonlocal` without a
    binding yet) are not checked at all, since later code can fix some of them.
    """
    try:
        compile(code, "<prefix>", "exec", _PREFIX_FLAGS)
        return True, "parses"
    except SyntaxError as exc:
        if exc.msg == "incomplete input":
            return True, "incomplete but can be continued"
        last_line = code.count("\n") + 1
        if not code.endswith("\n") and (exc.lineno or last_line) >= last_line:
            return True, "last line may be cut off"
        return False, f"{exc.msg} (line {exc.lineno})"
    except ValueError as exc:  # null bytes
        return False, str(exc)


def code_prefixes(
    text: str, steps: list[str] | tuple[str, ...], entry_point: str = "", prompt: str = ""
) -> list[str | None]:
    """The repaired code up to the end of each step (None before the code starts).

    Steps are located in `text` in order; if they cannot be, the text is taken to be the
    steps joined by blank lines. A step ending mid-line contributes its complete lines only.
    Code that runs to the end of the text without a newline keeps its last line open (the
    answer may have been cut off there).
    """
    ends, pos = [], 0
    for step in steps:
        at = text.find(step, pos)
        if at < 0:
            joined = "\n\n".join(steps)
            return code_prefixes(joined, steps, entry_point, prompt) if text != joined else []
        pos = at + len(step)
        ends.append(pos)
    ext = extract_code(text, entry_point, prompt)
    code_lines = ext.code.split("\n")
    open_end = ext.end == len(text) and not text.endswith("\n")
    out: list[str | None] = []
    for end in ends:
        if ext.how == "none" or end <= ext.start:
            out.append(None)
            continue
        raw = text[ext.start : min(end, ext.end)]
        at_line_end = end >= ext.end or text[end : end + 1] == "\n"
        complete = raw.count("\n") + (1 if at_line_end else 0)
        prefix = "\n".join(code_lines[: ext.prelude + complete]).rstrip("\n")
        out.append(prefix if (open_end and end >= ext.end) else prefix + "\n")
    return out
