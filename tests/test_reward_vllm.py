"""The reward through vLLM: a local engine (`reward.backend=vllm`) and `vllm serve`
(`reward.backend=server`) give the rewards the in-process torch scorer gives (to 1e-3),
including completions with steps past the PRM's max_length and with nothing to score.

Slow: a vLLM engine in a child process and a `vllm serve` (about a minute each on 2 cores).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

from pipelines.reward import PRMReward
from tests.reward_ckpt import tiny_prm

pytestmark = pytest.mark.engine
VLLM_ENV = {"VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_ENABLE_V1_MULTIPROCESSING": "0"}
PROMPTS = ["Start at 3 and add 4 , 2 .", "What is 12 * 3 ?", "q", "q", "你 好"]
COMPLETIONS = [
    "3 + 4 = 7\n\n7 + 2 = 9\n\nThe answer is \\boxed{9} .",
    "12 * 3 = 36\n\nSo the final answer is 36 .",
    "3 + 4 = 7\n\n" * 40,  # the later steps lie past max_length
    "",
    "😀 ü é\n\n0 1 5 6 8<|im_end|>",
]


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    return tiny_prm(tmp_path_factory.mktemp("vllm"), max_length=96, hidden=128)


@pytest.fixture(scope="module")
def torch_rewards(ckpt):
    got = PRMReward.load(ckpt).score(PROMPTS, COMPLETIONS)
    assert got[2].steps[-1].score is None and got[3].note == "no_steps"
    assert len({round(g.reward, 4) for g in got}) > 2  # the randomised head spreads them
    return [g.reward for g in got]


def test_a_local_vllm_engine_gives_the_same_rewards(ckpt, torch_rewards):
    code = ("import json, sys; from pipelines.reward import PRMReward; "
            "p, c = json.loads(sys.argv[2]); "
            "print(json.dumps(PRMReward.load(sys.argv[1], backend='vllm')(p, c)))")
    proc = subprocess.run([sys.executable, "-c", code, str(ckpt),
                           json.dumps([PROMPTS, COMPLETIONS])], capture_output=True, text=True,
                          timeout=600, env={**os.environ, **VLLM_ENV})  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert all(math.isfinite(x) for x in got)
    assert max(abs(a - b) for a, b in zip(got, torch_rewards, strict=True)) < 1e-3


def test_a_vllm_server_gives_the_same_rewards(ckpt, torch_rewards):
    from pipelines.serve import VLLMServer

    with VLLMServer(ckpt) as server:
        got = PRMReward.load(ckpt, backend="server", url=server.url)(PROMPTS, COMPLETIONS)
    assert max(abs(a - b) for a, b in zip(got, torch_rewards, strict=True)) < 1e-3
