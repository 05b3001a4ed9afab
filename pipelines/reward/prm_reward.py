"""A trained PRM as the reward of RL training: one object every trainer entry point shares.

    reward = PRMReward.load("outputs/prm/final")            # in-process torch, min aggregation
    reward(prompts, completions)                             # -> [float, ...], always finite
    reward.score(prompts, completions, references)           # -> [CompletionReward, ...]

Each completion is cut into steps by the project's one splitter with the rules training saw
(`split` recorded in the checkpoint's prm_format.json by prm-train; `split_mode` overrides),
formatted and scored as training formatted its chains (`tokenize_row`, through whichever
backend: `PRMScorer` in-process, a local vLLM engine or a `vllm serve` through `PRMClient`),
and folded into one number (`labeling.prm.reward.fold`: `aggregation`, `empty_reward`, and a
blend with the `answer` source's check when `outcome_weight` > 0 and a reference is given).

What it promises: one finite float per completion, whatever the completion is (empty, not
text, overlong, any unicode); every completion that got the stated `empty_reward` is counted
in `stats` and logged. What it does not: hide a broken backend. A PRM server that is down or
answers the wrong shape raises `ScoringError`: a trainer must stop rather than learn from
made-up rewards. `score` holds a lock: one call at a time per object.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from labeling.prm.reward import (
    CompletionReward,
    Note,
    StepReward,
    completion_text,
    fold,
    prompt_text,
    step_ends,
    strip_end_tokens,
    token_ends,
)
from labeling.steps.sections import SectionOptions
from pipelines.cli import ConfigError
from pipelines.reward.config import RewardBackend, RewardConfig, RewardDomain, reward_config
from pipelines.serve.client import ScoringError

log = logging.getLogger("prm-reward")


def build_scorer(cfg: RewardConfig) -> Any:
    """The configured backend: an object with `score_many([(prompt, steps)]) -> [[p, ...]]`."""
    path = Path(cfg.checkpoint).expanduser()
    if not path.is_dir():
        raise ConfigError(f"reward.checkpoint {cfg.checkpoint!r} is not a directory; set it to "
                          "a PRM checkpoint (prm-train writes <output.dir>/final)")  # fmt: skip
    if cfg.backend == RewardBackend.checkpoint:
        from pipelines.scoring import PRMScorer

        return PRMScorer.load(path, device=cfg.device, batch_size=cfg.batch_size, bf16=cfg.bf16)
    from pipelines.serve.client import PRMClient

    if cfg.backend == RewardBackend.vllm:
        return PRMClient.local(path, batch_size=cfg.batch_size, dtype=cfg.dtype,
                               enforce_eager=True)  # fmt: skip
    return PRMClient.for_server(path, cfg.url, model=cfg.served_name, batch_size=cfg.batch_size)


def recorded_split(checkpoint: str | Path) -> dict[str, Any] | None:
    """The `split` section prm-train recorded with the checkpoint (None: not recorded)."""
    from pipelines.checkpoint.format import FORMAT_FILE, StepFormat

    path = Path(checkpoint).expanduser()
    return StepFormat.load(path).split if (path / FORMAT_FILE).is_file() else None


class PRMReward:
    """Rewards from one PRM checkpoint (see the module docstring)."""

    def __init__(self, cfg: RewardConfig, scorer: Any = None) -> None:
        self.cfg = cfg
        record = recorded_split(cfg.checkpoint) or {}
        self.split_mode = str(cfg.split_mode or record.get("mode") or "auto")
        self.code_mode = str(cfg.code_mode or record.get("code_mode") or "statement")
        default = SectionOptions()
        self.sections = SectionOptions(
            cfg.section_tokens or record.get("section_tokens") or default.tokens,
            cfg.max_sections or record.get("max_sections") or default.max_sections,
        )  # only the `sections` mode reads them
        self._check_split()
        said = "reward.split_mode" if cfg.split_mode else (
            "recorded with the checkpoint" if record.get("mode") else
            "the default: the checkpoint records no split rules")  # fmt: skip
        mode = self.split_mode if cfg.domain == RewardDomain.math else self.code_mode
        log.info("prm-reward: %s completions cut into steps with %s (%s)", cfg.domain, mode, said)
        self.scorer = scorer if scorer is not None else build_scorer(cfg)
        self.stats: Counter[str] = Counter()
        self._checker: Any = None
        self._lock = threading.Lock()

    @classmethod
    def load(cls, checkpoint: str | Path, **fields: Any) -> PRMReward:
        """`PRMReward.load(path, aggregation="last", backend="server", url=...)`: any
        `RewardConfig` field as a keyword; a wrong one raises ConfigError."""
        return cls(reward_config(checkpoint=str(checkpoint), **fields))

    def _check_split(self) -> None:
        """Fail at start, in one sentence, on rules this install's splitter does not know."""
        try:
            self._split("a", "")
        except ValueError as exc:
            raise ConfigError(f"the checkpoint's split rules cannot be used here ({exc}); set "
                              "reward.split_mode") from exc  # fmt: skip

    def _split(self, text: str, prompt: str) -> tuple[list[str], list[int | None]]:
        """(steps, each step's end in `text`) through the project's one splitter per domain."""
        if self.cfg.domain == RewardDomain.code:
            from labeling.steps.code import split_code_steps

            steps = split_code_steps(text, self.code_mode, "", prompt)
            return steps, step_ends(text, steps)  # code steps are rebuilt: found, or None
        from labeling.steps.splitters import split_spans

        spans = split_spans(text, self.split_mode, self.sections)
        return [text[a:b] for a, b in spans], [b for _, b in spans]

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
        for raw_prompt, raw in zip(prompts, completions, strict=True):
            prompt = prompt_text(raw_prompt)
            if prompt is None:
                self.stats["malformed_prompts"] += 1
                prompt = ""
            text, cut, note = self._text(raw)
            if cut:
                self.stats["cut_to_max_chars"] += 1
            found: list[str] = []
            where: list[int | None] = []
            if note is Note.scored:
                try:
                    found, where = self._split(text, prompt)
                except Exception as exc:  # model output is untrusted; a splitter bug too
                    log.warning("prm-reward: the splitter failed on a completion (%s)", exc)
                    note = Note.split_error
                if note is Note.scored and not found:
                    note = Note.no_steps
            texts.append(text)
            steps.append(found)
            ends.append(where if found else [])
            notes.append(note)
            if found:
                chains.append((prompt, found))
        scored = iter(self._score_chains(chains))
        results = []
        for i, (found, where, note) in enumerate(zip(steps, ends, notes, strict=True)):
            scores = next(scored) if found else []
            outcome = self._outcome(texts[i], references[i] if references is not None else None)
            reward, prm, clean = fold(scores, self.cfg.aggregation, self.cfg.empty_reward,
                                      outcome, self.cfg.outcome_weight)  # fmt: skip
            if found and prm is None:
                note = Note.unscored
            toks = self._token_ends(where, completion_ids[i] if completion_ids else None,
                                    tokenizer)  # fmt: skip
            results.append(CompletionReward(
                reward, prm, None if outcome is None else float(outcome),
                tuple(StepReward(s, e, t) for s, e, t in zip(clean, where, toks, strict=True)),
                note))  # fmt: skip
        self._count(results)
        return results

    def _text(self, raw: Any) -> tuple[str, int, Note]:
        """(completion text ready to split, 1 if it was cut to max_chars, note)."""
        text = completion_text(raw)
        if text is None:
            return "", 0, Note.malformed
        cut = int(len(text) > self.cfg.max_chars)
        return strip_end_tokens(text[: self.cfg.max_chars], self.cfg.end_tokens), cut, Note.scored

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
            from verifiers.answer import AnswerChecker

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
        stated = {k: v for k, v in notes.items() if k != Note.scored}
        for k, v in stated.items():
            self.stats[k] += v
        if stated:
            log.warning(
                "prm-reward: %d of %d completions had no scorable step (%s) and got reward %s",
                sum(stated.values()), len(results),
                ", ".join(f"{v} {k}" for k, v in sorted(stated.items())), self.cfg.empty_reward,
            )  # fmt: skip

    def trl(self, reference: str | None = "answer", name: str = "prm_reward") -> Any:
        """This reward as a TRL `reward_funcs` entry (see `pipelines.reward.trl_reward`)."""
        from pipelines.reward.trl_reward import TRLReward

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
