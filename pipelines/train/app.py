"""prm-train: train a PRM on prm-label's shards, alone or on Ray Train workers.

`train_loop` is the whole per-worker program (it also runs in-process when
`train.workers=1` and `train.use_ray=false`, which is the default and skips Ray's start-up);
`run` decides where it runs; `main` is the Hydra entry point and only calls `run`.

Checkpoints: `<output_dir>/checkpoints/step_NNNNNNN/` is a servable HF directory in
`export.format` (see `pipelines.train.export`) plus `trainer_state.pt` (optimizer, schedule,
step, data position). Rank 0 writes them straight to `output_dir`, so with several machines
`output_dir` must be a shared filesystem; on one machine it always is. `<output_dir>/final/`
is what `vllm serve`, prm-eval and `pipelines.scoring` load. Metrics go to
`<output_dir>/metrics.jsonl` (and to Ray Train).
"""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import hydra
import torch
from omegaconf import DictConfig, OmegaConf

from pipelines.cli import ConfigError, compose_or_explain, explain, run_or_explain
from pipelines.train import data as prm_data
from pipelines.train.config import TrainAppConfig, register
from pipelines.train.export import load_checkpoint, new_prm, save_checkpoint
from pipelines.train.metrics import _forward_loss, evaluate
from pipelines.train.model import StepFormat, collate, tokenize_row

STATE_FILE = "trainer_state.pt"
# An absolute path: Hydra reads a relative one as a Python module when run as a console script.
CONF_DIR = str(Path(__file__).resolve().parents[2] / "conf")


def to_config(cfg: Any) -> TrainAppConfig:
    """A typed TrainAppConfig from a dataclass, DictConfig or plain dict (validated)."""
    merged = OmegaConf.merge(OmegaConf.structured(TrainAppConfig), cfg)
    out: TrainAppConfig = OmegaConf.to_object(merged)  # type: ignore[assignment]
    if out.train.grad_accum < 1 or out.train.batch_size < 1 or out.train.workers < 1:
        raise ConfigError("train.batch_size, train.grad_accum and train.workers must be >= 1")
    if "{prompt}" not in out.model.prompt_template or "{step}" not in out.model.step_template:
        raise ConfigError("model.prompt_template needs {prompt} and model.step_template {step}")
    tokens = out.export.label_tokens
    if len(tokens) != 2 or len({*tokens, out.export.step_tag}) != 3:
        raise ConfigError(
            "export.label_tokens must be two distinct tokens (bad, good), neither the step tag"
        )
    return out


def _value(x: Any) -> str:
    return str(getattr(x, "value", x)).lower()


def bf16_enabled(mode: Any, device: torch.device) -> bool:
    """Whether to autocast to bf16: `auto` asks the device (oneDNN bf16 on CPU)."""
    if _value(mode) in ("off", "false"):
        return False
    if device.type == "cuda":
        supported = torch.cuda.is_bf16_supported()
    else:
        supported = bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    if _value(mode) in ("on", "true") and not supported:
        raise ConfigError(f"train.bf16=on but {device} has no bf16 support; use train.bf16=auto")
    return supported


def lr_factor(step: int, warmup: int, total: int, schedule: Any) -> float:
    """Multiplier of the peak learning rate at optimizer step `step` (0-based)."""
    schedule = _value(schedule)
    if step < warmup:
        return (step + 1) / (warmup + 1)
    if schedule == "constant":
        return 1.0
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    if schedule == "linear":
        return 1.0 - progress
    if schedule == "cosine":
        return 0.5 * (1.0 + math.cos(math.pi * progress))
    raise ValueError(f"optim.schedule={schedule!r}; use cosine, linear or constant")


def latest_checkpoint(output_dir: Path) -> Path | None:
    found = sorted((output_dir / "checkpoints").glob("step_*/" + STATE_FILE))
    return found[-1].parent if found else None


def _resume_path(cfg: TrainAppConfig, out: Path) -> Path | None:
    choice = str(cfg.train.resume)
    if choice.lower() in ("none", "null", "false", ""):
        return None
    if choice == "auto":
        return latest_checkpoint(out)
    path = Path(choice).expanduser()
    if not (path / STATE_FILE).exists():
        raise FileNotFoundError(f"train.resume={path} has no {STATE_FILE}; use auto or none")
    return path


