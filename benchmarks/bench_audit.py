"""The audit's statistics on real labels, for both claim types: ProcessBench's dev split with
its human first errors as the oracle reviewer.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_audit.py --cache /tmp/bench_audit

1. Labels, from real `prm-label` jobs (Ray and all), cached under --cache (a set is relabeled
   only when its dir has no manifest; --fresh relabels everything):
   - `answer_calc/<subset>`: each subset with `labels=[answer,calc]` (no model). Its calc
     labels claim the arithmetic, which the oracle (step labels) cannot answer: no figure.
   - `mc/<rule>/<subset>` (--mc-subsets): the first --mc-limit chains whose final answer is
     right, given with that answer as the reference, with `labels=[answer,calc,mc]`, the
     embedded SmolLM2 as the completer (`labels.mc.k=4 max_tokens=128` under absolute) and MC's rule
     --mc-rule, `absolute` unless told: with this weak completer it calls most first steps
     wrong, so `after_error=negative` writes many Falses after them, prefix claims of mixed
     precision, which is what the audit must measure. The default rule (`posterior`)
     abstains there and writes almost no False on these chains (`--mc-rule posterior`
     shows it): too few prefix claims for a coverage figure.
2. Truth, through the real audit loop: a census pack of every decided label (`prm-audit`
   sample, `audit.reviewer=oracle`, chain mode), imported. The oracle answers each chain with
   its ProcessBench first error, so every prefix claim is decided; a step claim is decided
   where ProcessBench judged that step (up to the first error).
3. Interval coverage per stratum (source, status, claim) with at least --min-stratum decided
   labels and a precision strictly between 0 and 1 (at 0 or 1 every interval holds it):
   --reps seeded draws of min(--reviews, half the stratum) labels in the audit's own sampler
   order, each scored by `labeling.audit.estimate.estimate` (the function `prm-audit
   estimate` runs); the share of 95% Wilson intervals (finite-population corrected) that
   hold the stratum's precision. Summarized per claim type.
4. What a user sees: an audit of the first MC set (`audit.budget=60` stratified steps and
   the default uncertainty queue), answered by the oracle in chain mode, imported, estimated.
5. Queue efficiency on the answer+calc sets: the share of label errors (a decided step
   label against the human one) found in the first 10% of the review order (uncertainty
   queue first), against random orders.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "processbench_dev"
SUBSETS = ("gsm8k", "math", "olympiadbench", "omnimath")
BOXED = re.compile(r"\\boxed\{([^{}]*)\}")


def prm_label(out: Path, args: list[str], fresh: bool) -> Path:
    if fresh or not (out / "manifest.json").exists():
        cmd = [sys.executable, "-m", "pipelines.label.app", *args, f"output.dir={out}",
               "output.report=false", f"output.resume={str(not fresh).lower()}"]  # fmt: skip
        t = time.time()
        subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        print(f"labeled {out} in {time.time() - t:.0f}s")
    return out


def label_answer_calc(cache: Path, fresh: bool) -> list[Path]:
    return [prm_label(cache / "answer_calc" / s, [
        "dataset=processbench", f"dataset.path={DATA / f'{s}.json'}",
        f"dataset.name=processbench_{s}", "dataset.adapter=processbench",
        "labels=[answer,calc]"], fresh) for s in SUBSETS]  # fmt: skip


def label_mc(cache: Path, subsets: list[str], limit: int, fresh: bool,
             rule: str = "absolute") -> list[Path]:
    """Right-answer chains with their own boxed answer as the reference (ProcessBench has no
    reference answer, and MC needs one to judge a rollout)."""
    dirs = []
    for s in subsets:
        given = cache / "mc" / f"{s}.jsonl"
        given.parent.mkdir(parents=True, exist_ok=True)
        lines = []
        for r in json.loads((DATA / f"{s}.json").read_text()):
            boxed = BOXED.findall(r["steps"][-1]) if r["final_answer_correct"] else []
            if boxed:
                lines.append(json.dumps({"question": r["problem"], "answer": boxed[-1],
                                         "steps": r["steps"], "first_error": r["label"]}))
        given.write_text("\n".join(lines[:limit or None]) + "\n")
        dirs.append(prm_label(cache / "mc" / rule / s, [
            "dataset=generic", f"dataset.path={given}", f"dataset.name=pb_right_{s}",
            "dataset.adapter=generic", "+dataset.fields.steps=steps",
            "+dataset.fields.first_error=first_error", "labels=[answer,calc,mc]",
            f"labels/mc={rule}", *(["labels.mc.k=4"] if rule in ("absolute", "any_success")
                                   else []), "labels.mc.max_tokens=128"],
            fresh))  # fmt: skip
    return dirs


def set_name(d: Path) -> str:
    """`answer_calc gsm8k`, `mc absolute gsm8k`: a labeled set's name in the tables."""
    mc = d.parent.parent.name == "mc"
    return " ".join(([d.parent.parent.name] if mc else []) + [d.parent.name, d.name])


