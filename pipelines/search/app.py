"""`prm-search`: PRM-guided search at inference (majority, best-of-N, beam, DVTS).

    prm-search prm.checkpoint=outputs/prm/final                 # builtin math, every strategy
    prm-search dataset=gsm8k dataset.limit=50 search.budgets=[1,4,16] prm.checkpoint=...
    prm-search prm.backend=none search.strategies=[majority]    # no PRM
    prm-search prm.backend=server prm.url=http://127.0.0.1:8000 prm.checkpoint=...

`main()` registers the config, composes it once (a bad key or enum value exits 2 with one
sentence) and runs `run(cfg)`, which tests call directly.
"""

from __future__ import annotations

from omegaconf import DictConfig

from labeling.prm.search import PRMScoreError
from pipelines.cli import HydraApp, explain
from pipelines.config_fields import typed_config
from pipelines.search.config import SearchConfig, register, validate
from pipelines.search.job import SearchJob


def typed(cfg: DictConfig | SearchConfig | dict) -> SearchConfig:
    """The config as the dataclass object (enums as members), validated."""
    return typed_config(SearchConfig, cfg, validate)


def run(cfg: DictConfig | SearchConfig | dict) -> dict:
    """Run the search; returns the manifest (also `<output.dir>/manifest.json`)."""
    return SearchJob(typed(cfg)).run()


def _explain(exc: BaseException) -> str | None:
    """A broken PRM is the user's to fix (wrong checkpoint, server): one sentence too."""
    return str(exc) if isinstance(exc, PRMScoreError) else explain(exc)


APP = HydraApp("prm-search", "search", SearchConfig, register, run, __doc__, _explain)


def main() -> None:
    APP.main()


if __name__ == "__main__":
    main()
