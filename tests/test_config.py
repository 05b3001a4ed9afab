"""Every config option composes; wrong keys and types fail at start with Hydra's message."""

from pathlib import Path

import pytest
import yaml
from omegaconf import OmegaConf

from tests.apps import app_groups, hydra_apps
from tests.conftest import CONF_DIR, compose

# prm-label's single-option groups, from its primary YAML (every app: tests/test_apps.py)
GROUPS = [g for g, many in app_groups(hydra_apps()["prm-label"]).items() if not many]


def _options(group):
    return sorted(p.stem for p in (Path(CONF_DIR) / group).glob("*.yaml"))


@pytest.mark.parametrize(
    "override",
    [f"{g}={o}" for g in GROUPS for o in _options(g)] + ["labels=[answer,calc,tests,mc]"],
)
def test_every_option_composes(override):
    cfg = compose([override])
    # Interpolations resolve, except the `???` a user must fill (model=local, generic paths).
    container = OmegaConf.to_container(cfg, resolve=True)
    assert container["sampler"]["max_tokens"] > 16  # vLLM's default of 16 is never used


def test_label_sources_are_a_list_group():
    cfg = compose(["labels=[answer,mc]", "labels/mc=fall", "labels.mc.estimator=per_step"])
    assert cfg.labels.mc.estimator == "per_step" and cfg.labels.calc is None
    assert cfg.answer_check.timeout_s == 5.0 and cfg.sandbox.workers == 2  # on or not


@pytest.mark.parametrize("override", ["sampler.nn=3", "sampler.n=many", "ray.enabled=maybe"])
def test_wrong_key_or_type_fails_at_start(override):
    from hydra.errors import ConfigCompositionException

    with pytest.raises(ConfigCompositionException):
        compose([override])


def test_debug_preset_is_small():
    cfg = compose(["debug=fast"])
    assert cfg.dataset.limit == 4 and cfg.sampler.n == 2


@pytest.mark.parametrize(
    ("name", "overrides"),
    [
        ("eval", ["mode=checkpoint", "checkpoint.checkpoint=/x", "checkpoint.threshold=0.5"]),
        ("eval", ["mode=direct", "sources=[calc]"]),
        ("train", ["train.max_steps=7", "data.shards=[runs/a,runs/b]"]),
        ("report", ["dir=/x"]),
    ],
)
def test_other_apps_compose(name, overrides):
    """Each app's config composes, resolves, and holds the values given on the command line
    (a group or key that silently kept its default would fail here)."""
    cfg = compose(overrides, config_name=name)
    plain = OmegaConf.to_container(cfg, resolve=True, enum_to_str=True)
    for override in overrides:
        key, value = override.split("=", 1)
        got = plain
        for part in key.split("."):
            got = got[part]
        assert got == yaml.safe_load(value), override
