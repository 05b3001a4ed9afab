"""Simulation (no model): first-error accuracy and rollout cost of the MC estimators and rules.

Two modes. `--strengths` (the rules' table in docs/benchmarks.md): the completer's strength
is the variable. Each problem has a self-confidence s (the completer's success rate from the
bare question); its n chains are samples of the completer (`strength_chains`: the same hazard
of an error at every step, an error all but fatal, so the rate from a right prefix rises
towards 1 at the end; `--good` and `--bad` scale it per prefix and per chain). Every rule runs
the default search (binary_search) through the real driver, self-confidence and all (the
chains count as the completer's samples). Step-level truth gives, per rule:
- first-error precision: of the first errors a rule located by rollouts (a False before the
  last step with every step before it labeled right: a step claim), the share at the true
  first error; recall: of the chains whose error lies before the last step, the share whose
  first error the rule located exactly;
- step level (after_error=negative, as written; the last step aside): False precision, the
  share of False labels whose claim holds (a step claim at a located first error, prefix
  claims after it and `posterior`'s prefix claims where it located nothing: right when the
  true first error is at or before the step); error recall, the
  share of truly wrong prefixes labeled False; FP rate, the share of right prefixes labeled
  False;
- rollouts and requests per chain (the question's included: one request per problem) and
  rollouts per decided step, unverifiable steps (before the last).

The presets mode (default):

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
    .venv/bin/python benchmarks/bench_mc_simulation.py --strengths 0.05 0.1 0.2 0.3 0.5 0.9
    .venv/bin/python benchmarks/bench_mc_simulation.py --strengths 0.3 --posterior probe=1
    .venv/bin/python benchmarks/bench_mc_simulation.py --strengths 0.2 0.3 0.5 --decompose absolute
    .venv/bin/python benchmarks/bench_mc_simulation.py --strengths 0.2 0.3 0.5 --equal-precision
    .venv/bin/python benchmarks/bench_mc_simulation.py --strengths 0.2 --rules posterior \
        --opener 0.2 1 --posterior spare_steps=false
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeling.engine_request import EngineRequest  # noqa: E402
from labeling.first_error import located_first_error  # noqa: E402
from labeling.mc import METHODS, FirstErrorModel, Method, method  # noqa: E402
from labeling.schema import Chain, Problem  # noqa: E402
from tests.fakes import FakeCompleter  # noqa: E402
from verifiers.mc.driver import MonteCarloVerifier  # noqa: E402

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
        method=method("absolute", estimator=estimator, k=k, chunk=chunk, confirm=confirm),
        max_rounds=max_rounds, self_rollouts=0,
        max_tokens=100,
        temperature=0.8,
        seed=seed,
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


# --- the completer's strength as the variable ------------------------------------------


OPENER = "To solve this problem, we need to find the answer."  # names nothing


def _chains(s: float, problems: int, n: int, length: int, source: str, draw,
            opener: tuple[float, float] | None = None, seed: int = 0):
    """(items, truth, rates) of `problems` x `n` chains of `length` steps; `draw()` gives a
    chain's (first error, its answer is right, the rate from each right-or-wrong prefix i).
    `opener` (d's range): each chain starts with the same opening line, which names nothing
    (it cannot err) but derails the completer: every prefix's rate, the line's own included
    (s x d there), is d times the drawn one, d ~ U(opener) per problem."""
    items, truth, rates = [], [], {}
    rng = random.Random(f"opener/{seed}/{s}/{length}")
    for p in range(problems):
        question = f"Question {s}-{p}?"
        problem = Problem(f"q{s}-{p}", "math", "simulation", question, reference="42")
        rates[question] = s
        d = rng.uniform(*opener) if opener is not None else 1.0  # the same line, the same d
        for c in range(n):
            error, right, rate = draw()
            steps = [f"Step {i + 1} of {p}.{c}: {ERR if i == error else 'ok'}"
                     for i in range(length)]
            steps[-1] += f" The answer is \\boxed{{{42 if right else 41}}}."
            if opener is not None:  # a line in front; the drawn chain one step later
                # the problem's own line (rates are keyed by text): tagged in letters, as a
                # digit would make it name something
                steps = [f"{OPENER} ({''.join(chr(97 + int(x)) for x in f'{p:04d}')})", *steps]
                error = error + 1 if error >= 0 else error
                rate = lambda i, d=d, drawn=rate: d * (s if i == 0 else drawn(i - 1))  # noqa: E731
            text = "\n\n".join(steps)
            for i in range(len(steps) - 1):
                rates[text[: text.index(steps[i + 1])].rstrip()] = min(1.0, rate(i))
            items.append((problem, Chain(problem.problem_id, f"c{p}.{c}", c, text, tuple(steps),
                                         source)))
            truth.append(error)
    return items, truth, rates


def given_chains(s: float, problems: int, n: int, length: int, good: tuple[float, float],
                 bad: tuple[float, float], seed: int):
    """Like `strength_chains`, for chains another model wrote (`--given`): the first error is
    uniform over the steps (a chain is right with chance s), a right prefix's rate is r * s
    and from the error on b * s; the chains are no samples of the completer."""
    rng = random.Random(f"given/{seed}/{s}/{length}")

    def draw():
        error = -1 if rng.random() < s else rng.randrange(length)
        r = [rng.uniform(*(bad if 0 <= error <= i else good)) for i in range(length - 1)]
        return error, error < 0, lambda i: r[i] * s

    return _chains(s, problems, n, length, "given", draw)


def strength_chains(s: float, problems: int, n: int, length: int, good: tuple[float, float],
                    bad: tuple[float, float], seed: int, profile: str = "rising",
                    opener: tuple[float, float] | None = None):
    """(items, truth, rates): chains sampled by a completer of self-confidence `s`, the true
    first error of each (-1: none) and every prefix's success rate by its text.

    The completer errs at each step with the same hazard h, 1 - h = s^(1/M), and an error is
    all but fatal, so from a right prefix i it succeeds with s^((M-1-i)/M) (the rate rises as
    a right chain nears its answer; from the bare question: s), times r ~ U(good) per prefix
    (a right step changes it a little); from the error on, b * that with b ~ U(bad) per chain,
    and the chain itself reaches the answer with that chance too (a lucky recovery).

    `profile="flat"` (a robustness variant, `--profile flat`): the chains are sampled the same
    way, but the rate from a right prefix stays at the question's, s x r, at every step (a
    completer that does not get closer to the answer along a right chain, e.g. one that stops
    early and reads a number from the prefix)."""
    rng = random.Random(f"strength/{seed}/{s}/{length}")
    hazard = 1 - s ** (1 / length)

    def reach(i: int) -> float:  # from right prefix i (i = -1: the question)
        return s if profile == "flat" else s ** ((length - 1 - i) / length)

    def draw():
        error = next((i for i in range(length) if rng.random() < hazard), -1)
        b = rng.uniform(*bad)
        right = error < 0 or rng.random() < b * reach(error)
        r = [b * reach(i) if 0 <= error <= i else reach(i) * rng.uniform(*good)
             for i in range(length - 1)]
        return error, right, lambda i: r[i]

    return _chains(s, problems, n, length, "sim", draw, opener, seed)


class Settings(tuple):
    """(method, self_rollouts): what one row of the rules' table runs."""

    def __new__(cls, m: Method, self_rollouts: int = 16):
        return super().__new__(cls, (m, self_rollouts))


