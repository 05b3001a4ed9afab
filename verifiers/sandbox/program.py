"""The host side of a sandboxed job: which tests to run, how they are rewritten, what came back.

Split from `runner.py` (process handling) so each stays one idea. Three things live here:

- `prepare_job`: a `Problem`'s tests become test units. Assert lines (MBPP, built-in, generic)
  are one unit each; a HumanEval-style body that defines `check` is one unit that ends with
  `check(<entry_point>)`. Tests that do not parse are bad reference data and raise.
- The rewrite of test code (never of the solution): each comparison, `assert` test, `not`
  operand and `and`/`or` operand goes through a hook of the test process (2_hooks.py) that
  refuses values holding a proxy of the program's objects, and each unit records how many
  asserts must run. Also the names the tests read (asked of the program) and the function
  under test (`subject_of`).
- `interpret`: the test process's nonce-tagged records, exit status and output excerpts
  become an `ExecutionResult`. Only records carrying the run's nonce count.
"""

from __future__ import annotations

import ast
import builtins
import functools
import json
import marshal
import os
import subprocess
from dataclasses import dataclass, field

from labeling.schema import Problem
from verifiers.sandbox.result import ExecutionResult

_OPS = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
_COMPOUND = (
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.If,
    ast.Try,
    ast.With,
    ast.AsyncWith,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Match,
    ast.Lambda,
    ast.comprehension,
    ast.IfExp,
)


@dataclass(frozen=True, slots=True)
class Job:
    """A solution and its rewritten test units, ready to send to the two sandbox processes."""

    code: str
    setup: str
    tests: tuple[str, ...]
    asserts_needed: tuple[int, ...]  # per unit: asserts that must run for it to pass
    names: tuple[str, ...] = ()  # names the tests and setup read: asked of the program
    subject: str = ""  # the function under test: the one builtin name the program may supply

    def program_payload(self, uid: int, limits: list, token: str) -> bytes:
        """What the program's process reads on stdin: no tests, no nonce."""
        return marshal.dumps((uid, tuple(map(tuple, limits)), self.code, token))

    def tests_payload(self, nonce: str, uid: int, limits: list, token: str, cpu_s: int) -> bytes:
        """What the test process reads on its own fd."""
        fields = (
            nonce,
            uid,
            tuple(map(tuple, limits)),
            self.setup,
            self.tests,
            self.asserts_needed,
            self.names,
            self.subject,
            token,
            cpu_s,
        )
        return marshal.dumps(fields)


@dataclass(frozen=True, slots=True)
class InterpreterLayout:
    prefix: str  # sys.prefix of the sandbox interpreter: bound read-only
    stdlib: str  # its standard library directory: trusted comparison methods come from here
    site_dirs: tuple[str, ...]  # package directories hidden under an empty tmpfs


@functools.lru_cache(maxsize=4)
def interpreter_layout(python: str) -> InterpreterLayout:
    """Ask the interpreter where its prefix, stdlib and package directories are."""
    probe = (
        "import json, site, sys, sysconfig; p = sysconfig.get_paths(); "
        "print(json.dumps([sys.prefix, p['stdlib'], "
        "sorted({p['purelib'], p['platlib'], *site.getsitepackages()})]))"
    )
    out = subprocess.run(
        [python, "-S", "-I", "-c", probe], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    prefix, stdlib, site_dirs = json.loads(out)
    prefix, stdlib = os.path.realpath(prefix), os.path.realpath(stdlib)
    hidden = tuple(os.path.realpath(d) for d in site_dirs if os.path.isdir(d))
    return InterpreterLayout(prefix, stdlib + "/", tuple(sorted(set(hidden))))


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])


class _Hooks(ast.NodeTransformer):
    """Routes comparisons and truth tests in test code through the harness's hooks."""

    def visit_Assert(self, node: ast.Assert) -> ast.Assert:  # noqa: N802 - ast API
        self.generic_visit(node)
        node.test = _call("__prm_truth__", node.test)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.Call:  # noqa: N802
        self.generic_visit(node)
        ops = [_OPS[type(op)] for op in node.ops]
        if len(ops) == 1:
            return _call("__prm_cmp__", ast.Constant(ops[0]), node.left, node.comparators[0])
        thunks = [
            ast.Lambda(
                args=ast.arguments(
                    posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]
                ),
                body=c,
            )
            for c in node.comparators
        ]
        names = ast.Tuple(elts=[ast.Constant(o) for o in ops], ctx=ast.Load())
        return _call("__prm_chain__", names, node.left, *thunks)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.UnaryOp:  # noqa: N802
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            node.operand = _call("__prm_val__", node.operand)
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.BoolOp:  # noqa: N802
        self.generic_visit(node)
        node.values = [_call("__prm_val__", v) for v in node.values]
        return node


def rewrite_test(source: str) -> tuple[str, int]:
    """(rewritten source, asserts that must run). Raises ValueError if `source` does not parse.

    The count is exact for straight-line tests (every assert must run) and 1 for tests with
    loops, branches or functions (at least one must run); 0 when the test has no assert.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ValueError(
            f"test does not parse ({exc.msg}, line {exc.lineno}): {source[:120]!r}"
        ) from exc
    nodes = list(ast.walk(tree))
    asserts = sum(isinstance(n, ast.Assert) for n in nodes)
    if asserts and any(isinstance(n, _COMPOUND) for n in nodes):
        asserts = 1
    tree = ast.fix_missing_locations(_Hooks().visit(tree))
    return ast.unparse(tree), asserts


def test_units(problem: Problem) -> list[str]:
    """The problem's tests as independently run units (see the module docstring)."""
    tests = [t.replace("\r\n", "\n").strip("\n") for t in problem.tests if t.strip()]
    if not tests:
        raise ValueError(f"code problem {problem.problem_id!r} has no tests; cannot judge it")
    body = "\n".join(tests)
    if problem.entry_point and "def check(" in body:
        return [f"{body}\n\ncheck({problem.entry_point})\n"]
    return tests


