"""Structured config of `prm-audit`, registered in Hydra's ConfigStore as `audit_schema`.

`conf/audit.yaml` only overrides these defaults. Enum fields fail when Hydra composes the
config; every field carries its help, what it affects and its range
(`pipelines.config_fields`); `validate` holds values to their ranges and checks what spans
fields, before any work (exit 2, one sentence).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from labeling.audit.estimate import Method
from labeling.schema import Neutral
from pipelines.cli import ConfigError
from pipelines.config_fields import ROWS, SPEED, check_fields, option

# Built with the functional API: `import` is a keyword, and OmegaConf matches enum values
# by member name, so the member must be called exactly what the user types.
Mode = StrEnum("Mode", [("sample", "sample"), ("import", "import"), ("estimate", "estimate")])


class ReviewMode(StrEnum):
    """The page's opening mode; every one but `auto` is a verdict record's `mode`
    (`labeling.audit.verdicts.Mode`)."""

    auto = "auto"  # sections for traces cut into sections (their labels judge each one), else chain
    chain = "chain"
    step = "step"
    sections = "sections"


class Reviewer(StrEnum):
    person = "person"  # a person answers in the review page (or Label Studio)
    oracle = "oracle"  # answers from the data's own human labels (ProcessBench, PRM800K)


@dataclass
class AuditConfig:
    mode: Mode = option(Mode.sample, "sample | import | estimate.", ROWS)
    dir: str = option(
        MISSING, "The labeled dataset (a finished prm-label output directory).", ROWS
    )
    pack: str = option("", "The review pack directory; empty: <dir>/audit.", ROWS)
    seed: int = option(0, "Seed of the sample's order (same seed, same sample).", ROWS)
    target_halfwidth: float = option(
        0.05, "Stratified part: reviews per (source, status) for a 95% interval this wide (±).",
        ROWS, gt=0, lt=0.5,
    )
    budget: int = option(
        0, "Stratified part: this many distinct steps instead (0: by width).", ROWS, ge=0
    )
    queue: int = option(
        100, "Uncertainty queue steps added after the stratified part.", ROWS, ge=0
    )
    blind: bool = option(True, "Page: show the sources' verdicts only after the answer.", ROWS)
    review_mode: ReviewMode = option(
        ReviewMode.auto, "Page: the mode it opens in (the reviewer can switch with m): chain "
        "(click each chain's first wrong step or 'all correct', ProcessBench's protocol; then "
        "any sampled step after it on its own) | step (each sampled step's own questions) | "
        "sections (mark every wrong section of a trace, each judged on its own, DeltaBench's "
        "protocol) | auto (sections for traces cut into sections, chain otherwise). Every "
        "mode also asks each check's own question (calc: does the arithmetic hold?). The "
        "oracle answers in this mode.", ROWS,
    )
    reviewer: Reviewer = option(
        Reviewer.person, "sample: person | oracle (also writes verdicts-oracle.json from the "
        "data's human labels, so the loop runs unattended).", ROWS
    )
    verdicts: list[str] = option(
        factory=list, help="import: verdict files (the page's export, Label Studio's export).",
        affects=ROWS,
    )
    interval: Method = option(
        Method.wilson, "estimate: wilson | exact (Clopper-Pearson).", ROWS
    )


@dataclass
class AuditLabelsConfig:
    neutral: Neutral | None = option(
        None, "import: what a reviewer's neutral becomes in human_labels and labels: "
        "positive | negative | mask; empty: the dataset's own labels.neutral.", ROWS
    )


@dataclass
class AuditOutputConfig:
    dir: str = option(
        "", "import: the new dataset version's directory (must not exist or be empty).", SPEED
    )


@dataclass
class AuditJobConfig:
    audit: AuditConfig = field(default_factory=AuditConfig)
    labels: AuditLabelsConfig = field(default_factory=AuditLabelsConfig)
    output: AuditOutputConfig = field(default_factory=AuditOutputConfig)




def validate(cfg: AuditJobConfig) -> None:
    check_fields(cfg)
    a = cfg.audit
    if a.mode == Mode["import"]:
        if not a.verdicts:
            raise ConfigError("audit.mode=import needs audit.verdicts=[FILE,...] (the page's "
                              "export or a Label Studio JSON export)")
        if not cfg.output.dir:
            raise ConfigError("audit.mode=import needs output.dir=DIR for the new dataset "
                              "version")


def register() -> None:
    ConfigStore.instance().store(name="audit_schema", node=AuditJobConfig)


__all__ = ["AuditConfig", "AuditJobConfig", "Mode", "ReviewMode", "Reviewer", "register",
           "validate"]