def strength_verdicts(items, rates, options: Settings, seed: int):
    """(verdicts per chain, the run's rollout stats) of one rule on the simulated chains."""
    def p_success(req: EngineRequest) -> float:
        return rates[req.prefix] if req.prefix else rates[req.user_text]

    completer = FakeCompleter(p_success, right="42", wrong="41", tokens=100)
    m, self_rollouts = options
    mc = MonteCarloVerifier(completer, method=m, self_rollouts=self_rollouts, max_tokens=100,
                            temperature=0.8, seed=seed, samples_of="sim")
    return mc.verify(items), mc.last_stats


def strength_run(items, truth, rates, options: Settings, seed: int) -> dict[str, float]:
    return strength_metrics(items, truth, *strength_verdicts(items, rates, options, seed))


def strength_metrics(items, truth, out, st) -> dict[str, float]:
    """The figures of the rules' table from one run's verdicts and stats."""
    t = {"placed": 0, "hit": 0, "errors": 0, "fp": 0, "good": 0, "fn": 0, "bad": 0,
         "decided": 0, "steps": 0, "false": 0}
    for verdicts, error in zip(out, truth, strict=True):
        labels = [v.label for v in verdicts][:-1]  # the last step is the chain's own answer
        # a located first error (a step claim): every step before it labeled right; a first
        # False after an unlabeled step is a prefix claim, scored at step level only
        first = located_first_error(labels)
        t["errors"] += 0 <= error < len(labels)
        if first is not None and first >= 0:
            t["placed"] += 1
            t["hit"] += first == error
        for i, x in enumerate(labels):
            wrong = 0 <= error <= i
            t["bad" if wrong else "good"] += 1
            t["fn" if wrong else "fp"] += (x is not False) if wrong else (x is False)
            t["false"] += x is False
        t["decided"] += sum(x is not None for x in labels)
        t["steps"] += len(labels)
    return {
        "precision": t["hit"] / t["placed"] if t["placed"] else float("nan"),
        "recall": t["hit"] / t["errors"] if t["errors"] else float("nan"),
        "placed": t["placed"], "hits": t["hit"],
        "fp_rate": t["fp"] / max(t["good"], 1), "fn_rate": t["fn"] / max(t["bad"], 1),
        # step level: every False a claim (a step claim at the first, prefix claims after it),
        # right when the true first error is at or before the step
        "false_precision": 1 - t["fp"] / t["false"] if t["false"] else float("nan"),
        "error_recall": 1 - t["fn"] / max(t["bad"], 1),
        "rollouts": st.completions / len(items),
        "requests": st.requests / len(items),
        "per_decided": st.completions / max(t["decided"], 1),
        "unverifiable": 1 - t["decided"] / max(t["steps"], 1),
        "unfinished": st.unfinished_chains,
    }


