"""`prm-reward-server`: a PRM reward over HTTP, in OpenRLHF's remote reward model protocol.

    prm-reward-server reward.checkpoint=outputs/prm/final            # 127.0.0.1:5000
    prm-reward-server reward.checkpoint=... reward.backend=server reward.url=http://h:8000
    # OpenRLHF:  --remote_rm_url http://127.0.0.1:5000/get_reward --label_key answer

`POST /get_reward` takes `{"query": [str], "prompts": [str], "labels": [str]}` (what
OpenRLHF's remote reward client sends: each query is the prompt text followed by the
response, decoded with special tokens; `prompts` and `labels` are optional here) and answers
`{"rewards": [float], "scores": [float], "extra_logs": {...}}`, the fields OpenRLHF reads
(`scores` feeds its dynamic filtering; our rewards lie in [0, 1], so they are the same
numbers). `"return_steps": true` adds each completion's step scores and step ends.
`GET /health` answers 200 with the queue and the reward's counters.

Concurrent requests are scored together (`pipelines.reward.batching`); the queue is bounded
(503 with Retry-After when full). A malformed request gets a 4xx and one sentence: 400 when
the body is not a JSON object, 422 when a field has the wrong shape, 413 when it holds more
than `server.max_request` completions. A backend failure is a 502, never a made-up reward.
What it does not do: authentication or TLS; it binds 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from labeling.prm.reward import FORMAT_NOTES, Note, split_query
from pipelines.cli import HydraApp
from pipelines.reward.batching import Batcher, QueueFullError
from pipelines.reward.config import RewardAppConfig, ServerConfig, app_config, register
from pipelines.reward.prm_reward import PRMReward
from pipelines.serve.client import ScoringError


class BadRequestError(Exception):
    def __init__(self, status: int, sentence: str) -> None:
        super().__init__(sentence)
        self.status = status


def _strings(data: dict[str, Any], key: str, n: int | None, optional: bool,
             texts_only: bool) -> list[Any] | None:  # fmt: skip
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, list):
        raise BadRequestError(422, f"'{key}' must be a list, not {type(value).__name__}")
    if n is not None and len(value) != n:
        raise BadRequestError(422, f"'{key}' has {len(value)} entries for {n} queries")
    for i, v in enumerate(value):
        ok = isinstance(v, str) or (not texts_only and (v is None or isinstance(v, int | float)))
        if not ok or isinstance(v, bool):
            raise BadRequestError(422, f"{key}[{i}] is {type(v).__name__}, not a string")
    return value


def parse_request(body: bytes, max_request: int) -> tuple[list[tuple[str, str, Any]], bool]:
    """((question, response, label) per query, return_steps) from a `/get_reward` body.
    Raises BadRequestError (status, one sentence) for anything that is not the protocol."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequestError(400, f"the body is not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise BadRequestError(400, "the body must be a JSON object with a 'query' list")
    if "query" not in data:
        raise BadRequestError(422, "'query' is missing: a list of prompt + response strings")
    queries = _strings(data, "query", None, optional=False, texts_only=True) or []
    if len(queries) > max_request:
        raise BadRequestError(413, f"{len(queries)} queries in one request; at most {max_request}")
    prompts = _strings(data, "prompts", len(queries), optional=True, texts_only=True)
    labels = _strings(data, "labels", len(queries), optional=True, texts_only=False)
    steps = data.get("return_steps", False)
    if not isinstance(steps, bool):
        raise BadRequestError(422, "'return_steps' must be true or false")
    items = []
    for i, query in enumerate(queries):
        question, response = split_query(query, prompts[i] if prompts else None)
        items.append((question, response, labels[i] if labels else None))
    return items, steps


