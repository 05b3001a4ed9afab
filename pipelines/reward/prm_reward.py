"""A trained PRM as the reward of RL training: one object every trainer entry point shares.

    reward = PRMReward.load("outputs/prm/final")            # in-process torch, min aggregation
    reward(prompts, completions)                             # -> [float, ...], always finite
    reward.score(prompts, completions, references)           # -> [CompletionReward, ...]

Each completion is cut into steps by the project's one splitter with the rules training saw
(`split` recorded in the checkpoint's prm_format.json by prm-train; `reward.split` overrides;
`pipelines.reward.cut`),
formatted and scored as training formatted its chains (`tokenize_row`, through whichever
backend: `PRMScorer` in-process, a local vLLM engine or a `vllm serve` through `PRMClient`),
and folded into one number (`labeling.prm.reward.fold`: `aggregation`, `empty_reward`, and a
blend with the `answer` source's check when a reference is given, `outcome_weight` 0.5 by
default). Before splitting, the format rule (`pipelines.reward.format_check`) gives a
completion whose thinking never closed or that has no final answer `format_reward`, unscored;
at most `max_steps` steps and `max_tokens` approximate tokens per completion go to the PRM
(the rest are counted in `stats`, not scored), so one batch of hostile text costs bounded work.

What it promises: one finite float per completion, whatever the completion is (empty, not
text, overlong, any unicode); every completion that got the stated `empty_reward` is counted
in `stats` and logged. What it does not: hide a broken backend. A PRM server that is down or
answers the wrong shape raises `ScoringError`: a trainer must stop rather than learn from
made-up rewards. `score` holds a lock: one call at a time per object.
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from labeling.prm.reward import (
    FORMAT_NOTES,
    CompletionReward,
    Note,
    StepReward,
    completion_text,
    fold,
    prompt_text,
    strip_end_tokens,
    token_ends,
)
from labeling.steps.sections import approx_tokens
from pipelines.checkpoint.format import FORMAT_FILE, StepFormat
from pipelines.cli import ConfigError
from pipelines.reward.config import RewardBackend, RewardConfig, RewardDomain, reward_config
from pipelines.reward.cut import CompletionCut, SplitMismatchWarning
from pipelines.reward.format_check import format_note
from pipelines.reward.trl_reward import TRLReward
from pipelines.serve.client import PRMClient, ScoringError
from verifiers.answer import AnswerChecker

log = logging.getLogger("prm-reward")
# Steps scored per completion when neither the config nor the checkpoint says (prm-label's
# split.max_steps quarantines longer chains, so a PRM rarely saw more than a few dozen).
DEFAULT_MAX_STEPS = 64


def build_scorer(cfg: RewardConfig) -> Any:
    """The configured backend: an object with `score_many([(prompt, steps)]) -> [[p, ...]]`."""
    path = Path(cfg.checkpoint).expanduser()
    if not path.is_dir():
        raise ConfigError(f"reward.checkpoint {cfg.checkpoint!r} is not a directory; set it to "
                          "a PRM checkpoint (prm-train writes <output.dir>/final)")  # fmt: skip
    if cfg.backend == RewardBackend.checkpoint:
        # The in-process scorer (torch, transformers) loads only for backend=checkpoint.
        from pipelines.scoring import PRMScorer

        return PRMScorer.load(path, device=cfg.device, batch_size=cfg.batch_size, bf16=cfg.bf16)

    if cfg.backend == RewardBackend.vllm:
        return PRMClient.local(path, batch_size=cfg.batch_size, dtype=cfg.dtype,
                               enforce_eager=True)  # fmt: skip
    return PRMClient.for_server(path, cfg.url, model=cfg.served_name, batch_size=cfg.batch_size)


def recorded_format(checkpoint: str | Path) -> StepFormat | None:
    """The checkpoint's `StepFormat` (its `split` record and lengths); None for a third-party
    checkpoint without prm_format.json."""
    path = Path(checkpoint).expanduser()
    return StepFormat.load(path) if (path / FORMAT_FILE).is_file() else None


class PRMReward:
    """Rewards from one PRM checkpoint (see the module docstring)."""

    def __init__(self, cfg: RewardConfig, scorer: Any = None) -> None:
        self.cfg = cfg
        fmt = recorded_format(cfg.checkpoint)
        record = (fmt.split if fmt is not None else None) or {}
        self.cut = CompletionCut.resolve(cfg, record)
        if self.cut.mismatch:  # a warning, shown by scripts and the server alike, not a log line
            warnings.warn(f"prm-reward: {self.cut.said}", SplitMismatchWarning, stacklevel=2)
        # Bounded work: steps past these are counted, never sent to the PRM (see _cap).
        self.max_steps = int(cfg.max_steps or record.get("max_steps") or DEFAULT_MAX_STEPS)
        self.max_tokens = cfg.max_tokens or (fmt.max_length if fmt is not None else None)
        self.max_prompt_tokens = fmt.max_prompt_length if fmt is not None else None
        log.info("prm-reward: %s", self.cut.said)
        self.scorer = scorer if scorer is not None else build_scorer(cfg)
        self.stats: Counter[str] = Counter()
        self._checker: Any = None
        self._lock = threading.Lock()

    @classmethod
    def load(cls, checkpoint: str | Path, **fields: Any) -> PRMReward:
        """`PRMReward.load(path, aggregation="last", backend="server", url=...)`: any
        `RewardConfig` field as a keyword; a wrong one raises ConfigError."""
        return cls(reward_config(checkpoint=str(checkpoint), **fields))

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any],
                 references: Sequence[Any] | None = None) -> list[float]:  # fmt: skip
        """One finite reward per completion."""
        return [r.reward for r in self.score(prompts, completions, references)]

    def score(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        references: Sequence[Any] | None = None,
        completion_ids: Sequence[Sequence[int]] | None = None,
        tokenizer: Any = None,
    ) -> list[CompletionReward]:
        """The reward of each completion with its per-step scores and step ends.

        `prompts`/`completions`: strings or chat messages, one prompt per completion.
        `references`: reference answers for the outcome blend (None entries: no blend).
        `completion_ids` + `tokenizer` (the policy's): also each step's policy token end.
        Raises ValueError when the lists differ in length, ScoringError when the backend fails.
        """
        n = len(completions)
        for name, other in (("prompts", prompts), ("references", references),
                            ("completion_ids", completion_ids)):  # fmt: skip
            if other is not None and len(other) != n:
                raise ValueError(f"{len(other)} {name} for {n} completions")
        with self._lock:
            return self._score(prompts, completions, references, completion_ids, tokenizer)

    def _score(self, prompts, completions, references, completion_ids, tokenizer):
        texts: list[str] = []
        steps: list[list[str]] = []
        ends: list[list[int | None]] = []
        notes: list[Note] = []
        chains: list[tuple[str, list[str]]] = []
        capped: list[int] = []
        for raw_prompt, raw in zip(prompts, completions, strict=True):
            prompt = prompt_text(raw_prompt)
            if prompt is None:
                self.stats["malformed_prompts"] += 1
                prompt = ""
            text, cut, note = self._text(raw)
            if cut:
                self.stats["cut_to_max_chars"] += 1
            if note is Note.scored:  # before any splitting or scoring: a failure costs nothing
                note = format_note(text, self.cfg.format_rule,
                                   self.cfg.domain == RewardDomain.code) or note  # fmt: skip
            found: list[str] = []
            where: list[int | None] = []
            if note is Note.scored:
                try:
                    found, where = self.cut.steps(text, prompt)
                except Exception as exc:  # model output is untrusted; a splitter bug too
                    log.warning("prm-reward: the splitter failed on a completion (%s)", exc)
                    note = Note.split_error
                if note is Note.scored and not found:
                    note = Note.no_steps
            texts.append(text)
            steps.append(found)
            ends.append(where if found else [])
            notes.append(note)
            keep = self._cap(prompt, found)
            capped.append(len(found) - keep)
            if found:
                chains.append((prompt, found[:keep]))
        scored = iter(self._score_chains(chains))
        results = []
        for i, (found, where, note) in enumerate(zip(steps, ends, notes, strict=True)):
            scores = next(scored) + [None] * capped[i] if found else []
            failed = note in FORMAT_NOTES
            outcome = None if failed else self._outcome(
                texts[i], references[i] if references is not None else None)  # fmt: skip
            empty = self.cfg.format_reward if failed else self.cfg.empty_reward
            reward, prm, clean = fold(scores, self.cfg.aggregation, empty, outcome,
                                      self.cfg.outcome_weight)  # fmt: skip
            if found and prm is None:
                note = Note.unscored
            toks = self._token_ends(where, completion_ids[i] if completion_ids else None,
                                    tokenizer)  # fmt: skip
            results.append(CompletionReward(
                reward, prm, None if outcome is None else float(outcome),
                tuple(StepReward(s, e, t) for s, e, t in zip(clean, where, toks, strict=True)),
                note, capped[i]))  # fmt: skip
        self._count(results)
        return results

    def _text(self, raw: Any) -> tuple[str, int, Note]:
        """(completion text ready to split, 1 if it was cut to max_chars, note)."""
        text = completion_text(raw)
        if text is None:
            return "", 0, Note.malformed
        cut = int(len(text) > self.cfg.max_chars)
        return strip_end_tokens(text[: self.cfg.max_chars], self.cfg.end_tokens), cut, Note.scored

    def _cap(self, prompt: str, steps: list[str]) -> int:
        """How many of the first `steps` go to the PRM: at most `max_steps`, and while the
        prompt and steps hold at most `max_tokens` approximate tokens (the first step always
        goes: the PRM then says itself whether it fits). The rest are counted, not scored,
        so one completion of thousands of steps costs what a long solution costs."""
        keep = min(len(steps), self.max_steps)
        if self.max_tokens is None or keep == 0:
            return keep
        used = approx_tokens(prompt)
        if self.max_prompt_tokens is not None:
            used = min(used, self.max_prompt_tokens)
        for k, step in enumerate(steps[:keep]):
            used += approx_tokens(step) + 1  # +1: the step tag
            if k and used > self.max_tokens:
                return k
        return keep

    def _score_chains(self, chains: list[tuple[str, list[str]]]) -> list[list[Any]]:
        if not chains:
            return []
        try:
            out = self.scorer.score_many(chains)
        except (RuntimeError, ValueError, OSError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ScoringError(f"the PRM ({self.cfg.backend}) failed to score "
                               f"{len(chains)} completions: {first}") from exc  # fmt: skip
        if not isinstance(out, list | tuple) or len(out) != len(chains) or any(
            not isinstance(row, list | tuple) or len(row) != len(s)
            for row, (_, s) in zip(out, chains, strict=True)
        ):
            raise ScoringError(f"the PRM ({self.cfg.backend}) did not answer one row of step "
                               f"scores per chain for {len(chains)} chains")  # fmt: skip
        return [list(row) for row in out]

    def _outcome(self, text: str, reference: Any) -> bool | None:
        """The answer source's verdict (True/False), or None: no blend asked, no reference,
        or the check could not decide (it timed out or failed: counted, never a guess)."""
        if self.cfg.outcome_weight <= 0.0:
            return None
        ref = "" if reference is None else str(reference).strip()
        if not ref:
            self.stats["no_reference"] += 1
            return None
        if self._checker is None:
            self._checker = AnswerChecker(timeout_s=self.cfg.outcome_timeout_s)
        result = self._checker.outcome(text, ref)
        said = {None: "undecided", True: "right", False: "wrong"}[result.correct]
        self.stats[f"outcome_{said}"] += 1
        return result.correct

    @staticmethod
    def _token_ends(ends: list[int | None], ids: Sequence[int] | None,
                    tokenizer: Any) -> list[int | None]:  # fmt: skip
        if ids is None or tokenizer is None:
            return [None] * len(ends)
        ids = list(ids)

        def decoded_length(k: int) -> int:
            return len(tokenizer.decode(ids[:k], skip_special_tokens=True))

        return token_ends(ends, len(ids), decoded_length)

    def _count(self, results: list[CompletionReward]) -> None:
        notes = Counter(str(r.note) for r in results)
        self.stats["completions"] += len(results)
        self.stats["steps"] += sum(len(r.steps) for r in results)
        unscored = sum(s.score is None for r in results for s in r.steps)
        if unscored:
            self.stats["steps_unscored"] += unscored
        capped = [r.capped for r in results if r.capped]
        if capped:  # what the caps cut, beside what the PRM could not read
            self.stats["steps_capped"] += sum(capped)
            self.stats["completions_capped"] += len(capped)
        for k, v in notes.items():
            if k != Note.scored:
                self.stats[k] += v
        for label, kinds, value in (
            ("had no scorable step", set(Note) - FORMAT_NOTES - {Note.scored},
             self.cfg.empty_reward),
            ("failed the format rule", FORMAT_NOTES, self.cfg.format_reward),
        ):  # fmt: skip
            stated = {k: v for k, v in notes.items() if k in kinds}
            if stated:
                log.warning("prm-reward: %d of %d completions %s (%s) and got reward %s",
                            sum(stated.values()), len(results), label,
                            ", ".join(f"{v} {k}" for k, v in sorted(stated.items())),
                            value)  # fmt: skip

    def trl(self, reference: str | None = "answer", name: str = "prm_reward") -> Any:
        """This reward as a TRL `reward_funcs` entry (see `pipelines.reward.trl_reward`)."""
        return TRLReward(self, reference=reference, name=name)

    def close(self) -> None:
        """Stop the answer checker's worker process (if one was started)."""
        if self._checker is not None:
            self._checker.close()
            self._checker = None

    def __enter__(self) -> PRMReward:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
