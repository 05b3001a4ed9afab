"""Label sources behind one protocol (`Verifier`), each returning one `StepVerdict` per step.

| source (`labels=`) | class                                   | module                  |
|--------------------|-----------------------------------------|-------------------------|
| answer (math)      | `AnswerVerifier`                        | verifiers/answer.py     |
| answer (code)      | `CodeTestVerifier`                      | verifiers/code_tests.py |
| answer (given)     | `GivenOutcome`                          | verifiers/base.py       |
| calc               | `CalculatorVerifier`                    | verifiers/calculator/   |
| tests              | `SyntaxVerifier`                        | verifiers/code_syntax.py |
| mc                 | `MonteCarloVerifier`                    | verifiers/mc/      |
| judge              | `JudgeVerifier`                         | verifiers/judge.py      |

Heavy names (sympy, the sandbox) load on first use, so `import verifiers` costs nothing.
Never imports `pipelines`.
"""

from importlib import import_module
from typing import Any

from verifiers.base import ChainVerifier, GivenOutcome, Verifier

_LAZY = {
    "AnswerVerifier": "verifiers.answer",
    "CodeTestVerifier": "verifiers.code_tests",
    "SyntaxVerifier": "verifiers.code_syntax",
    "CalculatorVerifier": "verifiers.calculator.verifier",
    "MonteCarloVerifier": "verifiers.mc.driver",
    "JudgeVerifier": "verifiers.judge",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'verifiers' has no attribute {name!r}")


__all__ = ["ChainVerifier", "GivenOutcome", "Verifier", *_LAZY]
