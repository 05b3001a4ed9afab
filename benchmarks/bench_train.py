"""Training throughput of prm-train against a plain torch loop, and peak memory of each.

    .venv/bin/python benchmarks/bench_train.py                    # tiny random Llama
    .venv/bin/python benchmarks/bench_train.py --model <HF dir, e.g. the embedded SmolLM2>
    .venv/bin/python benchmarks/bench_train.py --no-pack              # padded prm-train only

prm-train runs for real (`pipelines.train.app.run`, one worker, no Ray) on synthetic shards whose
chains all tokenize to the same length under the tiny word-level tokenizer; its tokens/s come
from metrics.jsonl (steps after the warm-up). The plain loop trains the same model class with
AdamW on random ids of the same batch size and width (the median width prm-train saw), with
the same bf16 setting: forward, loss, backward, step, nothing else. Each side runs in its own
fresh process so that each peak RSS is its own; the sides alternate for `--rounds` rounds and
each keeps its best round (median step time within a round). Ratio = prm-train tokens/s /
plain tokens/s. prm-train runs twice per round: padded (`batch` chains) and packed
(`train.tokens_per_batch` = batch x the chain length, so the same chains a step); its data
wait is the share of step time the loop waited for the background reader (metrics.jsonl).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _prm_train(args: dict, queue) -> None:
    from pipelines.train.app import run

    out = Path(args["tmp"]) / f"out-{args['budget']}"
    shutil.rmtree(out, ignore_errors=True)
    run(
        {
            "model": {"path": args["model"], "max_length": args["max_length"],
                      "max_prompt_length": 512},
            "data": {"shards": [args["shards"]], "val_fraction": 0.0},
            "train": {
                "max_steps": args["warmup"] + args["steps"],
                "batch_size": args["batch"],
                "grad_accum": 1,
                "tokens_per_batch": args["budget"],
                "eval_every": 0,
                "save_every": 0,
                "resume": "none",
                "torch_threads": args["threads"],
                "bf16": args["bf16"],
            },
            "optim": {"lr": 1e-5, "warmup_steps": 0},
            "output": {"dir": str(out)},
        }
    )
    rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    timed = rows[args["warmup"] :]
    widths = [r["tokens"] // args["batch"] for r in timed]
    # Median step, not mean: on a shared machine, neighbours' bursts hit single steps.
    step_s = statistics.median(r["step_seconds"] for r in timed)
    queue.put(
        {
            "tokens_per_s": statistics.median(r["chain_tokens"] for r in timed) / step_s,
            "data_wait_share": sum(r["data_wait_s"] for r in timed)
            / sum(r["step_seconds"] for r in timed),
            "width": int(statistics.median(widths)),
            "widths": sorted(set(widths)),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }
    )


def _plain(args: dict, width: int, queue) -> None:
    import torch

    from pipelines.checkpoint.export import new_prm
    from pipelines.checkpoint.format import StepFormat
    from pipelines.train.worker import bf16_enabled

    torch.set_num_threads(args["threads"])
    torch.manual_seed(0)
    model = new_prm(args["model"], StepFormat())[0].train()  # the format prm-train trains in
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    vocab = model.body.config.vocab_size
    use_bf16 = bf16_enabled(args["bf16"], torch.device("cpu"))
    ids = torch.randint(0, vocab, (args["batch"], width))
    mask = torch.ones_like(ids)
    where = torch.zeros_like(ids, dtype=torch.bool)
    where[:, width // 2 :: 10] = True  # about one scored token per step, like real chains
    targets = torch.randint(0, 2, (int(where.sum()),)).float()
    times = []
    for _ in range(args["warmup"] + args["steps"]):
        t0 = time.perf_counter()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=use_bf16):
            logits = model(ids, mask, where)
        loss = model.loss(logits, targets, soft=False)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        times.append(time.perf_counter() - t0)
    timed = times[args["warmup"] :]
    queue.put(
        {
            "tokens_per_s": args["batch"] * width / statistics.median(timed),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }
    )


def _in_child(target, *a):
    ctx = mp.get_context("spawn")  # a fresh interpreter: its own peak RSS, no shared caches
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(*a, queue))
    proc.start()
    result = queue.get()
    proc.join()
    print(target.__name__, json.dumps(result), file=sys.stderr, flush=True)  # kept if cut off
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="", help="HF dir; default: a random tiny Llama")
    ap.add_argument("--hidden", type=int, default=256, help="tiny model width")
    ap.add_argument("--layers", type=int, default=4, help="tiny model depth")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--chain-steps", type=int, default=24, help="steps per chain (sets length)")
    ap.add_argument("--steps", type=int, default=20, help="timed optimizer steps")
    ap.add_argument("--warmup", type=int, default=3, help="untimed first steps")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2, help="alternating rounds per side")
    ap.add_argument("--bf16", default="auto", choices=["auto", "on", "off"])
    ap.add_argument("--no-pack", action="store_true", help="skip the packed prm-train run")
    ap.add_argument("--out", default="", help="also write the result as JSON here")
    cli = ap.parse_args()

    from tests.prm_fixtures import build_tiny_model, synthetic_rows, write_shards

    with tempfile.TemporaryDirectory() as tmp:
        rows = synthetic_rows(200, 1, seed=0, steps=(cli.chain_steps, cli.chain_steps))
        shards = write_shards(rows, Path(tmp) / "labels")
        model = cli.model or str(
            build_tiny_model(
                Path(tmp) / "tiny",
                [r["prompt"] + " \n\n " + " \n\n ".join(r["completions"]) for r in rows],
                cli.hidden,
                cli.layers,
            )
        )
        args = {**vars(cli), "model": model, "shards": str(shards), "tmp": tmp, "budget": 0,
                "max_length": 4096}  # fmt: skip
        # Alternate the sides and keep each side's best round: load from other jobs on
        # the machine then biases no side.
        ours_runs, packed_runs, plain_runs = [], [], []
        for _ in range(cli.rounds):
            ours_runs.append(_in_child(_prm_train, args))
            width = ours_runs[0]["width"]  # every chain has this many tokens
            if not cli.no_pack:
                packed_runs.append(_in_child(_prm_train, {**args, "max_length": width,
                                                          "budget": cli.batch * width}))
            plain_runs.append(_in_child(_plain, args, width))
        ours = max(ours_runs, key=lambda r: r["tokens_per_s"])
        plain = max(plain_runs, key=lambda r: r["tokens_per_s"])
    result = {
        "model": cli.model or f"tiny-llama h{cli.hidden} l{cli.layers}",
        "batch": cli.batch,
        "seq_len": ours["width"],
        "prm_train_widths": ours["widths"],
        "timed_steps": cli.steps,
        "rounds": cli.rounds,
        "threads": cli.threads,
        "bf16": cli.bf16,
        "rounds_tokens_per_s": {
            "prm_train": [round(r["tokens_per_s"]) for r in ours_runs],
            "plain": [round(r["tokens_per_s"]) for r in plain_runs],
        },
        "prm_train_tokens_per_s": round(ours["tokens_per_s"], 1),
        "plain_tokens_per_s": round(plain["tokens_per_s"], 1),
        "ratio": round(ours["tokens_per_s"] / plain["tokens_per_s"], 3),
        "prm_train_peak_rss_mb": round(ours["peak_rss_mb"]),
        "plain_peak_rss_mb": round(plain["peak_rss_mb"]),
        "prm_train_data_wait_share": round(ours["data_wait_share"], 4),
    }
    if packed_runs:
        best = max(packed_runs, key=lambda r: r["tokens_per_s"])
        result["rounds_tokens_per_s"]["prm_train_packed"] = [round(r["tokens_per_s"])
                                                             for r in packed_runs]
        result["packed_tokens_per_s"] = round(best["tokens_per_s"], 1)
        result["packed_ratio"] = round(best["tokens_per_s"] / plain["tokens_per_s"], 3)
        result["packed_data_wait_share"] = round(best["data_wait_share"], 4)
        result["packed_peak_rss_mb"] = round(best["peak_rss_mb"])
    print(json.dumps(result, indent=2))
    if cli.out:
        Path(cli.out).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
