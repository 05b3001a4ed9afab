"""Shared fixtures: the shared data folder, Hydra composition, a tiny random model, a tiny PRM
checkpoint, and the one rule for tests that need something outside Python (`require`)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

# Imported before any test module: setuptools checks, when first imported, that the distutils
# loaded is its own. A test that imports pip and then distutils (pip turns setuptools' shim
# off) leaves the standard library's loaded, and vLLM, which imports setuptools through
# torch.utils.cpp_extension, would then fail to import in that process (an xdist worker).
import setuptools  # noqa: F401

from pipelines.confdir import CONF_DIR  # noqa: F401  (tests import it from here)

# The markers' guard and Hypothesis's quick profile (tests/tiers.py).
pytest_plugins = ["tests.tiers"]

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("PRM_DATA_DIR", ROOT.parent / "shared" / "data"))


def shared(rel: str) -> Path:
    """A file of ../shared/data, or skip the test cleanly when the folder is absent (a fresh
    clone has no ../shared, in CI too: the data is not part of the set-up)."""
    path = SHARED_DATA / rel
    if not path.exists():
        pytest.skip(f"{path} is not available (../shared is missing)")
    return path


def require(present: bool, what: str, fix: str) -> None:
    """For what `make test` installs (bubblewrap, python3-seccomp, tcmalloc, chromium, the
    model extra) or a CI runner has (root): nothing when `present`; else the test fails in
    CI (the `CI` environment variable is set: the set-up was meant to provide it) and is
    skipped elsewhere, with `fix` saying how to get it."""
    if present:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{what} is required in CI (make test sets it up): {fix}")
    pytest.skip(f"{what} is not available here: {fix}")


@pytest.fixture(scope="session")
def sandbox() -> None:
    """The sandbox works on this machine: bubblewrap and python3-seccomp are installed and a
    trivial sandboxed run passes (the runner's own probe). Session-scoped, so it is decided
    before any module fixture runs programs in it (`needs_sandbox`)."""
    from verifiers.sandbox.runner import SandboxUnavailableError, default_sandbox

    try:
        default_sandbox()
    except SandboxUnavailableError as exc:
        require(False, "the sandbox (bubblewrap, python3-seccomp)", str(exc))


# `pytestmark = needs_sandbox` on a module, or `@needs_sandbox` on a test.
needs_sandbox = pytest.mark.usefixtures("sandbox")


def chromium() -> str:
    """The headless browser's path (tests that render a page)."""
    import shutil

    path = shutil.which("chromium")
    require(path is not None, "chromium", "apt-get install -y chromium")
    assert path is not None
    return path


def compose(overrides: list[str], config_name: str = "prm-label", conf_dir: str = CONF_DIR):
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    from tests.apps import hydra_apps

    with storing_once():
        for app in hydra_apps().values():  # every app's schemas, found from [project.scripts]
            app.register()
    with initialize_config_dir(config_dir=str(conf_dir), version_base=None):
        return hydra_compose(config_name=config_name, overrides=overrides)


_NOT_FROZEN = object()
# (group, name) -> (what was stored: a snapshot, the ConfigNode the store made of it)
_STORED: dict[tuple[str | None, str], tuple[object, object]] = {}


def _snapshot(node):
    """A value equal to `node` as long as what Hydra makes of it is the same, taken now: classes
    and scalars as they are, dicts and lists of them rebuilt; `_NOT_FROZEN` for anything else
    (a DictConfig, an instance: it could change in place)."""
    if node is None or isinstance(node, type | str | int | float | bool):
        return node
    if isinstance(node, dict | list):
        items = node.items() if isinstance(node, dict) else enumerate(node)
        out = tuple((k, _snapshot(v)) for k, v in items)
        if any(v is _NOT_FROZEN for _, v in out):
            return _NOT_FROZEN
        return type(node), out
    return _NOT_FROZEN


@contextlib.contextmanager
def storing_once():
    """Every app registers its schemas before each `compose` (a test may have registered a toy
    since). Most of that time goes to turning the same classes into configs again (Hydra's
    `ConfigStore.store`), so a store is skipped while the store still holds the very entry
    made of an equal node, with the same package and provider: exactly what it would make
    again. A node that may change in place, or an entry replaced or removed since, is stored."""
    from hydra.core.config_store import ConfigStore

    original = ConfigStore.store

    def entry(store, group, name):
        table = store.repo
        for part in group.split("/") if group is not None else []:
            table = table.get(part, {})
        return table.get(name if name.endswith(".yaml") else f"{name}.yaml")

    def store(self, name, node, group=None, package=None, provider=None):
        key, snap = (group, name), (_snapshot(node), package, provider)
        known = _STORED.get(key)
        if (known is not None and snap[0] is not _NOT_FROZEN and known[0] == snap
                and entry(self, group, name) is known[1]):
            return
        original(self, name, node, group=group, package=package, provider=provider)
        _STORED[key] = (snap, entry(self, group, name))

    ConfigStore.store = store
    try:
        yield
    finally:
        ConfigStore.store = original


# The local Ray that `ray_runtime` hands from test to test (None: none of ours is up).
_SHARED_RAY: dict[str, object] = {"up": False}
RAY_CLEAN_WAIT_S = 10.0  # how long a finished test's actors may take to give their CPUs back


@pytest.fixture
def ray_runtime():
    """A local Ray runtime of 2 CPUs, started as a job starts one (`init_ray` with
    `ray.num_cpus=2`), that the test's jobs join (`init_ray` starts nothing when Ray is up).
    It is kept for the next test that asks for it (a start and a shutdown cost seconds each)
    only when this test hands it back as found: Ray still up, no named actor left and every
    CPU free again; otherwise it is shut down and the next test starts a fresh one. The tests
    that ask for it run one after another (`pytest_collection_modifyitems` below); a test that
    does not ask for it finds no Ray of ours up (`pytest_runtest_setup`)."""
    import ray

    from pipelines.engine.runtime import init_ray
    from pipelines.generation_config import RayConfig

    if not (_SHARED_RAY["up"] and ray.is_initialized()):
        if ray.is_initialized():
            ray.shutdown()
        init_ray(RayConfig(num_cpus=2))
        _SHARED_RAY["up"] = True
    yield
    _SHARED_RAY["up"] = ray.is_initialized() and _ray_is_clean(ray)
    if not _SHARED_RAY["up"]:
        ray.shutdown()


def _ray_is_clean(ray) -> bool:
    """No named actor left in any namespace and every CPU free (killed actors give theirs
    back within moments)."""
    import time

    deadline = time.monotonic() + RAY_CLEAN_WAIT_S
    while True:
        free = ray.available_resources().get("CPU", 0.0)
        if (not ray.util.list_named_actors(all_namespaces=True)
                and free == ray.cluster_resources().get("CPU", 0.0)):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that use `ray_runtime` run one after another, where the first of them was,
    so that one Ray serves them all; every other test keeps its place and order."""
    users = [i for i in items if "ray_runtime" in getattr(i, "fixturenames", ())]
    if len(users) < 2:
        return
    first = items.index(users[0])
    chosen = {id(i) for i in users}
    rest = [i for i in items if id(i) not in chosen]
    items[:] = [*rest[:first], *users, *rest[first:]]


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Shut the shared Ray down before a test that does not use it: it may start its own."""
    if _SHARED_RAY["up"] and "ray_runtime" not in getattr(item, "fixturenames", ()):
        import ray

        ray.shutdown()
        _SHARED_RAY["up"] = False


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _SHARED_RAY["up"]:
        import ray

        ray.shutdown()
        _SHARED_RAY["up"] = False


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory) -> Path:
    """A randomly initialised Llama small enough to start vLLM fast on CPU, with SmolLM2's
    tokenizer and chat template (head_dim 64: vLLM's CPU attention rejects 16)."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from pipelines.engine.prepare_model import prepare

    tok = AutoTokenizer.from_pretrained(prepare())
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        tie_word_embeddings=True,
    )
    model = LlamaForCausalLM(config).to(torch.bfloat16)
    out = tmp_path_factory.mktemp("tiny-llama")
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


@pytest.fixture(scope="session")
def smollm2_engine():
    """One in-process vLLM engine on the embedded SmolLM2 (one thread, 1024 tokens), built
    once for the tests that ask the real engine how it samples (seeds, loop ends) and are
    not about its start. Each compares requests it sends itself, seeded per request, so an
    engine that served another test first answers them as a new one would. It lives as long
    as the test process, as an engine built inside a test did before."""
    from pipelines.engine.actor import VLLMEngine
    from pipelines.engine.prepare_model import prepare
    from pipelines.generation_config import EngineConfig, ModelConfig

    path = str(prepare())
    return VLLMEngine(path, ModelConfig(name="SmolLM2-135M-Instruct", path=path,
                                        max_model_len=1024), EngineConfig(threads=1))


@pytest.fixture(scope="session")
def prm_ckpt(tmp_path_factory) -> Path:
    """A tiny PRM checkpoint (tests/reward_ckpt.py) that scores 96 tokens at most, built once:
    the reward tests read it and never write to it."""
    from tests.reward_ckpt import tiny_prm

    return tiny_prm(tmp_path_factory.mktemp("prm"), max_length=96)


@pytest.fixture(scope="module")
def prm_reward(prm_ckpt):
    """`PRMReward` on `prm_ckpt`, one per test module (its counters start at zero there)."""
    from pipelines.reward import PRMReward

    with PRMReward.load(prm_ckpt) as reward:
        yield reward


@pytest.fixture(scope="module")
def calc():
    """One calculator verifier (and its sympy worker) per test module."""
    from verifiers.calculator.verifier import CalculatorVerifier

    v = CalculatorVerifier(timeout_s=5.0)
    yield v
    v.close()


def calc_statuses(calc, steps, question=""):
    """The calculator's status per step, as plain strings."""
    return [str(v.status) for v in calc.check_steps(steps, question)]


def app_error_line(app: str, args: list[str], cwd: Path) -> str:
    """Run the installed console script `app` with `args`; assert it stopped the way a user
    mistake must (exit 2, exactly one line `<app>: error: ...`, no traceback) and return it."""
    import subprocess
    import sys

    proc = subprocess.run(
        [str(Path(sys.executable).with_name(app)), *args],
        capture_output=True, text=True, timeout=120, cwd=cwd,
        env=dict(os.environ, HYDRA_FULL_ERROR="0"),
    )
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith(f"{app}: error: "), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    return lines[0]


def run_app(app: str, args: list[str], cwd: Path, timeout: float = 300, **kwargs):
    """Run the installed console script `app` with `args` in `cwd`, as a team's scheduler
    would; the finished process (stdout and stderr captured as text)."""
    import subprocess
    import sys

    return subprocess.run([str(Path(sys.executable).with_name(app)), *args],
                          capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env=dict(os.environ, HYDRA_FULL_ERROR="0"), **kwargs)
