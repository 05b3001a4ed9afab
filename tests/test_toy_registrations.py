"""Adding a strategy, a dataset adapter, a label source or an app takes one registration each
(plus its own code and YAML), and the tests that discover them pick them up.

Every toy here is registered inside its test only (nothing ships). For each, the test shows
(1) the list a discovering test is parametrized over now holds the toy, so a shipped one gets
that test without anyone editing it; (2) the discovering test's own check passes on the toy;
(3) leaving a piece out fails that check (a test, not a user). What each toy took:
- strategy: one `registry.register(StrategySpec(...))` (pipelines/search/registry.py) and its
  coroutine;
- adapter: one entry in `labeling.datasets.ADAPTERS` (here `ADAPTERS.registered`), its `load` (this
  module's) and `conf/dataset/<name>.yaml`;
- label source: one `sources.register(SourceSpec(...), section, build)`
  (pipelines/label/sources.py), its section dataclass and its builder; `labels=[<name>]`
  composes from the registration (no YAML needed), and its columns join the shard schema;
- MC method: its module (a frozen settings dataclass answering `labeling.mc.Method`) and one
  `mc_sections.register(<its labels.mc section>)`; `labels/mc=<name>` then composes;
- app: one line in `[project.scripts]`, its module declaring `APP = HydraApp(...)`, and
  `conf/<config_name>.yaml`.
"""

from __future__ import annotations

import dataclasses
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

import pytest
from hydra.core.config_store import ConfigStore

from labeling import datasets, mc, registry
from labeling.fields import ROWS as MC_ROWS
from labeling.fields import option as mc_option
from labeling.mc import ChainFacts, PerStep
from labeling.mc.method import Settings
from labeling.schema import Problem
from pipelines.cli import HydraApp
from pipelines.config_fields import ROWS, option
from pipelines.generation_config import SamplerConfig
from pipelines.label import mc_sections, sources
from pipelines.label.source_configs import MCSourceConfig
from pipelines.search import registry as strategies
from pipelines.search.strategies import Decision
from tests import apps
from tests.apps import group_options
from tests.conftest import CONF_DIR, compose
from tests.test_apps import check_composes, check_help, check_script
from tests.test_conf_defaults import check_primary
from tests.test_datasets import check_adapter
from tests.test_registry import TOY, ToySourceConfig, build_toy, check_source
from tests.test_search_strategies import check_strategy_alone


@pytest.fixture
def conf(tmp_path) -> Path:
    """A copy of conf/ a toy may add its YAML to."""
    return Path(shutil.copytree(CONF_DIR, tmp_path / "conf"))


# --- a strategy ---------------------------------------------------------------------------


def _first_chain(ctx, members):
    """The toy: the first of max(N) sampled chains, at every budget (no PRM)."""

    def search():
        budgets = sorted(set(ctx.cfg.search.budgets))
        base = ctx.base(seed=7)
        (samples,) = yield [replace(base, n=max(budgets))]
        first = samples[0]
        return [Decision("first_chain", "", n, first.text, ctx.extract(first.text), None,
                         first.tokens, 0, 1, 1, base.seed) for n in budgets]  # fmt: skip

    return [(search(), "first_chain")]


def test_a_toy_strategy_is_one_registration(tmp_path):
    spec = strategies.StrategySpec("first_chain", "the first sampled chain", False, "toy",
                                   _first_chain)  # fmt: skip
    with strategies.registered(spec):
        assert "first_chain" in strategies.names()  # what the discovering test reads
        assert "first_chain" in strategies.strategy_enum().__members__  # the config's enum
        check_strategy_alone(tmp_path / "ok", "first_chain")
    broken = replace(spec, build=lambda ctx, members: [])  # forgot to build its searches
    with strategies.registered(broken), pytest.raises(RuntimeError, match="made no decision"):
        check_strategy_alone(tmp_path / "broken", "first_chain")


# --- an adapter ---------------------------------------------------------------------------


def load(options):
    """The toy adapter: three sums."""
    for a in range(1, 4):
        yield Problem(f"toy-{a}", "math", options.get("name") or "toy_math",
                      f"What is {a} + {a}?", reference=str(2 * a))  # fmt: skip


def test_a_toy_adapter_is_one_registration(conf, tmp_path):
    from pipelines.label.app import run, typed

    with datasets.ADAPTERS.registered("toy_math", __name__):
        assert "toy_math" in datasets.ADAPTERS  # what the discovering test reads
        with pytest.raises(AssertionError, match="toy_math.yaml"):
            check_adapter("toy_math", conf)  # its YAML is missing: the check says so
        (conf / "dataset" / "toy_math.yaml").write_text("name: toy_math\n")
        check_adapter("toy_math", conf)
        picked = compose(["dataset=toy_math"], conf_dir=str(conf)).dataset
        assert (picked.adapter or picked.name) == "toy_math"
        cfg = typed(compose(["engine=simulated", "ray=inprocess", "labels=[answer]",
                             "sampler.n=2", f"output.dir={tmp_path / 'run'}",
                             "output.report=false"]))  # fmt: skip
        cfg.dataset.name = "toy_math"  # `name` is free text: the config check asks the table
        manifest = run(cfg)
    assert manifest["counts"]["problems_in"] == 3 and manifest["counts"]["rows"] == 6


