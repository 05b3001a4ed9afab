"""The PRM behind `prm-search`: one small protocol, two adapters.

`StepScorer.score_many([(prompt, steps), ...]) -> [[p_step, ...], ...]` is all the search
needs. `load_prm` builds it from the config:
- `prm.backend=checkpoint`: `pipelines.scoring.PRMScorer` in this process (torch);
- `prm.backend=server`: `pipelines.serve.PRMClient.for_server` against a vLLM pooling server.
Both format chains the way training did. The driver checks every answer
(`labeling.prm.search.check_scores`); a backend's own transport or shape error is turned into
`PRMScoreError` here, so either way a broken PRM stops the run with one sentence.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from labeling.prm.search import PRMScoreError
from pipelines.cli import ConfigError
from pipelines.search.config import PRMBackend, PRMConfig


class BackendScorer:
    """Adapter: any object with `score_many`; its errors become `PRMScoreError`."""

    def __init__(self, backend: Any, name: str) -> None:
        self.backend, self.name = backend, name

    def score_many(self, items: list[tuple[str, list[str]]]) -> Sequence[Sequence[Any]]:
        try:
            return self.backend.score_many(items)
        except (RuntimeError, ValueError, OSError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise PRMScoreError(f"the PRM ({self.name}) failed to score: {first}") from exc


def load_prm(cfg: PRMConfig) -> BackendScorer | None:
    """The configured PRM, or None for `prm.backend=none`. Raises ConfigError for a
    checkpoint directory that does not exist."""
    if cfg.backend == PRMBackend.none:
        return None
    path = Path(cfg.checkpoint).expanduser()
    if not path.is_dir():
        raise ConfigError(f"prm.checkpoint {cfg.checkpoint!r} is not a directory; set it to a "
                          "PRM checkpoint (prm-train writes <output.dir>/final)")  # fmt: skip
    if cfg.backend == PRMBackend.checkpoint:
        # torch and transformers load only for the in-process backend.
        from pipelines.scoring import PRMScorer

        scorer = PRMScorer.load(path, device=cfg.device, batch_size=cfg.batch_size)
        return BackendScorer(scorer, f"checkpoint {path.name}")
    # The HTTP or in-process vLLM client, only for those backends.
    from pipelines.serve.client import PRMClient

    client = PRMClient.for_server(path, cfg.url, model=cfg.served_name,
                                  batch_size=cfg.batch_size)  # fmt: skip
    return BackendScorer(client, f"server {cfg.url}")
