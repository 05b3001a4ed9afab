"""Imported by the calculator workers' fork server: the checks' imports and the second reader's
parser tables are built once there, and every worker forked from it starts with them."""

from verifiers.calculator.chain_algebra import warm_checks

try:
    warm_checks()
except Exception:  # the workers warm themselves again (`KillableWorker`'s warmup)
    pass
