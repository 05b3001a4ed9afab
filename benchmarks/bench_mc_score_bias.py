"""The mean of `mc_scores` against the true success rate, exactly, under early stopping.

    .venv/bin/python benchmarks/bench_mc_score_bias.py

For each MC setting and true rate p, every sequence of rollout outcomes is enumerated with
its probability, the estimator is driven through it as the job drives it (one request of
`chunk` rollouts at a time until the step is settled or its budget is spent), and two scores
are averaged: the plain fraction successes/rollouts (what `mc_scores` held before) and the
estimator's score (the unbiased estimate under the stopping rule that ran). Prints Markdown.
"""

from __future__ import annotations

import itertools
import math

from labeling.mc import Absolute, ChainFacts, PerStep

SETTINGS = [  # (k, chunk, confirm) of the absolute rule: its defaults first
    (Absolute().k, Absolute().chunk, Absolute().confirm),
    (5, 1, 1),
    (8, 1, 1),
    (5, 5, 1),
]
RATES = (0.2, 0.5, 0.8)


def means(p: float, k: int, chunk: int, confirm: int) -> tuple[float, float]:
    plain = ours = 0.0
    for seq in itertools.product((True, False), repeat=k * confirm):
        weight = math.prod(p if x else 1 - p for x in seq)
        est = PerStep(ChainFacts(2, outcome=False),
                      Absolute(k=k, chunk=chunk, confirm=confirm))
        used = 0
        while est.pending():
            n = est.pending()[0].n
            est.record(0, list(seq[used : used + n]))
            used += n
        plain += weight * sum(seq[:used]) / used
        ours += weight * est.score(0)
    return plain, ours


def main() -> None:
    print("| k | chunk | confirm | true rate | mean of successes/rollouts | mean of mc_scores |")
    print("|---|---|---|---|---|---|")
    for k, chunk, confirm in SETTINGS:
        for p in RATES:
            plain, ours = means(p, k, chunk, confirm)
            print(f"| {k} | {chunk} | {confirm} | {p} | {plain:.3f} | {ours:.3f} |")


if __name__ == "__main__":
    main()
