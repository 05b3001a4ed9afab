"""Validation metrics of prm-train and the shared forward + loss of a batch.

`auroc` is Mann-Whitney with ties counted half; `evaluate` scores held-out chains (loss,
step accuracy at p >= 0.5, AUROC) without touching the model's training state for good.
"""

from __future__ import annotations

import math

import torch

from pipelines.checkpoint.model import collate
from pipelines.train.packing import with_index

__all__ = ["Interval", "auroc", "evaluate"]


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


class Interval:
    """Training figures summed over the steps since the last logged row. Loss and correct
    counts stay on the device until `row()` reads them: one wait for the device per logged
    row, not one per step."""

    def __init__(self) -> None:
        self.losses: list[torch.Tensor] = []
        self.correct: list[torch.Tensor] = []
        self.counted = self.tokens = self.chain_tokens = self.steps = 0
        self.seconds = self.wait = self.wait_max = 0.0

    def add(self, stats: dict, seconds: float) -> None:
        self.losses.append(torch.as_tensor(stats["loss"]).detach())
        self.correct.append(torch.as_tensor(stats["correct"]))
        self.counted += stats["counted"]
        self.tokens += stats["tokens"]
        self.chain_tokens += stats["chain_tokens"]
        self.steps += 1
        self.seconds += seconds
        self.wait += stats["data_wait_s"]
        self.wait_max = max(self.wait_max, stats["data_wait_s"])

    def row(self) -> dict[str, float | int]:
        """Per-step means over the interval (a single step's own figures when every step is
        logged); `data_wait_share` is the share of step time spent waiting for data."""
        n, dt = max(self.steps, 1), max(self.seconds, 1e-12)
        loss = torch.stack(self.losses).float().mean().item()
        correct = int(torch.stack(self.correct).sum().item())
        row: dict[str, float | int] = {
            "loss": loss, "acc": correct / max(self.counted, 1), "tokens": self.tokens // n,
            "chain_tokens": self.chain_tokens // n, "step_seconds": self.seconds / n,
            "tokens_per_s": self.tokens / dt, "chain_tokens_per_s": self.chain_tokens / dt,
            "data_wait_s": self.wait / n, "data_wait_max_s": self.wait_max,
            "data_wait_share": self.wait / dt,
        }  # fmt: skip
        if self.steps > 1:
            row["steps_averaged"] = self.steps
        return row


def _forward_loss(model, batch, soft, device, use_bf16):
    """(loss, P(good) per labeled step, targets) of one batch, on `device`. The labeled
    positions come as host-built indices (`pipelines.train.packing.with_index`), so nothing
    here waits for the device; a packed batch brings `position_ids` and no attention mask."""
    if "index" not in batch:
        batch = with_index(dict(batch))
    copy = device.type == "cuda"  # pinned host memory: the copy overlaps the compute
    on = {k: v.to(device, non_blocking=copy) for k, v in batch.items()
          if k in ("input_ids", "attention_mask", "position_ids", "index", "labels")}
    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=use_bf16)
    with autocast:
        logits = model(on["input_ids"], on.get("attention_mask"), (on["index"][0], on["index"][1]),
                       on.get("position_ids"))  # fmt: skip
    targets = on["labels"]
    core = model.module if hasattr(model, "module") else model
    if batch["labels"].numel() == 0:  # every label cut by max_length: a zero loss keeps DDP in step
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