def _save(model, tok, optimizer, scheduler, step, stream, out: Path, keep: int) -> Path:
    final = out / "checkpoints" / f"step_{step:07d}"
    tmp = final.with_name(final.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    save_checkpoint(model, tok, tmp)
    state = {
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "step": step,
        "data": stream.position,
        "rng": torch.get_rng_state(),
    }
    torch.save(state, tmp / STATE_FILE)
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)  # a checkpoint is either complete or absent
    for old in sorted((out / "checkpoints").glob("step_???????"))[: -max(keep, 1)]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def _initial_model(cfg: TrainAppConfig, resume: Path | None):
    """(model, tokenizer, format): a resumed checkpoint, a PRM to fine-tune, or a fresh one."""
    path = Path(cfg.model.path).expanduser() if cfg.model.path else None
    source = resume or (path if path and (path / "prm_format.json").exists() else None)
    if source is not None:
        model, tok, fmt = load_checkpoint(source)
        if _value(cfg.export.format) != fmt.format:
            raise ConfigError(
                f"{source} is a {fmt.format} checkpoint; set export.format={fmt.format}"
            )
        return model, tok, fmt
    m, e = cfg.model, cfg.export
    request = StepFormat(
        format=_value(e.format),
        prompt_template=m.prompt_template,
        step_template=m.step_template,
        step_tag=e.step_tag,
        label_tokens=list(e.label_tokens),
        max_length=m.max_length,
        max_prompt_length=m.max_prompt_length,
    )
    return new_prm(m.path, request)


def _param_groups(core, cfg: TrainAppConfig) -> list[dict[str, Any]]:
    """qwen2_prm: the fresh score head may get its own rate. causal_lm: the head is two rows
    of the LM's own output matrix, trained at `lr` with everything else."""
    if core.fmt.format == "causal_lm":
        return [{"params": core.parameters(), "lr": cfg.optim.lr}]
    return [
        {"params": core.backbone.parameters(), "lr": cfg.optim.lr},
        {"params": core.score.parameters(), "lr": cfg.optim.head_lr or cfg.optim.lr},
    ]


def _ray_worker(config: dict[str, Any]) -> None:
    """What each Ray Train worker runs."""
    train_loop(config, in_ray=True)


