"""Label one work unit: sampled (or given) chains -> steps -> verdicts -> rows.

`UnitLabeler` holds the label sources (worker pools, sandboxes) for its whole life, so it runs
as a long-lived Ray actor (or in-process). Everything that goes wrong with one problem or one
chain becomes a quarantine row with one sentence; nothing is dropped and nothing here stops
the job. Bad *reference* data (a verifier raising) quarantines the problem, not the unit.
A labeled row that cannot be written (a text Parquet cannot encode: see `labeling.text.unicode`)
quarantines its chain with the reason instead of failing the unit's shard; quarantine rows
are always written with such characters escaped.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from labeling import registry
from labeling.combine import combine, proven_error
from labeling.engine_result import Completion, EngineResult, Finish
from labeling.ids import chain_id
from labeling.registry import Role
from labeling.rows import labeled_row, quarantine_row
from labeling.schema import (
    Chain,
    GivenChain,
    LabeledChain,
    Problem,
    Quarantined,
    StepVerdict,
    rating_label,
)
from labeling.steps.code import split_code_steps
from labeling.steps.splitters import split_spans
from labeling.steps.thinking import parse_trace
from labeling.text.unicode import escape_row, unwritable_field
from pipelines.generation_config import SplitConfig
from pipelines.label.config import LabelJobConfig
from pipelines.label.sources import build_sources
from verifiers.answer import extract_answer
from verifiers.base import Verifier
from verifiers.judge import JudgeModel

log = logging.getLogger(__name__)

# One problem's sampled chains: its sampling request's seed and the engine's answer.
Sampled = tuple[int, EngineResult]


@dataclass
class UnitResult:
    rows: list[dict[str, Any]] = field(default_factory=list)
    quarantine: list[dict[str, Any]] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    tokens: Counter = field(default_factory=Counter)


def split_chain(
    problem: Problem, text: str, split: SplitConfig
) -> tuple[list[str], tuple[tuple[int, int], ...]]:
    """(steps, their character spans in `text`): math through the one split entry point
    (`labeling.steps.splitters`), code by statements (no spans: code steps are rebuilt)."""
    if problem.domain == "code":
        steps = split_code_steps(text, split.code_mode, problem.entry_point, problem.question)
        return steps, ()
    spans = split_spans(text, split.mode, split.section_options())
    return [text[a:b] for a, b in spans], tuple(spans)


class UnitLabeler:
    def __init__(
        self, cfg: LabelJobConfig, config_hash: str, completer: Any = None,
        critic: JudgeModel | None = None,
    ) -> None:
        self.cfg = cfg
        self.config_hash = config_hash  # written to every row and quarantine record
        self.completer = completer
        self.critic = critic  # the judge's model, if labels.judge
        self._sources: dict[str, dict[str, Any]] = {}
        self.model_name = cfg.model.name

    def sources(self, domain: str) -> dict[str, Any]:
        if domain not in self._sources:
            self._sources[domain] = build_sources(self.cfg, domain, self.completer, self.critic)
        return self._sources[domain]

    def ping(self) -> str:
        return "ok"

    def where(self) -> tuple[str, int]:
        """(Ray node id, process id) of this labeler: a restarted actor has a new pid."""
        import os

        try:
            import ray

            node = ray.get_runtime_context().get_node_id() if ray.is_initialized() else ""
        except ImportError:
            node = ""
        return node, os.getpid()

    # -- chains ---------------------------------------------------------------------------

    def _human_labels(self, g: GivenChain) -> tuple[bool | None, ...]:
        """Three-way human ratings decide the boolean labels with `labels.neutral`."""
        if not g.human_ratings:
            return g.human_labels
        return tuple(rating_label(r, self.cfg.labels.neutral) for r in g.human_ratings)

    def _chains(
        self, problem: Problem, sampled: Sampled | None, res: UnitResult
    ) -> list[Chain]:
        """The problem's chains, split: given ones (already split, or one text each), or
        sampled ones. A chain that cannot be split becomes a quarantine row."""
        chains = []
        if problem.given_chains:
            for i, g in enumerate(problem.given_chains):
                if g.text:
                    cid = chain_id(problem.problem_id, g.model, i, (g.text,))
                    chain = self._cut(problem, cid, i, g.text, g.model, res, given=g)
                    if chain is not None:
                        chains.append(chain)
                    continue
                cid = chain_id(problem.problem_id, g.model, i, g.steps)
                chains.append(
                    Chain(problem.problem_id, cid, i, "\n\n".join(g.steps), g.steps, g.model,
                          human_first_error=g.human_first_error,
                          human_labels=self._human_labels(g), human_ratings=g.human_ratings,
                          given_outcome=g.outcome_correct)
                )
            return chains
        seed, result = sampled if sampled is not None else (0, EngineResult(()))
        for i, s in enumerate(result.completions):
            # The text is part of the id: runs with other sampler settings, seeds or models
            # give other texts, and a diff or lineage must not pair them as one chain.
            cid = chain_id(problem.problem_id, self.model_name, i, (s.text,))
            chain = self._cut(problem, cid, i, s.text, self.model_name, res, sample=s,
                              seed=seed)
            if chain is not None:
                chains.append(chain)
        return chains

    def _cut(self, problem: Problem, cid: str, index: int, text: str, model: str,
             res: UnitResult, sample: Completion | None = None, seed: int = 0,
             given: GivenChain | None = None) -> Chain | None:
        """One chain's text cut into steps, or None with a quarantine row saying why
        (`seed`: the sampling request's, for a sampled chain)."""
        split = self.cfg.split
        reason = ""
        if sample is not None and sample.finish is Finish.PROMPT_TOO_LONG:
            reason = "the prompt does not fit in model.max_model_len"
        steps: list[str] = []
        spans: tuple[tuple[int, int], ...] = ()
        if not reason:
            try:
                steps, spans = split_chain(problem, text, split)
            except Exception as exc:  # model output is untrusted; a splitter bug too
                reason = f"could not split the chain into steps ({exc})"
        if not reason and not steps:
            reason = "the chain is empty" if given else "the sampled chain is empty"
        if not reason and len(steps) > split.max_steps:
            reason = f"chain has {len(steps)} steps, more than split.max_steps"
        if reason:
            res.counts["chains_quarantined"] += 1
            res.quarantine.append(self._q(problem, reason, "split", cid, text))
            return None
        finished = parse_trace(text).finished if problem.domain == "math" else None
        if finished is not None:
            res.counts["chains_thinking"] += 1
            res.counts["chains_thinking_unfinished"] += not finished
        if sample is None:
            return Chain(problem.problem_id, cid, index, text, tuple(steps), model, spans=spans,
                         thinking_finished=finished,
                         given_outcome=given.outcome_correct if given else None)
        return Chain(problem.problem_id, cid, index, text, tuple(steps), model,
                     sampler_seed=seed, tokens=sample.tokens, finish_reason=sample.finish.value,
                     spans=spans, thinking_finished=finished)

    def _q(self, p: Problem, reason: str, stage: str, cid: str = "", raw: str = "") -> dict:
        q = Quarantined(p.source_dataset, -1, reason, raw[:2000] or p.question[:2000],
                        p.problem_id, stage, cid)
        return escape_row(quarantine_row(q, self.config_hash))

    # -- verdicts -------------------------------------------------------------------------

    def _verify(
        self, source: str, verifier: Verifier, items: list[tuple[Problem, Chain]]
    ) -> tuple[list[list[StepVerdict] | None], list[str]]:
        """Verdicts per item; on a batch failure, retry item by item to isolate the bad one."""
        try:
            return list(verifier.verify(items)), [""] * len(items)
        except Exception as exc:
            if len(items) == 1:
                return [None], [f"{source} failed: {type(exc).__name__}: {exc}"[:300]]
        out: list[list[StepVerdict] | None] = []
        errors = []
        for item in items:
            vs, err = self._verify(source, verifier, [item])
            out.extend(vs)
            errors.extend(err)
        return out, errors

    def label(
        self, problems: list[Problem], samples: dict[str, Sampled] | None,
        questions: dict[str, list[Any]] | None = None,
    ) -> UnitResult:
        """The unit's rows: `samples` are the sampled chains per problem id (the sampling
        request's seed and the engine's result), `questions` MC's
        bare-question completions per problem id that the job already asked for
        (`verifiers.mc.question`; None: MC asks itself)."""
        res = UnitResult()
        per_problem: dict[str, list[Chain]] = {}
        for p in problems:
            chains = self._chains(p, (samples or {}).get(p.problem_id), res)
            per_problem[p.problem_id] = chains
            if not p.given_chains:
                got = (samples or {}).get(p.problem_id)
                res.counts["chains_sampled"] += len(got[1].completions) if got else 0
        failed: dict[str, str] = {}  # problem_id -> reason
        verdicts: dict[str, dict[str, list[StepVerdict]]] = {}  # chain_id -> source -> list
        for domain in ("math", "code"):
            items = [
                (p, c) for p in problems if p.domain == domain for c in per_problem[p.problem_id]
            ]
            if not items:
                continue
            for source, verifier in _exact_first(self.sources(domain)):
                todo = items
                if not registry.get(source).exact:
                    # The exact checks have run: the sources after them see each chain's
                    # earliest proven error (Monte Carlo searches only the steps before it).
                    todo = [(p, _proven(c, verdicts.get(c.chain_id, {}))) for p, c in items]
                if registry.get(source).role == Role.whole_chain:
                    # Nothing to check the end against and no outcome given: no verdict.
                    todo = [(p, c) for p, c in todo
                            if p.reference or p.tests or c.given_outcome is not None]
                if not todo:
                    continue
                if source == "mc":
                    verifier.given_questions = questions or {}
                try:
                    results, errors = self._verify(source, verifier, todo)
                finally:
                    if source == "mc":
                        verifier.given_questions = {}
                for (p, c), vs, err in zip(todo, results, errors, strict=True):
                    if vs is None:
                        failed.setdefault(p.problem_id, err)
                    else:
                        verdicts.setdefault(c.chain_id, {})[source] = vs
        return self._rows(problems, per_problem, verdicts, failed, res)

    def _rows(self, problems, per_problem, verdicts, failed, res: UnitResult) -> UnitResult:
        policy, after = self.cfg.labels.policy, self.cfg.labels.after_error
        for p in problems:
            res.counts["problems_in"] += 1
            chains = per_problem[p.problem_id]
            if p.problem_id in failed:
                res.counts["problems_quarantined"] += 1
                res.quarantine.append(self._q(p, failed[p.problem_id], "verify"))
                continue
            kept = 0
            for c in chains:
                vs = verdicts.get(c.chain_id, {})
                comb = combine(vs, len(c.steps), policy, after, self.cfg.labels.consensus,
                               self.cfg.labels.outcome_fill)
                if not comb.keep:
                    res.counts["chains_filtered"] += 1
                    res.quarantine.append(self._q(p, comb.reason, "filter", c.chain_id, c.text))
                    continue
                outcome = next((vs[s] for s in registry.names(Role.whole_chain) if s in vs),
                               None)
                lc = LabeledChain(
                    problem=p, chain=c, prompt=p.question, verdicts=vs, labels=comb.labels,
                    first_error_step=comb.first_error_step,
                    final_answer=_final_answer(p, c),
                    outcome_correct=outcome[-1].label if outcome else c.given_outcome,
                )
                row = labeled_row(lc, policy, self.config_hash)
                unwritable = unwritable_field(row)
                if unwritable:  # the last check before Parquet: set aside, never crash
                    res.counts["chains_quarantined"] += 1
                    why = f"the labeled row cannot be written: {unwritable}"
                    res.quarantine.append(self._q(p, why, "write", c.chain_id, c.text))
                    continue
                res.rows.append(row)
                kept += 1
                res.counts["chains"] += 1
                res.counts["steps"] += len(c.steps)
                res.counts["steps_labeled"] += sum(x is not None for x in comb.labels)
                res.tokens["sample"] += c.tokens
                res.tokens["rollout"] += sum(v.tokens for src in vs.values() for v in src)
                res.counts["rollouts"] += sum(v.rollouts for src in vs.values() for v in src)
            # The completer's rollouts from the bare question (its self-confidence) are the
            # problem's, shared by its chains: counted once, whatever the policy kept.
            sc = next((v.self_confidence for c in chains
                       for v in verdicts.get(c.chain_id, {}).get("mc", ())[:1]
                       if v.self_confidence is not None), None)
            if sc is not None:
                res.tokens["rollout"] += sc.tokens
                res.counts["rollouts"] += sc.rollouts
            if kept:
                res.counts["problems_labeled"] += 1
            else:
                res.counts["problems_quarantined"] += 1
                why = "no chain survived splitting/filtering" if chains else "no usable chain"
                res.quarantine.append(self._q(p, why, "split"))
        res.counts["rows"] = len(res.rows)
        return res


def _exact_first(sources: dict[str, Any]) -> list[tuple[str, Any]]:
    """The sources in the order they run: the exact checks (`answer`, `calc`, `tests`) first,
    so that what they prove reaches the sources after them; otherwise registry order."""
    return sorted(sources.items(), key=lambda kv: not registry.get(kv[0]).exact)


def _proven(chain: Chain, verdicts: dict[str, list[StepVerdict]]) -> Chain:
    """`chain` with its earliest proven error from the exact sources' `verdicts`."""
    found = proven_error(verdicts)
    return chain if found == chain.proven_error else replace(chain, proven_error=found)


def _final_answer(problem: Problem, chain: Chain) -> str:
    if problem.domain != "math":
        return ""

    answer, _ = extract_answer(chain.text)
    return answer or ""
