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
    r"isinstance\([^)]*\b(Fall|Posterior|Absolute|AnySuccess|FallTest|FallSearch|FallPerStep|"
    r"FallBinary|PosteriorSearch)\b|"
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


# --- the protocol asks only what every method answers ----------------------------------------

def _estimators():
    """{method name: a chain's estimator under it} for every shipped method."""
    from labeling.mc import ChainFacts

    chain = ChainFacts(5, False, (5, 10), True, steps=("a = 1",) * 5, question="q")
    return {name: method(name).search(chain) for name in METHODS}


def _trivial(fn) -> bool:
    """A body that answers nothing: pass, ..., a constant, an empty list, NotImplementedError."""
    import ast
    import inspect
    import textwrap

    fn = getattr(fn, "fget", fn)
    body = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0].body
    body = [b for b in body if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant))]
    if not body:
        return True
    if len(body) > 1:
        return False
    b = body[0]
    return (isinstance(b, ast.Pass) or isinstance(b, ast.Raise)
            or isinstance(b, ast.Return) and (b.value is None or isinstance(
                b.value, ast.Constant | ast.List | ast.Tuple) and not getattr(b.value, "elts", 0)))


def _protocol_members() -> list[tuple[str, str]]:
    """(which, name) of what the driver asks: `Method`'s members and `Estimator`'s."""
    from labeling.mc import Estimator, Method

    members = [("method", n) for n in ("name", "needs_self_confidence", "max_look_ahead",
                                       "search")]
    assert set(Method.__annotations__) | {"search"} == {n for _, n in members}
    members += [("estimator", n) for n, v in vars(Estimator).items()
                if not n.startswith("_") and (callable(v) or isinstance(v, property))]
    return members


@pytest.mark.parametrize(("which", "member"), _protocol_members())
def test_every_method_answers_each_member_of_the_protocol(which, member):
    ests = _estimators()
    owners = {}
    for name, est in ests.items():
        obj = METHODS[name] if which == "method" else type(est)
        owner = next(c for c in obj.__mro__ if member in vars(c))
        value = vars(owner)[member]
        if callable(value) or isinstance(value, property):
            # a shared stub that one method alone overrides is a branch in disguise
            assert not _trivial(value), \
                f"{name} answers {member} with a stub ({owner.__qualname__})"
        owners[name] = owner
    assert len(owners) == len(METHODS)



def _one_method_only() -> set[str]:
    """Attribute names that exactly one method (its class or its estimator's) has."""
    seen: dict[str, set[str]] = {}
    for name, est in _estimators().items():
        names = set(dir(METHODS[name])) | set(dir(est)) | set(vars(est)) | set(
            vars(getattr(est, "rule", None)) if hasattr(getattr(est, "rule", None), "__dict__")
            else dir(getattr(est, "rule", None) or object))
        for n in names:
            seen.setdefault(n, set()).add(name)
    return {n for n, who in seen.items() if len(who) == 1 and not n.startswith("__")}


def test_shared_code_reads_nothing_only_one_method_has():
    """A real guard against branching on the method: the shared MC code (the estimator base,
    the searches, the protocol, the driver and schedule) reads no attribute of a method,
    rule or estimator that only one method has (`rule.reach` once was one)."""
    import ast

    only = _one_method_only()
    assert {"chain_budget", "fell_below", "may_err"} <= only  # the guard sees such names
    receivers = {"est", "rule", "method", "m", "mc", "estimator"}
    shared = [ROOT / "labeling/mc" / f for f in ("estimator.py", "searches.py", "method.py",
                                                 "unbiased.py", "__init__.py")]
    shared += sorted((ROOT / "verifiers/mc").glob("*.py"))
    found = []
    for path in shared:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Attribute) or node.attr not in only:
                continue
            v = node.value
            who = v.id if isinstance(v, ast.Name) else v.attr if isinstance(
                v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == "self" \
                else None
            if who in receivers:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {who}.{node.attr}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name", list(METHODS))
def test_a_look_ahead_deeper_than_the_method_looks_stops_at_start(name):
    """`labels.mc.look_ahead` is never read as less than asked without a word: deeper than
    the method's `max_look_ahead` is an error at start; within it, the depth asked."""
    from pipelines.cli import ConfigError
    from pipelines.label.app import typed

    deepest = METHODS[name].max_look_ahead
    base = ["labels=[answer,mc]", f"labels/mc={name}"]
    for depth in range(0, 4):
        override = [*base, f"labels.mc.look_ahead={depth}"]
        if deepest is not None and depth > deepest:
            with pytest.raises(ConfigError, match=f"{name} looks at most {deepest} probe"):
                typed(compose(override))
        else:
            assert typed(compose(override)).labels.mc.look_ahead == depth
    assert sum(m.max_look_ahead is None for m in METHODS.values()) == 1  # posterior's