def decompose(args: argparse.Namespace) -> None:
    """`--decompose`: a rule's False labels read through the `posterior` rule's model. For
    every chain, the model's P(e <= i) from the counts the rule itself made (the problem's
    other chains as the self-confidence, as with self_rollouts=0); then how well calibrated
    that is on these chains (share of truly wrong prefixes per bin of P), and what the rule's
    error recall would be if it kept only the False labels whose claim its own counts make at
    least as likely to hold as not (P >= 0.5). Every rule runs without question rollouts
    (`posterior`'s other settings from `--posterior`), so the model sees the rule's base."""
    overrides = args.posterior if args.decompose == "posterior" else []
    options = settings_of(args.decompose, overrides, 0)
    print(f"rule {args.decompose}; {args.problems} problems x {args.n} chains of {args.length} "
          f"steps sampled by the completer; seed {args.seed}\n")
    print("| self-confidence | False precision | error recall | rollouts/chain | False "
          "labels with P >= 0.5: error recall, precision | False labels with P < 0.5 (on "
          "right prefixes) |")
    print("|---|---|---|---|---|---|")
    tables = []
    for s in args.strengths:
        items, truth, rates = strength_chains(s, args.problems, args.n, args.length,
                                              tuple(args.good), tuple(args.bad), args.seed)
        out, stats = strength_verdicts(items, rates, options, args.seed)
        r = strength_metrics(items, truth, out, stats)
        # the chain's own answer: the last step's score (its label may be an after_error one)
        outcome = [None if vs[-1].score is None else vs[-1].score == 1.0 for vs in out]
        right_of: dict[str, list[bool]] = {}
        for (p, _), y in zip(items, outcome, strict=True):
            right_of.setdefault(p.problem_id, []).append(y is True)
        bins = [[0, 0] for _ in range(10)]  # per bin of P: prefixes, truly wrong ones
        bad = kept = kept_right = low = low_right = 0
        for (p, _), vs, error, y in zip(items, out, truth, outcome, strict=True):
            others = right_of[p.problem_id]
            base = (sum(others) - (y is True), len(others) - 1)
            counts = [(v.successes, v.decided) for v in vs[:-1]]
            post = FirstErrorModel(len(vs), base, y, True).posterior(counts)
            for i, v in enumerate(vs[:-1]):
                wrong = 0 <= error <= i
                bad += wrong
                b = bins[min(int(post.p_le[i] * 10), 9)]
                b[0] += 1
                b[1] += wrong
                if v.label is not False:
                    continue
                if post.p_le[i] >= 0.5:
                    kept += wrong
                    kept_right += not wrong
                else:
                    low += 1
                    low_right += not wrong
        tables.append((s, bins))
        print(f"| {s} | {r['false_precision']:.3f} | {r['error_recall']:.3f} "
              f"| {r['rollouts']:.1f} | {kept / max(bad, 1):.3f}, "
              f"{kept / max(kept + kept_right, 1):.3f} | {low} ({low_right}) |", flush=True)
    print("\nCalibration of P(e <= i) on the rule's own counts: prefixes per bin, share truly "
          "wrong\n")
    print("| self-confidence | " + " | ".join(f"{b / 10:.1f}-{(b + 1) / 10:.1f}"
                                             for b in range(10)) + " |")
    print("|---|" + "---|" * 10)
    for s, bins in tables:
        print(f"| {s} | " + " | ".join(f"{n}: {w / n:.2f}" if n else "0" for n, w in bins)
              + " |")