def train_loop(config: dict[str, Any], in_ray: bool = False) -> dict[str, Any]:
    """The per-worker training program; returns the summary (rank 0) or {} (other ranks)."""
    cfg = to_config(config)
    rank, world = 0, 1
    if in_ray:
        import ray.train

        rank, world = (
            ray.train.get_context().get_world_rank(),
            ray.train.get_context().get_world_size(),
        )
    if cfg.train.torch_threads > 0:
        torch.set_num_threads(cfg.train.torch_threads)
    torch.manual_seed(cfg.train.seed)
    out = Path(cfg.output_dir).expanduser().resolve()
    out.mkdir(parents=True, exist_ok=True)
    resume = _resume_path(cfg, out)
    model, tok, fmt = _initial_model(cfg, resume)
    model.train()
    soft = prm_data.is_soft(cfg.data)
    core = model
    if in_ray:
        import ray.train.torch

        model = ray.train.torch.prepare_model(model)
        device = ray.train.torch.get_device()
    else:
        device = torch.device("cuda" if cfg.train.use_gpu else "cpu")
        model.to(device)
    use_bf16 = bf16_enabled(cfg.train.bf16, device)
    optimizer = torch.optim.AdamW(_param_groups(core, cfg), weight_decay=cfg.optim.weight_decay)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda s: lr_factor(s, cfg.optim.warmup_steps, cfg.train.max_steps, cfg.optim.schedule),
    )
    stream = prm_data.ChainStream(cfg.data, cfg.train.seed, rank, world)
    step = 0
    if resume is not None:
        state = torch.load(resume / STATE_FILE, weights_only=False)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        step = state["step"]
        stream.skip(state["data"])
        torch.set_rng_state(state["rng"])
    val_rows = []
    if rank == 0 and cfg.data.val_fraction > 0:
        val_rows = [
            tokenize_row(e.prompt, e.steps, e.targets, tok, fmt, soft)
            for e in prm_data.validation_examples(cfg.data, cfg.train.seed)
        ]

    def validate() -> dict[str, float]:
        if not val_rows:
            return {}
        return evaluate(
            core, val_rows, tok.pad_token_id, soft, cfg.train.batch_size, device, use_bf16
        )

    metrics_file = (out / "metrics.jsonl").open("a") if rank == 0 else None
    tokens_total, train_time, last, started = 0, 0.0, {}, step
    model.train()
    t_last = time.perf_counter()
    while step < cfg.train.max_steps:
        losses, correct, counted, tokens = [], 0, 0, 0
        for micro in range(cfg.train.grad_accum):
            rows = [
                tokenize_row(e.prompt, e.steps, e.targets, tok, fmt, soft)
                for e in (next(stream) for _ in range(cfg.train.batch_size))
            ]
            batch = collate(rows, tok.pad_token_id, soft)
            tokens += batch["input_ids"].numel()
            sync = micro == cfg.train.grad_accum - 1 or not hasattr(model, "no_sync")
            with contextlib.nullcontext() if sync else model.no_sync():
                loss, probs, targets = _forward_loss(model, batch, soft, device, use_bf16)
                (loss / cfg.train.grad_accum).backward()
            losses.append(loss.item())
            correct += int(((probs >= 0.5) == (targets >= 0.5)).sum())
            counted += targets.numel()
        if cfg.optim.max_grad_norm > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.optim.max_grad_norm)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        dt = time.perf_counter() - t_last  # reading, tokenizing, collating, compute
        tokens_total, train_time = tokens_total + tokens, train_time + dt
        row: dict[str, Any] = {}
        if step % max(cfg.train.log_every, 1) == 0 or step == cfg.train.max_steps:
            row = {
                "step": step,
                "loss": sum(losses) / len(losses),
                "acc": correct / max(counted, 1),
                "lr": scheduler.get_last_lr()[0],
                "tokens": tokens,
                "step_seconds": dt,
                "tokens_per_s": tokens / dt,
                "epoch": stream.epoch,
            }
        ev = cfg.train.eval_every
        if rank == 0 and ((ev and step % ev == 0) or step == cfg.train.max_steps):
            row = {"step": step, **row, **validate()}
        sv = cfg.train.save_every
        if (sv and step % sv == 0) or step == cfg.train.max_steps:
            if rank == 0:
                path = _save(
                    core,
                    tok,
                    optimizer,
                    scheduler,
                    step,
                    stream,
                    out,
                    cfg.train.save_total_limit,
                )
                row = {"step": step, **row, "checkpoint": str(path)}
            if world > 1:
                torch.distributed.barrier()  # nobody races ahead of a half-written checkpoint
        if row and metrics_file:
            metrics_file.write(json.dumps(row) + "\n")
            metrics_file.flush()
            last.update(row)
        if in_ray and (step % max(cfg.train.log_every, 1) == 0 or step == cfg.train.max_steps):
            import ray.train

            ray.train.report({k: v for k, v in row.items() if k != "checkpoint"})
        t_last = time.perf_counter()  # validation, checkpoint and log I/O are not counted
    if rank != 0:
        return {}
    metrics_file.close()
    save_checkpoint(core, tok, out / "final")
    summary = {
        **last,
        "final": str(out / "final"),
        "steps_this_run": step - started,
        "resumed_from": str(resume) if resume else None,
        "train_tokens_per_s": tokens_total / train_time if train_time else 0.0,
        "bf16": use_bf16,
        "workers": world,
        "format": asdict(fmt),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def run(cfg: Any) -> dict[str, Any]:
    """Train as configured; returns the summary written to `<output_dir>/summary.json`."""
    conf = to_config(cfg)
    plain = OmegaConf.to_container(OmegaConf.structured(conf), resolve=True, enum_to_str=True)
    if conf.train.workers == 1 and not conf.train.use_ray:
        return train_loop(plain)
    import ray
    from ray.train import RunConfig, ScalingConfig
    from ray.train.torch import TorchTrainer

    started_ray = not ray.is_initialized()
    if started_ray:
        if conf.ray.address:
            ray.init(address=conf.ray.address)
        else:
            ray.init(num_cpus=conf.ray.num_cpus or conf.train.workers * conf.train.cpus_per_worker)
    out = Path(conf.output_dir).expanduser().resolve()
    trainer = TorchTrainer(
        _ray_worker,
        train_loop_config=plain,
        scaling_config=ScalingConfig(
            num_workers=conf.train.workers,
            use_gpu=conf.train.use_gpu,
            resources_per_worker={"CPU": conf.train.cpus_per_worker},
        ),
        run_config=RunConfig(name="prm-train", storage_path=str(out / "ray")),
    )
    try:
        trainer.fit()
    finally:
        if started_ray:  # a caller's own Ray session stays up; ours does not leak
            ray.shutdown()
    return json.loads((out / "summary.json").read_text())


def _run_and_print(cfg: DictConfig) -> None:
    summary = run(cfg)
    print(json.dumps({k: v for k, v in summary.items() if k != "format"}, indent=2))


def _explain(exc: BaseException) -> str | None:
    return explain(exc) or (str(exc).splitlines()[0] if isinstance(exc, ValueError) else None)


@hydra.main(version_base=None, config_path=CONF_DIR, config_name="train")
def _hydra_main(cfg: DictConfig) -> None:
    run_or_explain("prm-train", _run_and_print, cfg, _explain)


def main() -> None:
    register()
    compose_or_explain("prm-train", CONF_DIR, "train", sys.argv[1:])
    _hydra_main()


if __name__ == "__main__":
    main()
