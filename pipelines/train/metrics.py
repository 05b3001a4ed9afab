"""Validation metrics of prm-train and the shared forward + loss of a batch.

`auroc` is Mann-Whitney with ties counted half; `evaluate` scores held-out chains (loss,
step accuracy at p >= 0.5, AUROC) without touching the model's training state for good.
"""

from __future__ import annotations

import math

import torch

from pipelines.checkpoint.model import collate

__all__ = ["auroc", "evaluate"]


def auroc(scores: list[float], labels: list[bool]) -> float:
    """Area under the ROC curve (Mann-Whitney, ties count half); NaN if one class is absent."""
    pos = sum(labels)
    neg = len(labels) - pos
    if pos == 0 or neg == 0:
        return math.nan
    order = sorted(zip(scores, labels, strict=True), key=lambda x: x[0])
    rank_sum, i = 0.0, 0
    while i < len(order):
        j = i
        while j < len(order) and order[j][0] == order[i][0]:
            j += 1
        mean_rank = (i + j + 1) / 2  # 1-based average rank of the tie block
        rank_sum += mean_rank * sum(1 for k in range(i, j) if order[k][1])
        i = j
    return (rank_sum - pos * (pos + 1) / 2) / (pos * neg)


def _forward_loss(model, batch, soft, device, use_bf16):
    batch = {k: v.to(device) for k, v in batch.items()}
    labeled = ~torch.isnan(batch["targets"])
    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=use_bf16)
    with autocast:
        logits = model(batch["input_ids"], batch["attention_mask"], labeled)
    targets = batch["targets"][labeled]
    core = model.module if hasattr(model, "module") else model
    if targets.numel() == 0:  # every label cut by max_length: a zero loss keeps DDP in step
        return logits.sum() * 0.0, targets, targets
    return core.loss(logits, targets, soft), core.probs(logits).detach(), targets


@torch.no_grad()
def evaluate(model, rows, pad_id, soft, batch_size, device, use_bf16) -> dict[str, float]:
    """Validation loss, step accuracy (p >= 0.5 vs target >= 0.5) and AUROC over `rows`."""
    model.eval()
    losses, scores, labels = [], [], []
    for i in range(0, len(rows), batch_size):
        loss, probs, targets = _forward_loss(
            model, collate(rows[i : i + batch_size], pad_id, soft), soft, device, use_bf16
        )
        losses.append(loss.item() * len(targets))
        scores += probs.float().cpu().tolist()
        labels += (targets >= 0.5).cpu().tolist()
    model.train()
    n = len(labels)
    if n == 0:
        return {"val_steps": 0}
    acc = sum((s >= 0.5) == y for s, y in zip(scores, labels, strict=True)) / n
    return {
        "val_loss": sum(losses) / n,
        "val_acc": acc,
        "val_auroc": auroc(scores, labels),
        "val_steps": n,
    }
