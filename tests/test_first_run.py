"""The first run (`make run`): its overrides, read from the Makefile, make a valid prm-label
config on the graded set, with the MC source among the sources (the run itself is measured in
docs/benchmarks.md: it takes minutes)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from pipelines.label.app import typed
from tests.conftest import compose

ROOT = Path(__file__).resolve().parents[1]


def first_run_overrides() -> list[str]:
    text = (ROOT / "Makefile").read_text()
    found = re.search(r"^FIRST_RUN := (.*?)(?<!\\)$", text, re.M | re.S)
    assert found, "the Makefile defines FIRST_RUN"
    return shlex.split(found.group(1).replace("\\\n", " "))


def test_make_run_labels_the_graded_set_with_mc():
    overrides = first_run_overrides()
    assert re.search(r"^\t\$\(BIN\)/prm-label \$\(FIRST_RUN\)$",
                     (ROOT / "Makefile").read_text(), re.M)  # fmt: skip
    cfg = typed(compose(overrides))
    assert cfg.dataset.name == "starter_math" and cfg.dataset.limit
    assert cfg.labels.enabled() == ["answer", "calc", "mc"]
    assert cfg.output.dir == "runs/starter_math"


def test_make_runs_rollouts_sample_like_its_sampler():
    # The completer is the sampler's engine: with the sampler's cap and temperature its
    # chains are the completer's own samples, which measure its self-confidence for free.
    cfg = typed(compose(first_run_overrides()))
    assert cfg.labels.mc.same_sampling(cfg.sampler)
