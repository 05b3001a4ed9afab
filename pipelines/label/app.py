"""`prm-label`: the Hydra batch job. Problems in, labeled Parquet shards out.

    prm-label                                   # embedded model + builtin math problems
    prm-label dataset=gsm8k dataset.limit=200 sampler.n=8
    prm-label dataset=processbench labels=[answer,calc]   # given chains, no model
    prm-label labels=[answer,mc] labels.mc.estimator=binary_search
    prm-label ray=cluster                       # join a running Ray cluster

`main()` only parses the config and calls `run(cfg)`, which tests call directly.
"""

from __future__ import annotations

import errno
import logging
from pathlib import Path

import hydra
from omegaconf import DictConfig, OmegaConf

from pipelines.cli import first_line, run_or_explain
from pipelines.label.config import register

log = logging.getLogger("prm-label")

register()

# An absolute path: `conf/` is a top-level folder, not a package, so a relative module path
# would fail when the job starts from the installed `prm-label` script.
CONF_DIR = str(Path(__file__).resolve().parents[2] / "conf")


class UserError(Exception):
    """An error the user can fix; printed as one sentence, without a traceback."""


def run(cfg: DictConfig) -> dict:
    """Run the job; returns the manifest (also written to `<output.dir>/manifest.json`)."""
    from pipelines.label.job import LabelJob

    plain = OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)
    return LabelJob(plain).run()


def friendly(exc: BaseException) -> str | None:
    """One sentence for errors a user causes; None for bugs (those keep their traceback)."""
    from omegaconf.errors import MissingMandatoryValue

    if isinstance(exc, UserError | FileNotFoundError | IsADirectoryError | MissingMandatoryValue):
        return first_line(exc)
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        where = exc.filename or "the output"
        return f"no space left on the device while writing {where}; free space and re-run"
    if isinstance(exc, ValueError) and str(exc).startswith(("unknown ", "labels.")):
        return str(exc)
    return None


@hydra.main(config_path=CONF_DIR, config_name="config", version_base=None)
def _hydra_main(cfg: DictConfig) -> None:
    run_or_explain("prm-label", run, cfg, friendly)


def main() -> None:
    _hydra_main()


if __name__ == "__main__":
    main()
