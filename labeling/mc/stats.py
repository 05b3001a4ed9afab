"""The statistics behind the `fall` rule: Beta posteriors of success rates, compared.

A prefix's success rate p, after `successes` of `decided` rollouts reached the answer, has
the posterior Beta(successes + 1/2, failures + 1/2) under Jeffreys' prior Beta(1/2, 1/2), the
usual non-informative prior for a binomial rate (its intervals keep near their nominal
coverage even at small counts: Brown, Cai and DasGupta, 2001). Two rates are compared by the
Bayes factor `bayes_factor`: how much better "the step's rate fell to a small share of the
base rate" explains a prefix's counts than "it kept most of it", the base rate (the
completer's self-confidence) integrated over its own posterior. Pure Python: the regularized
incomplete beta function by its continued fraction, one integral by the midpoint rule after
s = sin^2(u), which removes the prior's singularities at 0 and 1.

Promises: `betainc` in [0, 1], `bayes_factor` finite and > 0, both deterministic; accurate
to about 1e-6 (relative) for counts up to a few hundred. Not promised: speed (each distinct
call costs a few milliseconds; results are cached by their counts).
"""

from __future__ import annotations

import math
from functools import lru_cache

PRIOR = 0.5  # Jeffreys: Beta(1/2, 1/2)
_GRID = 400  # midpoints of the integral over u in (0, pi/2)


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (modified Lentz), for x < (a + 1) / (a + b + 2)."""
    tiny, eps = 1e-300, 1e-14
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
                    -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < eps:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b): P(p < x) for p ~ Beta(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (a * math.log(x) + b * math.log1p(-x)
                 + math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b))
    if x < (a + 1.0) / (a + b + 2.0):
        return min(1.0, max(0.0, math.exp(log_front) * _betacf(a, b, x) / a))
    return min(1.0, max(0.0, 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b))


def posterior(successes: int, decided: int) -> tuple[float, float]:
    """The Beta parameters of a rate after `successes` of `decided` trials."""
    return successes + PRIOR, decided - successes + PRIOR


@lru_cache(maxsize=65536)
def bayes_factor(step: tuple[int, int], base: tuple[int, int], fell: float, kept: float) -> float:
    """P(counts | the step's rate fell) / P(counts | it kept up), for a prefix's counts
    `step` = (successes, decided): fell = the rate is r * s with r uniform on [0, fell],
    kept = r uniform on [kept, 1], s the base rate (the completer's self-confidence) with
    its posterior from the counts `base`. 0 < fell < kept < 1."""
    x, n = step
    f = n - x
    a2, b2 = posterior(*base)
    step_u = (math.pi / 2) / _GRID
    log_off, log_on = [], []
    for j in range(_GRID):
        u = (j + 0.5) * step_u
        sn, cs = math.sin(u), math.cos(u)
        t = sn * sn
        w = (2 * a2 - 1) * math.log(sn) + (2 * b2 - 1) * math.log(cs) - math.log(t)
        # Over r uniform on [lo, hi]: the integral of (r t)^x (1 - r t)^f dr is
        # B(x+1, f+1) (I_{hi t} - I_{lo t}) / t; B(x+1, f+1) cancels in the ratio.
        off = betainc(x + 1, f + 1, fell * t) / fell
        on = (betainc(x + 1, f + 1, t) - betainc(x + 1, f + 1, kept * t)) / (1 - kept)
        log_off.append(w + math.log(max(off, 1e-300)))
        log_on.append(w + math.log(max(on, 1e-300)))
    return math.exp(_logsumexp(log_off) - _logsumexp(log_on))


def _logsumexp(xs: list[float]) -> float:
    top = max(xs)
    return top + math.log(sum(math.exp(v - top) for v in xs))
