"""A wrong config value fails at start: exit status 2, one sentence on stderr, no work done.

Each enum-typed field is tried with a typo through the installed `prm-label` script, as a user
would type it; cross-field mistakes (a policy without the source it needs) likewise.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import app_error_line, compose

ENUM_TYPOS = [
    ("model.dtype=bf16", "model.dtype"),
    ("dataset.adapter=gsm8", "dataset.adapter"),
    ("dataset.domain=maths", "dataset.domain"),
    ("split.mode=lines", "split.mode"),
    ("split.code_mode=statements", "split.code_mode"),
    ("labels.policy=verifier_frist", "labels.policy"),
    ("labels.after_error=drop", "labels.after_error"),
    ("engine.kind=vllm_cpu", "engine.kind"),
]

CROSS_FIELD = [
    # consensus names sources (a plugin may add one), checked against the registry
    (["labels.consensus=[mc,jduge]"], "labels.consensus cannot use jduge"),
    (["labels.consensus=[mc,answer]"], "labels.consensus cannot use answer"),
    (["labels=[answer,calc]", "labels.policy=consensus"], "labels.policy=consensus needs"),
    (["labels=[answer,calc]", "labels.policy=mc"], "labels.policy=mc needs the mc source"),
    (["labels=[calc]", "labels.policy=outcome"], "labels.policy=outcome needs the answer"),
    (["dataset.adapter=null", "dataset.name=mydata"], "dataset 'mydata' has no adapter"),
    (["sampler.n=0"], "sampler.n=0 must be > 0"),
    (["sampler.top_p=1.5"], "sampler.top_p=1.5 must be in (0, 1]"),
    (["engine.kind=vllm", "engine.block_size=48"], "engine.block_size=48 must be a multiple"),
    (["engine.threads=-1"], "engine.threads=-1 must be >= 0"),
    (["labels=[answer,mc]", "labels.mc.probe=8"], "labels.mc.probe_max=6 must be >= "
     "labels.mc.probe=8"),
    # `+` adds a key past the schema: it fails at start with the valid keys, not silently
    (["dataset=generic", "dataset.path=x.jsonl", "+dataset.fields.bogus=q"],
     "dataset.fields.bogus is not a config key; the keys of dataset.fields are question,"),
    (["+labels.mc_k=3"], "labels.mc_k is not a config key"),
]


def _prm_label_error(tmp_path: Path, *overrides: str) -> str:
    args = [*overrides, f"output.dir={tmp_path / 'out'}", "ray=inprocess", "engine=simulated"]
    return app_error_line("prm-label", args, tmp_path)


@pytest.mark.app
@pytest.mark.parametrize(("override", "key"), ENUM_TYPOS)
def test_enum_typo_fails_at_start_with_exit_2(tmp_path, override, key):
    line = _prm_label_error(tmp_path, override)
    assert key in line and "expected one of" in line.lower()
    assert not (tmp_path / "out").exists()  # nothing started


@pytest.mark.app
@pytest.mark.parametrize(("overrides", "says"), CROSS_FIELD)
def test_cross_field_mistake_fails_at_start_with_exit_2(tmp_path, overrides, says):
    line = _prm_label_error(tmp_path, *overrides)
    assert says in line
    assert not (tmp_path / "out" / "shards").exists()


@pytest.mark.parametrize(("override", "key"), ENUM_TYPOS)
def test_enum_values_are_checked_when_composing(override, key):
    from hydra.errors import ConfigCompositionException

    with pytest.raises(ConfigCompositionException):
        compose([override, "labels=[answer,calc,mc]"])


def test_enum_fields_take_their_documented_values():
    from pipelines.label.app import typed

    cfg = typed(compose(["split.mode=blank_line", "labels=[answer,mc,calc]",
                         "labels.policy=consensus", "labels.consensus=[mc,calc]",
                         "labels/mc=fall", "labels.mc.estimator=per_step",
                         "model.dtype=float32"]))
    assert cfg.split.mode == "blank_line" and cfg.labels.mc.estimator == "per_step"
    assert [str(s) for s in cfg.labels.consensus] == ["mc", "calc"]
    assert cfg.model.dtype == "float32"
