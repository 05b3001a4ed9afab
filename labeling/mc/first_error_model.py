"""The `posterior` rule's model: where a chain's first error lies, given everything known.

A chain has steps 0..M-1; its first error e is one of them, or `M` ("none": every step is
right). Prefix i (the question and steps 0..i) is *on track* when e > i. The model puts a
probability on every e from all of this at once:

- the completer's self-confidence s on the problem (its success rate from the bare question),
  unknown, with the Jeffreys posterior of the base counts (question rollouts, the problem's
  other sampled chains; never this chain's own outcome, which enters below);
- the prior over e. For a chain the completer sampled itself (`sampled`) it errs at every
  step with the same hazard h, (1 - h)^M = s: P(e = i) = (1 - h)^i h, P(none) = s. For a chain
  another model wrote, nothing is known of that model: e is uniform over the M + 1 values.
  Steps that cannot err (`may_err` False: they name nothing or restate, `labeling.mc.spared`) get no
  mass, and the hazard acts at the A steps that can, (1 - h)^A = s;
- the chain's own outcome y: a wrong answer means an error (P(y wrong | none) = 0); a right
  one after an error at i is a recovery, as likely as an off-track rollout from i succeeds;
- every probed prefix's counts (successes x_i of decided n_i), jointly. An on-track prefix
  succeeds at a rate p_i ~ Beta(KAPPA_ON q_i, KAPPA_ON (1 - q_i)) around the profile
  q_i = s^(1 - g (i + 1) / M): g = 1 is the hazard model's (the rate rises from s at the
  question to near 1 at the last step of a right chain), g = 0 a flat rate s. For sampled
  chains g is unknown, half the prior weight on the hazard model's rise and the rest on a
  slower one or none (`PROFILES`): a completer whose rate does not rise along a right chain
  (it stops early and reads a number off the prefix) would otherwise make right late steps
  look wrong, and the counts alone cannot tell a flat profile from an early error. For given
  chains g = 0: how the completer fares on another model's right chain is unknown, and a
  flat rate is the assumption under which failures say least. From the first step that
  cannot err on, the profile is scaled by an unknown d (`DERAIL`): such a line can derail
  the completer without being wrong, so the rate after it is its own baseline, and the
  question's rate no reference for the steps after it. An off-track prefix succeeds
  at a recovery rate r q_i, never above the on-track rate: r ~ Beta(1, 9), mean RECOVERY
  (a wrong step that the completer often recovers from is read as right, never the
  reverse; a Beta on the rate itself, with its long tail, let 7 successes in 28 at the
  question's own rate pass as a recovery). The rates are integrated out (beta-binomial on
  track, a quadrature over r off track), s and g over a grid.

`FirstErrorModel.posterior(counts)` gives P(e <= i) for every step and the rollouts' own
Bayes factor for "e <= i" against "e > i": the posterior odds over the odds before any
rollout (prior and own outcome alone), so a label can be required to rest on the rollouts
and not on the prior. `gains(counts, n)` gives each prefix's expected information about e
from n more rollouts (the search's choice).

Promises: finite probabilities in [0, 1], finite Bayes factors > 0, deterministic, for any
counts (huge counts only cost time). Not promised: that the world follows the model; the
labels' level holds for chains that do (`benchmarks/bench_mc_simulation.py` measures it on
chains that follow the hazard model, a flat-rate variant and chains another model wrote).
Pure: numpy only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

KAPPA_ON = 20.0  # a right prefix's rate around its profile q_i: sd 0.11 at q = 0.5
RECOVERY = 0.1  # an off-track prefix's mean rate, as a share r of the on-track one q_i
RHO = 32  # Gauss-Legendre points over r ~ Beta(1, 1/RECOVERY - 1): P(r > 0.5) = 0.002
GRID = 48  # points of the self-confidence grid
# (g, prior weight): how the rate rises along a right chain, see the module docstring
PROFILES = {True: ((1.0, 0.5), (0.5, 0.25), (0.0, 0.25)), False: ((0.0, 1.0),)}
_TINY = 1e-12
# (d, prior weight): a step that names nothing or restates (`may_err` False) cannot err, but it can
# derail a weak completer (it goes on restating the goal), so the rate from it on is d times
# the profile's, d unknown: half the weight on "no change", most of the rest on a mild fall,
# a thin tail for a completer the line stops cold. The rate after such a step is then its own
# baseline, and only a fall across a step that may err reads as an error. The tail trades
# recall on derailed chains for blaming the right step (`bench_mc_simulation.py --opener`;
# the figures behind these weights: docs/benchmarks.md).
DERAIL = ((1.0, 0.5), (0.7, 0.2), (0.5, 0.2), (0.25, 0.05), (0.1, 0.05))
_NEVER = -1e4  # log prior of a step that cannot be the first error (exp underflows to 0)


@dataclass(frozen=True, slots=True)
class ErrorPosterior:
    """`p_le[i]` = P(e <= i) for steps 0..M-1; `factor[i]` the rollouts' Bayes factor of
    e <= i against e > i for steps 0..M-2 (1.0 where no rollout speaks)."""

    p_le: tuple[float, ...]
    factor: tuple[float, ...]

    def p_gt(self, i: int) -> float:
        return 1.0 - self.p_le[i]


def _log_rising(a: np.ndarray, k: int) -> np.ndarray:
    """log of a (a + 1) ... (a + k - 1), elementwise (0 for k = 0)."""
    if k <= 0:
        return np.zeros_like(a)
    return np.log(a[..., None] + np.arange(k)).sum(-1)


def _log_bb(x: int, n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log P(a given sequence with x successes in n | p ~ Beta(a, b)), elementwise."""
    return _log_rising(a, x) + _log_rising(b, n - x) - _log_rising(a + b, n)


