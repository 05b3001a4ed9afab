"""The cut: how chains are cut into steps, configured once for every app that cuts.

`SplitConfig` is the cut: prm-label and prm-search read it as `split`
(`GenerationConfig.split`), and its ROWS fields enter their unit keys. A reward
(`pipelines.reward`) must cut completions as training cut its chains, which the checkpoint
records (prm-label's `split` config, carried by prm-train into `prm_format.json`), so
`reward.split` is `RewardSplit`: `SplitConfig`'s cut fields by the same names, each unset
(None) meaning the recorded value (or, without a record, `SplitConfig`'s default).
`tests/test_reward_split.py` holds the two to the same names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from labeling.steps.code import CodeSplitMode
from labeling.steps.sections import SectionOptions
from labeling.steps.splitters import SplitMode
from pipelines.config_fields import ROWS, option


@dataclass
class SplitConfig:
    mode: SplitMode = option(
        SplitMode.auto, "Math steps: auto | blank_line | step_marker | line | sections "
        "(reasoning traces: paragraphs merged at reasoning moves, labeling/steps/sections.py).",
        ROWS,
    )
    code_mode: CodeSplitMode = option(
        CodeSplitMode.statement, "Code steps: line|statement|block.", ROWS
    )
    max_steps: int = option(
        40, "Chains with more steps are quarantined (stage split).", ROWS, gt=0
    )
    section_tokens: int = option(
        400, "sections: token budget per section (approximate).", ROWS, gt=0
    )
    max_sections: int = option(
        SectionOptions().max_sections, "sections: cap per chain, final answer included; wins "
        "over the budget.", ROWS, gt=0
    )

    def section_options(self) -> SectionOptions:
        return SectionOptions(self.section_tokens, self.max_sections)


@dataclass
class RewardSplit:
    """The cut a reward applies: each field unset = as recorded with the checkpoint (what
    training saw), else `SplitConfig`'s default. `max_steps` is not here: a reward scores
    at most `reward.max_steps` steps and never quarantines."""

    mode: SplitMode | None = option(
        None, "math: how a completion is cut into steps (split.mode's choices); unset = the "
        "rules recorded with the checkpoint (what training saw), else auto.", ROWS
    )  # fmt: skip
    code_mode: CodeSplitMode | None = option(
        None, "code: how a completion is cut into steps; unset = as recorded, else statement.",
        ROWS,
    )  # fmt: skip
    section_tokens: int | None = option(
        None, "mode sections: token budget per section; unset = as recorded, else the "
        "splitter's default.", ROWS, gt=0
    )  # fmt: skip
    max_sections: int | None = option(
        None, "mode sections: cap per completion; unset = as recorded, else the splitter's "
        "default.", ROWS, gt=0
    )  # fmt: skip

    def pick(self, name: str, record: Mapping[str, Any]) -> Any:
        """The value the cut uses for field `name`: set here, else recorded, else
        `SplitConfig`'s default."""
        return getattr(self, name) or record.get(name) or getattr(SplitConfig(), name)

    def sets_rule(self) -> bool:
        """Whether the config sets the cut's rule (a mode) instead of the record."""
        return bool(self.mode or self.code_mode)


__all__ = ["RewardSplit", "SplitConfig"]
