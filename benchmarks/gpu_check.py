"""prm-train and the PRM scorer against plain torch, on one GPU, offline.

    python3 benchmarks/gpu_check.py                      # 0.5B and 1.5B Qwen2 shapes, CUDA
    python3 benchmarks/gpu_check.py --shapes 1.5b --gradient-checkpointing
    python3 benchmarks/gpu_check.py --tiny               # tiny shapes on CPU (auto without CUDA)

Needs PyTorch, transformers, pyarrow, this project and hydra-core, omegaconf and
antlr4-python3-runtime; no network, no vLLM, no Ray. Per shape it builds a randomly
initialised Qwen2 causal LM from a transformers config (word-level tokenizer, the shape's
vocabulary size) and synthetic shards of one-digit addition chains (56 steps, about 640
tokens), then measures, each as the median over `--log-every`-step intervals after
`--warmup` steps (the device is waited for at each interval's end):
- prm-train: `pipelines.train.app.run` (packed into `train.tokens_per_batch` = batch x mean
  chain length, rounded up; `--padded` also runs it with `batch` chains padded);
- plain: the same model class (`ProcessRewardModel`), AdamW, bf16 autocast, the same chains
  in batches of `batch`, padded to the longest: forward, loss, backward, step, nothing else;
- the scorer (`PRMScorer.score_many`, tokenizing included) against a bare forward of the
  body over the same token ids in the same batches, and `PRMReward` on the same chains as text.
Tokens/s count the chains' own tokens (no pad) on both sides. MFU = 6 x parameters x
tokens/s / `--peak-tflops` (989: H100/H200 dense bf16). Prints one line per figure and the
whole result as JSON (`--out` writes it too).
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from pipelines.checkpoint.export import new_prm  # noqa: E402
from pipelines.checkpoint.format import StepFormat  # noqa: E402
from pipelines.checkpoint.model import (  # noqa: E402
    collate_ids,
    ensure_tokens,
    load_tokenizer,
    token_id,
    tokenize_row,
    tokenize_rows,
)
from pipelines.train.app import run  # noqa: E402
from pipelines.train.packing import padded  # noqa: E402
from tests.prm_fixtures import build_tiny_model, synthetic_rows, write_shards  # noqa: E402

QWEN = {"vocab_size": 151936, "num_key_value_heads": 2, "tie_word_embeddings": True,
        "max_position_embeddings": 32768, "rope_theta": 1e6}  # fmt: skip
SHAPES = {  # (config, chains per batch)
    "0.5b": ({**QWEN, "hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24,
              "num_attention_heads": 14}, 32),
    "1.5b": ({**QWEN, "hidden_size": 1536, "intermediate_size": 8960, "num_hidden_layers": 28,
              "num_attention_heads": 12}, 16),
    "tiny": ({"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
              "num_attention_heads": 2, "num_key_value_heads": 2}, 4),
}  # fmt: skip


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _peak_gib(device: torch.device) -> float | None:
    return torch.cuda.max_memory_reserved(device) / 2**30 if device.type == "cuda" else None


def _fresh(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)


def _fmt(args, max_length: int) -> StepFormat:
    return StepFormat(max_length=max_length, max_prompt_length=args.prompt_tokens)


def prm_train(args, model_dir: Path, shards: Path, out: Path, batch: int, budget: int,
              max_length: int, device: torch.device) -> dict:  # fmt: skip
    """prm-train's figures from its metrics.jsonl (intervals after the warm-up)."""
    _fresh(device)
    summary = run({
        "model": {"path": str(model_dir), "max_length": max_length,
                  "max_prompt_length": args.prompt_tokens},
        "data": {"shards": [str(shards)], "val_fraction": 0.0, "shuffle_buffer": 64},
        "optim": {"lr": 1e-5, "warmup_steps": 0},
        "train": {"max_steps": args.warmup + args.steps, "batch_size": batch, "grad_accum": 1,
                  "tokens_per_batch": budget, "use_gpu": device.type == "cuda",
                  "bf16": "on" if device.type == "cuda" else "off", "log_every": args.log_every,
                  "eval_every": 0, "save_every": 0, "resume": "none",
                  "gradient_checkpointing": args.gradient_checkpointing,
                  "torch_threads": args.threads},
        "output": {"dir": str(out)},
    })  # fmt: skip
    peak = _peak_gib(device)
    rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    timed = [r for r in rows if r["step"] > args.warmup and "chain_tokens_per_s" in r]
    n = [r.get("steps_averaged", 1) for r in timed]
    wait = sum(r["data_wait_s"] * k for r, k in zip(timed, n, strict=True))
    busy = sum(r["step_seconds"] * k for r, k in zip(timed, n, strict=True))
    return {"tokens_per_s": statistics.median(r["chain_tokens_per_s"] for r in timed),
            "mean_tokens_per_s": sum(r["chain_tokens"] * k for r, k in zip(timed, n,
                                                                        strict=True)) / busy,
            "data_wait_share": wait / busy, "peak_reserved_gib": peak,
            "pad_share": 1 - statistics.mean(r["chain_tokens"] / r["tokens"] for r in timed),
            "final": summary["final"]}  # fmt: skip


