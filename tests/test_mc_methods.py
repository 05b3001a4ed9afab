"""Monte Carlo methods behind one protocol: each composes only its own keys (`labels/mc=<m>`),
a key of another method stops the app at start with one sentence, and nothing outside a
method's module asks which method it holds."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from labeling.mc import DEFAULT_METHOD, METHODS, method
from tests.conftest import ROOT, app_error_line, compose


def own_keys(name: str) -> list[str]:
    return [f.name for f in dataclasses.fields(METHODS[name])]


def others_keys(name: str) -> list[str]:
    """Keys some other method has and this one has not."""
    mine = set(own_keys(name))
    return sorted({k for other in METHODS if other != name for k in own_keys(other)} - mine)


@pytest.mark.parametrize("name", list(METHODS))
def test_each_method_composes_its_own_keys(name):
    from pipelines.label.app import typed

    defaults = METHODS[name]()
    overrides = [f"labels/mc={name}"] if name != DEFAULT_METHOD else []
    # every key of its own can be set (here: to its default, written out)
    for key in own_keys(name):
        value = getattr(defaults, key)
        text = "null" if value is None else str(value).lower() if isinstance(value, bool) \
            else str(value)
        overrides.append(f"labels.mc.{key}={text}")
    cfg = typed(compose(["labels=[answer,mc]", *overrides]))
    assert cfg.labels.mc.make_method() == defaults
    assert type(cfg.labels.mc).method_name == name


@pytest.mark.parametrize("name", list(METHODS))
def test_a_key_of_another_method_fails_when_composing(name):
    from hydra.errors import ConfigCompositionException

    from pipelines.cli import composition_sentence

    choose = [f"labels/mc={name}"] if name != DEFAULT_METHOD else []
    for key in others_keys(name):
        with pytest.raises(ConfigCompositionException) as err:
            compose(["labels=[answer,mc]", *choose, f"labels.mc.{key}=1"])
        sentence = composition_sentence(err.value)
        assert sentence.startswith(f"labels.mc.{key} is not a key of {name}; its keys are ")
        assert all(k in sentence for k in own_keys(name))


@pytest.mark.app
def test_k_with_the_default_method_stops_the_app_with_one_sentence(tmp_path):
    line = app_error_line("prm-label", ["labels=[answer,mc]", "labels.mc.k=2",
                                        f"output.dir={tmp_path}/out"], tmp_path)
    assert line.startswith("prm-label: error: labels.mc.k is not a key of posterior; its keys "
                           "are ")
    assert "chain_budget" in line and "labels/mc=" in line


@pytest.mark.app
def test_an_unknown_method_names_the_choices(tmp_path):
    line = app_error_line("prm-label", ["labels=[answer,mc]", "labels/mc=median",
                                        f"output.dir={tmp_path}/out"], tmp_path)
    assert all(name in line for name in METHODS)


@pytest.mark.parametrize("name", list(METHODS))
def test_the_pure_core_refuses_another_methods_key(name):
    for key in others_keys(name):
        with pytest.raises(ValueError, match=f"{key} is not a key of {name}"):
            method(name, **{key: 1})


# A branch on the method: `isinstance` against a rule or method class, or a comparison with
# a method's name. Allowed only in the method's own module (and the registry that names them).
_BRANCH = re.compile(
    r"isinstance\([^)]*\b(Fall|Posterior|Absolute|FallMethod|PosteriorMethod|AbsoluteMethod|"
    r"AnySuccessMethod|PosteriorRule)\b|"
    r"(==|!=|\bin)\s*\(?\s*[\"'](posterior|fall|absolute|any_success)[\"']|"
    r"\.rule\s*(==|!=|\bin)\b|rule_name\s*==")


def test_nothing_outside_a_methods_module_branches_on_the_method():
    found = []
    for top in ("labeling", "verifiers", "pipelines"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if re.fullmatch(r"labeling/mc/(posterior|fall|absolute|any_success)\.py", rel):
                continue
            for n, line in enumerate(Path(path).read_text().splitlines(), 1):
                if _BRANCH.search(line):
                    found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_completer_model_is_chosen_by_name():
    from pipelines.label.app import typed

    cfg = typed(compose(["labels=[answer,mc]", "labels/mc/model=qwen_coder_0_5b"]))
    own = cfg.labels.mc.own_model(cfg.model)
    assert own is not None and own.name == "Qwen2.5-Coder-0.5B-Instruct"
    same = typed(compose(["labels=[answer,mc]", "labels/mc/model=smollm2"]))
    assert same.labels.mc.own_model(same.model) is None  # the sampler's model: its pool
    assert typed(compose(["labels=[answer,mc]"])).labels.mc.model.name == ""


def test_a_completer_of_its_own_labels_given_chains_on_its_own_pool(tmp_path, monkeypatch):
    """Given chains (no sampler) labeled by MC on a completer model of its own: the job starts
    that model's pool only, and the self-confidence comes from its question rollouts alone
    (the chains are not its samples)."""
    import json

    import polars as pl

    from pipelines.label.app import run
    from pipelines.label.job import LabelJob

    data = tmp_path / "given.jsonl"
    rows = [{"question": f"What is {a} * {b}?", "answer": str(a * b),
             "steps": [f"Step 1: {a} * {b} = {a * b + e}.", f"The answer is {a * b + e}."]}
            for a, b, e in ((3, 4, 0), (5, 6, 1), (7, 8, 0))]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    started: list[str] = []
    real = LabelJob._start_pool

    def spy(self, model):
        started.append(model.name)
        return real(self, model)

    monkeypatch.setattr(LabelJob, "_start_pool", spy)
    m = run(compose(["engine=simulated", "ray=inprocess", "dataset=generic",
                     f"dataset.path={data}", "dataset.fields.steps=steps",
                     "labels=[answer,mc]", "labels/mc=absolute", "labels.mc.k=2",
                     "labels.mc.self_rollouts=4", "labels.mc.model.name=sim-completer",
                     f"output.dir={tmp_path / 'out'}"]))
    assert started == ["sim-completer"]
    df = pl.read_parquet(tmp_path / "out" / "shards" / "*.parquet")
    assert df.height == m["counts"]["rows"] == 3
    for sc in df["mc_self_confidence"].to_list():
        assert sc["source"] == "rollouts" and sc["rollouts"] == 4
    assert sum(sum(r) for r in df["mc_rollouts"].to_list()) > 0


def test_the_method_key_records_the_choice_and_chooses_nothing():
    from pipelines.cli import ConfigError
    from pipelines.label.app import typed

    cfg = typed(compose(["labels=[answer,mc]", "labels/mc=fall"]))
    assert cfg.labels.mc.method == "fall"  # printed configs and the manifest say which ran
    with pytest.raises(ConfigError, match="choose the method with labels/mc=fall"):
        typed(compose(["labels=[answer,mc]", "labels.mc.method=fall"]))
