"""The text format of a PRM checkpoint: how a (prompt, steps) row is written and tokenized, and
where its scores are read (`StepFormat`, saved as `prm_format.json` beside the weights), and
the checkpoint layouts (`ExportFormat`). No torch: configs and readers load it alone.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

FORMAT_FILE = "prm_format.json"
FORMATS = ("causal_lm", "qwen2_prm")


class ExportFormat(StrEnum):
    """Checkpoint layout trained and written (see pipelines.checkpoint.export)."""

    causal_lm = "causal_lm"
    qwen2_prm = "qwen2_prm"


@dataclass(frozen=True)
class StepFormat:
    """How a (prompt, steps) row becomes tokens and where its scores are read."""

    format: str = "causal_lm"
    prompt_template: str = "{prompt}\n\n"
    step_template: str = "{step}"
    step_tag: str = "<extra_0>"
    step_tag_id: int = -1
    label_tokens: list[str] = field(default_factory=lambda: ["<extra_1>", "<extra_2>"])
    label_token_ids: list[int] = field(default_factory=list)
    bos_token_id: int | None = None
    max_length: int = 1024
    max_prompt_length: int = 512
    # The prm-label `split` section of the data it was trained on (how a chain's text was cut
    # into steps), so a reward cuts completions the same way; None: not known (third-party
    # checkpoints, data without a prm-label manifest, or datasets cut by differing rules).
    split: dict[str, Any] | None = None

    def save(self, directory: str | Path) -> None:
        Path(directory, FORMAT_FILE).write_text(json.dumps(asdict(self), indent=2) + "\n")

    @staticmethod
    def load(directory: str | Path) -> StepFormat:
        data = json.loads(Path(directory, FORMAT_FILE).read_text())
        return StepFormat(**{k: v for k, v in data.items() if k in StepFormat.__dataclass_fields__})


__all__ = ["FORMATS", "FORMAT_FILE", "ExportFormat", "StepFormat"]