def plain_loop(args, model_dir: Path, rows: list[dict], batch: int, max_length: int,
               device: torch.device) -> dict:  # fmt: skip
    """The plain torch loop on the same chains, `batch` at a time, padded to the longest."""
    _fresh(device)
    torch.manual_seed(0)
    model, tok, fmt = new_prm(model_dir, _fmt(args, max_length))
    model.to(device).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    use_bf16 = device.type == "cuda"
    chains = [tokenize_row(r["prompt"], r["completions"], r["labels"], tok, fmt) for r in rows]
    batches = []
    for i in range(0, len(chains) - batch + 1, batch):
        b = padded(chains[i : i + batch], tok.pad_token_id, soft=False)
        real = sum(len(c["input_ids"]) for c in chains[i : i + batch])
        batches.append(({k: b[k].to(device) for k in ("input_ids", "attention_mask", "index",
                                                      "labels")}, real))  # fmt: skip
    rates = []
    t0, tokens = time.perf_counter(), 0
    for step in range(args.warmup + args.steps):
        b, real = batches[step % len(batches)]
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=use_bf16):
            logits = model(b["input_ids"], b["attention_mask"], (b["index"][0], b["index"][1]))
        loss = model.loss(logits, b["labels"], soft=False)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        tokens += real
        if (step + 1) % args.log_every == 0:
            _sync(device)
            now = time.perf_counter()
            if step + 1 > args.warmup:
                rates.append(tokens / (now - t0))
            t0, tokens = now, 0
    peak = _peak_gib(device)
    del model, opt, batches
    return {"tokens_per_s": statistics.median(rates), "peak_reserved_gib": peak}


def scoring(args, ckpt: str, device: torch.device) -> dict:
    """Completions/s of the scorer and of PRMReward against a bare forward of the body."""
    from pipelines.scoring import PRMScorer

    _fresh(device)
    bf16 = device.type == "cuda"
    scorer = PRMScorer.load(ckpt, device=str(device), batch_size=args.score_batch, bf16=bf16)
    rows = synthetic_rows(args.score_chains, 1, seed=5, steps=(10, 10))
    chains = [(r["prompt"], r["completions"]) for r in rows]
    scorer.score_many(chains[: args.score_batch])  # warm-up
    t = []
    for _ in range(3):
        t0 = time.perf_counter()
        scorer.score_many(chains)
        t.append(time.perf_counter() - t0)
    ids = [r["input_ids"] for r in tokenize_rows(chains, scorer.tokenizer, scorer.fmt)]
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    host = [collate_ids([ids[i] for i in order[s : s + args.score_batch]],
                        scorer.tokenizer.pad_token_id)
            for s in range(0, len(order), args.score_batch)]  # fmt: skip
    body = scorer.model.body

    @torch.no_grad()
    def bare() -> float:
        t0 = time.perf_counter()
        for x, m in host:
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
                body(input_ids=x.to(device), attention_mask=m.to(device), use_cache=False)
        _sync(device)
        return time.perf_counter() - t0

    bare()
    b = [bare() for _ in range(3)]
    out = {"chains": len(chains), "tokens_per_chain": round(statistics.mean(map(len, ids))),
           "scorer_per_s": len(chains) / statistics.median(t),
           "bare_forward_per_s": len(chains) / statistics.median(b)}  # fmt: skip
    out["scorer_vs_bare"] = out["scorer_per_s"] / out["bare_forward_per_s"]
    try:  # the RL reward: the same chains as text, cut into steps again by the splitter
        from pipelines.reward import PRMReward

        texts = ["\n\n".join(r["completions"]) for r in rows]
        prompts = [r["prompt"] for r in rows]
        with PRMReward.load(ckpt, device=str(device), bf16=bf16,
                            batch_size=args.score_batch) as reward:  # fmt: skip
            reward(prompts[: args.score_batch], texts[: args.score_batch])
            t0 = time.perf_counter()
            reward(prompts, texts)
            out["reward_per_s"] = len(texts) / (time.perf_counter() - t0)
        out["reward_vs_bare"] = out["reward_per_s"] / out["bare_forward_per_s"]
    except (ImportError, ValueError) as exc:  # a missing optional package: say, go on
        out["reward_skipped"] = f"{type(exc).__name__}: {exc}"
    return out


