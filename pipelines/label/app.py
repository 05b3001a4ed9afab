"""`prm-label`: the Hydra batch job. Problems in, labeled Parquet shards out.

    prm-label                                   # embedded model + builtin math problems
    prm-label dataset=gsm8k dataset.limit=200 sampler.n=8
    prm-label dataset=processbench labels=[answer,calc]   # given chains, no model
    prm-label labels=[answer,mc] labels/mc=fall labels.mc.estimator=per_step
    prm-label ray=cluster                       # join a running Ray cluster

`main()` only parses the config and calls `run(cfg)`, which tests call directly.
"""

from __future__ import annotations

import re
from pathlib import Path

from omegaconf import DictConfig

from pipelines.cli import HydraApp
from pipelines.config_fields import typed_config
from pipelines.label.config import (
    LabelJobConfig,
    label_job_schema,
    register,
    resolve,
    validate,
)


def typed(cfg: DictConfig | LabelJobConfig) -> LabelJobConfig:
    """The composed config as the dataclass object (enums as members), validated, with what
    `auto` values stand for written in (`resolve`)."""
    return resolve(typed_config(LabelJobConfig, cfg, validate))


def run(cfg: DictConfig | LabelJobConfig) -> dict:
    """Run the job; returns the manifest (also written to `<output.dir>/manifest.json`)."""
    from pipelines.label.job import LabelJob

    return LabelJob(typed(cfg)).run()


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


APP = HydraApp("prm-label", "config", label_job_schema, register, run, __doc__,
               extra_overrides=named_by_file, check=typed)


def main() -> None:
    APP.main()


if __name__ == "__main__":
    main()
