"""Batches of a token budget: chains packed end to end, attention kept within each chain.

A packed micro-batch is one row of exactly `budget` tokens: the chains side by side, each
with position ids that restart at 0, then a tail of pad tokens (their own segment, never
labeled) up to the budget. The shape never changes, so peak memory is set by the budget and
compiled attention kernels see one shape. The model is called without a 2-D attention mask
and with those position ids; transformers reads the restarts as sequence boundaries (a
block-diagonal causal mask for sdpa/eager/flex attention, varlen kernels for flash
attention), so each chain is read exactly as if it were alone: `check_isolation` proves it
on the loaded model at start, and training falls back to padding if it does not hold.

Every batch, packed or padded, carries its labeled positions as (row, column) indices and the
compact targets there, built on the host: the device never has to look for them (a boolean
mask would make it stop and count).
"""

from __future__ import annotations

import logging
import math
from typing import Any

import torch

from pipelines.checkpoint.model import IGNORE, collate

log = logging.getLogger("prm-train")

# Attention implementations tried for packing on CUDA, best first: flash attention's varlen
# kernel needs the flash_attn package; flex attention skips the masked blocks. sdpa with a
# block-diagonal mask is exact too but computes every pair of the row: on a GPU, padding is
# cheaper than that for rows of many chains. On CPU the model's own (sdpa) is the only choice.
CUDA_ATTENTION = ("flash_attention_2", "flex_attention")


def with_index(batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Add `index` (2, K: row, column of each labeled token) and `labels` (K, float) from the
    batch's `targets` (NaN = masked); computed on the host, in row-major order."""
    labeled = ~torch.isnan(batch["targets"])
    rows, cols = labeled.nonzero(as_tuple=True)
    batch["index"] = torch.stack([rows, cols])
    batch["labels"] = batch["targets"][labeled]
    return batch


def padded(rows: list[dict[str, list]], pad_id: int, soft: bool) -> dict[str, torch.Tensor]:
    """Right-padded batch (`collate`) with its labeled index."""
    return with_index(collate(rows, pad_id, soft))


def packed(rows: list[dict[str, list]], budget: int, pad_id: int,
           soft: bool) -> dict[str, torch.Tensor]:  # fmt: skip
    """One row of exactly `budget` tokens: `rows` end to end, position ids restarting at each
    chain, pad tokens after the last. Raises ValueError when they do not fit."""
    used = sum(len(r["input_ids"]) for r in rows)
    if used > budget:
        raise ValueError(f"{used} tokens of {len(rows)} chains exceed the budget of {budget}")
    ids = torch.full((1, budget), pad_id, dtype=torch.long)
    pos = torch.zeros((1, budget), dtype=torch.long)
    targets = torch.full((1, budget), math.nan, dtype=torch.float32)
    at = 0
    for r in rows:
        n = len(r["input_ids"])
        ids[0, at : at + n] = torch.tensor(r["input_ids"], dtype=torch.long)
        pos[0, at : at + n] = torch.arange(n)
        t = torch.tensor(r["targets"], dtype=torch.float32)
        if not soft:
            t[t == IGNORE] = math.nan
        targets[0, at : at + n] = t
        at += n
    # The tail is one more sequence (positions restart), so no chain attends to it.
    pos[0, at:] = torch.arange(budget - at)
    return with_index({"input_ids": ids, "position_ids": pos, "targets": targets})


def fits(lengths: list[int], new: int, budget: int, pack: bool) -> bool:
    """Whether a chain of `new` tokens joins a batch holding chains of `lengths` within
    `budget` tokens: summed when packed, the padded width times the chains otherwise."""
    if pack:
        return sum(lengths) + new <= budget
    return (len(lengths) + 1) * max([new, *lengths]) <= budget


def _probe_ids(vocab: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor, int]:
    """Two short random sequences packed into one row, their position ids, the split."""
    g = torch.Generator().manual_seed(0)
    a, b = 11, 13
    ids = torch.randint(4, max(vocab, 5), (1, a + b), generator=g)
    pos = torch.cat([torch.arange(a), torch.arange(b)]).unsqueeze(0)
    return ids.to(device), pos.to(device), a


@torch.no_grad()
def check_isolation(body: Any, device: torch.device, use_bf16: bool) -> bool:
    """Whether `body` (a transformers base model) reads two chains packed in one row exactly
    as it reads each alone: the second chain's hidden states, packed, against alone."""
    vocab = int(getattr(body.config, "vocab_size", 32))
    ids, pos, a = _probe_ids(vocab, device)
    was_training = body.training
    body.eval()
    try:
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=use_bf16):
            together = body(input_ids=ids, position_ids=pos, use_cache=False)[0][:, a:].float()
            alone = body(input_ids=ids[:, a:], position_ids=pos[:, a:], use_cache=False)[0].float()
            flat = torch.arange(ids.shape[1], device=device).unsqueeze(0)
            leaked = body(input_ids=ids, position_ids=flat, use_cache=False)[0][:, a:].float()
    except Exception as exc:  # a kernel that cannot run here (no compiler, no dtype): no
        log.debug("packing probe failed: %s", exc)
        return False
    finally:
        body.train(was_training)
    # Tolerance from the gap a shared attention makes: bf16 rounding is far below it.
    gap = (leaked - alone).abs().max().item()
    return gap > 0 and (together - alone).abs().max().item() < 0.05 * gap


def choose_packing(body: Any, device: torch.device, use_bf16: bool) -> str | None:
    """Set the attention implementation that packs on `device` and return its name, or None
    (train padded) when none reads packed chains apart. Logs the choice in one line."""
    first = current = getattr(body.config, "_attn_implementation", None) or "sdpa"
    tries = [current] if device.type != "cuda" else list(CUDA_ATTENTION)
    for impl in tries:
        if impl != current:
            try:
                body.set_attn_implementation(impl)
            except Exception as exc:  # not installed or not supported by this model class
                log.debug("attention %s unavailable: %s", impl, exc)
                continue
        if check_isolation(body, device, use_bf16):
            log.info("prm-train: packed batches, %s attention keeps each chain to itself", impl)
            return impl
        current = impl
    if current != first:
        body.set_attn_implementation(first)
    with_note = "; install flash-attn for varlen kernels" if device.type == "cuda" else ""
    log.warning("prm-train: train.tokens_per_batch set, but no attention implementation of "
                "this model on %s keeps packed chains apart (tried %s): training padded "
                "batches within the same token budget instead%s", device, ", ".join(tries),
                with_note)  # fmt: skip
    return None
