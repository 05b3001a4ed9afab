"""A checkpoint from prm-train scores the same three ways: our scorer, transformers, vLLM.

Slow: trains the embedded SmolLM2-135M (causal_lm format) and a tiny random Qwen2 with
SmolLM2's tokenizer (qwen2_prm format) for a few steps, then scores the same chains with
`pipelines.scoring.PRMScorer`, with plain transformers code as the model card gives it (no
project model code), and with vLLM's pooling runner on CPU (a local engine in a child
process, and `vllm serve` on 127.0.0.1 through the client). All agree to 1e-3.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from pipelines.checkpoint.format import StepFormat
from pipelines.checkpoint.model import load_tokenizer, tokenize_row
from pipelines.scoring import PRMScorer
from pipelines.train.app import run
from tests.prm_fixtures import synthetic_rows, write_shards

pytestmark = [pytest.mark.train, pytest.mark.engine, pytest.mark.app]

CHAINS = [
    ("Start at 3 and add 4 , 2 .", ["3 + 4 = 7", "7 + 2 = 9"]),
    ("Start at 5 and add 1 , 1 , 6 .", ["5 + 1 = 6", "6 + 1 = 8", "8 + 6 = 14"]),
    ("What is 12 * 3 ?", ["12 * 3 = 36", "The answer is 36 ."]),
    ("Start at 0 and add 9 .", ["0 + 9 = 9"]),
]
VLLM_ENV = {"VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_ENABLE_V1_MULTIPROCESSING": "0"}


def _train(root: Path, model: str, fmt: str) -> Path:
    write_shards(synthetic_rows(16, 2, seed=1), root / "labels")
    summary = run(
        {
            "model": {"path": model, "max_length": 96},
            "data": {"shards": [str(root / "labels")], "val_fraction": 0.0},
            "optim": {"lr": 1e-3, "warmup_steps": 0, "schedule": "constant"},
            "train": {"max_steps": 3, "batch_size": 2, "save_every": 0, "eval_every": 0},
            "export": {"format": fmt},
            "output": {"dir": str(root / "out")},
        }
    )
    return Path(summary["final"])


@pytest.fixture(scope="module")
def smollm2_ckpt(tmp_path_factory) -> Path:
    return _train(tmp_path_factory.mktemp("smol"), "", "causal_lm")


@pytest.fixture(scope="module")
def qwen2_ckpt(tmp_path_factory) -> Path:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from pipelines.engine.prepare_model import prepare

    root = tmp_path_factory.mktemp("qwen")
    tok = load_tokenizer(prepare())
    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=len(tok),
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=2048,
    )
    Qwen2ForCausalLM(config).save_pretrained(root / "base")
    tok.save_pretrained(root / "base")
    return _train(root, str(root / "base"), "qwen2_prm")


def transformers_scores(ckpt: Path) -> list[list[float]]:
    """The model card's recipe: plain transformers + safetensors, no project model code."""
    import safetensors.torch
    from transformers import AutoModel, AutoModelForCausalLM

    fmt, tok = StepFormat.load(ckpt), load_tokenizer(ckpt)
    if fmt.format == "causal_lm":
        lm = AutoModelForCausalLM.from_pretrained(ckpt, dtype=torch.float32)
    else:
        body = AutoModel.from_pretrained(ckpt, dtype=torch.float32)
        w = safetensors.torch.load_file(str(ckpt / "model.safetensors"))
    out = []
    for prompt, steps in CHAINS:
        row = tokenize_row(prompt, steps, None, tok, fmt)
        ids = torch.tensor([row["input_ids"]])
        pos = row["step_positions"]
        with torch.no_grad():
            if fmt.format == "causal_lm":
                logits = lm(ids).logits[0]
                p = logits[pos][:, fmt.label_token_ids].softmax(-1)[:, 1]
            else:
                h = body(ids).last_hidden_state[0][pos]
                h = torch.relu(h @ w["score.0.weight"].T + w["score.0.bias"])
                p = (h @ w["score.2.weight"].T + w["score.2.bias"]).softmax(-1)[:, 1]
        out.append(p.tolist())
    return out


def vllm_local_scores(ckpt: Path, tmp_path: Path) -> list[list[float]]:
    chains = tmp_path / "chains.json"
    chains.write_text(json.dumps([{"prompt": p, "steps": s} for p, s in CHAINS]))
    proc = subprocess.run(
        [sys.executable, "-m", "pipelines.serve.client", str(ckpt), str(chains)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **VLLM_ENV},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def max_diff(a: list[list[float]], b: list[list[float]]) -> float:
    assert [len(x) for x in a] == [len(x) for x in b]
    return max(abs(x - y) for xs, ys in zip(a, b, strict=True) for x, y in zip(xs, ys, strict=True))


@pytest.mark.parametrize("which", ["smollm2_ckpt", "qwen2_ckpt"])
def test_three_way_parity(which, request, tmp_path):
    ckpt = request.getfixturevalue(which)
    assert json.loads((ckpt / "config.json").read_text())["architectures"] == (
        ["LlamaForCausalLM"] if which == "smollm2_ckpt" else ["Qwen2ForProcessRewardModel"]
    )
    ours = PRMScorer.load(ckpt).score_many(CHAINS)
    hf = transformers_scores(ckpt)
    vl = vllm_local_scores(ckpt, tmp_path)
    # Training moved the scores off the untrained 0.5, so agreement is not agreement on 0.5.
    assert max(abs(x - 0.5) for xs in ours for x in xs) > 1e-3
    figures = {
        "ours-transformers": max_diff(ours, hf),
        "ours-vllm": max_diff(ours, vl),
        "transformers-vllm": max_diff(hf, vl),
    }
    print(f"\nparity {which}: " + json.dumps(figures))
    assert max(figures.values()) < 1e-3, figures


def test_vllm_server_scores_through_the_client(smollm2_ckpt):
    from pipelines.serve import PRMClient, VLLMServer

    ours = PRMScorer.load(smollm2_ckpt).score_many(CHAINS)
    with VLLMServer(smollm2_ckpt) as server:
        client = PRMClient.for_server(smollm2_ckpt, server.url, batch_size=3)
        served = client.score_many(CHAINS)
        pid = server.proc.pid
    print(f"\nparity server: ours-vllm_serve {max_diff(ours, served):.2e}")
    assert max_diff(ours, served) < 1e-3
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # stopped with its process group
