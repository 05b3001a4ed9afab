"""prm-eval mode=checkpoint: ProcessBench F1 and best-of-N for a PRM checkpoint.

The checkpoint is ours (any layout prm-train wrote) or a third party's: Qwen2.5-Math-PRM
style (`Qwen2ForProcessRewardModel`) or Math-Shepherd style (a causal LM read at a step
tag); `style`, `step_tag`, `label_tokens` and the templates override what the checkpoint or
its family's conventions say (`pipelines.checkpoint.export.load_checkpoint`). All are scored by
the same in-process scorer, so the figures stand on the same footing.

ProcessBench: the predicted first error is the first step whose score is under a threshold
(-1 if none). The threshold is chosen on a dev side (`processbench_dev` files, or else the
records of `processbench` whose id hashes under `dev_fraction`) and only then applied to the
test side; both F1s and the threshold are reported. The figures are `labeling.prm.processbench`'s,
the same the label modes report: F1 per subset (file) is the harmonic mean of the accuracy on
erroneous and on correct records (None for a subset lacking either); the average is the mean
over subsets that have one, as in the ProcessBench paper.

Best-of-N: shards with several chains per problem and an `outcome_correct` column. Each
chain's step scores are aggregated (min, prod, last); the chosen chain is the argmax. Reported
next to majority vote over `final_answer` (prm-search's vote), pass@N (any chain correct) and
mean chain accuracy.
Best-of-N reads its shards into memory: it is meant for evaluation-sized sets.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import defaultdict
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from labeling.first_error import first_flag
from labeling.prm.processbench import ChainScore, table
from labeling.prm.processbench import format_table as processbench_table
from labeling.prm.search import aggregate, best_index, majority_vote
from labeling.schema import Status
from labeling.shards import input_shards
from pipelines.cli import UserError
from pipelines.config_fields import typed_config
from pipelines.eval.config import CheckpointEvalConfig
from pipelines.scoring import PRMScorer
from pipelines.ticker import Ticker

log = logging.getLogger("prm-eval")


def load_processbench(path: str | Path, limit: int | None = None) -> list[dict[str, Any]]:
    """Records of one ProcessBench json file, each tagged with `subset` (the file's stem)."""
    records = json.loads(Path(path).read_text())
    for i, r in enumerate(records):
        missing = {"id", "problem", "steps", "label"} - set(r)
        if missing:
            raise ValueError(f"{path} record {i} lacks {sorted(missing)}: not ProcessBench json")
    if limit is not None:  # the files are sorted by label: take a hash sample, not the head
        records = sorted(records, key=lambda r: _hash_fraction("sample:" + str(r["id"])))[:limit]
    return [{**r, "subset": Path(path).stem} for r in records]


def _hash_fraction(text: str) -> float:
    return int(hashlib.blake2b(text.encode(), digest_size=8).hexdigest(), 16) / 2**64


def processbench_f1(records: list[dict], scores: list[list], threshold: float) -> dict[str, Any]:
    """The ProcessBench table of `labeling.prm.processbench` (the one prm-eval's label modes
    print): per subset and `average`. A PRM flags the steps scored under `threshold` (an
    unscored step, cut by the length limit, is not flagged); its prediction is the first flag
    (`labeling.first_error.first_flag`). F1 is None for a subset without erroneous or
    without correct records, and the average is over the subsets that have one."""
    by_subset: dict[str, list[ChainScore]] = defaultdict(list)
    for r, s in zip(records, scores, strict=True):
        flags = [x is not None and x < threshold for x in s]
        statuses = tuple(Status.INCORRECT if f else "" for f in flags)
        by_subset[r["subset"]].append(ChainScore(int(r["label"]), first_flag(flags), statuses))
    return table(dict(sorted(by_subset.items())))


def choose_threshold(records: list[dict], scores: list[list]) -> tuple[float, float]:
    """(threshold, dev average F1): the best of a 0.01 grid; ties go to the lowest. Raises
    ValueError when no dev subset has both erroneous and correct records (F1 undefined)."""
    best: tuple[float, float] | None = None
    for k in range(1, 100):
        f1 = processbench_f1(records, scores, k / 100)["average"]["f1"]
        if f1 is not None and (best is None or f1 > best[1]):
            best = (k / 100, f1)
    if best is None:
        raise UserError(f"the {len(records)} ProcessBench dev records hold no subset with both "
                        "erroneous and correct records, so F1 cannot choose a threshold; set "
                        "threshold= or raise dev_fraction")  # fmt: skip
    return best


def best_of_n(chains: list[dict], scores: list[list], aggregations: list[str]) -> dict[str, Any]:
    """Accuracy of PRM selection per aggregation, majority vote, pass@N, mean chain accuracy.
    The vote is prm-search's (`labeling.prm.search.majority_vote`: answers grouped by canonical
    form, ties to the first); it is right when the chain it chose is."""
    groups: dict[str, list[tuple[dict, list]]] = defaultdict(list)
    for c, s in zip(chains, scores, strict=True):
        groups[c["problem_id"]].append((c, s))
    n = len(groups)
    if n == 0:
        return {"problems": 0}
    out: dict[str, Any] = {"problems": n, "mean_n": len(chains) / n}
    for how in aggregations:
        hits = 0
        for group in groups.values():
            pick = best_index([aggregate(s, how) for _, s in group])
            hits += bool(group[pick][0]["outcome_correct"])
        out[f"prm_{how}"] = hits / n
    vote_hits = 0
    for group in groups.values():
        choice = majority_vote([c.get("final_answer") for c, _ in group])
        vote_hits += choice.answer is not None and bool(group[choice.index][0]["outcome_correct"])
    out["majority_vote"] = vote_hits / n
    out["pass_at_n"] = sum(any(c["outcome_correct"] for c, _ in g) for g in groups.values()) / n
    out["mean_chain_acc"] = sum(bool(c["outcome_correct"]) for c in chains) / len(chains)
    return out


def _read_chains(paths: list[str]) -> list[dict]:
    cols = ["problem_id", "prompt", "completions", "final_answer", "outcome_correct"]
    rows = [r for f in input_shards(paths) for r in pq.read_table(f, columns=cols).to_pylist()]
    return [r for r in rows if r["outcome_correct"] is not None]


def _scored(scorer: PRMScorer, chains: list[tuple[str, list[str]]], what: str) -> list[list]:
    """`scorer.score_many` with a progress line every 10 s (and one when done)."""
    ticker = Ticker(log, what, len(chains), "chains")
    return scorer.score_many(chains, on_batch=ticker.tick)


def evaluate_checkpoint(cfg: Any, output_dir: str | Path) -> dict[str, Any]:
    """Run the configured evaluations (`cfg`: a `CheckpointEvalConfig`, or a dict of its
    fields); writes `<output_dir>/metrics.json` and returns it."""
    c: CheckpointEvalConfig = typed_config(CheckpointEvalConfig, cfg)
    if not c.checkpoint:
        raise ValueError("set checkpoint=<prm-train output.dir>/final (or a third-party PRM path)")
    if not c.processbench and not c.bon_shards:
        raise ValueError("nothing to evaluate: set processbench=[...json] and/or bon_shards=[dir]")
    overrides = {
        "format": None if c.style == "auto" else str(c.style),
        "step_tag": c.step_tag,
        "label_tokens": list(c.label_tokens) if c.label_tokens is not None else None,
        "prompt_template": c.prompt_template,
        "step_template": c.step_template,
        "max_length": c.max_length,
    }
    scorer = PRMScorer.load(c.checkpoint, str(c.device), c.batch_size, **overrides)
    result: dict[str, Any] = {"checkpoint": c.checkpoint, "format": scorer.fmt.format}
    if c.processbench:
        test = [r for p in c.processbench for r in load_processbench(p, c.max_records)]
        if c.processbench_dev:
            dev = [r for p in c.processbench_dev for r in load_processbench(p, c.max_records)]
        else:
            dev = [r for r in test if _hash_fraction(r["id"]) < c.dev_fraction]
            test = [r for r in test if _hash_fraction(r["id"]) >= c.dev_fraction]
        test_scores = _scored(scorer, [(r["problem"], r["steps"]) for r in test],
                              "scoring ProcessBench test records")  # fmt: skip
        if c.threshold is not None:
            threshold, dev_f1 = c.threshold, None
        else:
            dev_scores = _scored(scorer, [(r["problem"], r["steps"]) for r in dev],
                                 "scoring ProcessBench dev records (they choose the threshold)")
            threshold, dev_f1 = choose_threshold(dev, dev_scores)
        result["processbench"] = {
            "threshold": threshold,
            "threshold_from": "fixed" if dev_f1 is None else "dev",
            "dev_records": 0 if dev_f1 is None else len(dev),
            "dev_average_f1": dev_f1,
            "test_records": len(test),
            **processbench_f1(test, test_scores, threshold),
        }
    if c.bon_shards:
        chains = _read_chains(c.bon_shards)
        scores = _scored(scorer, [(r["prompt"], r["completions"]) for r in chains],
                         "scoring best-of-N chains")
        result["best_of_n"] = best_of_n(chains, scores, [str(a) for a in c.aggregations])
    out = Path(output_dir).expanduser()
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.json").write_text(json.dumps(result, indent=2))
    print(format_table(result))
    print(f"prm-eval: metrics in {(out / 'metrics.json').resolve()}")
    return result


def format_table(result: dict[str, Any]) -> str:
    """The printed summary: the ProcessBench table (as prm-eval's label modes print it) and
    one line per best-of-N strategy."""
    lines = [f"checkpoint: {result['checkpoint']}"]
    pb = result.get("processbench")
    if pb:
        if pb["threshold_from"] == "dev":
            source = (f"chosen on {pb['dev_records']} dev records, which are not scored; "
                      f"{pb['test_records']} test records scored")
        else:
            source = f"fixed; {pb['test_records']} records scored"
        lines.append(f"ProcessBench  threshold={pb['threshold']:.2f} ({source})")
        lines.append(processbench_table({k: v for k, v in pb.items() if isinstance(v, dict)}))
        f1 = pb["average"]["f1"]
        lines.append(f"  average F1 {'-' if f1 is None else f'{f1:.3f}'}")
    bon = result.get("best_of_n")
    if bon and bon.get("problems"):
        lines.append(f"Best-of-N  problems={bon['problems']}  mean N={bon['mean_n']:.1f}")
        for k, v in bon.items():
            if k not in ("problems", "mean_n"):
                lines.append(f"  {k:<42}{v:>8.3f}")
    return "\n".join(lines)