def answer(results: list[Any], return_steps: bool) -> dict[str, Any]:
    """The response body for the results of one request (every number finite)."""
    rewards = [r.reward for r in results]
    body: dict[str, Any] = {
        "rewards": rewards,
        "scores": rewards,
        "extra_logs": {
            "prm_steps": [float(len(r.steps)) for r in results],
            "prm_no_scorable_step": [float(r.note is not Note.scored) for r in results],
            "prm_format_failure": [float(r.note in FORMAT_NOTES) for r in results],
        },
    }
    if return_steps:
        body["steps"] = [[{"score": s.score, "char_end": s.char_end} for s in r.steps]
                         for r in results]  # fmt: skip
        body["notes"] = [str(r.note) for r in results]
    return body


def build_app(reward: PRMReward, cfg: ServerConfig) -> Any:
    """The FastAPI app serving `reward` (batching as `cfg` says)."""
    def score(items: list[tuple[str, str, Any]]) -> list[Any]:
        prompts, responses, labels = zip(*items, strict=True)
        refs = list(labels) if any(x is not None for x in labels) else None
        return reward.score(list(prompts), list(responses), refs)

    # Length-aware: a request's cost is its characters, so short ones are not queued behind
    # long ones (see pipelines.reward.batching).
    batcher = Batcher(score, cfg.max_batch, cfg.max_wait_ms / 1000.0, cfg.max_queue,
                      size=lambda item: len(item[0]) + len(item[1]))

    @asynccontextmanager
    async def lifespan(_app: Any):
        batcher.start()
        yield
        await batcher.stop()

    app = FastAPI(title="prm-reward-server", lifespan=lifespan)
    app.state.batcher, app.state.reward = batcher, reward

    def error(status: int, sentence: str, **headers: str) -> Any:
        return JSONResponse({"detail": sentence}, status_code=status, headers=headers or None)

    @app.post("/get_reward")
    async def get_reward(request: Request) -> Any:
        try:
            items, return_steps = parse_request(await request.body(), cfg.max_request)
        except BadRequestError as exc:
            return error(exc.status, str(exc))
        try:
            results = await batcher.submit(items)
        except QueueFullError as exc:
            return error(503, f"the reward queue is full ({exc}); retry", **{"Retry-After": "1"})
        except ScoringError as exc:
            return error(502, str(exc).splitlines()[0])
        return JSONResponse(answer(results, return_steps))

    @app.get("/health")
    async def health() -> Any:
        return {"status": "ok", "checkpoint": reward.cfg.checkpoint, "queued": batcher.queued,
                "batches": batcher.batches, "stats": dict(reward.stats)}  # fmt: skip

    return app


class RewardServer:
    """The server in a background thread of this process, for tests and benchmarks:
    started on enter (returns once it listens), stopped on exit. `url` is its base URL."""

    def __init__(self, reward: PRMReward, cfg: ServerConfig | None = None) -> None:
        import uvicorn

        # vLLM's server module, for this test-and-benchmark helper only.
        from pipelines.serve.server import free_port

        cfg = cfg or ServerConfig(port=free_port())
        self.url = f"http://{cfg.host}:{cfg.port}"
        config = uvicorn.Config(build_app(reward, cfg), host=cfg.host, port=cfg.port,
                                log_level=cfg.log_level, access_log=False)  # fmt: skip
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> RewardServer:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the reward server did not start at {self.url}")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def run(cfg: Any) -> None:
    """Load the reward and serve it until interrupted."""
    import uvicorn

    conf: RewardAppConfig = app_config(cfg)
    reward = PRMReward(conf.reward)
    s = conf.server
    print(f"prm-reward-server: {conf.reward.checkpoint} ({conf.reward.backend}) on "
          f"http://{s.host}:{s.port}/get_reward", file=sys.stderr, flush=True)  # fmt: skip
    print(f"prm-reward-server: {reward.cut.said}", file=sys.stderr, flush=True)
    try:
        uvicorn.run(build_app(reward, s), host=s.host, port=s.port, log_level=s.log_level,
                    access_log=False)  # fmt: skip
    finally:
        reward.close()


APP = HydraApp("prm-reward-server", "reward", RewardAppConfig, register, run, __doc__)


def main() -> None:
    APP.main()


if __name__ == "__main__":
    main()
