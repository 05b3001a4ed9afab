"""prm-train: train a PRM on prm-label's shards, alone or on Ray Train workers.

    prm-train data.shards=[outputs/labels] train.max_steps=200
    prm-train data.shards=[outputs/labels] data.label_source=mc_scores   # soft MC targets
    prm-train data.shards=[outputs/labels] train.workers=2               # 2 Ray Train workers
    prm-train data.shards=[outputs/labels] train.resume=none output.dir=outputs/prm2

`pipelines.train.loop.train_loop` is the whole per-worker program (it also runs in-process
when `train.workers=1` and `train.use_ray=false`, which is the default and skips Ray's
start-up); `run` decides where it runs; `main` is the Hydra entry point and only calls `run`.

Checkpoints: `<output.dir>/checkpoints/step_NNNNNNN/` is a servable HF directory in
`export.format` (see `pipelines.checkpoint.export`) plus `trainer_state.pt` (optimizer, schedule,
step, data position). Rank 0 writes them straight to `output.dir`, so with several machines
`output.dir` must be a shared filesystem; on one machine it always is. `<output.dir>/final/`
is what `vllm serve`, prm-eval and `pipelines.scoring` load. Metrics go to
`<output.dir>/metrics.jsonl` (and to Ray Train).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from pipelines.checkpoint.format import StepFormat
from pipelines.checkpoint.serving import serve_command
from pipelines.cli import HydraApp, explain
from pipelines.train import data as prm_data
from pipelines.train.config import TrainAppConfig, register, to_config

# torch, Ray Train and the model code load when a run starts, not with the app's declaration
# (`APP`, which `--help` and the tests read).


def run(cfg: Any) -> dict[str, Any]:
    """Train as configured; returns the summary written to `<output.dir>/summary.json`."""
    # torch (and Ray) load when training starts, not when the config is read or --help runs.
    from pipelines.train.loop import ray_worker, train_loop

    conf = to_config(cfg)
    prm_data.check_labels_present(conf.data)  # before a model loads or Ray starts
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
    out = Path(conf.output.dir).expanduser().resolve()
    trainer = TorchTrainer(
        ray_worker,
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
    out = Path(summary["final"]).parent
    fmt = StepFormat(**summary["format"])
    print(f"prm-train: {summary['steps_this_run']} steps"
          + (f" (resumed from {summary['resumed_from']})" if summary["resumed_from"] else "")
          + f"; model in {summary['final']}\n  metrics: {out / 'metrics.jsonl'}, summary: "
          f"{out / 'summary.json'}\n  serve it: {serve_command(fmt, summary['final'])}")


def _explain(exc: BaseException) -> str | None:
    return explain(exc) or (str(exc).splitlines()[0] if isinstance(exc, ValueError) else None)


APP = HydraApp("prm-train", "train", TrainAppConfig, register, _run_and_print, __doc__,
               _explain)


def main() -> None:
    APP.main()


if __name__ == "__main__":
    main()
