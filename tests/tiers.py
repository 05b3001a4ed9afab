"""The guard that holds each test to the markers of what it starts (loaded by conftest.py).

The markers (`engine`, `ray`, `sandbox`, `app`, `browser`, `train`, registered with their help
in pyproject.toml) say which expensive thing a test starts, so that `make test-fast` can leave
those tests out and `make test` can run the Ray, engine and training ones one at a time. A
missing marker would silently put a minutes-long test into the fast tier, so the guard fails
the test at the moment it starts one of these things unmarked:

- `ray`: `ray.init`, and the `ray` command line in a subprocess;
- `engine`: a vLLM engine (`vllm.LLM`, the project's `VLLMEngine`, an `EnginePool` of
  `engine.kind=vllm`), and the `vllm` command line in a subprocess;
- `sandbox`: a run of the sandbox (`verifiers.sandbox.runner.Sandbox`, its probe included);
- `app`: a subprocess of one of the project's console scripts (`[project.scripts]`) or of
  `python -m pipelines...`;
- `browser`: a chromium subprocess;
- `train`: the PRM training loop (`pipelines.train.loop.train_loop`) or a transformers
  `Trainer.train` (TRL's trainers);
- `slow`: a test that worked a minute or more (`slow_after_s` in the ini file: CPU seconds
  of the test's process and of the children it waited for, over its setup, call and
  teardown, module fixtures charged to the test that set them up) while it carries none of
  the markers above: it fails at the phase that crossed the minute. CPU time, not the
  clock's: on a machine other jobs share, a fast test's wall time can grow many times over
  and must not fail it. Not seen: a test that waits a minute without working.

A start inside a fixture counts for the fixture as well: every later test that uses that
fixture (a session-scoped cluster, say) needs the marker even though the fixture is already
up. What the guard does NOT see: what a child process starts (a `python -c` program that
builds an engine, a Ray actor's vLLM): the test that runs it carries that marker by hand.

The hooks are installed lazily (when `ray`, `vllm`, ... are first imported), so the guard
costs nothing to a test that imports none of them.

Hypothesis's `quick` profile (`--hypothesis-profile=quick`, what `make test-fast` runs) tries a
tenth of the examples; a test that asks for more than the default count says so with
`examples(n)`, which scales with the profile.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import resource
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# Registered when conftest.py loads this module: before Hypothesis reads --hypothesis-profile.
settings.register_profile("quick", max_examples=10)
DEFAULT_EXAMPLES = 100  # Hypothesis's own default max_examples (the `default` profile)


def examples(n: int) -> int:
    """`n` examples under the default profile, as many in proportion under the one loaded
    (a tenth under `quick`), at least one."""
    return max(1, n * settings().max_examples // DEFAULT_EXAMPLES)


KINDS = ("engine", "ray", "sandbox", "app", "browser", "train")
SLOW_AFTER_S = 60.0  # pyproject's `slow` marker: "takes a minute or more"
PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


@dataclass
class _State:
    item: pytest.Item | None = None  # the test whose setup, call or teardown is running
    fixtures: list[Any] = field(default_factory=list)  # FixtureDefs being set up, innermost last
    fixture_kinds: dict[int, set[str]] = field(default_factory=dict)  # id(FixtureDef) -> kinds
    undo: list[Callable[[], None]] = field(default_factory=list)  # puts the originals back
    seconds: dict[str, float] = field(default_factory=dict)  # nodeid -> CPU s of its phases
    slow: set[str] = field(default_factory=set)  # tests already failed for their time


_state = _State()


def started(kind: str, what: str) -> None:
    """Record that `what` (a `kind` of thing) starts now; fail the running test if it lacks
    the `kind` marker. Outside a test (collection, session end) nothing is checked."""
    for fixturedef in _state.fixtures:
        _state.fixture_kinds.setdefault(id(fixturedef), set()).add(kind)
    item = _state.item
    if item is not None and item.get_closest_marker(kind) is None:
        # Failed is a BaseException: an `except Exception` around the start cannot swallow it.
        pytest.fail(f"{item.nodeid} starts {what} without @pytest.mark.{kind}: mark it "
                    f"(pytestmark = pytest.mark.{kind} for a whole module)", pytrace=False)


def _wrap(owner: Any, name: str, kind: str, what: str,
          when: Callable[..., bool] | None = None) -> None:
    """Replace `owner.name` by a function that calls `started` first (when `when` says so)."""
    original = getattr(owner, name)

    def guarded(*args: Any, **kwargs: Any) -> Any:
        if when is None or when(*args, **kwargs):
            started(kind, what)
        return original(*args, **kwargs)

    guarded.__wrapped__ = original  # type: ignore[attr-defined]
    setattr(owner, name, guarded)
    _state.undo.append(lambda: setattr(owner, name, original))


def _pool_of_vllm(_self: Any, _model_path: Any, _model: Any, engine: Any, *_a: Any,
                  **_k: Any) -> bool:
    return str(getattr(engine, "kind", "")) == "vllm"


# module name -> what to hook once it is imported
_HOOKS: dict[str, Callable[[Any], None]] = {
    "ray": lambda m: _wrap(m, "init", "ray", "a Ray runtime (ray.init)"),
    "vllm.entrypoints.llm": lambda m: _wrap(m.LLM, "__init__", "engine", "a vLLM engine"),
    "pipelines.engine.actor": lambda m: _wrap(
        m.VLLMEngine, "__init__", "engine", "a vLLM engine (VLLMEngine)"),
    "pipelines.engine.pool": lambda m: _wrap(
        m.EnginePool, "__init__", "engine", "a pool of vLLM engines", when=_pool_of_vllm),
    "verifiers.sandbox.runner": lambda m: _wrap(
        m.Sandbox, "_execute_now", "sandbox", "a sandboxed run"),
    "pipelines.train.loop": lambda m: _wrap(m, "train_loop", "train", "the PRM training loop"),
    "transformers.trainer": lambda m: _wrap(
        m.Trainer, "train", "train", "a transformers Trainer"),
}


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs a hook of `_HOOKS` right after its module executes, before any importer sees
    the module (so `from m import f` gets the hooked `f`)."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name not in _HOOKS:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module = loader.exec_module

        def exec_then_hook(module: Any) -> None:
            exec_module(module)
            _HOOKS[name](module)

        loader.exec_module = exec_then_hook  # type: ignore[method-assign]
        return spec


def _scripts() -> set[str]:
    return set(tomllib.loads(PYPROJECT.read_text())["project"]["scripts"])


def _command_kind(args: Any, shell: bool, scripts: set[str]) -> tuple[str, str] | None:
    """(kind, what) for a subprocess the guard knows, else None. Only the command itself is
    read (a `bash -c` script's text is not: it may only mention a script)."""
    if isinstance(args, str | bytes | Path):
        argv = shlex.split(str(args)) if shell else [str(args)]
    else:
        argv = [str(a) for a in args]
    if not argv:
        return None
    first = Path(argv[0]).name
    if first in scripts:
        return "app", f"the console script {first}"
    if first.startswith("python") and "-m" in argv[:-1]:
        module = argv[argv.index("-m") + 1]
        if module == "pipelines.serve.vllm_cli":  # `vllm serve` from this install
            return "engine", "vllm serve"
        if module.startswith("pipelines."):
            return "app", f"python -m {module}"
    if first == "ray":
        return "ray", "the ray command line"
    if first == "vllm":
        return "engine", "the vllm command line"
    if first.startswith("chrom"):
        return "browser", "chromium"
    if first == "bwrap":
        return "sandbox", "bubblewrap"
    return None


def _guard_popen() -> None:
    scripts = _scripts()
    original = subprocess.Popen.__init__

    def guarded(self: Any, *a: Any, **kw: Any) -> None:
        found = _command_kind(a[0] if a else kw.get("args", ()), bool(kw.get("shell")), scripts)
        if found is not None:
            started(*found)
        original(self, *a, **kw)

    subprocess.Popen.__init__ = guarded  # type: ignore[method-assign]
    _state.undo.append(lambda: setattr(subprocess.Popen, "__init__", original))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("slow_after_s", "seconds after which a test without a marker of what it "
                  "starts must be marked slow (tests/tiers.py)", default=str(SLOW_AFTER_S))


def pytest_configure(config: pytest.Config) -> None:
    registered = {line.split(":")[0].strip() for line in config.getini("markers")}
    missing = [k for k in KINDS if k not in registered]
    if missing:
        raise pytest.UsageError(f"markers {missing} are not registered in pyproject.toml's "
                                "[tool.pytest.ini_options] markers; the guard needs them")
    finder = _AfterImport()
    sys.meta_path.insert(0, finder)
    _state.undo.append(lambda: sys.meta_path.remove(finder))
    for name, hook in _HOOKS.items():  # already imported (by a conftest, say): hook now
        if name in sys.modules:
            hook(sys.modules[name])
    _guard_popen()


def pytest_unconfigure(config: pytest.Config) -> None:
    while _state.undo:
        _state.undo.pop()()


def _fixture_kinds(item: pytest.Item) -> set[str]:
    """What the fixtures this test uses started when they were set up (so far)."""
    info = getattr(item, "_fixtureinfo", None)
    kinds: set[str] = set()
    for defs in getattr(info, "name2fixturedefs", {}).values():
        for fixturedef in defs:
            kinds |= _state.fixture_kinds.get(id(fixturedef), set())
    return kinds


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Any:
    missing = sorted(k for k in _fixture_kinds(item) if item.get_closest_marker(k) is None)
    if missing:
        pytest.fail(f"{item.nodeid} uses a fixture that started something marked "
                    f"{missing}; mark the test with them", pytrace=False)
    with _running(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    with _running(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Any:
    with _running(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Fail the phase in which a test without any tier marker passes `slow_after_s`."""
    report = yield
    spent = _state.seconds.get(item.nodeid, 0.0)
    limit = float(item.config.getini("slow_after_s"))
    marked = any(item.get_closest_marker(k) is not None for k in (*KINDS, "slow"))
    if spent >= limit and not marked and report.passed and item.nodeid not in _state.slow:
        _state.slow.add(item.nodeid)  # once per test: its later phases keep their outcome
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} worked {spent:.1f} CPU s (at least {limit:g}) without "
                           "@pytest.mark.slow or a marker of what it starts: mark it")
    return report


@contextlib.contextmanager
def _running(item: pytest.Item) -> Iterator[None]:
    """The test whose phase runs now: what a start and CPU time are charged to."""
    _state.item = item
    start = _cpu_seconds()
    try:
        yield
    finally:
        _state.item = None
        spent = _cpu_seconds() - start
        _state.seconds[item.nodeid] = _state.seconds.get(item.nodeid, 0.0) + spent


def _cpu_seconds() -> float:
    """CPU seconds of this process (all its threads) and of the children it waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: Any, request: pytest.FixtureRequest) -> Any:
    _state.fixtures.append(fixturedef)
    try:
        return (yield)
    finally:
        _state.fixtures.pop()