def read_names(sources: list[str]) -> tuple[str, ...]:
    """Every name the given (parsable) sources read, in first-seen order."""
    seen: dict[str, None] = {}
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                seen.setdefault(node.id, None)
    return tuple(seen)


def subject_of(problem: Problem, first_test: str) -> str:
    """The function under test: the entry point, else the first test's first call of a
    non-builtin name (or its first call at all, as in `assert sum(1, 2) == 3`)."""
    if problem.entry_point:
        return problem.entry_point
    calls = [
        n.func.id
        for n in ast.walk(ast.parse(first_test))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    ]
    own = [c for c in calls if not hasattr(builtins, c)]
    return (own or calls or [""])[0]


def prepare_job(problem: Problem, code: str) -> Job:
    """A job for `code` against `problem`'s tests. Raises ValueError for unusable tests."""
    raw = test_units(problem)
    units = [rewrite_test(t) for t in raw]
    setup = problem.test_setup.replace("\r\n", "\n")
    try:
        names = read_names([*raw, setup])
    except SyntaxError as exc:
        raise ValueError(f"test setup does not parse ({exc.msg}): {setup[:120]!r}") from exc
    return Job(
        code,
        setup,
        tuple(u for u, _ in units),
        tuple(n for _, n in units),
        names,
        subject_of(problem, raw[0]),
    )


_STATES = {
    "syntax": "has a syntax error",
    "error": "raised",
    "memory": "ran out of memory",
    "crashed": "crashed",
    "exited": "exited",
    "closed": "broke the channel",
    "cpu": "hit the CPU limit",
}


def _text(data: bytes, limit: int) -> str:
    text = data[:limit].decode("utf-8", "replace")
    return text + ("\n[... truncated]" if len(data) >= limit else "")


@dataclass(slots=True)
class _Records:
    status: list[str]
    detail: list[str]
    errors: list[str] = field(default_factory=list)
    ready: bool = False
    done: bool = False
    cpu: bool = False
    memory: bool = False
    signal: int | None = None


def _read_records(records: bytes, nonce: str, n: int) -> _Records:
    """The test process's records of this run (lines with another nonce are ignored)."""
    seen = _Records(["not_run"] * n, [""] * n)
    for line in records.decode("utf-8", "replace").splitlines():
        parts = line.split("\t")
        if len(parts) != 5 or parts[0] != nonce:
            continue  # not ours: a torn line, or not from the test process
        _, kind, index, state, info = parts
        seen.memory = seen.memory or state == "memory"
        if kind == "ready":
            seen.ready = True
        elif kind == "done":
            seen.done = True
        elif kind == "signal" and index.isdigit():
            seen.signal = int(index)
        elif kind == "test" and index.isdigit() and int(index) < n:
            if seen.status[int(index)] == "not_run":
                seen.status[int(index)], seen.detail[int(index)] = state, info
        elif kind in ("solution", "setup") and state != "ok":
            seen.cpu = seen.cpu or state == "cpu"
            seen.errors.append(f"{kind} {_STATES.get(state, 'failed')}: {info}")
    return seen


def interpret(
    job: Job,
    nonce: str,
    records: bytes,
    out: bytes,
    err: bytes,
    timed_out: bool,
    returncode: int | None,
    *,
    bwrap: bool,
    limit: int,
    duration: float,
    isolation: str,
) -> ExecutionResult:
    """The result of one run, from nonce-tagged records only (see `ExecutionResult`)."""

    n = len(job.tests)
    seen = _read_records(records, nonce, n)
    status, detail, errors = seen.status, seen.detail, seen.errors
    ready, done, cpu_killed, signal_no = seen.ready, seen.done, seen.cpu, seen.signal
    if signal_no is None and returncode is not None and not done:
        if returncode < 0:
            signal_no = -returncode
        elif bwrap and returncode > 128:  # bwrap reports a signalled child as 128 + signal
            signal_no = returncode - 128
        # Only its own CPU rlimit sends these to the test process (another uid's program
        # cannot signal it).
        cpu_killed = cpu_killed or (signal_no in (9, 24) and not timed_out)
    passed_count = status.count("pass")
    passed = done and passed_count == n and not errors
    reason = ""
    if not ready:
        reason = "the sandbox did not start the harness" if not timed_out else ""
    if not passed and not reason:
        first_bad = next((i for i, s in enumerate(status) if s != "pass"), None)
        if timed_out or cpu_killed:
            reason = "ran out of time" + (" (CPU limit)" if cpu_killed else "")
        elif errors:
            reason = errors[0]
        elif signal_no:
            reason = f"the test process was killed by signal {signal_no}"
        elif not done:
            reason = f"the test process exited before the tests finished (exit code {returncode})"
        elif first_bad is not None:
            reason = f"test {first_bad}: {status[first_bad]}" + (
                f" ({detail[first_bad]})" if detail[first_bad] else ""
            )
    return ExecutionResult(
        passed=passed,
        tests_passed=passed_count,
        tests_total=n,
        timed_out=timed_out or cpu_killed,
        started=bool(ready) or timed_out,
        memory_exceeded=seen.memory,
        killed_by_signal=signal_no,
        exit_code=returncode,
        error=reason[:300],
        test_status=tuple(status),
        stdout=_text(out, limit),
        stderr=_text(err, limit),
        duration_s=round(duration, 4),
        isolation=isolation,
    )
