import json
from pathlib import Path

import pytest

from labeling.datasets import ADAPTERS, load_problems
from labeling.schema import Problem, Quarantined
from tests.conftest import CONF_DIR, compose, shared

FIXTURES = Path(__file__).parent / "data" / "adapters"  # hand-written, a few records each


def _load(**options):
    return list(load_problems(options))


# --- each adapter on a small fixture of its format (runs without ../shared) --------------


def test_gsm8k_adapter_on_a_fixture():
    items = _load(name="gsm8k", path=str(FIXTURES / "gsm8k.jsonl"))
    assert [p.reference for p in items] == ["12", "30"]
    assert items[0].question.startswith("Ana has") and items[0].domain == "math"


def test_math_adapter_takes_the_boxed_answer_on_a_fixture():
    items = _load(name="math", path=str(FIXTURES / "math.jsonl"))
    assert [p.reference for p in items] == ["32", "\\frac{3}{4}"]


def test_processbench_adapter_on_a_fixture():
    items = _load(name="processbench", path=str(FIXTURES / "processbench.json"))
    assert len(items) == 2
    wrong, right = (p.given_chains[0] for p in items)
    assert wrong.human_first_error == 1 and wrong.outcome_correct is False
    assert wrong.human_labels == (True, False, None)
    assert right.human_first_error == -1 and right.human_labels == (True, True)


def test_prm800k_adapter_keeps_three_way_ratings_on_a_fixture():
    [p] = _load(name="prm800k", path=str(FIXTURES / "prm800k.jsonl"))
    assert p.reference == "120"
    chain = p.given_chains[0]
    assert chain.human_ratings == (1, -1, 0) and len(chain.steps) == 3


def test_mbpp_adapter_on_a_fixture():
    items = _load(name="mbpp", path=str(FIXTURES / "mbpp.jsonl"))
    assert [p.domain for p in items] == ["code", "code"]
    assert items[0].tests == ("assert add(1, 2) == 3", "assert add(0, 0) == 0")


# --- the same adapters on the full public files (skipped without ../shared) ---------------


def test_builtin_math_is_deterministic_and_exact():
    a = _load(name="builtin_math", limit=20, seed=3)
    b = _load(name="builtin_math", limit=20, seed=3)
    c = _load(name="builtin_math", limit=20, seed=4)
    assert a == b and a != c
    assert all(isinstance(p, Problem) and p.reference and p.domain == "math" for p in a)
    assert len({p.problem_id for p in a}) == 20
    # growing the limit only appends
    assert _load(name="builtin_math", limit=25, seed=3)[:20] == a


def test_starter_math_is_graded_deterministic_and_exact():
    """The first run's set: the four families in turn, each reference the value of the
    question's own numbers, the same problems for the same seed, and builtin_math's problems
    unchanged by the shared generator."""
    import re

    a = _load(name="starter_math", limit=40, seed=0)
    assert a == _load(name="starter_math", limit=40, seed=0) != _load(name="starter_math",
                                                                     limit=40, seed=1)
    assert len({p.problem_id for p in a}) == 40
    assert all(p.source_dataset == "starter_math" and p.domain == "math" for p in a)
    for i, p in enumerate(a):
        n = [int(x) for x in re.findall(r"\d+", p.question)]
        want = (n[0] * n[1], n[0] + n[1], n[0] * n[1], n[0] * n[1] + n[-1])[i % 4]
        assert len(n) == (3 if i % 4 == 3 else 2), p.question
        assert p.reference == str(want), p.question
    assert "with" in a[2].question and "more" in a[3].question  # words, then two steps


def test_builtin_linear_equation_answer_solves_it():
    import sympy

    for p in _load(name="builtin_math", limit=30):
        if p.question.startswith("Solve for x:"):
            eq = p.question.removeprefix("Solve for x:").strip().rstrip(".")
            lhs, rhs = eq.split("=")
            x = sympy.Symbol("x")
            sol = sympy.solve(sympy.sympify(lhs.replace("x", "*x")) - sympy.sympify(rhs), x)
            assert [str(s) for s in sol] == [p.reference]


def test_gsm8k_adapter_reads_shared_data():
    path = shared("gsm8k/train.jsonl")
    items = _load(name="gsm8k", path=str(path), limit=50)
    assert len(items) == 50 and all(isinstance(p, Problem) for p in items)
    assert items[0].reference == "72"


def test_math_adapter_takes_boxed_answer():
    path = shared("math/train.jsonl")
    items = _load(name="math", path=str(path), limit=20)
    assert items[0].reference == "0"
    assert all(isinstance(p, Problem) for p in items)


