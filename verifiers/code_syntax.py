"""The `tests` label source: prefix syntax per step of a code chain. Pure and cheap, no
sandbox (the unit tests themselves run once, as the `answer` source: `verifiers.code_tests`).

A code step is `incorrect` when the code up to it can never be continued into a program
(`labeling.steps.code.prefix_parses`), `correct` while it still can; prose steps and steps
after the first error are `unverifiable`. Its role in the label policies is `locating`
(`labeling.registry`): its `incorrect` proves the step wrong.
"""

from __future__ import annotations

from labeling.schema import Chain, Problem, Status, StepVerdict
from labeling.steps.code import code_prefixes, prefix_parses
from verifiers.base import ChainVerifier


def chain_text(chain: Chain) -> str:
    return chain.text or "\n\n".join(chain.steps)


def syntax_verdicts(problem: Problem, chain: Chain) -> list[StepVerdict]:
    """One verdict per step from the prefix-syntax check alone."""
    prefixes = code_prefixes(chain_text(chain), chain.steps, problem.entry_point, problem.question)
    if len(prefixes) != len(chain.steps):  # steps not found in any text: nothing to say
        return [StepVerdict.unverifiable("steps not found in the chain text")] * len(chain.steps)
    out: list[StepVerdict] = []
    failed, previous = -1, None
    for i, prefix in enumerate(prefixes):
        if prefix is None:
            out.append(StepVerdict.unverifiable("no code yet"))
        elif failed >= 0:
            out.append(StepVerdict.unverifiable(f"after the syntax error in step {failed}"))
        elif prefix == previous:
            out.append(StepVerdict.unverifiable("no new code in this step"))
        else:
            ok, why = prefix_parses(prefix)
            if ok:
                out.append(StepVerdict(Status.CORRECT, True, None, f"code so far {why}"))
            else:
                failed = i
                out.append(StepVerdict(Status.INCORRECT, False, None, f"cannot parse: {why}"))
        previous = prefix
    return out


class SyntaxVerifier(ChainVerifier):
    """Exact per-step syntax source for code chains (see the module docstring)."""

    name = "tests"

    def verify_chain(self, problem: Problem, chain: Chain) -> list[StepVerdict]:
        return syntax_verdicts(problem, chain)
