"""`prm-label`: the Hydra batch job. Problems in, labeled Parquet shards out.

    prm-label                                   # embedded model + builtin math problems
    prm-label dataset=gsm8k dataset.limit=200 sampler.n=8
    prm-label dataset=processbench labels=[answer,calc]   # given chains, no model
    prm-label labels=[answer,mc] labels/mc=fall labels.mc.estimator=per_step
    prm-label ray=cluster                       # join a running Ray cluster
    prm-label dataset=gsm8k dry_run=true        # the plan and its estimate; nothing runs

`main()` only parses the config and calls `run(cfg)`, which tests call directly.
"""

from __future__ import annotations

import re
from pathlib import Path

from omegaconf import DictConfig

from labeling.shards import DatasetDir
from pipelines.cli import HydraApp, Interrupted, QualityError
from pipelines.config_fields import typed_config
from pipelines.label.config import (
    LabelJobConfig,
    label_job_schema,
    register,
    resolve,
    validate,
)
from pipelines.precheck import remove_started_dirs


def typed(cfg: DictConfig | LabelJobConfig) -> LabelJobConfig:
    """The composed config as the dataclass object (enums as members), validated, with what
    `auto` values stand for written in (`resolve`)."""
    return resolve(typed_config(LabelJobConfig, cfg, validate))


def run(cfg: DictConfig | LabelJobConfig) -> dict:
    """Run the job; returns the manifest (also written to `<output.dir>/manifest.json`).
    Raises `Interrupted` (exit 130) on SIGINT/SIGTERM, saying how many units are kept, and
    `QualityError` (exit 3) when more problems were quarantined than
    `output.max_quarantined_share` allows (the dataset is written first)."""
    from pipelines.label.job import LabelJob

    job_cfg = typed(cfg)
    if job_cfg.dry_run:
        try:
            return LabelJob(job_cfg).dry_run()
        finally:
            remove_started_dirs()  # Hydra's run dir: a dry run leaves nothing behind
    try:
        manifest = LabelJob(job_cfg).run()
    except KeyboardInterrupt:
        kept = len(DatasetDir(job_cfg.output.dir).done_units())
        units = "unit is" if kept == 1 else "units are"
        raise Interrupted(f"interrupted: {kept} finished {units} kept in "
                          f"{job_cfg.output.dir}; run the same command to resume") from None
    check_quarantined(manifest["counts"], job_cfg.output.max_quarantined_share,
                      job_cfg.output.dir)
    return manifest


def check_quarantined(counts: dict, most: float | None, where: str) -> None:
    """`QualityError` when the quarantined share of the problems is above `most` (None: when
    every problem was quarantined, so nothing was labeled)."""
    n, bad = counts.get("problems_in", 0), counts.get("problems_quarantined", 0)
    if not n:
        return
    share = bad / n
    why = f"the reasons are in {where}/quarantine"
    if most is None and bad == n:
        raise QualityError(f"all {n} problems were quarantined, none labeled "
                           f"(output.max_quarantined_share=1 allows it); {why}")
    if most is not None and share > most:
        raise QualityError(f"{bad} of {n} problems quarantined ({share:.0%}), above "
                           f"output.max_quarantined_share={most}; {why}")


def named_by_file(args: list[str]) -> list[str]:
    """Overrides that name a subset after the file it reads, for formats whose files are
    subsets (`labeling.datasets.subsets_by_file`): `dataset=processbench
    dataset.path=.../math.json` labels subset `processbench_math` (rows, reports, and the
    default `output.dir` runs/processbench_math). Any other input keeps its dataset's name
    whatever its file is called (a dated dump refreshes by content); nothing changes when
    the name is set or no path is given."""
    from labeling.datasets import subsets_by_file

    given = {a.split("=", 1)[0].lstrip("+~"): a.split("=", 1)[1] for a in args if "=" in a}
    path = given.get("dataset.path")
    group = given.get("dataset", "builtin_math")
    if not path or "dataset.name" in given or not subsets_by_file(group):
        return []
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(path).stem)
    if not stem or stem == group:
        return []
    return [f"dataset.name={group}_{stem}"]


APP = HydraApp("prm-label", "prm-label", label_job_schema, register, run, __doc__,
               extra_overrides=named_by_file, check=typed)


def main() -> None:
    APP.main()


if __name__ == "__main__":
    main()
