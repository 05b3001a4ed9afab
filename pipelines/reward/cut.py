"""How the reward cuts a completion into steps, and whether that is the cut training saw.

The rule is the one prm-train recorded with the checkpoint (`split` in prm_format.json: the
label job's rule for the training chains), each field overridden by `reward.split` where set,
else `SplitConfig`'s default; the cut itself is the project's one splitter per domain
(`labeling.steps.splitters` for math, `labeling.steps.code` for code). `CompletionCut.resolve`
fails at start, in one sentence, on a rule this install's splitter does not know, and says
which rule it uses and why; where that is not the cut the PRM was trained on (the config
overrides the record, or training chains were cut by mixed rules or came already split) it
lists the differences, which `PRMReward` raises as a `SplitMismatchWarning`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from labeling.prm.reward import step_ends
from labeling.steps.code import split_code_steps
from labeling.steps.sections import SectionOptions
from labeling.steps.splitters import split_spans
from pipelines.cli import ConfigError
from pipelines.reward.config import RewardConfig, RewardDomain
from pipelines.split_config import RewardSplit


class SplitMismatchWarning(UserWarning):
    """The reward cuts completions otherwise than the PRM's training chains were cut."""


@dataclass(frozen=True)
class CompletionCut:
    """The rule a reward cuts completions with (see the module docstring)."""

    domain: RewardDomain
    mode: str  # the math splitter's mode
    code_mode: str  # the code splitter's mode
    sections: SectionOptions  # read by mode `sections` only
    said: str = ""  # the sentence: which rule, where it came from, what differs from training
    mismatch: tuple[str, ...] = ()  # each way this cut differs from training's; () = none

    @classmethod
    def resolve(cls, cfg: RewardConfig, record: dict[str, Any]) -> CompletionCut:
        """The cut for `cfg` given the checkpoint's split `record` ({} when it has none).
        Raises ConfigError when this install's splitter does not know the rule."""
        split = cfg.split
        cut = cls(cfg.domain, str(split.pick("mode", record)), str(split.pick("code_mode", record)),
                  SectionOptions(split.pick("section_tokens", record),
                                 split.pick("max_sections", record)))  # fmt: skip
        cut._check()
        said, mismatch = cut._say(split, record)
        return replace(cut, said=said, mismatch=mismatch)

    def _check(self) -> None:
        """Fail at start, in one sentence, on rules this install's splitter does not know."""
        try:
            self.steps("a", "")
        except ValueError as exc:
            raise ConfigError(f"the checkpoint's split rules cannot be used here ({exc}); set "
                              "reward.split.mode") from exc  # fmt: skip

    def _say(self, split: RewardSplit, record: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
        """(the sentence saying how completions are cut and why, the ways that is not the cut
        the PRM was trained on: the config overrides the recorded rule, or the record says
        the training chains were cut by mixed rules or came already split)."""
        mode = self.mode if self.domain == RewardDomain.math else self.code_mode
        how = f"{self.domain} completions are cut into steps with {mode}"
        if mode == "sections":
            how += (f" (section_tokens={self.sections.tokens}, "
                    f"max_sections={self.sections.max_sections})")  # fmt: skip
        cut_by = record.get("cut_by")
        problems = []
        if self.domain == RewardDomain.math:
            trained = record.get("mode")
            if split.mode and trained and str(split.mode) != trained:
                problems.append(f"reward.split.mode={split.mode} while the PRM was "
                                f"trained on chains cut with {trained}")  # fmt: skip
            if trained == "sections" and self.mode == "sections":
                # every key the cut records: its budget and cap, and its cue list's version
                # (a newer install cuts the same text elsewhere)
                for key, ours in self.sections.record().items():
                    if record.get(key) is not None and record[key] != ours:
                        problems.append(f"{key}={ours} while training cut with "
                                        f"{key}={record[key]}")  # fmt: skip
        elif (split.code_mode and record.get("code_mode")
              and split.code_mode != record["code_mode"]):  # fmt: skip
            problems.append(f"reward.split.code_mode={split.code_mode} while the PRM was "
                            f"trained on chains cut with {record['code_mode']}")  # fmt: skip
        if cut_by == "mixed" and not split.sets_rule():
            rules = record.get("rules") or {}
            problems.append("the PRM was trained on chains cut by different rules ("
                            + "; ".join(f"{p}: {r.get('mode')}" for p, r in rules.items())
                            + "), so no cut repeats training; set reward.split.mode")
        elif cut_by == "given" and not split.mode:
            problems.append("the PRM was trained only on chains that came already split "
                            "(no rule to repeat); set reward.split.mode to the nearest cut")
        elif record.get("given") and cut_by in ("prm-label", "people"):
            problems.append(f"some training chains came already split ({len(record['given'])} "
                            "dataset(s)); those were not cut this way")  # fmt: skip
        if not record and not split.sets_rule():
            problems.append("the checkpoint records no split rules (not trained by prm-train "
                            "on prm-label data?); set reward.split.mode to how it was trained")
        said = ("as set in the reward config" if split.sets_rule() else
                "as recorded with the checkpoint" if record.get("mode") else "the default")
        sentence = f"{how}, {said}"
        if problems:
            sentence += "; not the cut training saw: " + "; ".join(problems)
        return sentence, tuple(problems)

    def steps(self, text: str, prompt: str) -> tuple[list[str], list[int | None]]:
        """(steps, each step's end in `text`) through the project's one splitter per domain."""
        if self.domain == RewardDomain.code:
            steps = split_code_steps(text, self.code_mode, "", prompt)
            return steps, step_ends(text, steps)  # code steps are rebuilt: found, or None

        spans = split_spans(text, self.mode, self.sections)
        return [text[a:b] for a, b in spans], [b for _, b in spans]
