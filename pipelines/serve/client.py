"""Per-step scores from vLLM's pooling runner, for RL and search loops.

    client = PRMClient.for_server("outputs/prm/final", "http://127.0.0.1:8000")
    client.score_many([(prompt, steps), ...])      # -> [[p_step1, p_step2, ...], ...]
    client = PRMClient.local("outputs/prm/final")  # an in-process vllm.LLM instead

The client tokenizes each chain itself with the checkpoint's tokenizer and `prm_format.json`
(`pipelines.checkpoint.model.tokenize_row`, the function training used) and sends token ids, so the
server never re-tokenizes text differently. vLLM's STEP pooler returns one (bad, good) row
for every occurrence of the step-tag id; the client keeps the rows at the chain's step ends
(a tag id elsewhere, e.g. a separator-like tag inside the prompt, is dropped) and returns
P(good) per step, None for the steps cut by `max_length` (the first that does not fit and all
after it, as in training).

What it promises: the same numbers as `pipelines.scoring.PRMScorer` up to float rounding
(tested to 1e-3). What it does not: retries; a server that answers with the wrong shape or
non-finite numbers raises `ScoringError` (model output is not trusted).
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pipelines.checkpoint.format import StepFormat
from pipelines.checkpoint.model import load_tokenizer, tokenize_row
from pipelines.checkpoint.serving import vllm_engine_kwargs

Chain = tuple[str, Sequence[str]]


class ScoringError(RuntimeError):
    """The scoring backend answered something that is not one score per step tag."""


class PRMClient:
    """P(step correct) for each step of each chain, through a vLLM pooling backend.

    `send(list of token-id lists) -> list of per-tag rows` is the backend: an HTTP call to a
    `vllm serve` `/pooling` endpoint (`for_server`) or `vllm.LLM.encode` (`local`).
    """

    def __init__(
        self,
        checkpoint: str | Path,
        send: Callable[[list[list[int]]], list[Any]],
        batch_size: int = 64,
    ) -> None:
        self.checkpoint = Path(checkpoint).expanduser()
        self.fmt = StepFormat.load(self.checkpoint)
        self.tokenizer = load_tokenizer(self.checkpoint)
        self.send, self.batch_size = send, batch_size

    @classmethod
    def for_server(
        cls,
        checkpoint: str | Path,
        url: str,
        model: str | None = None,
        batch_size: int = 64,
        timeout_s: float = 300.0,
    ) -> PRMClient:
        """Client of `vllm serve <checkpoint> ...` at `url`; `model` = its served name."""
        name = model or str(Path(checkpoint).expanduser())

        def send(batch: list[list[int]]) -> list[Any]:
            body = json.dumps({"model": name, "input": batch, "task": "token_classify"})
            req = urllib.request.Request(
                url.rstrip("/") + "/pooling",
                body.encode(),
                {"Content-Type": "application/json"},
            )
            try:
                with urllib.request.urlopen(req, timeout=timeout_s) as resp:
                    answer = json.loads(resp.read())
            except urllib.error.HTTPError as exc:
                detail = exc.read().decode(errors="replace")[:300]
                raise ScoringError(f"{url}/pooling answered {exc.code}: {detail}") from exc
            data = answer.get("data") if isinstance(answer, dict) else None
            if not isinstance(data, list) or len(data) != len(batch):
                raise ScoringError(
                    f"{url}/pooling returned {len(data or [])} results for {len(batch)} inputs"
                )
            return [d.get("data") if isinstance(d, dict) else None for d in data]

        return cls(checkpoint, send, batch_size)

    @classmethod
    def local(
        cls, checkpoint: str | Path, llm: Any = None, batch_size: int = 64, **engine: Any
    ) -> PRMClient:
        """Client of an in-process `vllm.LLM` (created here with the checkpoint's pooling
        options unless given; call under `if __name__ == "__main__":`, vLLM spawns)."""
        if llm is None:
            from vllm import LLM

            fmt = StepFormat.load(Path(checkpoint).expanduser())
            llm = LLM(model=str(checkpoint), **{**vllm_engine_kwargs(fmt), **engine})

        def send(batch: list[list[int]]) -> list[Any]:
            from vllm.inputs import TokensPrompt

            outs = llm.encode(
                [TokensPrompt(prompt_token_ids=ids) for ids in batch],
                pooling_task="token_classify",
                use_tqdm=False,
            )
            return [o.outputs.data.tolist() for o in outs]

        client = cls(checkpoint, send, batch_size)
        client.llm = llm
        return client

    def score(self, prompt: str, steps: Sequence[str]) -> list[float | None]:
        return self.score_many([(prompt, steps)])[0]

    def score_many(self, chains: Sequence[Chain]) -> list[list[float | None]]:
        """Scores in input order, `batch_size` chains per backend call."""
        rows = [tokenize_row(p, list(s), None, self.tokenizer, self.fmt) for p, s in chains]
        out: list[list[float | None]] = []
        for start in range(0, len(rows), self.batch_size):
            part = rows[start : start + self.batch_size]
            answers = self.send([r["input_ids"] for r in part])
            out += [self._per_step(r, a) for r, a in zip(part, answers, strict=True)]
        return out

    def _per_step(self, row: dict[str, list], answer: Any) -> list[float | None]:
        """P(good) at the row's step positions from one row per step-tag occurrence."""
        tags = [i for i, t in enumerate(row["input_ids"]) if t == self.fmt.step_tag_id]
        if not isinstance(answer, list) or len(answer) != len(tags):
            got = len(answer) if isinstance(answer, list) else type(answer).__name__
            raise ScoringError(f"expected {len(tags)} step-tag rows, the backend returned {got}")
        by_position = dict(zip(tags, answer, strict=True))
        scores: list[float | None] = []
        for pos in row["step_positions"]:
            if pos < 0:
                scores.append(None)
                continue
            pair = by_position[pos]
            if (
                not isinstance(pair, list)
                or len(pair) != 2
                or not all(isinstance(x, int | float) and math.isfinite(x) for x in pair)
            ):
                raise ScoringError(f"a step-tag row is {str(pair)[:80]}, not two finite numbers")
            scores.append(float(pair[1]))
        return scores


def main(argv: list[str] | None = None) -> None:
    """`python -m pipelines.serve.client CHECKPOINT CHAINS.json [--url URL]`: print scores.

    CHAINS.json is a list of {"prompt": str, "steps": [str]}; without `--url` a local vLLM
    engine is started (float32, eager: the CPU settings that start fastest).
    """
    import argparse

    ap = argparse.ArgumentParser(prog="python -m pipelines.serve.client")
    ap.add_argument("checkpoint")
    ap.add_argument("chains", help="JSON list of {prompt, steps}")
    ap.add_argument("--url", default=None, help="a running `vllm serve` (else a local engine)")
    ap.add_argument("--batch-size", type=int, default=64)
    args = ap.parse_args(argv)
    chains = [(c["prompt"], c["steps"]) for c in json.loads(Path(args.chains).read_text())]
    if args.url:
        client = PRMClient.for_server(args.checkpoint, args.url, batch_size=args.batch_size)
    else:
        client = PRMClient.local(
            args.checkpoint, batch_size=args.batch_size, dtype="float32", enforce_eager=True
        )
    print(json.dumps(client.score_many(chains)))


if __name__ == "__main__":
    main()
