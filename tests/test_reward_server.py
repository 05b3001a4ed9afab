"""`prm-reward-server`: the request an OpenRLHF trainer sends, answered with the fields it
reads; concurrent requests batched; a bounded queue; clear 4xx on malformed input; a health
endpoint. A real server (uvicorn, a real port) over a real tiny checkpoint."""

from __future__ import annotations

import asyncio
import json
import math
import threading

import pytest
import requests

from pipelines.reward import PRMReward, reward_config
from pipelines.reward.batching import Batcher, QueueFullError
from pipelines.reward.config import ServerConfig
from pipelines.reward.server import RewardServer
from pipelines.serve.server import free_port

CHATML = "<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n"
QUESTIONS = ["Start at 3 and add 4 , 2 .", "What is 12 * 3 ?", "Start at 3 and add 4 , 2 ."]
RESPONSES = ["3 + 4 = 7\n\n7 + 2 = 9\n\nThe answer is \\boxed{9} .", "12 * 3 = 36", ""]


@pytest.fixture(scope="module")
def server(prm_reward):
    cfg = ServerConfig(port=free_port(), max_request=64, max_queue=256)
    with RewardServer(prm_reward, cfg) as s:
        yield s


def openrlhf_request(url: str, data: dict) -> requests.Response:
    """What OpenRLHF's remote reward client does (openrlhf/utils/remote_rm_utils.py:
    `requests.post(url=url, json=data, headers={"Content-Type": "application/json"},
    timeout=180)`, then `response.json()` and the `rewards` key)."""
    return requests.post(url=url + "/get_reward", json=data,
                         headers={"Content-Type": "application/json"}, timeout=180)  # fmt: skip


def test_the_openrlhf_request_gets_the_fields_openrlhf_reads(server, prm_reward):
    prompts = [CHATML.format(q=q) for q in QUESTIONS]
    # OpenRLHF decodes prompt + response with skip_special_tokens=False: the EOS stays in
    queries = [p + r + "<|im_end|>" for p, r in zip(prompts, RESPONSES, strict=True)]
    resp = openrlhf_request(server.url, {"query": queries, "prompts": prompts,
                                         "labels": ["9", "36", "9"]})  # fmt: skip
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert "rewards" in body and len(body["rewards"]) == 3
    assert body["scores"] == body["rewards"]
    for key, values in body["extra_logs"].items():
        assert len(values) == 3 and all(isinstance(v, float) for v in values), key
    assert all(isinstance(x, float) and math.isfinite(x) for x in body["rewards"])
    # the same numbers as the reward in-process on the question, the bare response and the
    # label as its reference (OpenRLHF's labels count by default)
    labels = ["9", "36", "9"]
    assert body["rewards"] == pytest.approx(prm_reward(QUESTIONS, RESPONSES, labels), abs=1e-6)
    assert body["rewards"] != pytest.approx(prm_reward(QUESTIONS, RESPONSES), abs=1e-6)
    assert body["extra_logs"]["prm_no_scorable_step"] == [0.0, 0.0, 1.0]


def test_old_openrlhf_sends_query_only(server, prm_reward):
    queries = [CHATML.format(q=q) + r for q, r in zip(QUESTIONS, RESPONSES, strict=True)]
    body = openrlhf_request(server.url, {"query": queries}).json()
    assert body["rewards"] == pytest.approx(prm_reward(QUESTIONS, RESPONSES), abs=1e-6)


def test_return_steps_gives_dense_rewards(server):
    body = openrlhf_request(server.url, {"query": [RESPONSES[0]], "return_steps": True}).json()
    steps = body["steps"][0]
    assert [s["char_end"] for s in steps] == [9, 20, 47]
    assert all(0.0 <= s["score"] <= 1.0 for s in steps) and body["notes"] == ["scored"]


def test_concurrent_requests_are_all_answered(server, prm_reward):
    results, barrier = {}, threading.Barrier(8)

    def client(i: int) -> None:
        barrier.wait()
        resp = openrlhf_request(server.url, {"query": RESPONSES, "prompts": None})
        results[i] = resp.status_code, resp.json()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(results) == 8
    plain = prm_reward([""] * 3, RESPONSES)
    for status, body in results.values():
        assert status == 200 and body["rewards"] == pytest.approx(plain, abs=1e-6)