def test_processbench_gives_chains_with_human_labels():
    path = shared("processbench_dev/gsm8k.json")
    items = _load(name="processbench", path=str(path))
    assert len(items) == 158
    p = items[0]
    g = p.given_chains[0]
    assert g.human_first_error == 2 and len(g.steps) == 5 and g.outcome_correct is False
    assert g.human_labels == (True, True, False, None, None)
    assert len({q.problem_id for q in items}) == 158


def test_prm800k_chain_and_ratings():
    path = shared("prm800k/openr_samples_prm800k.jsonl")
    items = _load(name="prm800k", path=str(path))
    assert isinstance(items[0], Problem)
    assert items[0].reference == "468"
    assert items[0].given_chains[0].human_labels[0] is True
    # the phase-2 screening record has generation -1 and still yields steps or a reason
    assert len(items) == 2


def test_mbpp_adapter_reads_all_tasks():
    path = shared("mbpp/mbpp.jsonl")
    items = _load(name="mbpp", path=str(path))
    assert len(items) == 974 and all(isinstance(p, Problem) for p in items)
    assert items[0].domain == "code" and items[0].tests[0].startswith("assert")


def test_humaneval_and_generic(tmp_path):
    he = tmp_path / "he.jsonl"
    he.write_text(json.dumps({"task_id": "t/0", "prompt": "def f(x):\n", "entry_point": "f",
                              "test": "def check(c):\n    assert c(1) == 2\n"}) + "\n")
    [p] = _load(name="humaneval", path=str(he))
    assert p.tests[0].endswith("check(f)") and p.entry_point == "f"

    gen = tmp_path / "g.jsonl"
    gen.write_text(json.dumps({"q": "1+1?", "a": "2"}) + "\n" + json.dumps({"q": "x"}) + "\n")
    items = _load(name="generic", path=str(gen), fields={"question": "q", "answer": "a"})
    assert isinstance(items[0], Problem) and items[0].reference == "2"
    assert isinstance(items[1], Quarantined) and "'a'" in items[1].reason


BAD_LINES = [
    (b"\xff\xfe not utf8\n", "UTF-8"),
    (b"{not json}\n", "JSON"),
    (b"[1, 2]\n", "not a JSON object"),
    (b'{"question": "q"}\n', "missing field 'answer'"),
    (b'{"question": "", "answer": "#### 1"}\n', "empty"),
    (b'{"question": 5.5, "answer": "no hashes"}\n', "####"),
    (b'{"question": ["list"], "answer": "#### 1"}\n', "should be text"),
]


@pytest.mark.parametrize(("line", "reason"), BAD_LINES)
def test_bad_records_are_quarantined_with_a_reason(tmp_path, line, reason):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"question": "ok?", "answer": "#### 3"}\n' + line)
    items = _load(name="gsm8k", path=str(path))
    assert isinstance(items[0], Problem)
    assert isinstance(items[1], Quarantined) and reason in items[1].reason
    assert items[1].record_index == 1


def test_missing_file_and_unknown_adapter_are_clear():
    with pytest.raises(FileNotFoundError, match="dataset.path"):
        _load(name="gsm8k", path="/nonexistent/x.jsonl")
    with pytest.raises(ValueError, match="unknown dataset adapter"):
        _load(name="nope")


# --- the registration (labeling/datasets/__init__.py: ADAPTERS), read by every adapter test


def _picked(option: str) -> str:
    """The adapter `dataset=<option>` picks (its `adapter`, else its `name`)."""
    cfg = compose([f"dataset={option}"])
    return cfg.dataset.adapter or cfg.dataset.name


def check_adapter(name: str, conf_dir: str | Path = CONF_DIR) -> None:
    """A registered adapter has a module with `load` and a `conf/dataset/<name>.yaml` that
    picks it (`dataset=<name>` works)."""
    import importlib

    assert callable(getattr(importlib.import_module(ADAPTERS[name]), "load", None)), name
    path = Path(conf_dir) / "dataset" / f"{name}.yaml"
    assert path.is_file(), f"adapter {name!r} has no {path}"


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_every_adapter_has_its_module_and_yaml(name):
    check_adapter(name)
    assert _picked(name) == name


def test_every_dataset_yaml_and_config_choice_is_a_registered_adapter():
    from labeling.datasets import Adapter

    for path in (Path(CONF_DIR) / "dataset").glob("*.yaml"):
        assert _picked(path.stem) in ADAPTERS, path
    assert list(Adapter.__members__) == list(ADAPTERS)  # the config's enum is the table
