"""The `judge` label source: an LLM critic names each chain's earliest wrong step.

`JudgeVerifier.verify(items)` sends one critic `EngineRequest` per chain (the problem and the
tagged steps, `labeling.judge.protocol.build_prompt`), each asking for `votes` samples, in ONE call
of the `JudgeModel` (the engine batches them over its actors); every sample is parsed
defensively (the answer is read only from the protocol's place, never from the solution text
the critic quotes) and the votes become per-step verdicts under the vote rule `vote`
(`labeling.judge.protocol.JudgeVote`: majority of all votes by default, unparsable votes counted as
abstentions; `labeling.judge.protocol` documents each rule).

`protocol="sections"` (reasoning traces cut into sections) asks DeltaBench's question
instead: every section numbered from 1 and judged on its own, the critic listing each wrong
one (`labeling.judge.sections`), so a slip and its later correction get their own labels.

The `JudgeModel` is the only thing that touches a model: `pipelines/engine/judge.py` implements
it with the engine pool (its own pool when the judge's model differs from the sampler's),
tests with fakes. Seeds derive from (seed, chain id), so the same config gives the same
verdicts. Not promised: that the judge is right; it is a model (see docs/benchmarks.md's
label-quality table for how often it agrees with human labels).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from labeling.engine_request import EngineRequest
from labeling.engine_result import Completion, Finish
from labeling.ids import derive_seed
from labeling.judge.protocol import (
    JudgeAnswer,
    JudgeVote,
    build_prompt,
    judge_verdicts,
    parse_answer,
)
from labeling.judge.sections import (
    SectionVote,
    build_sections_prompt,
    parse_sections_answer,
    section_verdicts,
)
from labeling.schema import Chain, Problem, Status, StepVerdict

PROTOCOLS = ("first_error", "sections")


@runtime_checkable
class JudgeModel(Protocol):
    def critique(self, requests: Sequence[EngineRequest]) -> list[list[Completion]]:
        """For each request, in order, up to `request.n` samples (fewer only when the engine
        could not run it, e.g. a prompt longer than the context)."""
        ...


class JudgeVerifier:
    """Label source `judge` (see the module docstring). Math chains only: the protocol asks
    for a paragraph index in a worked solution."""

    name = "judge"

    def __init__(
        self,
        critic: JudgeModel,
        votes: int = 3,
        max_tokens: int = 512,
        temperature: float = 0.7,
        seed: int = 0,
        max_evidence: int = 400,
        vote: JudgeVote | str = JudgeVote.majority,
        protocol: str = "first_error",
    ) -> None:
        if protocol not in PROTOCOLS:
            raise ValueError(f"judge protocol {protocol!r} is not one of {', '.join(PROTOCOLS)}")
        self.protocol = protocol
        if votes < 1:
            raise ValueError(f"judge votes must be >= 1, got {votes}")
        if vote not in set(JudgeVote):
            raise ValueError(f"judge vote {vote!r} is not one of {', '.join(JudgeVote)}")
        self.vote = JudgeVote(vote)
        self.critic = critic
        self.votes = votes
        self.max_tokens = max_tokens
        # One greedy vote is the protocol's single-answer mode; several votes need sampling.
        self.temperature = temperature
        self.seed = seed
        self.max_evidence = max_evidence

    def requests(self, items: Sequence[tuple[Problem, Chain]]) -> list[EngineRequest]:
        """One request per chain: the critic prompt as the user message, `votes` samples."""
        return [
            EngineRequest.user(
                build_sections_prompt(p.question, c.steps) if self.protocol == "sections"
                else build_prompt(p.question, c.steps),
                n=self.votes,
                seed=derive_seed(self.seed, "judge", c.chain_id),
                max_tokens=self.max_tokens,
                temperature=self.temperature,
            )
            for p, c in items
        ]

    def verify(self, items: Sequence[tuple[Problem, Chain]]) -> list[list[StepVerdict]]:
        todo = [(i, it) for i, it in enumerate(items) if it[1].steps]
        out: list[list[StepVerdict]] = [[] for _ in items]
        if not todo:
            return out
        results = self.critic.critique(self.requests([it for _, it in todo]))
        if len(results) != len(todo):
            raise RuntimeError(f"critic returned {len(results)} results for {len(todo)} requests")
        for (i, (_, chain)), samples in zip(todo, results, strict=True):
            n = len(chain.steps)
            if not samples:
                out[i] = [StepVerdict(Status.ERROR, None, None, "the critic returned nothing")] * n
            elif self.protocol == "sections":
                votes = [_parse_sections(s, n) for s in samples]
                out[i] = section_verdicts(votes, n, self.max_evidence, self.vote)
            else:
                answers = [_parse(s, chain.steps) for s in samples]
                out[i] = judge_verdicts(answers, n, self.max_evidence, self.vote)
        return out


def _parse(sample: Completion, steps: Sequence[str]) -> JudgeAnswer:
    """A vote, with the engine's reason when it never produced an answer."""
    n_steps = len(steps)
    if sample.finish is Finish.PROMPT_TOO_LONG:
        return JudgeAnswer(sample.text, None, "the critic prompt does not fit the judge's "
                            "model.max_model_len", sample.tokens)
    answer = parse_answer(sample.text, n_steps, sample.tokens, steps)
    if answer.first_error is None and sample.finish is Finish.LENGTH:
        return JudgeAnswer(answer.text, None, f"{answer.problem}; cut at max_tokens",
                            answer.tokens)
    return answer


def _parse_sections(sample: Completion, n_sections: int) -> SectionVote:
    """A section vote, with the engine's reason when it never produced an answer."""
    if sample.finish is Finish.PROMPT_TOO_LONG:
        return SectionVote(sample.text, None, "the critic prompt does not fit the judge's "
                           "model.max_model_len", sample.tokens)
    vote = parse_sections_answer(sample.text, n_sections, sample.tokens)
    if vote.errors is None and sample.finish is Finish.LENGTH:
        return SectionVote(vote.text, None, f"{vote.problem}; cut at max_tokens", vote.tokens)
    return vote


__all__ = ["JudgeModel", "JudgeAnswer", "JudgeVerifier"]