@pytest.mark.parametrize(("body", "status", "words"), [
    (b"{not json", 400, "not JSON"),
    (b"[1, 2]", 400, "JSON object"),
    (b'{"prompts": ["a"]}', 422, "'query' is missing"),
    (b'{"query": "a"}', 422, "'query' must be a list"),
    (b'{"query": ["a", 3]}', 422, "query[1] is int"),
    (b'{"query": ["a"], "prompts": ["a", "b"]}', 422, "2 entries for 1 queries"),
    (b'{"query": ["a"], "labels": [{"x": 1}]}', 422, "labels[0] is dict"),
    (b'{"query": ["a"], "return_steps": "yes"}', 422, "return_steps"),
    (json.dumps({"query": ["a"] * 65}).encode(), 413, "at most 64"),
])  # fmt: skip
def test_malformed_requests_get_a_4xx_and_one_sentence(server, body, status, words):
    resp = requests.post(server.url + "/get_reward", data=body, timeout=30,
                         headers={"Content-Type": "application/json"})  # fmt: skip
    assert resp.status_code == status, resp.text
    assert words in resp.json()["detail"] and "\n" not in resp.json()["detail"]


def test_empty_batch_and_health(server):
    assert openrlhf_request(server.url, {"query": []}).json()["rewards"] == []
    # Its own scored completion: under xdist this test may be the first on its worker's server.
    assert len(openrlhf_request(server.url, {"query": [RESPONSES[0]]}).json()["rewards"]) == 1
    health = requests.get(server.url + "/health", timeout=30)
    assert health.status_code == 200 and health.json()["status"] == "ok"
    assert health.json()["stats"]["completions"] > 0


def test_a_full_queue_answers_503_and_a_broken_backend_502(prm_reward):
    cfg = ServerConfig(port=free_port(), max_queue=2)
    with RewardServer(prm_reward, cfg) as s:
        resp = openrlhf_request(s.url, {"query": ["a", "b", "c"]})
        assert resp.status_code == 503 and resp.headers["Retry-After"] == "1"

    class Down:
        def score_many(self, chains):
            raise RuntimeError("connection refused")

    broken = PRMReward(reward_config(checkpoint=prm_reward.cfg.checkpoint), scorer=Down())
    with RewardServer(broken, ServerConfig(port=free_port())) as s:
        resp = openrlhf_request(s.url, {"query": ["2 + 2 = 4"]})
        assert resp.status_code == 502 and "connection refused" in resp.json()["detail"]


# -- the batcher itself (no HTTP, no model) ---------------------------------------------------


def _run_batcher(jobs: list[list[int]], max_batch: int, max_queue: int = 100, fail: bool = False):
    sizes: list[int] = []

    def score(items):
        sizes.append(len(items))
        if fail:
            raise RuntimeError("model died")
        return [x * 10 for x in items]

    async def main():
        b = Batcher(score, max_batch=max_batch, max_wait_s=0.0, max_queue=max_queue)
        b.start()
        try:
            return await asyncio.gather(*(b.submit(j) for j in jobs), return_exceptions=True)
        finally:
            await b.stop()

    return asyncio.run(main()), sizes


def test_requests_waiting_together_are_scored_together():
    out, sizes = _run_batcher([[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12], [13]], max_batch=7)
    assert out == [[10, 20, 30], [40, 50, 60], [70, 80, 90], [100, 110, 120], [130]]
    assert sizes == [6, 7]  # never split a request, never above max_batch
    out, sizes = _run_batcher([[1] * 9, [2]], max_batch=4)
    assert sizes == [9, 1] and out[1] == [20]  # a request larger than max_batch goes alone


def test_the_queue_is_bounded_and_errors_reach_every_request():
    out, _ = _run_batcher([[1, 2], [3, 4], [5]], max_batch=8, max_queue=4)
    assert out[:2] == [[10, 20], [30, 40]] and isinstance(out[2], QueueFullError)
    out, _ = _run_batcher([[1], [2]], max_batch=8, fail=True)
    assert all(isinstance(o, RuntimeError) and "model died" in str(o) for o in out)