def chain_lengths(args, model_dir: Path, rows: list[dict]) -> list[int]:
    """Tokens of each chain as prm-train will read them (its tokenizer, tag added)."""
    tok = load_tokenizer(model_dir)
    fmt = _fmt(args, 1 << 20)
    ensure_tokens(tok, [fmt.step_tag, *fmt.label_tokens])
    fmt = replace(fmt, step_tag_id=token_id(tok, fmt.step_tag), bos_token_id=tok.bos_token_id)
    return [len(tokenize_row(r["prompt"], r["completions"], None, tok, fmt)["input_ids"])
            for r in rows]  # fmt: skip


def parameters(model_dir: Path) -> int:
    """N of 6N: every parameter of the causal LM (tied embeddings once), counted on the meta
    device (nothing is loaded)."""
    from transformers import AutoConfig, AutoModelForCausalLM

    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(model_dir))
    return sum(p.numel() for p in model.parameters())


def check_shape(args, name: str, root: Path, device: torch.device) -> dict:
    config, batch = SHAPES[name]
    batch = args.batch or batch
    rows = synthetic_rows(args.chains, 1, seed=0, steps=(args.chain_steps, args.chain_steps))
    shards = write_shards(rows, root / name / "labels")
    texts = [r["prompt"] + " \n\n " + " \n\n ".join(r["completions"]) for r in rows]
    t0 = time.perf_counter()
    with torch.device(device):  # random init where it is fast
        model_dir = build_tiny_model(root / name / "model", texts, arch="qwen2", shape=config)
    built = time.perf_counter() - t0
    lengths = chain_lengths(args, model_dir, rows)
    max_length = 64 * math.ceil(max(lengths) / 64)
    budget = max(max_length, 64 * math.ceil(batch * statistics.mean(lengths) / 64))
    params = parameters(model_dir)
    res: dict = {"shape": name, "params": params, "batch": batch, "tokens_per_batch": budget,
                 "chain_tokens_mean": round(statistics.mean(lengths)), "build_s": built}
    res["prm_train"] = prm_train(args, model_dir, shards, root / name / "packed", batch,
                                 budget, max_length, device)  # fmt: skip
    if args.padded:
        res["prm_train_padded"] = prm_train(args, model_dir, shards, root / name / "padded",
                                            batch, 0, max_length, device)  # fmt: skip
    res["plain"] = plain_loop(args, model_dir, rows, batch, max_length, device)
    res["prm_train_vs_plain"] = res["prm_train"]["tokens_per_s"] / res["plain"]["tokens_per_s"]
    if device.type == "cuda":
        for side in ("prm_train", "prm_train_padded", "plain"):
            if side in res:
                res[side]["mfu"] = 6 * params * res[side]["tokens_per_s"] / (args.peak_tflops
                                                                             * 1e12)
        res["memory_vs_plain"] = res["prm_train"]["peak_reserved_gib"] / \
            res["plain"]["peak_reserved_gib"]
    res["scoring"] = scoring(args, res["prm_train"].pop("final"), device)
    res.get("prm_train_padded", {}).pop("final", None)
    return res