class FirstErrorModel:
    """The model of the module docstring for one chain of `n_steps` steps.

    `base`: the self-confidence counts (successes, decided) without this chain's outcome;
    `outcome`: the chain's own answer (None: unknown); `sampled`: the completer wrote it;
    `proven`: a step an exact check proved wrong (None: none), so e <= proven: the prior
    is conditioned on it (no mass after it, nor on "none")."""

    def __init__(self, n_steps: int, base: tuple[int, int], outcome: bool | None,
                 sampled: bool, may_err: Sequence[bool] | None = None,
                 proven: int | None = None) -> None:
        if n_steps < 1:
            raise ValueError(f"a chain needs a step, got n_steps={n_steps}")
        if not 0 <= base[0] <= base[1]:
            raise ValueError(f"base counts must be 0 <= successes <= decided, got {base}")
        if may_err is not None and len(may_err) != n_steps:
            raise ValueError(f"may_err needs one flag per step ({n_steps}), got {len(may_err)}")
        if proven is not None and not 0 <= proven < n_steps:
            raise ValueError(f"a proven error at step {proven} of {n_steps} steps")
        m = self.n_steps = n_steps
        # The last step may always err: a wrong outcome needs somewhere to lie; so may a step
        # proven wrong.
        allowed = [True] * m if may_err is None else [*map(bool, may_err[:-1]), True]
        if proven is not None:
            allowed[proven] = True
        u = (np.arange(GRID) + 0.5) * (math.pi / 2) / GRID
        sn, cs = np.sin(u), np.cos(u)
        a, b = base[0] + 0.5, base[1] - base[0] + 0.5
        # s = sin^2 u: the Beta(a, b) density times ds/du is sin^(2a-1) cos^(2b-1)
        log_w = (2 * a - 1) * np.log(sn) + (2 * b - 1) * np.log(cs)
        profiles = PROFILES[sampled]
        s = np.clip(np.tile(sn * sn, len(profiles)), _TINY, 1 - _TINY)
        g = np.repeat([p for p, _ in profiles], GRID)
        log_w = np.tile(log_w, len(profiles)) + np.repeat([math.log(w) for _, w in profiles],
                                                          GRID)
        steps = np.arange(max(m - 1, 0))[:, None]
        spared = [i for i in range(m - 1) if not allowed[i]]
        if spared:  # from the first spared step on, the rate is d s: d unknown (DERAIL)
            k, cols = len(DERAIL), len(s)
            s, g = np.tile(s, k), np.tile(g, k)
            log_w = np.tile(log_w, k) + np.repeat([math.log(w) for _, w in DERAIL], cols)
            d = np.repeat([x for x, _ in DERAIL], cols)
            level = np.where(steps >= spared[0], d * s, s)  # (M-1, C)
        else:
            level = np.broadcast_to(s, (max(m - 1, 0), len(s)))
        q = np.clip(level ** (1 - g * (steps + 1) / m), _TINY, 1 - 1e-6)  # (M-1, C)
        self._on = (KAPPA_ON * q, KAPPA_ON * (1 - q))
        # r ~ Beta(1, B), density B (1 - r)^(B - 1): Gauss-Legendre on [0, 1], exact for the
        # polynomial integrands of up to RHO x 2 - B degrees (counts of up to 55 rollouts)
        t, w = np.polynomial.legendre.leggauss(RHO)
        r, big_b = (t + 1) / 2, 1 / RECOVERY - 1
        self._off_w = np.log(w / 2 * big_b * (1 - r) ** (big_b - 1))[:, None]  # (RHO, 1)
        p_off = np.clip(r[:, None, None] * q[None], _TINY, 1 - 1e-6)  # (RHO, M-1, C)
        self._off_logs = (np.log(p_off), np.log1p(-p_off))
        off = RECOVERY * q
        # prior over e (rows 0..M) per grid column, with the own outcome's likelihood
        never = np.full_like(s, _NEVER)
        if sampled:  # the hazard acts at the steps that may err: P(none) = keep^A = s
            keep = s ** (1 / sum(allowed))  # 1 - h
            before = np.cumsum([0, *allowed])  # steps that may err before step i
            rows = [np.log(np.clip(keep ** before[i] * (1 - keep), _TINY, None)) if allowed[i]
                    else never for i in range(m)]
            rows.append(np.log(s))
        else:
            rows = [np.full_like(s, -math.log(sum(allowed) + 1)) if a else never
                    for a in allowed]
            rows.append(np.full_like(s, -math.log(sum(allowed) + 1)))
        prior = np.stack(rows)
        if proven is not None:  # e <= proven: the rows after it (and "none") get no mass
            prior[proven + 1:] = _NEVER
        if outcome is not None:
            recover = np.vstack([off, RECOVERY * np.ones_like(s)[None]])  # error at 0..M-1
            right = np.vstack([recover, np.ones_like(s)[None]])
            lik = right if outcome else np.vstack([1 - recover, np.zeros_like(s)[None]])
            prior = prior + np.log(np.clip(lik, 1e-300, None))
        self._prior = prior + log_w  # (M+1, C), unnormalised log joint before any rollout
        self._odds0 = _log_odds(self._prior)

    # --- the posterior --------------------------------------------------------------------

    def _log_on(self, i: int, x: int, n: int) -> np.ndarray:
        """log P(a sequence of x successes in n from prefix i | on track), per grid column."""
        return _log_bb(x, n, self._on[0][i], self._on[1][i])

    def _log_off(self, i: int, x: int, n: int) -> np.ndarray:
        """The same off track: the rate r q_i, r integrated over its quadrature."""
        logs = self._off_w + x * self._off_logs[0][:, i] + (n - x) * self._off_logs[1][:, i]
        top = logs.max(0)  # (C,)
        return top + np.log(np.exp(logs - top).sum(0))

    def _loglik(self, counts: Sequence[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
        """Per prefix and grid column: log-likelihood of its counts if on track / off track."""
        cols = self._prior.shape[1]
        on, off = np.zeros((self.n_steps - 1, cols)), np.zeros((self.n_steps - 1, cols))
        for i, (x, n) in enumerate(counts[: self.n_steps - 1]):
            if n:
                on[i], off[i] = self._log_on(i, x, n), self._log_off(i, x, n)
        return on, off

    def _log_joint(self, counts: Sequence[tuple[int, int]]) -> np.ndarray:
        """Unnormalised log P(e, grid column) given the counts."""
        on, off = self._loglik(counts)
        zero = np.zeros((1, on.shape[1]))
        # e: prefixes < e on track, prefixes >= e off track
        on_before = np.vstack([zero, np.cumsum(on, 0)])  # row e: sum over i < e (e <= M-1)
        off_from = np.vstack([np.cumsum(off[::-1], 0)[::-1], zero])  # row e: sum over i >= e
        return self._prior + np.vstack([on_before + off_from, on_before[-1:]])

    def _joint(self, counts: Sequence[tuple[int, int]]) -> np.ndarray:
        """Normalised P(e, grid column) given the counts."""
        log_j = self._log_joint(counts)
        joint = np.exp(log_j - log_j.max())
        return joint / joint.sum()

    def posterior(self, counts: Sequence[tuple[int, int]]) -> ErrorPosterior:
        """P(e <= i) and the rollouts' Bayes factors, from per-prefix (successes, decided)
        for steps 0..M-2 (steps not probed: (0, 0))."""
        log_j = self._log_joint(counts)
        odds = _log_odds(log_j)  # log P(e <= i) - log P(e > i), i = 0..M-1
        p_le = _prob(odds)
        factor = np.exp(np.clip(odds - self._odds0, -690, 690))[: self.n_steps - 1]
        return ErrorPosterior(tuple(float(p) for p in p_le), tuple(float(f) for f in factor))

    def gains(self, counts: Sequence[tuple[int, int]], n: int) -> list[float]:
        """Expected information about e (bits) from n more decided rollouts of each prefix
        0..M-2, given the counts so far."""
        joint = self._joint(counts)
        h_now = _entropy(joint.sum(1))
        out = []
        for i in range(self.n_steps - 1):
            by_x = self._by_outcome(joint, counts, i, n)
            p_x = by_x.sum(0)
            h_after = sum(p_x[k] * _entropy(by_x[:, k] / p_x[k]) for k in range(n + 1)
                          if p_x[k] > 0)  # fmt: skip
            out.append(max(float(h_now - h_after), 0.0))
        return out

    def predictive(self, counts: Sequence[tuple[int, int]], i: int, n: int) -> list[float]:
        """P(k successes in n more decided rollouts of prefix i | the counts), k = 0..n."""
        p_x = self._by_outcome(self._joint(counts), counts, i, n).sum(0)
        return [float(p) for p in p_x / p_x.sum()]

    def _by_outcome(self, joint: np.ndarray, counts: Sequence[tuple[int, int]], i: int,
                    n: int) -> np.ndarray:
        """P(e, k successes in n more rollouts of prefix i), (M+1, n+1)."""
        x0, n0 = counts[i] if i < len(counts) else (0, 0)
        ks = range(n + 1)
        log_comb = [math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) for k in ks]
        pred = []
        for log_lik in (self._log_on, self._log_off):
            # the next n given the counts so far: P(all) / P(so far), per column
            now = log_lik(i, x0, n0)
            lp = np.stack([log_comb[k] + log_lik(i, x0 + k, n0 + n) - now for k in ks], 1)
            pred.append(np.exp(lp))  # (C, n+1)
        # e > i: prefix i on track; e <= i: off track
        return np.vstack([joint[: i + 1] @ pred[1], joint[i + 1:] @ pred[0]])


def _prob(log_odds: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(log_odds, -700, 700)))


def _log_odds(log_j: np.ndarray) -> np.ndarray:
    """log P(e <= i) - log P(e > i) for i = 0..M-1, from a log joint over (e, column); each
    side summed on its own (no 1 - p: no cancellation near certainty)."""
    top = log_j.max(1, keepdims=True)
    log_pe = top[:, 0] + np.log(np.exp(log_j - top).sum(1))  # per e, each row on its own
    le = np.logaddexp.accumulate(log_pe)[:-1]
    gt = np.logaddexp.accumulate(log_pe[::-1])[::-1][1:]
    return np.nan_to_num(le - gt, nan=0.0, posinf=700.0, neginf=-700.0)


def _entropy(p: np.ndarray) -> float:
    """Shannon entropy in bits."""
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


__all__ = ["ErrorPosterior", "FirstErrorModel"]
