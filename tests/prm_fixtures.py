"""Fixtures for the PRM tests and benchmarks: labeled rows with known first errors, shards
of them, and a tiny random model with a word-level tokenizer. Test code, kept out of the
production modules (`pipelines.train`, `pipelines.checkpoint`); benchmarks import it too.
torch and transformers are imported by `build_tiny_model` only."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from labeling.schema import LABELED_SCHEMA
from labeling.shards import MANIFEST


def synthetic_rows(
    n_problems: int, chains_per_problem: int = 1, seed: int = 0, steps: tuple[int, int] = (2, 5)
) -> list[dict[str, Any]]:
    """LABELED_SCHEMA rows of one-digit addition chains with known first errors. Only the
    columns training and evaluation read are meaningful (prompt, completions, labels,
    mc_scores, mc_rollouts, verdicts, problem_id, domain, outcome_correct, final_answer,
    first_error_step); the rest hold valid placeholders.
    """
    rng = random.Random(seed)
    rows = []
    for p in range(n_problems):
        start = rng.randrange(10)
        adds = [rng.randrange(1, 10) for _ in range(rng.randint(*steps))]
        for c in range(chains_per_problem):
            error = rng.randrange(len(adds)) if rng.random() < 0.5 else -1
            total, texts, labels, scores = start, [], [], []
            for i, a in enumerate(adds):
                claimed = total + a + (rng.randint(1, 3) if i == error else 0)
                texts.append(f"{total} + {a} = {claimed}")
                total = claimed
                ok = error < 0 or i < error
                labels.append(ok)
                scores.append(rng.uniform(0.6, 1.0) if ok else rng.uniform(0.0, 0.2))
            verdicts = [
                {
                    "source": "mc",
                    "step": i,
                    "status": "correct" if ok else "incorrect",
                    "label": ok,
                    "score": s,
                    "rollouts": 4,
                    "evidence": "",
                }
                for i, (ok, s) in enumerate(zip(labels, scores, strict=True))
            ]
            rows.append(
                {
                    "prompt": f"Start at {start} and add {' , '.join(map(str, adds))} .",
                    "completions": texts,
                    "labels": labels,
                    "problem_id": f"syn{seed}-{p}",
                    "chain_id": f"syn{seed}-{p}-{c}",
                    "chain_index": c,
                    "domain": "math",
                    "source_dataset": "synthetic",
                    "reference_answer": str(start + sum(adds)),
                    "final_answer": str(total),
                    "outcome_correct": error < 0,
                    "first_error_step": error,
                    "mc_scores": scores,
                    "mc_rollouts": [4] * len(texts),
                    "verdicts": verdicts,
                    "sample_tokens": 0,
                    "rollout_tokens": 0,
                    "rollouts": 4 * len(texts),
                    "model": "synthetic",
                    "sampler_seed": seed,
                    "label_policy": "mc",
                    "config_hash": "synthetic",
                }
            )
    return rows


def write_shards(rows: list[dict[str, Any]], directory: str | Path, per_shard: int = 64) -> Path:
    """Write rows as `<directory>/shards/*.parquet` + manifest.json (LABELED_SCHEMA), in
    place: a fixture's writer, not the label job's (`labeling.shards`, tmp then rename)."""
    directory = Path(directory)
    (directory / "shards").mkdir(parents=True, exist_ok=True)
    shards = []
    for i in range(0, len(rows), per_shard):
        table = pa.Table.from_pylist(rows[i : i + per_shard], schema=LABELED_SCHEMA)
        name = f"shards/part-{i // per_shard:05d}.parquet"
        pq.write_table(table, directory / name)
        shards.append({"path": name, "rows": table.num_rows})
    # The same manifest layout prm-label writes (the fields readers use).
    (directory / MANIFEST).write_text(json.dumps({"shards": shards, "counts": {"rows": len(rows)}}))
    return directory


def build_tiny_model(
    directory: str | Path,
    texts: list[str],
    hidden: int = 64,
    layers: int = 2,
    seed: int = 0,
    arch: str = "llama",
    shape: dict[str, Any] | None = None,
) -> Path:
    """A random tiny Llama (or Qwen2) causal LM + word-level tokenizer trained on `texts`,
    saved as an HF directory (nothing is downloaded); it learns, slowly. vLLM's CPU
    attention needs hidden/2 = 64. `shape` overrides config fields (a real model's sizes,
    e.g. for `benchmarks/gpu_check.py`)."""
    import torch
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers
    from transformers import (
        LlamaConfig,
        LlamaForCausalLM,
        PreTrainedTokenizerFast,
        Qwen2Config,
        Qwen2ForCausalLM,
    )

    raw = Tokenizer(models.WordLevel(unk_token="<unk>"))
    # Whitespace runs are tokens of their own, so a "\n\n" separator is a real token.
    raw.pre_tokenizer = pre_tokenizers.Split(Regex(r"\s+|\w+|[^\w\s]"), behavior="isolated")
    specials = ["<unk>", "<pad>", "<s>", "</s>"]
    raw.train_from_iterator(texts, trainers.WordLevelTrainer(special_tokens=specials))
    tok = PreTrainedTokenizerFast(
        tokenizer_object=raw,
        unk_token="<unk>",
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
    )
    torch.manual_seed(seed)
    config_cls, model_cls = (
        (Qwen2Config, Qwen2ForCausalLM) if arch == "qwen2" else (LlamaConfig, LlamaForCausalLM)
    )
    fields = dict(
        vocab_size=len(tok),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    config = config_cls(**{**fields, **(shape or {})})
    directory = Path(directory)
    model_cls(config).save_pretrained(directory)
    tok.save_pretrained(directory)
    return directory
