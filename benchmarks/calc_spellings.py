"""Calculator verdicts under other spellings of the same math: what a rewrite moves.

    .venv/bin/python benchmarks/calc_spellings.py [--rewrite sized dollars ...] [--show 5]

Models write the same formula many ways (`\\(...\\)` or `$...$`, `\\cdot` or `\\times`,
`f\\left(x\\right)`, `x^{2}`, `\\,` around signs). A reader that keeps a flag only under one
spelling holds it by luck. Each rewrite below changes only how the math of every step of the
ProcessBench dev split is spelled (inside its delimiters; the problem is left as the data set
writes it), the calculator labels the rewritten chains as `calc_first_flag.py` does, and the
run is compared with the chains as written: steps whose status moved, first flags on the
human first error lost or gained, and first flags newly wrong (before the human first error,
or in a chain humans judged right). Every line should read 0 but for verdicts a rewrite
really changes; read the examples `--show` prints. Not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "processbench_dev"
SUBSETS = ("gsm8k", "math", "olympiadbench", "omnimath")
_MATH = re.compile(r"\\\(.*?\\\)|\\\[.*?\\\]|\$\$.*?\$\$|(?<!\\)\$.+?(?<!\\)\$", re.S)


def _inside(change: Callable[[str], str]) -> Callable[[str], str]:
    """The rewrite applied to each math region's body, delimiters kept."""

    def body(m: re.Match) -> str:
        text = m.group()
        cut = 2 if text[:2] in ("\\(", "\\[", "$$") else 1
        return text[:cut] + change(text[cut:-cut]) + text[-cut:]

    return lambda step: _MATH.sub(body, step)


def _displays(change: Callable[[str], str]) -> Callable[[str], str]:
    """The rewrite applied to each display's body (`\\[ \\]`, `$$ $$`), delimiters kept."""
    return lambda step: re.sub(
        r"(\\\[|\$\$)(.*?)(\\\]|\$\$)", lambda m: m[1] + change(m[2]) + m[3], step, flags=re.S
    )


def _delimiters(step: str) -> str:
    step = re.sub(r"\\\((.*?)\\\)", r"$\1$", step, flags=re.S)
    return re.sub(r"\\\[(.*?)\\\]", r"$$\1$$", step, flags=re.S)


def _parens(step: str) -> str:
    step = re.sub(r"\$\$(.*?)\$\$", r"\\[\1\\]", step, flags=re.S)
    return re.sub(r"(?<!\\)\$(.+?)(?<!\\)\$", r"\\(\1\\)", step, flags=re.S)


def _undelimited(step: str) -> str:
    """Math without a command or a brace written as plain text (`\\(x^2 - 5x + 6 = 0\\)` as
    `x^2 - 5x + 6 = 0`), as chains that write no LaTeX do."""

    def bare(m: re.Match) -> str:
        text = m.group()
        cut = 2 if text[:2] in ("\\(", "\\[", "$$") else 1
        body = text[cut:-cut]
        return body.strip() if body.strip() and not re.search(r"[\\{}&]", body) else text

    return _MATH.sub(bare, step)


def _tagged(step: str) -> str:
    """Every display numbered: `\\[ x + y = 10 \\tag{1} \\]`."""
    step = re.sub(r"\\\[(.*?)\\\]", r"\\[\1 \\tag{1}\\]", step, flags=re.S)
    return re.sub(r"\$\$(.*?)\$\$", r"$$\1 \\tag{1}$$", step, flags=re.S)


def _reversed(body: str) -> str:
    """A region that only chains `=` written the other way round: `A = B = C` as `C = B = A`."""
    members = _chain_members(body)
    return " = ".join(m.strip() for m in reversed(members)) if members else body


def _aligned(step: str) -> str:
    """A display that only chains `=` written as aligned rows: `\\[ A = B = C \\]` as
    `\\[ \\begin{aligned} A &= B \\\\ &= C \\end{aligned} \\]`."""

    def rows(m: re.Match) -> str:
        members = _chain_members(m[2])
        if not members:
            return m[0]
        body = " \\\\ ".join(f"&= {x.strip()}" for x in members[1:])
        return f"{m[1]} \\begin{{aligned}} {members[0].strip()} {body} \\end{{aligned}} {m[3]}"

    return re.sub(r"(\\\[|\$\$)(.*?)(\\\]|\$\$)", rows, step, flags=re.S)


