"""First-error accuracy of labeled runs against a hand-checked set of first-run-style chains.

`benchmarks/data/handchecked_starter.json` holds chains of `make run`'s kind (SmolLM2-135M on
`starter_math` with make run's overrides: dataset.seed=7 as three CPUs sample it, and make run
itself, seed 0, on an AVX2 EPYC) whose first wrong step a person read and wrote down:
problem_id, chain_id, a hash of the steps' text (so a chain that changed is not scored
against another's verdict), the first wrong step (-1: none) and one line of why.

For each labeled run given (`name=dir`, e.g. the same chains labeled with today's default MC
rule and with another), it reports, over the hand-checked chains found in the run:
- chains with an error: the combined labels' `first_error_step` equals the hand's;
- chains without: `first_error_step` is -1 (every step labeled right);
- where the misses come from: first error too early (and by which source: MC, calc, answer),
  too late after steps labeled right (a wrong claim), first False too late after unlabeled
  steps (typically the answer's False on the last step where MC could not tell: no claim
  about the steps before), or not located (null);
- false flags at step 0: chains right at step 0 whose combined labels call step 0 wrong, and
  how many of them are MC's;
- MC's prefix claims (its first False after an unlabeled step, before the last step: "the
  chain has gone wrong by here"), right when the hand's first error is at or before them;
- every MC label before the last step read with prefix semantics (False: the chain has gone
  wrong by this step, right when the hand's first error is at or before it; True: not yet,
  right when it lies after it or nowhere), and the chains holding a wrong MC False;
- how the completer's rate runs along right chains: over the prefixes MC probed that the
  hand says are right, the successes against what the question's rate predicts flat (the
  same rate as from the question) and rising (`posterior`'s hazard profile, s^(1 - (i+1)/M)):
  the evidence for the posterior's hedge against flat profiles (`first_error_model.PROFILES`);
- over every chain of the run, the rollouts made at or after the chain's first step `calc`
  proved wrong (MC rolls out none there since exact checks bound its search: a run of older
  code shows what that saves), and the chains calc flagged at step 0;
- what the run spent (its manifest: job time, engine-busy seconds, rollout tokens) against
  the MC labels it got right: right MC labels per engine-hour, the figure a method's speed
  should be judged by (a fast method's wrong labels are no gain). It covers the whole run,
  so it means most when every chain of the run is hand-checked (`make run`'s 48).

    .venv/bin/python benchmarks/bench_mc_handchecked.py before=/tmp/mc/before after=/tmp/mc/after
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from labeling.first_error import prefix_claim  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "handchecked_starter.json"
COLUMNS = ["problem_id", "chain_id", "completions", "labels", "first_error_step", "mc_labels",
           "calc_labels", "answer_labels", "outcome_correct", "mc_successes", "mc_decided",
           "mc_self_confidence", "model", "mc_rollouts"]


def steps_hash(steps: list[str]) -> str:
    """The hand check's key for a chain's text: SHA-256 of the steps joined by a NUL."""
    return hashlib.sha256("\x00".join(steps).encode()).hexdigest()[:16]


def read_rows(root: Path) -> dict[str, dict]:
    manifest = json.loads((root / "manifest.json").read_text())
    tables = [pq.read_table(root / s["path"], columns=COLUMNS)
              for s in manifest["shards"] if s.get("path")]
    rows = pa.concat_tables(tables).to_pylist() if tables else []
    return {r["chain_id"]: r for r in rows}


def cost(root: Path) -> dict:
    """What the run spent, from its manifest."""
    m = json.loads((root / "manifest.json").read_text())
    return {"job_s": m["wall_time_s"], "busy_s": m["throughput"]["engine_busy_s"],
            "rollout_tokens": m["tokens"]["rollout"], "chains": m["counts"]["chains"]}


def row_of(rows: dict[str, dict], t: dict) -> dict | None:
    """The run's row of hand-checked chain `t`; None when the run lacks it or its text
    changed (a chain is never scored against another's verdict)."""
    r = rows.get(t["chain_id"])
    return r if r is not None and steps_hash(r["completions"]) == t["steps_sha"] else None


def _first_false(labels: list | None) -> int | None:
    return next((i for i, x in enumerate(labels or []) if x is False), None)


def score(rows: dict[str, dict], truth: list[dict]) -> dict:
    c: Counter = Counter()
    flags: list[str] = []
    wrong_chains: list[str] = []
    for t in truth:
        r = row_of(rows, t)
        if r is None:
            c["missing"] += 1
            continue
        hand, got = t["first_error"], r["first_error_step"]
        kind = "with" if hand >= 0 else "without"
        c[f"{kind}"] += 1
        claim = prefix_claim(r["mc_labels"] or [])
        if claim is not None:
            # MC's prefix claim (wrong by here, not located): right when the hand's first
            # error is at or before it
            c["prefix_claims"] += 1
            c["prefix_claims_right"] += 0 <= hand <= claim
        wrong_false = False
        for i, x in enumerate((r["mc_labels"] or [])[:-1]):
            if x is None:
                continue
            gone = 0 <= hand <= i  # the chain has gone wrong by step i
            c[f"mc_{x}"] += 1
            c[f"mc_{x}_right"] += gone is (x is False)
            wrong_false = wrong_false or (x is False and not gone)
        if wrong_false:
            c["mc_wrong_false_chains"] += 1
            wrong_chains.append(t["chain_id"])
        if got == hand:
            c[f"{kind}_right"] += 1
            continue
        if got is None:
            c[f"{kind}_unlocated"] += 1
        elif hand >= 0 and got > hand:
            # too late: either a claim that the steps before were right, or only the first
            # False there is (the answer's), the steps before it unlabeled: no claim at all
            claimed = all(x is True for x in r["labels"][:got])
            c[f"{kind}_late" + ("" if claimed else "_unlabeled")] += 1
        elif got >= 0 and (hand < 0 or got < hand):
            # too early: which source put the first False there
            by = [s for s in ("calc", "mc", "answer") if _first_false(r[f"{s}_labels"]) == got]
            c[f"{kind}_early"] += 1
            c.update(f"{kind}_early_by_{s}" for s in by)
        else:
            c[f"{kind}_other"] += 1
        if got == 0 and hand != 0:
            c["step0_false_flags"] += 1
            if (r["mc_labels"] or [None])[0] is False:
                c["step0_false_flags_mc"] += 1
                flags.append(f"{t['chain_id']}: {r['completions'][0][:70]!r}")
    return {"counts": dict(c), "mc_step0_flags": flags, "mc_wrong_false": wrong_chains}


def past_proof(rows: dict[str, dict]) -> Counter:
    """Over every chain of the run: MC's rollouts (question's aside), the chains with a step
    calc proved wrong, those at step 0, and the rollouts at or after the first such step."""
    c: Counter = Counter()
    for r in rows.values():
        made = r["mc_rollouts"] or []
        c["rollouts"] += sum(made)
        flag = _first_false(r["calc_labels"])
        if flag is None:
            continue
        c["flagged"] += 1
        c["flagged_step0"] += flag == 0
        c["past"] += sum(made[flag:])
        c["flagged_chain_rollouts"] += sum(made)
    return c


def rate_profile(rows: dict[str, dict], truth: list[dict]) -> tuple[int, int, float, float]:
    """(successes, decided, expected flat, expected rising) over the hand-right prefixes MC
    probed. The question's rate s is the self-confidence count without this chain's own
    outcome where the completer sampled the chain (it was counted in), Jeffreys-smoothed."""
    x_all = n_all = 0
    flat = rising = 0.0
    for t in truth:
        r = row_of(rows, t)
        conf = (r or {}).get("mc_self_confidence") or {}
        if r is None or not conf.get("decided"):
            continue
        x0, n0 = conf["successes"], conf["decided"]
        if conf.get("source", "").startswith("chains"):  # the chain's own outcome is in
            x0, n0 = x0 - bool(r["outcome_correct"]), n0 - 1
        s = (x0 + 0.5) / (n0 + 1)
        m, first = len(r["completions"]), t["first_error"]
        pairs = zip(r["mc_successes"] or [], r["mc_decided"] or [], strict=True)
        for i, (x, n) in enumerate(pairs):
            if i >= m - 1 or not n or 0 <= first <= i:
                continue
            x_all, n_all = x_all + x, n_all + n
            flat += n * s
            rising += n * s ** (1 - (i + 1) / m)
    return x_all, n_all, flat, rising


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="name=labeled output dir")
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args(argv)
    truth = json.loads(args.data.read_text())["chains"]
    with_error = sum(t["first_error"] >= 0 for t in truth)
    print(f"{len(truth)} hand-checked chains ({with_error} with an error, "
          f"{len(truth) - with_error} without) from {args.data.name}\n")
    print("| run | with an error: right | early (MC / calc / answer) | late | first False "
          "after unlabeled steps | unlocated | without: right (-1) | early (MC) | unlocated "
          "| step-0 false flags (MC) | MC prefix claims right | not in run |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    per_label = []
    for spec in args.runs:
        name, _, root = spec.partition("=")
        rows = read_rows(Path(root))
        r = score(rows, truth)
        c = Counter(r["counts"])
        print(f"| {name} | {c['with_right']}/{c['with']} | {c['with_early']} "
              f"({c['with_early_by_mc']} / {c['with_early_by_calc']} / "
              f"{c['with_early_by_answer']}) | {c['with_late']} | {c['with_late_unlabeled']} "
              f"| {c['with_unlocated']} "
              f"| {c['without_right']}/{c['without']} | {c['without_early']} "
              f"({c['without_early_by_mc']}) | {c['without_unlocated']} "
              f"| {c['step0_false_flags']} ({c['step0_false_flags_mc']}) "
              f"| {c['prefix_claims_right']}/{c['prefix_claims']} | {c['missing']} |")
        for line in r["mc_step0_flags"]:
            print(f"    MC called a right step 0 wrong: {line}")
        per_label.append((name, c, r["mc_wrong_false"], rate_profile(rows, truth),
                          cost(Path(root)), past_proof(rows)))
    print("\nMC labels before the last step, prefix semantics (False: gone wrong by here):\n")
    print("| run | False right | True right | chains with a wrong False |")
    print("|---|---|---|---|")
    for name, c, chains, *_ in per_label:
        print(f"| {name} | {c['mc_False_right']}/{c['mc_False']} "
              f"| {c['mc_True_right']}/{c['mc_True']} | {c['mc_wrong_false_chains']} "
              f"({', '.join(chains) or 'none'}) |")
    print("\nThe completer's rate on right prefixes (hand-right, probed by MC):\n")
    print("| run | successes / rollouts | expected flat (the question's rate) | expected "
          "rising (posterior's hazard profile) |")
    print("|---|---|---|---|")
    for name, _, _, (x, n, flat, rising), *_ in per_label:
        print(f"| {name} | {x}/{n} | {flat:.1f} | {rising:.1f} |")
    print("\nWhat the run spent against the MC labels it got right (steps before the last):\n")
    print("| run | hand-checked chains / the run's | job | engine-busy | rollout tokens | MC "
          "labels right / wrong | right per engine-hour | rollout tokens per right label |")
    print("|---|---|---|---|---|---|---|---|")
    for name, c, _, _, k, _ in per_label:
        right = c["mc_False_right"] + c["mc_True_right"]
        wrong = c["mc_False"] + c["mc_True"] - right
        scored = c["with"] + c["without"]
        print(f"| {name} | {scored}/{k['chains']} | {k['job_s']:.1f} s | {k['busy_s']:.1f} s "
              f"| {k['rollout_tokens']:,} | {right} / {wrong} "
              f"| {3600 * right / max(k['busy_s'], 1e-9):.0f} "
              f"| {k['rollout_tokens'] / max(right, 1):.0f} |")

    print("\nRollouts and the steps calc proved wrong (every chain of the run):\n")
    print("| run | chains with a calc False (at step 0) | MC rollouts | of them on those chains "
          "| at or after their first calc False |")
    print("|---|---|---|---|---|")
    for name, *_, b in per_label:
        print(f"| {name} | {b['flagged']} ({b['flagged_step0']}) | {b['rollouts']:,} "
              f"| {b['flagged_chain_rollouts']:,} | {b['past']:,} |")


if __name__ == "__main__":
    main()
