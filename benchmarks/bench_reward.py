"""Completions per second of the PRM reward, in-process and through prm-reward-server.

    flock /tmp/heavy.lock .venv/bin/python benchmarks/bench_reward.py
    flock /tmp/heavy.lock .venv/bin/python benchmarks/bench_reward.py --checkpoint <ckpt>

Without `--checkpoint`, a PRM is put on the embedded SmolLM2-135M (causal_lm, untrained head:
the figures are about throughput, not scores). The completions are ProcessBench's GSM8K dev
chains (`../shared/data`, steps joined by blank lines; synthetic chains without it), each
path scoring the same `--completions` of them (64) after one warm-up request, best of
`--repeat` (1; raise both on a quiet machine):
- `scorer`: `PRMScorer.score_many` on the completions already cut into steps (the bare PRM);
- `in_process`: `PRMReward.score` on all completions in one call (split, score, fold);
- `in_process_per_request`: `PRMReward.score` called with `--per-request` completions at a time;
- `endpoint_1` / `endpoint_N`: `prm-reward-server` in its own process on 127.0.0.1, asked by
  1 and `--clients` concurrent clients, each request `--per-request` completions sent as
  OpenRLHF does (`requests.post(url, json={"query", "prompts", "labels"})`).
Prints one JSON object: the CPU, load average, each path's completions/s and p50/p99 latency
per request, the rewards' largest difference between paths, and whether the endpoint with N
clients reaches `--target` (0.8) of the in-process throughput. Figures taken while other
jobs run are indicative only: `under_load` is true when the 1-minute load average exceeded
half the cores before or after the run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHATML = "<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n"


def cpu() -> dict:
    info = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = next((line.split(":", 1)[1].strip() for line in info.splitlines()
                  if line.startswith("model name")), "unknown")  # fmt: skip
    flags = next((line.split(":", 1)[1].split() for line in info.splitlines()
                  if line.startswith("flags")), [])  # fmt: skip
    wanted = ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16")
    return {"model": model, "cores": os.cpu_count(), "flags": [f for f in wanted if f in flags]}


def checkpoint(path: str | None, root: Path) -> Path:
    if path:
        return Path(path)
    from pipelines.checkpoint.export import new_prm, save_checkpoint
    from pipelines.checkpoint.format import StepFormat

    model, tok, _ = new_prm("", StepFormat(max_length=1024))
    return save_checkpoint(model, tok, root / "prm")


def completions(n: int) -> list[tuple[str, str]]:
    path = ROOT.parent / "shared" / "data" / "processbench_dev" / "gsm8k.json"
    if path.exists():
        rows = [(r["problem"], "\n\n".join(r["steps"])) for r in json.loads(path.read_text())]
    else:
        from tests.prm_fixtures import synthetic_rows

        rows = [(r["prompt"], "\n\n".join(r["completions"])) for r in synthetic_rows(64, 1)]
    return [rows[i % len(rows)] for i in range(n)]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def best(run, repeat: int) -> dict:
    runs = [run() for _ in range(repeat)]
    return max(runs, key=lambda r: r["completions_per_s"])


def timed(n: int, fn) -> dict:
    t0 = time.perf_counter()
    latencies, out = fn()
    wall = time.perf_counter() - t0
    row = {"seconds": round(wall, 3), "completions_per_s": round(n / wall, 2), "rewards": out}
    if latencies:
        row.update(requests=len(latencies), latency_p50_ms=round(pct(latencies, 0.5) * 1e3, 1),
                   latency_p99_ms=round(pct(latencies, 0.99) * 1e3, 1))  # fmt: skip
    return row


def post(url: str, items: list[tuple[str, str]]) -> list[float]:
    import requests

    prompts = [CHATML.format(q=q) for q, _ in items]
    body = {"query": [p + c + "<|im_end|>" for p, (_, c) in zip(prompts, items, strict=True)],
            "prompts": prompts, "labels": [""] * len(items)}  # fmt: skip
    resp = requests.post(url=url, json=body, headers={"Content-Type": "application/json"},
                         timeout=600)  # fmt: skip
    resp.raise_for_status()
    return resp.json()["rewards"]


def endpoint(url: str, items, per_request: int, clients: int) -> tuple[list[float], list[float]]:
    chunks = [items[i : i + per_request] for i in range(0, len(items), per_request)]
    out: list[list[float] | None] = [None] * len(chunks)
    latencies: list[float] = []
    lock = threading.Lock()

    def client(k: int) -> None:
        for j in range(k, len(chunks), clients):
            t0 = time.perf_counter()
            got = post(url, chunks[j])
            with lock:
                latencies.append(time.perf_counter() - t0)
            out[j] = got

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, [x for chunk in out for x in (chunk or [])]


def start_server(ckpt: Path, port: int, args) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "pipelines.reward.server", f"reward.checkpoint={ckpt}",
           f"reward.batch_size={args.batch_size}", f"server.port={port}",
           f"server.max_batch={args.max_batch}", f"server.max_wait_ms={args.max_wait_ms}"]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"prm-reward-server exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                return proc
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise TimeoutError("prm-reward-server did not answer /health in 300 s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument("--completions", type=int, default=64)
    ap.add_argument("--per-request", type=int, default=8)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--batch-size", type=int, default=16, help="chains per PRM forward pass")
    ap.add_argument("--max-batch", type=int, default=64, help="server: completions per batch")
    ap.add_argument("--max-wait-ms", type=float, default=5.0)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--target", type=float, default=0.8)
    args = ap.parse_args()

    import torch

    from labeling.prm.reward import fold
    from labeling.steps.splitters import split_steps
    from pipelines.reward import PRMReward
    from pipelines.serve.server import free_port

    load_before = os.getloadavg()
    root = Path(tempfile.mkdtemp(prefix="bench-reward-"))
    ckpt = checkpoint(args.checkpoint, root)
    items = completions(args.completions)
    n, k = len(items), args.per_request
    reward = PRMReward.load(ckpt, batch_size=args.batch_size)
    prompts, texts = [q for q, _ in items], [c for _, c in items]
    chains = [(q, split_steps(c, reward.cut.mode)) for q, c in items]
    reward.scorer.score_many(chains[:k])  # warm-up
    rows = {
        "scorer": best(lambda: timed(n, lambda: ([], [fold(s)[0] for s in
                       reward.scorer.score_many(chains)])), args.repeat),  # fmt: skip
        "in_process": best(lambda: timed(n, lambda: ([], reward(prompts, texts))), args.repeat),
    }

    def per_request():
        lat, out = [], []
        for i in range(0, n, k):
            t0 = time.perf_counter()
            out += reward(prompts[i : i + k], texts[i : i + k])
            lat.append(time.perf_counter() - t0)
        return lat, out

    rows["in_process_per_request"] = best(lambda: timed(n, per_request), args.repeat)
    port = free_port()
    server = start_server(ckpt, port, args)
    url = f"http://127.0.0.1:{port}/get_reward"
    try:
        post(url, items[:k])  # warm-up
        for clients in sorted({1, args.clients}):
            rows[f"endpoint_{clients}"] = best(
                lambda c=clients: timed(n, lambda: endpoint(url, items, k, c)), args.repeat)
    finally:
        server.terminate()
        server.wait(timeout=60)
    base = rows["in_process"]["rewards"]
    diff = {name: max(abs(a - b) for a, b in zip(r.pop("rewards"), base, strict=True))
            for name, r in rows.items()}  # fmt: skip
    ratio = rows[f"endpoint_{args.clients}"]["completions_per_s"] / \
        rows["in_process"]["completions_per_s"]
    print(json.dumps({
        "cpu": cpu(), "torch_threads": torch.get_num_threads(),
        "load_avg_before": [round(x, 2) for x in load_before],
        "load_avg_after": [round(x, 2) for x in os.getloadavg()],
        "checkpoint": str(ckpt), "completions": n, "per_request": k, "clients": args.clients,
        "batch_size": args.batch_size, "max_batch": args.max_batch, "repeat": args.repeat,
        "steps": sum(len(s) for _, s in chains), "paths": rows,
        "max_abs_reward_diff_vs_in_process": diff,
        f"endpoint_{args.clients}_over_in_process": round(ratio, 3),
        "target": args.target, "target_met": ratio >= args.target,
        "under_load": max(load_before[0], os.getloadavg()[0]) > 0.5 * (os.cpu_count() or 1),
    }, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