def _chain_members(body: str) -> list[str] | None:
    """The members of a region that only chains `=` (None: it holds anything else)."""
    if re.search(
        r"[<>&,;]|\\\\|\\(?:text|le|ge|ne|approx|equiv|begin|q?quad|implies|iff|mid|pmod"
        r"|[Rr]ightarrow|Longrightarrow|to\b)",
        body,
    ):
        return None
    depth, cuts = 0, [-1]
    for k, ch in enumerate(body):
        depth += (ch in "({[") - (ch in ")}]")
        if ch == "=" and depth == 0:
            cuts.append(k)
    if len(cuts) < 2 or depth:
        return None
    members = [body[a + 1 : b] for a, b in zip(cuts, [*cuts[1:], len(body)], strict=True)]
    if not all(m.strip() for m in members):
        return None  # a row that goes on from the one before (`= 28 \\times 27`)
    return members


# A whole number of five digits or more (four may be a year), not part of a decimal or a
# longer run of digits: what models write with thousands separators.
_THOUSANDS = re.compile(r"(?<![\d.,{])\d{5,}(?![\d.])")


def _grouped(digits: str, separator: str) -> str:
    head = len(digits) % 3 or 3
    groups = [digits[:head]] + [digits[k : k + 3] for k in range(head, len(digits), 3)]
    return separator.join(groups)


# `3 \\cdot x` as `3x`, `2 \\cdot (x + 1)` as `2(x + 1)` (not `2 \\cdot \\frac{1}{2}`, which
# would read as a mixed number)
_IMPLICIT = re.compile(
    r"(\d)\s*\\cdot\s*(?=[A-Za-z(]|\\(?:sqrt|pi|sin|cos|tan|log|ln)(?![A-Za-z]))"
)
_SUPER = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_VULGAR = {("1", "2"): "½", ("1", "3"): "⅓", ("2", "3"): "⅔", ("1", "4"): "¼", ("3", "4"): "¾"}

