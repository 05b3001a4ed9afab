"""EngineFeed with a fake LLMEngine: the thread that builds the engine is the one that runs
it, a failed build fails the constructor, and results come back in request order."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from labeling.engine_result import EngineResult, Finish
from pipelines.engine.feed import EngineFeed


class FakeEngine:
    """Finishes one request per step, in the order they were added; records its threads."""

    def __init__(self) -> None:
        self.threads = {threading.get_ident()}
        self.waiting: list[tuple[str, str]] = []

    def add_request(self, rid, prompt, params) -> None:
        self.threads.add(threading.get_ident())
        self.waiting.append((rid, prompt))

    def has_unfinished_requests(self) -> bool:
        return bool(self.waiting)

    def get_num_unfinished_requests(self) -> int:
        return len(self.waiting)

    def step(self):
        self.threads.add(threading.get_ident())
        rid, prompt = self.waiting.pop(0)
        out = SimpleNamespace(token_ids=[1, 2], text=prompt.upper(), finish_reason="stop")
        ids = list(range(len(prompt) + 3))
        return [SimpleNamespace(request_id=rid, finished=True, outputs=[out],
                                prompt_token_ids=ids, num_cached_tokens=2)]  # fmt: skip


def test_the_building_thread_runs_every_step() -> None:
    engine = FakeEngine()
    built_in: list[int] = []

    def build():
        built_in.append(threading.get_ident())
        engine.threads = {threading.get_ident()}
        return engine, 8

    feed = EngineFeed(build)
    assert feed.max_num_seqs == 8
    params = SimpleNamespace(n=1, max_tokens=4)
    empty = EngineResult.too_long()
    results = feed.submit([("a", params), None, ("b", params)], "sample", empty).result(5)
    assert [r.texts for r in results] == [["A"], [""], ["B"]]
    assert results[0].finish == [Finish.STOP] and results[1] == empty
    assert engine.threads == set(built_in)
    assert built_in[0] != threading.get_ident()
    tag = feed.stats()["tags"]["sample"]
    assert (tag["tokens"], tag["prompt_tokens"], tag["cached_tokens"]) == (4, 8, 4)


def test_a_failed_build_fails_the_constructor_with_its_own_error() -> None:
    def build():
        raise OSError("no such model: /nowhere")

    with pytest.raises(OSError, match="no such model"):
        EngineFeed(build)


def test_model_text_with_a_lone_surrogate_comes_back_writable() -> None:
    # Model output is untrusted: a lone surrogate is replaced (U+FFFD), NULs and control
    # characters are kept; the text must encode as UTF-8 for the shard writer.
    feed = EngineFeed(lambda: (FakeEngine(), 8))
    params = SimpleNamespace(n=1, max_tokens=4)
    (res,) = feed.submit([("x\ud800\x00\x07y", params)], "sample",
                         EngineResult.too_long()).result(5)
    assert res.texts == ["X\ufffd\x00\x07Y"]
    res.texts[0].encode("utf-8")