def settings_of(name: str, overrides: list[str], self_rollouts: int = 16) -> Settings:
    """Method `name` with KEY=VALUE overrides; `self_rollouts=N` among them sets the
    question's rollouts (a key of the driver, not of the method)."""
    rest = [o for o in overrides if not o.startswith("self_rollouts=")]
    for o in overrides:
        if o.startswith("self_rollouts="):
            self_rollouts = int(o.split("=")[1])
    return Settings(mc_method(name, rest), self_rollouts)


def mc_method(name: str, overrides: list[str], **fixed: object) -> Method:
    """Method `name` with `fixed` and KEY=VALUE overrides (typed like its defaults)."""
    kw: dict[str, object] = dict(fixed)
    defaults = METHODS[name]()
    for o in overrides:
        key, value = o.split("=")
        default = getattr(defaults, key)
        if isinstance(default, bool):
            kw[key] = value.lower() in ("true", "1")
        elif value == "null":
            kw[key] = None
        elif isinstance(default, str):
            kw[key] = value
        else:
            kw[key] = type(default if default is not None else 1)(value)
    return method(name, **kw)


def strength_table(args: argparse.Namespace) -> None:
    rules = {
        "posterior": settings_of("posterior", args.posterior),
        "fall": settings_of("fall", args.fall),
        "absolute": Settings(method("absolute"), 0),
        "any_success": Settings(method("any_success"), 0),
    }
    p, f = rules["posterior"][0], rules["fall"][0]
    a, n = rules["absolute"][0], rules["any_success"][0]
    kind = "given chains" if args.given else "chains sampled by the completer"
    if not args.given and args.profile != "rising":
        kind += f" ({args.profile} rate along right chains)"
    if not args.given and args.opener:
        kind += f", each after an opening line that scales the rates by d ~ U{tuple(args.opener)}"
    print(f"{kind}: {args.problems} problems x {args.n} chains of {args.length} steps each; "
          f"good r ~ U{tuple(args.good)}, bad r ~ U{tuple(args.bad)}; seed {args.seed}; "
          f"posterior: level {p.level}, factor {p.factor}, chain_budget {p.chain_budget}, "
          f"probe {p.probe}, self_rollouts {rules['posterior'][1]}; fall: level {f.level}, "
          f"fell_below {f.fell_below}, kept_above {f.kept_above}, max_rollouts "
          f"{f.max_rollouts}, self_rollouts {rules['fall'][1]}, chunk {f.chunk}; absolute: k "
          f"{a.k}, confirm {a.confirm}; any_success: k {n.k}\n")
    print("| self-confidence | rule | first-error precision (placed) | recall | False "
          "precision | error recall | FP rate | rollouts/chain | requests/chain "
          "| rollouts/decided step | unverifiable |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for s in args.strengths:
        if args.given:
            items, truth, rates = given_chains(s, args.problems, args.n, args.length,
                                               tuple(args.good), tuple(args.bad), args.seed)
        else:
            items, truth, rates = strength_chains(s, args.problems, args.n, args.length,
                                                  tuple(args.good), tuple(args.bad), args.seed,
                                                  args.profile, args.opener)
        for name, options in ((n, rules[n]) for n in args.rules):
            r = strength_run(items, truth, rates, options, args.seed)
            flag = f" ({r['unfinished']} unfinished)" if r["unfinished"] else ""
            print(f"| {s} | {name} | {r['precision']:.3f} ({r['placed']}) | {r['recall']:.3f} "
                  f"| {r['false_precision']:.3f} | {r['error_recall']:.3f} "
                  f"| {r['fp_rate']:.3f} | {r['rollouts']:.1f} | {r['requests']:.1f} "
                  f"| {r['per_decided']:.1f} | {r['unverifiable']:.2f}{flag} |", flush=True)


# `absolute`'s budgets, cheapest first: (k, confirm). Its False is "no `confirm` successes in
# the budget", so a bigger budget makes a False rarer and more often right.
LADDER = ((5, 2), (8, 2), (12, 2), (16, 2), (24, 2), (32, 2), (48, 2), (64, 2))


def equal_precision(args: argparse.Namespace) -> None:
    """`--equal-precision`: recall compared at equal precision. For each self-confidence,
    `posterior` (its defaults, or `--posterior`) gives a False precision P; `absolute`'s
    budget is raised along `LADDER` until its False precision reaches P, and the two are
    compared there: error recall and rollouts per chain. `--profile` and `--opener` choose
    the world the chains come from, as in the rules' table."""
    print(f"{args.problems} problems x {args.n} chains of {args.length} steps sampled by the "
          f"completer ({args.profile} rate along right chains, opener {args.opener}); good r ~ "
          f"U{tuple(args.good)}, bad r ~ U{tuple(args.bad)}; seed {args.seed}\n")
    print("| self-confidence | posterior: False precision, error recall, rollouts/chain | "
          "absolute at that precision: k, confirm, False precision, error recall, "
          "rollouts/chain | recall at no more rollouts |")
    print("|---|---|---|---|")
    post = settings_of("posterior", args.posterior)
    for s in args.strengths:
        items, truth, rates = strength_chains(s, args.problems, args.n, args.length,
                                              tuple(args.good), tuple(args.bad), args.seed,
                                              args.profile, args.opener)
        p = strength_run(items, truth, rates, post, args.seed)
        row, a = "absolute never reaches it", None
        for k, confirm in LADDER:
            a = strength_run(items, truth, rates,
                             Settings(method("absolute", k=k, confirm=confirm), 0), args.seed)
            if a["false_precision"] >= p["false_precision"]:
                row = (f"k={k}, confirm={confirm}: {a['false_precision']:.3f}, "
                       f"{a['error_recall']:.3f}, {a['rollouts']:.1f}")
                break
        else:
            a = None
        met = "yes" if a is not None and p["error_recall"] >= a["error_recall"] and \
            p["rollouts"] <= a["rollouts"] else "no"
        print(f"| {s} | {p['false_precision']:.3f}, {p['error_recall']:.3f}, "
              f"{p['rollouts']:.1f} | {row} | {met} |", flush=True)


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
    ap.add_argument("--strengths", type=float, nargs="*",
                    help="the rules' table over these self-confidences (see the docstring)")
    ap.add_argument("--problems", type=int, default=250, help="strengths: problems each")
    ap.add_argument("--n", type=int, default=4, help="strengths: chains per problem")
    ap.add_argument("--length", type=int, default=8, help="strengths: steps per chain")
    ap.add_argument("--good", type=float, nargs=2, default=[0.8, 1.2],
                    help="strengths: a right prefix's rate over the model's, uniform range")
    ap.add_argument("--bad", type=float, nargs=2, default=[0.0, 0.1],
                    help="strengths: the rate from the error on over a right prefix's")
    ap.add_argument("--fall", nargs="*", default=[], metavar="KEY=VALUE",
                    help="strengths: the fall rule's options other than the defaults")
    ap.add_argument("--posterior", nargs="*", default=[], metavar="KEY=VALUE",
                    help="strengths: the posterior rule's options other than the defaults")
    ap.add_argument("--rules", nargs="*", default=["posterior", "fall", "absolute",
                                                   "any_success"])
    ap.add_argument("--profile", choices=["rising", "flat"], default="rising",
                    help="strengths: the rate along a right sampled chain (see strength_chains)")
    ap.add_argument("--opener", type=float, nargs=2, default=None, metavar=("LO", "HI"),
                    help="strengths: chains open with a line that names nothing and scales "
                         "every later rate by d ~ U(LO, HI) (a derailing opening line)")
    ap.add_argument("--given", action="store_true",
                    help="strengths: chains another model wrote (see given_chains)")
    ap.add_argument("--decompose", choices=list(METHODS),
                    help="strengths: this rule's False labels read through the posterior "
                         "model on its own counts (see `decompose`)")
    ap.add_argument("--equal-precision", action="store_true",
                    help="strengths: posterior's error recall against absolute's, absolute's "
                         "budget raised until its False precision equals posterior's")
    args = ap.parse_args(argv)
    if args.strengths and args.equal_precision:
        equal_precision(args)
        return
    if args.strengths and args.decompose:
        decompose(args)
        return
    if args.strengths:
        strength_table(args)
        return

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
