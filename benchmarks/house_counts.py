"""Counts the house keeps an eye on, over labeling/, verifiers/ and pipelines/ (issue 68):
parameters typed exactly `Any`, function-local imports of the project's own modules, and
modules over 400 lines or within 15 lines of it.

    python benchmarks/house_counts.py [ROOT] [--list]

ROOT: a checkout (default: this one). `--list` prints where each counted thing is. Reads
source only (ast); imports nothing of the project.
"""

from __future__ import annotations

import argparse
import ast
import json
from pathlib import Path

FLOORS = ("labeling", "verifiers", "pipelines")
LIMIT, NEAR = 400, 15


def _is_any(node: ast.expr | None) -> bool:
    if isinstance(node, ast.Name):
        return node.id == "Any"
    if isinstance(node, ast.Attribute):
        return node.attr == "Any" and isinstance(node.value, ast.Name) and node.value.id == "typing"
    if isinstance(node, ast.Constant):
        return node.value == "Any"
    return False


def _own(node: ast.Import | ast.ImportFrom) -> bool:
    if isinstance(node, ast.ImportFrom):
        return node.level > 0 or (node.module or "").split(".")[0] in FLOORS
    return any(a.name.split(".")[0] in FLOORS for a in node.names)


def count_file(tree: ast.Module) -> tuple[list[int], list[int]]:
    """(lines of parameters typed `Any`, lines of function-local own imports)."""
    any_params, local_imports = [], []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        a = fn.args
        params = [*a.posonlyargs, *a.args, *a.kwonlyargs,
                  *([a.vararg] if a.vararg else []), *([a.kwarg] if a.kwarg else [])]
        any_params += [p.lineno for p in params if _is_any(p.annotation)]
        if isinstance(fn, ast.Lambda):
            continue
        for stmt in fn.body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Import | ast.ImportFrom) and _own(node):
                    local_imports.append(node.lineno)
    # A nested function's imports were walked from its parent too: count each line once.
    return any_params, sorted(set(local_imports))


def counts(root: Path) -> dict[str, object]:
    any_params, local_imports, over, near = [], [], {}, {}
    for floor in FLOORS:
        for path in sorted((root / floor).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            text = path.read_text()
            lines = len(text.splitlines())
            if lines > LIMIT:
                over[rel] = lines
            elif lines >= LIMIT - NEAR:
                near[rel] = lines
            try:
                tree = ast.parse(text, rel)
            except SyntaxError:  # a script fragment, not a module
                continue
            a, i = count_file(tree)
            any_params += [f"{rel}:{n}" for n in a]
            local_imports += [f"{rel}:{n}" for n in i]
    return {"any_params": any_params, "local_own_imports": local_imports,
            "over_400": over, "within_15_of_400": near}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    got = counts(Path(args.root))
    summary = {k: len(v) for k, v in got.items()}
    print(json.dumps(summary))
    if args.list:
        print(json.dumps(got, indent=1))


if __name__ == "__main__":
    main()