# --- a label source -----------------------------------------------------------------------


def test_a_toy_source_is_one_registration():
    assert "toy" not in registry.configurable()
    with sources.registered(TOY, ToySourceConfig, build_toy):
        assert "toy" in registry.configurable()  # what the discovering test reads
        assert "toy" in group_options("labels")  # what the compose-every-option test reads
        check_source("toy")
    assert "toy" not in group_options("labels")  # gone with its registration
    # a declaration without its builder and section: the discovering check fails on it
    with registry.registered(TOY), pytest.raises(KeyError, match="no label source builder"):
        check_source("toy")


# --- an app -------------------------------------------------------------------------------


@dataclasses.dataclass
class ToyAppConfig:
    sampler: SamplerConfig = option(factory=SamplerConfig, help="Borrowed from prm-label.",
                                    affects=ROWS)
    greeting: str = option("hello", "What the toy app prints.", ROWS)


def _register_toy() -> None:
    from pipelines.label.config import register

    register()  # the sampler group's schema
    ConfigStore.instance().store(name="toy_schema", node=ToyAppConfig)


def _run_toy(cfg) -> str:
    return f"{cfg.greeting} at temperature {cfg.sampler.temperature}"


APP = HydraApp("prm-toy", "toy", ToyAppConfig, _register_toy, _run_toy,
               "prm-toy: says hello.\n\n    prm-toy greeting=hi sampler=greedy\n")


def main() -> None:
    APP.main()


TOY_YAML = "defaults:\n  - toy_schema\n  - sampler: default\n  - _self_\n"


def test_a_toy_app_is_one_registration(conf, tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    text = (apps.PYPROJECT).read_text().replace(
        "[project.scripts]\n", f'[project.scripts]\nprm-toy = "{__name__}:main"\n')
    pyproject.write_text(text)
    found = apps.hydra_apps(pyproject)
    assert found["prm-toy"] is sys.modules[__name__].APP
    # test_wheel ships, test_app_help runs --help for, every name of this list
    assert "prm-toy" in apps.scripts(pyproject)
    with pytest.raises(AssertionError, match="no toy.yaml"):
        check_script("prm-toy", apps.scripts(pyproject)["prm-toy"], conf)
    (conf / "toy.yaml").write_text(TOY_YAML)
    check_script("prm-toy", apps.scripts(pyproject)["prm-toy"], conf)
    cases = [o for a, o in apps.compose_cases(pyproject, conf) if a == "prm-toy"]
    assert cases == [f"sampler={o}" for o in apps.group_options("sampler", conf)]
    for override in cases:
        check_composes(APP, override, conf)
    check_help(APP, conf)
    check_primary(conf / "toy.yaml", ToyAppConfig)
    (conf / "toy.yaml").write_text(TOY_YAML + "greeting: hello\n")  # a default written twice
    with pytest.raises(AssertionError, match="greeting"):
        check_primary(conf / "toy.yaml", ToyAppConfig)
    cfg = compose(["greeting=hi", "sampler=greedy"], config_name="toy", conf_dir=str(conf))
    assert _run_toy(cfg) == "hi at temperature 0.0"


# --- a Monte Carlo method -----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Coin(Settings):
    """The toy MC method: every prefix on track after one rollout that reaches the answer."""

    name: ClassVar[str] = "coin"
    needs_self_confidence: ClassVar[bool] = False
    max_look_ahead: ClassVar[int | None] = 1

    k: int = mc_option(2, "Rollouts per prefix.", MC_ROWS, gt=0)

    @property
    def request(self) -> int:
        return self.k

    def budget(self, successes: int) -> int:
        return self.k

    def decide(self, decided: int, successes: int, left: int) -> bool | None:
        return True if successes else (False if decided and not left else None)

    def search(self, chain: ChainFacts) -> PerStep:
        return PerStep(chain, self)


@dataclasses.dataclass
class MCCoinConfig(MCSourceConfig):
    method_class: ClassVar[type] = Coin
    method_name: ClassVar[str] = "coin"

    method: str = mc_sections.named("coin")
    k: int = mc_sections.setting(Coin, "k")


def test_a_toy_mc_method_is_one_module_and_one_registration():
    from pipelines.label.app import typed

    assert "coin" not in mc.METHODS
    with mc_sections.registered(MCCoinConfig):
        assert "coin" in mc.METHODS  # what the MC tests are parametrized over
        cfg = typed(compose(["labels=[answer,mc]", "labels/mc=coin", "labels.mc.k=3"]))
        made = cfg.labels.mc.make_method()
        assert made == Coin(k=3) and type(cfg.labels.mc).method_name == "coin"
        est = made.search(ChainFacts(3, outcome=False))
        assert [p.n for p in est.pending()] == [3, 3]
    assert "coin" not in mc.METHODS and "coin" not in mc_sections.SECTIONS

    @dataclasses.dataclass
    class Stray(MCSourceConfig):  # a section whose keys are not its method's
        method_class: ClassVar[type] = Coin
        method_name: ClassVar[str] = "coin"
        method: str = mc_sections.named("coin")

    with pytest.raises(ValueError, match="exactly the keys"), mc_sections.registered(Stray):
        pass
    assert "coin" not in mc.METHODS