def audit(args: list[str]) -> dict[str, Any]:
    from omegaconf import OmegaConf

    from pipelines.audit.app import run
    from pipelines.audit.config import AuditJobConfig

    cfg = OmegaConf.merge(OmegaConf.structured(AuditJobConfig), OmegaConf.from_dotlist(args))
    return run(cfg)


def oracle_loop(d: Path, name: str, sample_args: list[str]) -> Path:
    """Sample (oracle, chain mode), import; returns the new version's directory."""
    pack, out = d.parent / f"{d.name}-{name}-pack", d.parent / f"{d.name}-{name}-v2"
    for p in (pack, out):
        shutil.rmtree(p, ignore_errors=True)
    audit([f"audit.dir={d}", f"audit.pack={pack}", "audit.reviewer=oracle", *sample_args])
    audit([f"audit.dir={d}", f"audit.pack={pack}", "audit.mode=import", f"output.dir={out}",
           f"audit.verdicts=[{pack / 'verdicts-oracle.json'}]"])  # fmt: skip
    return out


def coverage(dirs: list[Path], args: argparse.Namespace) -> dict[str, list[float]]:
    from labeling.audit.claims import claim_right
    from labeling.audit.estimate import Reviewed, estimate
    from labeling.audit.sample import chain_views, order_key, parse_stratum, step_key, strata
    from pipelines.audit.app import human_verdicts
    from pipelines.audit.pack import after_error_of, load_rows, policy_of

    members: dict[str, list] = {}
    human: dict[str, bool | None] = {}
    for d in dirs:
        census = oracle_loop(d, "census", ["audit.budget=1000000000", "audit.queue=0"])
        human |= human_verdicts(census)
        rows, manifest = load_rows(d)
        views = [v for r in rows for v in chain_views(r, policy_of(manifest),
                                                     after_error_of(manifest))]  # fmt: skip
        for name, vs in strata(views).items():
            members.setdefault(f"{set_name(d)}/{name}", []).extend(vs)

    def truth(v, source: str) -> bool | None:
        steps = [human.get(step_key(v.chain_id, j)) for j in range(v.step + 1)]
        return claim_right(bool(v.labels[source]), v.claim(source), steps, v.step)

    print(f"| labels | stratum | decided labels | precision | coverage of 95% Wilson "
          f"({args.reps} draws) | reviews per draw |")
    print("|---|---|---|---|---|---|")
    by_claim: dict[str, list[float]] = {}
    for key, vs in sorted(members.items()):
        group, name = key.split("/", 1)
        source, status, claim = parse_stratum(name)
        if claim is None:
            continue
        decided = [v for v in vs if truth(v, source) is not None]
        if not decided:
            continue
        p = sum(truth(v, source) for v in decided) / len(decided)
        cov, n = "–", min(args.reviews, len(decided) // 2)
        if len(decided) >= args.min_stratum and 0 < p < 1:
            held = 0
            for rep in range(args.reps):
                drawn = sorted(decided, key=lambda v, rep=rep: order_key(rep, v.key))[:n]
                items = [Reviewed(v.key, v.chain_id, v.step, (name,), dict(v.labels), {})
                         for v in drawn]  # fmt: skip
                q = next(x for x in estimate(items, human, {name: len(decided)})
                         if x.claim == claim and x.measure == f"precision_{status}")  # fmt: skip
                assert q.reviews == n  # every drawn label is decided
                held += q.low <= p <= q.high
            by_claim.setdefault(claim, []).append(held / args.reps)
            cov = f"{held / args.reps:.3f}"
        print(f"| {group} | {name} | {len(decided)} | {p:.3f} | {cov} | "
              f"{n if cov != '–' else '–'} |")
    print()
    for claim, cs in sorted(by_claim.items()):
        print(f"coverage, {claim} claims: mean {sum(cs) / len(cs):.3f}, min {min(cs):.3f}, "
              f"max {max(cs):.3f} over {len(cs)} strata")
    return by_claim


def queue_efficiency(dirs: list[Path], reps: int) -> None:
    from labeling.audit.sample import chain_views, order_key, uncertainty_queue
    from pipelines.audit.pack import load_rows, mc_threshold, policy_of

    views, human = [], {}
    for d in dirs:
        rows, manifest = load_rows(d)
        for r in rows:
            for v in chain_views(r, policy_of(manifest)):
                views.append(v)
                h = (r["human_labels"] or [None] * v.n_steps)[v.step]
                if h is not None:
                    human[v.key] = h
    labeled = [v for v in views if any(x is not None for x in v.labels.values())]
    errors = {v.key for v in labeled if v.key in human
              and any(x is not None and x != human[v.key] for x in v.labels.values())}  # fmt: skip
    queue = [v for v, _, _ in uncertainty_queue(labeled, 0, mc_threshold(manifest))]
    in_queue = {v.key for v in queue}
    order = queue + sorted((v for v in labeled if v.key not in in_queue),
                           key=lambda v: order_key(0, v.key))  # fmt: skip
    top = max(1, len(order) // 10)
    found = len(errors & {v.key for v in order[:top]}) / len(errors)
    rng = random.Random(0)
    keys = [v.key for v in labeled]
    rand = []
    for _ in range(reps):
        rng.shuffle(keys)
        rand.append(len(errors & set(keys[:top])) / len(errors))
    base = sum(rand) / len(rand)
    print(f"\nqueue: {len(queue)} of {len(labeled)} labeled steps in doubt; {len(errors)} label "
          f"errors; first 10% ({top} steps) finds {found:.3f} of them, random order "
          f"{base:.3f} (mean of {reps}): {found / base:.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=Path("/tmp/bench_audit"))
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--mc-subsets", nargs="*", default=["gsm8k", "math"], choices=SUBSETS)
    ap.add_argument("--mc-limit", type=int, default=80, help="right-answer chains per subset")
    ap.add_argument("--mc-rule", default="absolute",
                    choices=["posterior", "fall", "absolute", "any_success"],
                    help="MC's rule for the mc sets (see the docstring)")
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--reviews", type=int, default=200)
    ap.add_argument("--min-stratum", type=int, default=200)
    args = ap.parse_args()
    if not DATA.exists():
        sys.exit(f"no ProcessBench dev data at {DATA}")
    calc = label_answer_calc(args.cache, args.fresh)
    mc = label_mc(args.cache, args.mc_subsets, args.mc_limit, args.fresh, args.mc_rule)
    print()
    coverage(calc + mc, args)
    if mc:
        print(f"\nan audit of {mc[0]}: 60 stratified steps and the uncertainty queue, "
              "answered by the oracle in chain mode:")
        v2 = oracle_loop(mc[0], "default", ["audit.budget=60"])
        audit([f"audit.dir={v2}", f"audit.pack={mc[0].parent / (mc[0].name + '-default-pack')}",
               "audit.mode=estimate"])  # fmt: skip
    queue_efficiency(calc, args.reps)


if __name__ == "__main__":
    main()
