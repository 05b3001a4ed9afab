"""The hostile completions (tests/hostile_completions.py) in ONE call per path, with the
reference: the seconds that call takes and each completion's reward per path.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_reward_hostile.py             # tiny PRM
    PYTHONPATH=. .venv/bin/python benchmarks/bench_reward_hostile.py --smollm2   # 135M PRM
    PYTHONPATH=. .venv/bin/python benchmarks/bench_reward_hostile.py --checkpoint <ckpt>

The tiny PRM is tests/reward_ckpt.py's (a random word-level Llama, `--max-length` 1024);
`--smollm2` puts an untrained head on the embedded SmolLM2-135M (scores near 0.5: the figures
are about time and about which completions the format rule keeps from the PRM). Paths: TRL's
callable (one GRPO batch), verl's `compute_score_batch`, prm-reward-server on 127.0.0.1
(OpenRLHF's request). The first call of a path pays the answer checker's start (a worker
process); `trl_seconds` is a second, warm call. Prints one JSON object; figures taken while
other jobs run are indicative only (`load_avg`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def checkpoint(args, root: Path) -> Path:
    if args.checkpoint:
        return Path(args.checkpoint)
    if args.smollm2:
        from pipelines.checkpoint.export import new_prm, save_checkpoint
        from pipelines.checkpoint.format import StepFormat

        model, tok, _ = new_prm("", StepFormat(max_length=args.max_length))
        return save_checkpoint(model, tok, root / "prm")
    from tests.reward_ckpt import tiny_prm

    return tiny_prm(root, max_length=args.max_length)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument("--smollm2", action="store_true")
    ap.add_argument("--max-length", type=int, default=1024)
    args = ap.parse_args()

    import requests

    from pipelines.reward import PRMReward, verl_reward
    from pipelines.reward.config import ServerConfig
    from pipelines.reward.server import RewardServer
    from pipelines.serve.server import free_port
    from tests.hostile_completions import HOSTILE, PROMPT, REFERENCE, SOLUTION

    names, texts = [*HOSTILE, "solution"], [*HOSTILE.values(), SOLUTION]
    refs, n = [REFERENCE] * len(texts), len(texts)
    load_before = os.getloadavg()
    ckpt = checkpoint(args, Path(tempfile.mkdtemp(prefix="bench-hostile-")))
    reward = PRMReward.load(ckpt)
    fn = reward.trl(reference="answer")
    t0 = time.perf_counter()
    first = fn(prompts=[PROMPT] * n, completions=texts, answer=refs)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    trl = fn(prompts=[PROMPT] * n, completions=texts, answer=refs)
    warm = time.perf_counter() - t0
    assert trl == first
    verl = verl_reward.compute_score_batch(["math"] * n, texts, refs, [{"question": PROMPT}] * n,
                                           checkpoint=str(ckpt))  # fmt: skip
    prompt = f"<|im_start|>user\n{PROMPT}<|im_end|>\n<|im_start|>assistant\n"
    body = {"query": [prompt + t + "<|im_end|>" for t in texts], "prompts": [prompt] * n,
            "labels": refs}  # fmt: skip
    with RewardServer(reward, ServerConfig(port=free_port())) as s:
        t0 = time.perf_counter()
        server = requests.post(s.url + "/get_reward", json=body, timeout=900).json()["rewards"]
        server_s = time.perf_counter() - t0
    notes = [str(r.note) for r in reward.score([PROMPT] * n, texts, refs)]
    print(json.dumps({
        "checkpoint": str(ckpt), "completions": n, "chars": sum(len(t) for t in texts),
        "trl_seconds_first_call": round(cold, 2), "trl_seconds": round(warm, 2),
        "server_seconds": round(server_s, 2),
        "rewards_trl_verl_openrlhf_note": {
            name: f"{a:.4f} {b:.4f} {c:.4f} {note}"
            for name, a, b, c, note in zip(names, trl, verl, server, notes, strict=True)},
        "stats": {k: v for k, v in sorted(reward.stats.items())},
        "load_avg_before": [round(x, 2) for x in load_before],
        "load_avg_after": [round(x, 2) for x in os.getloadavg()], "cores": os.cpu_count(),
    }, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
