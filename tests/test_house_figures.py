"""House rule: no measured figures and no machine names in the code of labeling/, verifiers/
and pipelines/ (they live in docs/benchmarks.md, where a figure has its date, machine and
command). A figure in a docstring goes stale the day the code or the machine changes.

The scan reads the prose of every module (comments and string literals: docstrings, help
texts, messages) and looks for
- timings: a decimal number of seconds or minutes (`306.6 s`, `~0.3 s`), or a whole one said
  as measured (`~3000 s`, `took 50 ms`);
- rates and ratios: tokens (or chains, rows, items) per second with a number, `0.78x`,
  `~3x slower`, `7% faster`, `1.16 times`;
- other measured quantities: a decimal range (`0.64-0.78`), a decimal size in bytes
  (`1.3 GB`), a count out of a count of things a run made (`67 of 516 rollouts`);
- machine names: CPU and GPU products (Xeon, EPYC, H100, ...) and clock rates, nowhere;
- instruction sets in prose (AMX, AVX2, AVX-512): only in the modules named in `ISA_CODE`,
  where choosing by instruction set is what the code does.
Text between backticks is code or a format example (`11.8s/step`) and is not read. Numbers a
setting is made of (`every 10 s`, `after 30 s`) are not figures and do not match.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLOORS = ("labeling", "verifiers", "pipelines")

_UNIT = r"(?:s|ms|sec|secs|seconds?|min|mins|minutes?|h|hours?)\b"
RULES: dict[str, re.Pattern[str]] = {
    "timing": re.compile(
        rf"\d+\.\d+\s?{_UNIT}"
        rf"|(?:~|≈|about |took |ran (?:in )?|in about )\d[\d,]*\s?{_UNIT}"
        rf"|\d[\d,.]*\s?{_UNIT}\s(?:against|vs\.?|instead of)\s"
    ),
    "rate": re.compile(
        r"\d[\d,.]*\s?(?:tok/s|tokens/s|tokens per second|(?:chains|rows|items|it)/s)\b"
        r"|\b\d+\.\d+x\b|~?\d+(?:\.\d+)?x (?:faster|slower)\b"
        r"|\d+(?:\.\d+)?\s?% (?:faster|slower)\b|\d+\.\d+ times\b"
    ),
    "figure": re.compile(
        r"\d+\.\d+-\d+\.\d+|\d+\.\d+\s?(?:[KMGT]i?B)\b"
        r"|\b\d+ of \d[\d,]* (?:[\w-]+ )?(?:rollouts|chains|problems|traces|steps|runs|tests)\b"
    ),
    "machine": re.compile(
        r"\b(?:Xeon|EPYC|Epyc|Ryzen|Threadripper|Graviton|Sapphire Rapids|Ice Lake|"
        r"Cascade Lake|Skylake|Genoa|Milan|H100|H200|A100|A10G|L40S?|GHz)\b"
    ),
    "isa": re.compile(r"\b(?:AMX|AVX2|AVX-?512\w*)\b"),
}
# Modules whose work is to choose by instruction set: the ISA's names are code there.
ISA_CODE = {
    "pipelines/engine/device.py": "reads the CPU's flags to choose dtype and look-ahead",
    "pipelines/engine/preload.py": "its allocator rules are keyed by the CPU's ISA tier",
    "pipelines/label/source_configs.py": "look_ahead's help states device.look_ahead's rule",
}
_BACKTICKS = re.compile(r"`[^`\n]*`")


def prose(source: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and string literal in `source`, backtick spans out."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.COMMENT, tokenize.STRING):
            for k, line in enumerate(tok.string.splitlines()):
                out.append((tok.start[0] + k, _BACKTICKS.sub("``", line)))
    return out


def figures(rel: str, source: str) -> list[str]:
    """'rel:line rule: text' for each figure or machine name the house does not allow."""
    found = []
    for line, text in prose(source):
        for rule, pattern in RULES.items():
            if rule == "isa" and rel in ISA_CODE:
                continue
            hit = pattern.search(text)
            if hit:
                found.append(f"{rel}:{line} {rule}: {hit.group(0)!r}")
    return found


def modules() -> list[Path]:
    return sorted(p for floor in FLOORS for p in (ROOT / floor).rglob("*.py"))


def test_no_figures_or_machine_names_in_code():
    found = [f for p in modules()
             for f in figures(p.relative_to(ROOT).as_posix(), p.read_text())]
    assert found == [], ("measured figures and machine names belong in docs/benchmarks.md, "
                         "not in code:\n" + "\n".join(found))


def test_the_scan_finds_planted_figures_and_spares_settings():
    planted = '''
def f(x):
    """Ran in 12.3 s on the runner; 161 tok/s."""
    # two deep took the stage from 71.0 to 54.0 s on Xeon-AMX
    return x  # about 40 ms, ~3x slower, 7% faster, 0.78x float32
# 67 of 516 SmolLM2 rollouts looped
# 1.3 GB each
# precision 0.96-0.98
'''
    rules = [f.split(" ")[1].rstrip(":") for f in figures("pipelines/x.py", planted)]
    assert rules.count("timing") == 3 and rules.count("rate") == 2
    assert rules.count("machine") == 1 and rules.count("isa") == 1
    assert rules.count("figure") == 3
    settings = '''
def g():
    """A progress line every 10 s; SIGKILL after 30 s. Prints `step 3: 11.8s/step`."""
    return f"{rate:.0f} tok/s"  # a format, not a figure
'''
    assert figures("pipelines/y.py", settings) == []
    assert figures("pipelines/engine/device.py", "# AMX: bf16 in hardware\n") == []
    assert figures("pipelines/engine/device.py", "# 1.5 s on an EPYC\n") != []


def test_every_allowed_place_exists():
    assert all((ROOT / rel).is_file() for rel in ISA_CODE)


# docs/benchmarks.md is a page of current figures: each the latest of its kind, given once.
# What was tried and not adopted lives in git history (`git log -p -- docs/benchmarks.md`), so
# the page neither grows with every experiment nor keeps a notebook of them.
BENCHMARKS_PAGE = ROOT / "docs" / "benchmarks.md"
BENCHMARKS_MAX_LINES = 600
_NOTEBOOK = re.compile(r"\b(?:tried(?:,| and)? not (?:kept|adopted)|not kept|not adopted)\b",
                       re.IGNORECASE)


def page_problems(text: str, max_lines: int = BENCHMARKS_MAX_LINES) -> list[str]:
    """Why `text` is not a current-figures page: too long, or a tried-and-dropped entry."""
    problems = []
    lines = text.splitlines()
    if len(lines) > max_lines:
        problems.append(f"{len(lines)} lines, more than {max_lines}: keep the current figure "
                        "of each kind and leave earlier ones to git history")
    problems += [f"line {i}: {line.strip()[:80]!r} (what was tried and dropped: git history)"
                 for i, line in enumerate(lines, 1) if _NOTEBOOK.search(line)]
    return problems


def test_the_benchmarks_page_holds_current_figures_only():
    assert page_problems(BENCHMARKS_PAGE.read_text()) == []


def test_the_page_check_bites_on_length_and_on_a_notebook_entry():
    assert page_problems("figure\n" * 3, max_lines=3) == []
    assert len(page_problems("figure\n" * 4, max_lines=3)) == 1
    planted = "- Tried, not kept: a bigger batch (12.0 s against 11.8 s).\n"
    assert len(page_problems(planted, max_lines=3)) == 1