REWRITES: dict[str, Callable[[str], str]] = {
    "dollars": _delimiters,  # \( \) and \[ \] as $ $ and $$ $$
    "parens": _parens,  # the other way
    "cdot": _inside(lambda m: re.sub(r"\\times(?![A-Za-z])", r"\\cdot ", m)),
    "times": _inside(lambda m: re.sub(r"\\cdot(?![A-Za-z])", r"\\times ", m)),
    "dfrac": _inside(lambda m: re.sub(r"\\frac(?=\s*\{)", r"\\dfrac", m)),
    "sized": _inside(
        lambda m: re.sub(r"(?<!\\)\(", r"\\left(", re.sub(r"(?<!\\)\)", r"\\right)", m))
    ),
    "unsized": _inside(lambda m: re.sub(r"\\(?:left|right)(?![A-Za-z])\s*", "", m)),
    "display": _inside(lambda m: "\\displaystyle " + m),
    "thin": _inside(lambda m: re.sub(r"\s*([=+])\s*", r" \\, \1 \\, ", m)),
    "tight": _inside(lambda m: re.sub(r"\s*([=+])\s*", r"\1", m)),
    "braced-powers": _inside(lambda m: re.sub(r"\^(\d)(?![\d}])", r"^{\1}", m)),
    "gt-lt": _inside(lambda m: m.replace("<", "\\lt ").replace(">", "\\gt ")),
    "unicode-operators": _inside(
        lambda m: re.sub(
            r"\\(times|cdot|div)(?![A-Za-z])\s*",
            lambda o: {"times": "×", "cdot": "·", "div": "÷"}[o[1]],
            m,
        )
    ),
    "unicode-minus": _inside(lambda m: re.sub(r"(?<![\\{])-", "\u2212", m)),
    "choose": _inside(
        lambda m: re.sub(r"\\[dt]?binom\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"{\1 \\choose \2}", m)
    ),
    "braced-subscripts": _inside(lambda m: re.sub(r"(?<=[A-Za-z])_([A-Za-z0-9])", r"_{\1}", m)),
    "slash-fractions": _inside(
        lambda m: re.sub(r"\\[dt]?frac\s*\{\s*(-?\d+)\s*\}\s*\{\s*(\d+)\s*\}", r"\1/\2", m)
    ),
    "tfrac": _inside(lambda m: re.sub(r"\\frac(?=\s*\{)", r"\\tfrac", m)),
    "boxed": _inside(lambda m: re.sub(r"=\s*(-?\d+(?:\.\d+)?)\s*$", r"= \\boxed{\1}", m)),
    "ldots": _inside(lambda m: re.sub(r"\\cdots(?![A-Za-z])", r"\\ldots", m)),
    # characters typed for math (`typed_symbols`): a root sign, superscript digits, a hyphen
    # for the minus sign, vulgar fractions
    "root-sign": _inside(
        lambda m: re.sub(
            r"\\sqrt\s*\{([^{}]*)\}",
            lambda o: f"√{o[1]}" if o[1].strip().isdigit() else f"√({o[1]})",
            m,
        )
    ),
    "superscripts": _inside(
        lambda m: re.sub(
            r"\^(?:\{(\d+)\}|(\d)(?!\d))",
            lambda o: (o[1] or o[2]).translate(str.maketrans("0123456789", _SUPER)),
            m,
        )
    ),
    "degree-sign": _inside(
        lambda m: re.sub(r"\^\s*(?:\{\s*\\circ\s*\}|\\circ(?![A-Za-z]))", "°", m)
    ),
    "hyphen-minus": _inside(lambda m: re.sub(r"(?<![\\{])-", "\u2010", m)),
    "tags": _tagged,  # `\\tag{1}` at the end of every display
    "reversed": _inside(_reversed),  # `A = B = C` as `C = B = A`
    # how numbers and products are typed: thousands grouped (`12{,}345`, `12,345`, `12\\,345`),
    # products as `*` or by juxtaposition
    "thousands": _inside(lambda m: _THOUSANDS.sub(lambda o: _grouped(o[0], ","), m)),
    "thousands-braced": _inside(lambda m: _THOUSANDS.sub(lambda o: _grouped(o[0], "{,}"), m)),
    "thousands-thin": _inside(lambda m: _THOUSANDS.sub(lambda o: _grouped(o[0], "\\,"), m)),
    # relations, the dot operator and Greek letters typed as characters
    "unicode-relations": _inside(
        lambda m: re.sub(
            r"\\(leq?|geq?|neq?|approx)(?![A-Za-z])\s*",
            lambda o: {"le": "≤ ", "ge": "≥ ", "ne": "≠ ", "ap": "≈ "}[o[1][:2]],
            m,
        )
    ),
    "dot-operator": _inside(lambda m: re.sub(r"\\cdot(?![A-Za-z])\s*", "\u22c5 ", m)),
    "unicode-greek": _inside(
        lambda m: re.sub(
            r"\\(pi|theta|alpha|beta)(?![A-Za-z])\s*",
            lambda o: {"pi": "π", "theta": "θ", "alpha": "α", "beta": "β"}[o[1]],
            m,
        )
    ),
    "display-lines": lambda step: re.sub(
        r"\\\[(.*?)\\\]", lambda o: f"\\[\n{o[1].strip()}\n\\]", step, flags=re.S
    ),  # each display's body on lines of its own
    "aligned": _aligned,  # a display's chain of `=` as aligned rows, `&=` opening each
    "square-brackets": _inside(
        lambda m: re.sub(r"(?<![A-Za-z\\])\(([^()]*\([^()]*\)[^()]*)\)", r"[\1]", m)
    ),  # an outer bracket holding another as `[ ]`: `2[3 + (4 - 1)]`
    "star": _inside(lambda m: re.sub(r"\\(?:cdot|times)(?![A-Za-z])\s*", "* ", m)),
    "implicit": _inside(lambda m: _IMPLICIT.sub(r"\1", m)),
    "vulgar-fractions": _inside(
        lambda m: re.sub(
            r"(?<!\d)(?<!\d )\\[dt]?frac\s*\{\s*(\d)\s*\}\s*\{\s*(\d)\s*\}",
            lambda o: _VULGAR.get((o[1], o[2]), o[0]),
            m,
        )
    ),
    # TeX's shorthand arguments, `\\frac12` and `\\sqrt2` (only where the digits fill the
    # arguments exactly: `\\frac{12}{5}` stays)
    "frac-shorthand": _inside(
        lambda m: re.sub(r"\\([dt]?frac)\s*\{(\d)\}\s*\{(\d)\}(?!\d)", r"\\\1\2\3", m)
    ),
    "sqrt-shorthand": _inside(lambda m: re.sub(r"\\sqrt\s*\{(\d)\}(?!\d)", r"\\sqrt\1", m)),
    "cfrac": _inside(lambda m: re.sub(r"\\frac(?=\s*\{)", r"\\cfrac", m)),
    "leading-zero": _inside(lambda m: re.sub(r"(?<![\d.])0\.(\d)", r".\1", m)),
    # a display's last relation ended with the sentence's point or comma (a point inside inline
    # math mid-sentence, `\\(24.\\) is divisible by`, is the rewrite's own artifact: not kept)
    "end-period": _displays(lambda m: m.rstrip() + ". "),
    "end-comma": _displays(lambda m: m.rstrip() + ", "),
    # orders drawn slanted (`\\leqslant`) and functions named by `\\operatorname`
    "slanted-orders": _inside(lambda m: re.sub(r"\\([lg])eq?(?![A-Za-z])", r"\\\1eqslant", m)),
    "undelimited": _undelimited,  # math without commands or braces as plain text
    "operatorname": _inside(
        lambda m: re.sub(r"\\(gcd|lcm|sin|cos|tan|log|ln)(?![A-Za-z])", r"\\operatorname{\1}", m)
    ),
}


def _statuses(subset: str, rewrite: Callable[[str], str] | None) -> dict[str, list[str]]:
    from labeling.schema import Chain, Problem
    from verifiers.calculator.verifier import CalcConfig, CalculatorVerifier

    rows = json.loads((DATA / f"{subset}.json").read_text())
    items = []
    for r in rows:
        steps = tuple(rewrite(s) if rewrite else s for s in r["steps"])
        problem = Problem(
            problem_id=r["id"], domain="math", source_dataset="processbench", question=r["problem"]
        )
        chain = Chain(
            problem_id=r["id"], chain_id=r["id"], index=0, text="", steps=steps, model="given"
        )
        items.append((problem, chain))
    calc = CalculatorVerifier(config=CalcConfig(workers=2))
    try:
        verdicts = calc.verify(items)
    finally:
        calc.close()
    return {r["id"]: [str(v.status) for v in vs] for r, vs in zip(rows, verdicts, strict=True)}


def _first(statuses: list[str]) -> int | None:
    return next((i for i, s in enumerate(statuses) if s == "incorrect"), None)


def compare(base: dict, moved: dict, labels: dict[str, int]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"steps": [], "lost": [], "gained": [], "wrong": []}
    for cid, statuses in moved.items():
        out["steps"] += [
            f"{cid}#{i}" for i, (a, b) in enumerate(zip(base[cid], statuses, strict=True)) if a != b
        ]
        was, now, human = _first(base[cid]), _first(statuses), labels[cid]
        if was == now:
            continue
        if was == human:
            out["lost"].append(cid)
        if now == human:
            out["gained"].append(cid)
        if now is not None and (human < 0 or now < human):
            out["wrong"].append(f"{cid}#{now}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rewrite", nargs="+", choices=sorted(REWRITES), default=list(REWRITES))
    parser.add_argument("--subset", nargs="+", choices=SUBSETS, default=list(SUBSETS))
    parser.add_argument("--show", type=int, default=3, help="examples printed per count")
    args = parser.parse_args()
    if not DATA.exists():
        raise SystemExit(f"no ProcessBench dev split at {DATA}")
    labels = {
        r["id"]: r["label"]
        for s in args.subset
        for r in json.loads((DATA / f"{s}.json").read_text())
    }
    base = {k: v for s in args.subset for k, v in _statuses(s, None).items()}
    print(f"{'rewrite':18} {'steps moved':>11} {'lost':>5} {'gained':>6} {'new wrong':>9}")
    for name in args.rewrite:
        moved = {k: v for s in args.subset for k, v in _statuses(s, REWRITES[name]).items()}
        found = compare(base, moved, labels)
        print(
            f"{name:18} {len(found['steps']):>11} {len(found['lost']):>5} "
            f"{len(found['gained']):>6} {len(found['wrong']):>9}"
        )
        for key in ("lost", "gained", "wrong", "steps"):
            if found[key] and args.show:
                print(f"    {key}: {', '.join(found[key][: args.show])}")


if __name__ == "__main__":
    main()
