"""`prm-label`: the Hydra batch job. Problems in, labeled Parquet shards out.

    prm-label                                   # embedded model + builtin math problems
    prm-label dataset=gsm8k dataset.limit=200 sampler.n=8
    prm-label dataset=processbench labels=[answer,calc]   # given chains, no model
    prm-label labels=[answer,mc] labels.mc.estimator=binary_search
    prm-label ray=cluster                       # join a running Ray cluster

`main()` only parses the config and calls `run(cfg)`, which tests call directly.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig, OmegaConf

from pipelines.cli import compose_or_explain, run_or_explain
from pipelines.confdir import CONF_DIR
from pipelines.label.config import LabelJobConfig, register, resolve, validate


def typed(cfg: DictConfig | LabelJobConfig) -> LabelJobConfig:
    """The composed config as the dataclass object (enums as members), validated, with what
    `auto` values stand for written in (`resolve`)."""
    obj = cfg if isinstance(cfg, LabelJobConfig) else OmegaConf.to_object(cfg)
    assert isinstance(obj, LabelJobConfig)
    validate(obj)
    return resolve(obj)


def run(cfg: DictConfig | LabelJobConfig) -> dict:
    """Run the job; returns the manifest (also written to `<output.dir>/manifest.json`)."""
    from pipelines.label.job import LabelJob

    return LabelJob(typed(cfg)).run()


@hydra.main(config_path=CONF_DIR, config_name="config", version_base=None)
def _hydra_main(cfg: DictConfig) -> None:
    run_or_explain("prm-label", run, cfg)


def named_by_file(args: list[str]) -> list[str]:
    """Overrides that name the dataset after the file it reads: `dataset=processbench
    dataset.path=.../math.json` labels subset `processbench_math` (rows, reports, and the
    default `output.dir` runs/processbench_math), not `processbench` whichever file it read.
    Nothing changes when the name or adapter is set, or no path is given."""
    given = {a.split("=", 1)[0].lstrip("+~"): a.split("=", 1)[1] for a in args if "=" in a}
    path = given.get("dataset.path")
    if not path or "dataset.name" in given or "dataset.adapter" in given:
        return []
    group = given.get("dataset", "builtin_math")
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(path).stem)
    if not stem or stem == group:
        return []
    return [f"dataset.adapter={group}", f"dataset.name={group}_{stem}"]


def main() -> None:
    register()
    # Before any flag: Hydra takes overrides only ahead of `--cfg job`, `-m` and the like.
    sys.argv[1:1] = named_by_file(sys.argv[1:])
    compose_or_explain("prm-label", CONF_DIR, "config", sys.argv[1:], LabelJobConfig, __doc__)
    _hydra_main()


if __name__ == "__main__":
    main()