def _say(res: dict) -> None:
    p, q, s = res["prm_train"], res["plain"], res["scoring"]
    mfu = f", MFU {p['mfu']:.1%} (plain {q['mfu']:.1%})" if "mfu" in p else ""
    mem = (f", peak reserved {p['peak_reserved_gib']:.1f} GiB (plain "
           f"{q['peak_reserved_gib']:.1f})") if p["peak_reserved_gib"] is not None else ""
    print(f"{res['shape']}: prm-train {p['tokens_per_s']:,.0f} tokens/s vs plain "
          f"{q['tokens_per_s']:,.0f}: {res['prm_train_vs_plain']:.3f}{mfu}{mem}, data wait "
          f"{p['data_wait_share']:.2%} of step time", flush=True)  # fmt: skip
    print(f"{res['shape']}: scorer {s['scorer_per_s']:,.1f} completions/s vs bare forward "
          f"{s['bare_forward_per_s']:,.1f}: {s['scorer_vs_bare']:.3f}"
          + (f"; PRMReward {s['reward_vs_bare']:.3f}" if "reward_vs_bare" in s else ""),
          flush=True)  # fmt: skip


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default="", help="comma list of 0.5b, 1.5b, tiny")
    ap.add_argument("--tiny", action="store_true", help="tiny shapes (CPU; auto without CUDA)")
    ap.add_argument("--steps", type=int, default=0, help="timed steps (40; tiny 6)")
    ap.add_argument("--warmup", type=int, default=0, help="untimed steps (5; tiny 2)")
    ap.add_argument("--log-every", type=int, default=0, help="steps per timed interval (5; 2)")
    ap.add_argument("--batch", type=int, default=0, help="chains per batch (shape's default)")
    ap.add_argument("--chains", type=int, default=0, help="chains in the shards (512; 64)")
    ap.add_argument("--chain-steps", type=int, default=0, help="steps per chain (56; 8)")
    ap.add_argument("--prompt-tokens", type=int, default=64, help="prompt tokens kept")
    ap.add_argument("--padded", action="store_true", help="also run prm-train padded")
    ap.add_argument("--gradient-checkpointing", action="store_true")
    ap.add_argument("--score-chains", type=int, default=0, help="scored chains (256; 32)")
    ap.add_argument("--score-batch", type=int, default=0, help="chains per forward (64; 8)")
    ap.add_argument("--peak-tflops", type=float, default=989.0, help="device bf16 peak")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    ap.add_argument("--out", default="", help="also write the JSON result here")
    args = ap.parse_args(argv)
    cuda = torch.cuda.is_available()
    tiny = args.tiny or not cuda
    if not cuda and not args.tiny:
        print("gpu_check: no CUDA device; running the tiny shapes on CPU", flush=True)
    for key, big, small in (("steps", 40, 6), ("warmup", 5, 2), ("log_every", 5, 2),
                            ("chains", 512, 64), ("chain_steps", 56, 8),
                            ("score_chains", 256, 32), ("score_batch", 64, 8)):  # fmt: skip
        if not getattr(args, key):
            setattr(args, key, small if tiny else big)
    device = torch.device("cuda" if cuda and not args.tiny else "cpu")
    shapes = [s for s in (args.shapes or ("tiny" if tiny else "0.5b,1.5b")).split(",") if s]
    result: dict = {"device": torch.cuda.get_device_name(device) if device.type == "cuda"
                    else "cpu", "torch": torch.__version__, "peak_tflops": args.peak_tflops,
                    "steps": args.steps, "warmup": args.warmup, "shapes": []}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as tmp:
        for name in shapes:
            res = check_shape(args, name, Path(tmp), device)
            _say(res)
            result["shapes"].append(res)
    print(json.dumps(result, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
