"""Simulation (no model): first-error accuracy and rollout cost of the MC estimators.

Synthetic chains of M steps with a known first error e (uniform over 0..M-1; with
`--p-clean`, some chains have no error and a right final answer). A stochastic fake engine
completes a prefix correctly with probability p_correct_prefix when the prefix is still error
free, p_wrong_prefix once it contains the error. Everything runs through the real driver
(`MonteCarloVerifier`, real answer check), one batched `complete()` call per round.

Reported per (preset, estimator, M): first-error accuracy (predicted first error == e, an
undecided chain counts as wrong), rollouts and generated tokens per chain, rounds (= engine
batches), completions per batch, and rollouts relative to per_step at the same M.

    .venv/bin/python benchmarks/bench_mc_simulation.py                # easy + hard presets
    .venv/bin/python benchmarks/bench_mc_simulation.py --preset hard --chunks 8 1 --chains 2000
    .venv/bin/python benchmarks/bench_mc_simulation.py --p-correct-prefix 0.5 --p-wrong-prefix 0.1
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeling.engine_request import EngineRequest  # noqa: E402
from labeling.first_error import located_first_error  # noqa: E402
from labeling.schema import Chain, Problem  # noqa: E402
from tests.fakes import FakeCompleter  # noqa: E402
from verifiers.rollout.driver import MonteCarloVerifier  # noqa: E402

PRESETS = {"easy": (0.8, 0.01), "hard": (0.3, 0.05)}
ERR = "[err]"


def make_chains(
    n_chains: int, length: int, p_clean: float, seed: int
) -> list[tuple[Problem, Chain, int]]:
    """(problem, chain, true first error or -1) triples; the error step is marked in its text
    so that the fake engine can tell a wrong prefix from a good one."""
    rng = random.Random(f"chains/{seed}/{length}")
    out = []
    for c in range(n_chains):
        error = -1 if rng.random() < p_clean else rng.randrange(length)
        steps = [f"Step {i + 1}: {ERR if i == error else 'ok'}" for i in range(length)]
        steps[-1] += f" The answer is \\boxed{{{41 if error >= 0 else 42}}}."
        pid = f"p{length}-{c}"
        problem = Problem(pid, "math", "simulation", f"Question {c}?", reference="42")
        chain = Chain(pid, f"c{length}-{c}", 0, "\n\n".join(steps), tuple(steps), "sim")
        out.append((problem, chain, error))
    return out


def run(
    chains: list[tuple[Problem, Chain, int]],
    p_ok: float,
    p_bad: float,
    estimator: str,
    k: int,
    chunk: int,
    confirm: int,
    seed: int,
    max_rounds: int,
) -> dict[str, float]:
    def p_success(req: EngineRequest) -> float:
        return p_bad if ERR in req.prefix else p_ok

    completer = FakeCompleter(p_success, right="42", wrong="41", tokens=100)
    verifier = MonteCarloVerifier(
        completer,
        estimator=estimator,
        k=k,
        chunk=chunk,
        confirm=confirm,
        seed=seed,
        max_rounds=max_rounds,
    )
    verdicts = verifier.verify([(p, c) for p, c, _ in chains])
    hits = sum(
        located_first_error([v.label for v in vs]) == error
        for vs, (_, _, error) in zip(verdicts, chains, strict=True)
    )
    s, n = verifier.last_stats, len(chains)
    return {
        "accuracy": hits / n,
        "rollouts": s.completions / n,
        "tokens": s.tokens / n,
        "rounds": s.rounds,
        "per_batch": s.completions / max(s.rounds, 1),
        "unfinished": s.unfinished_chains,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", choices=[*PRESETS, "both"], default="both")
    ap.add_argument("--p-correct-prefix", type=float, help="overrides the preset")
    ap.add_argument("--p-wrong-prefix", type=float, help="overrides the preset")
    ap.add_argument("--lengths", type=int, nargs="+", default=[4, 8, 16, 32])
    ap.add_argument("--chains", type=int, default=1000, help="chains per length")
    ap.add_argument("--n-per-step", type=int, default=8, help="per_step: rollouts per step (N)")
    ap.add_argument("--k", type=int, default=8, help="binary_search: max rollouts per probe")
    ap.add_argument(
        "--chunks", type=int, nargs="+", default=[8, 2],
        help="binary_search: rollouts per request (k: no early stop; 1: stop at first success)",
    )  # fmt: skip
    ap.add_argument(
        "--confirms", type=int, nargs="+", default=[1, 2],
        help="binary_search: successes needed per on-track probe (1: first success settles)",
    )  # fmt: skip
    ap.add_argument("--p-clean", type=float, default=0.0, help="share of error-free chains")
    ap.add_argument("--max-rounds", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    if args.p_correct_prefix is not None or args.p_wrong_prefix is not None:
        base = PRESETS["hard"]
        presets = {
            "custom": (
                base[0] if args.p_correct_prefix is None else args.p_correct_prefix,
                base[1] if args.p_wrong_prefix is None else args.p_wrong_prefix,
            )
        }
    else:
        presets = PRESETS if args.preset == "both" else {args.preset: PRESETS[args.preset]}

    print(f"chains/length={args.chains} p_clean={args.p_clean} seed={args.seed}")
    header = (
        f"{'preset':<14}{'estimator':<26}{'M':>4}{'accuracy':>10}{'rollouts':>10}"
        f"{'vs per_step':>12}{'tokens':>9}{'rounds':>8}{'compl/batch':>13}"
    )
    for name, (p_ok, p_bad) in presets.items():
        print(f"\n{name}: p_correct_prefix={p_ok} p_wrong_prefix={p_bad}")
        print(header)
        for length in args.lengths:
            chains = make_chains(args.chains, length, args.p_clean, args.seed)
            n = args.n_per_step
            runs = [("per_step", f"per_step N={n}", n, n, 1)]
            runs += [
                ("binary_search", f"binary k={args.k} ch={c} cf={m}", args.k, c, m)
                for m in args.confirms
                for c in args.chunks
            ]
            base_rollouts = None
            for est, label, k, chunk, m in runs:
                r = run(chains, p_ok, p_bad, est, k, chunk, m, args.seed, args.max_rounds)
                base_rollouts = base_rollouts or r["rollouts"]
                ratio = r["rollouts"] / base_rollouts if base_rollouts else float("nan")
                flag = f"  ({int(r['unfinished'])} unfinished)" if r["unfinished"] else ""
                print(
                    f"{name:<14}{label:<26}{length:>4}{r['accuracy']:>10.3f}"
                    f"{r['rollouts']:>10.1f}{ratio:>12.2f}{r['tokens']:>9.0f}"
                    f"{int(r['rounds']):>8}{r['per_batch']:>13.0f}{flag}"
                )


if __name__ == "__main__":
    main()
