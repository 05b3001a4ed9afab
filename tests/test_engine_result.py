"""The engine's one answer (`labeling.engine_result`): its finish reasons are an enum, made in
one place, and no bare finish string lives anywhere else in the code."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

from labeling.engine_result import Completion, EngineResult, Finish

ROOT = Path(__file__).resolve().parents[1]
HOME = ROOT / "labeling" / "engine_result.py"
# vLLM's `stop` is also the name of a request's stop strings, so only these are scanned.
FINISH_WORDS = frozenset({Finish.PROMPT_TOO_LONG, Finish.LENGTH, Finish.LOOP})


def test_vllm_reasons_map_to_members_and_an_unknown_one_fails():
    assert [Finish.of(r) for r in ("stop", "length", "abort", "error", "repetition")] == [
        Finish.STOP, Finish.LENGTH, Finish.ABORT, Finish.ERROR, Finish.REPETITION]
    assert Finish.of(Finish.LOOP) is Finish.LOOP
    with pytest.raises(ValueError):
        Finish.of("cancelled")


def test_a_result_is_built_from_equal_columns_and_pickles():
    res = EngineResult.of(["a", "b"], [1, 2], ["stop", "length"])
    assert res.completions == (Completion("a", 1), Completion("b", 2, Finish.LENGTH))
    assert (res.texts, res.tokens, res.finish) == (["a", "b"], [1, 2], ["stop", "length"])
    assert not res.prompt_too_long and EngineResult.too_long().prompt_too_long
    assert pickle.loads(pickle.dumps(res)) == res
    # A finish reason written to a shard stays the plain string it always was.
    assert res.finish[1].value == "length" and str(res.finish[1]) == "length"
    with pytest.raises(ValueError):
        EngineResult.of(["a"], [1, 2], ["stop"])


def bare_finish_strings(path: Path, text: str | None = None) -> list[str]:
    """'path:line' of each string literal that is a finish reason's word."""
    tree = ast.parse(text if text is not None else path.read_text(), str(path))
    return [f"{path}:{node.lineno}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in FINISH_WORDS]


def code_files() -> list[Path]:
    return sorted(p for top in ("labeling", "verifiers", "pipelines")
                  for p in (ROOT / top).rglob("*.py") if p != HOME)


def test_no_bare_finish_string_outside_the_enum():
    found = [hit for p in code_files() for hit in bare_finish_strings(p)]
    assert found == [], f"use labeling.engine_result.Finish instead of: {found}"


def test_the_finish_scan_finds_a_planted_one():
    planted = 'def cut(r):\n    return r.finish == "length"\n'
    assert bare_finish_strings(Path("planted.py"), planted) == ["planted.py:2"]
    assert bare_finish_strings(HOME) != []  # the enum itself spells them
