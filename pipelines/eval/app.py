"""prm-eval: how well do labelers find the human first error? (ProcessBench metric)

    prm-eval mode=labels labels_dir=outputs/run1          # shards written by prm-label
    prm-eval mode=direct dataset_dir=/work/shared/data/processbench_dev sources=[calc]

`labels` scores, per `source_dataset`, the combined labels (`first_error_step`) and each
source's first `incorrect` verdict against `human_first_error` (rows where it is null are not
scored). `direct` runs the calculator straight on ProcessBench json, for fast development.
Both write `<output.dir>/metrics.json` ({labeler: {subset: figures}}) and print a table.
`run(cfg)` is a small dispatcher; tests call it directly.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from omegaconf import DictConfig

from labeling.first_error import first_flag
from labeling.prm.processbench import ChainScore, format_table, table
from labeling.schema import Status
from labeling.shards import MANIFEST, read_shard, shard_files
from pipelines.cli import ConfigError, HydraApp
from pipelines.config_fields import typed_config
from pipelines.eval.config import EvalConfig, register
from pipelines.ticker import Ticker
from verifiers.calculator.verifier import CalculatorVerifier

log = logging.getLogger("prm-eval")


def run(cfg: DictConfig | EvalConfig) -> dict[str, Any]:
    """Evaluate as configured; returns the metrics also written to metrics.json."""
    c: EvalConfig = typed_config(EvalConfig, cfg)
    if c.mode == "labels":
        metrics, examples = eval_labels(c), []
    elif c.mode == "direct":
        metrics, examples = eval_direct(c)
    elif c.mode == "checkpoint":
        # torch and transformers load only for a checkpoint's evaluation.
        from pipelines.eval.checkpoint import evaluate_checkpoint

        return evaluate_checkpoint(c.checkpoint, c.output.dir)  # writes metrics.json, a table
    else:
        raise ConfigError(f"mode={c.mode} is not one of labels, direct, checkpoint")
    out = Path(c.output.dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2))
    if examples:
        (out / "examples.json").write_text(json.dumps(examples, indent=2, ensure_ascii=False))
    for labeler, by_subset in metrics.items():
        print(f"\n== {labeler} ==\n{format_table(by_subset)}")
    print(f"\nprm-eval: metrics in {(out / 'metrics.json').resolve()}"
          + (f", examples in {(out / 'examples.json').resolve()}" if examples else ""))
    return metrics


def _flagged(statuses: tuple[str, ...] | list[str]) -> int:
    """A source's ProcessBench prediction: its first `incorrect` step (-1: none)."""
    return first_flag(s == Status.INCORRECT for s in statuses)


# --- mode=labels ---------------------------------------------------------------------------


def _rows(labels_dir: str) -> Iterator[dict[str, Any]]:
    """Rows of every finished dataset under `labels_dir`: the shards each manifest lists
    (not quarantine files, not leftovers of an unfinished run)."""
    manifests = sorted(Path(labels_dir).rglob(MANIFEST))
    files = [f for m in manifests for f in shard_files(m.parent)]
    if not files:
        raise FileNotFoundError(
            f"no finished prm-label dataset (manifest.json with shards) under {labels_dir!r}; "
            "set labels_dir=<prm-label output dir>"
        )
    columns = ["completions", "human_first_error", "source_dataset", "verdicts", "first_error_step"]
    for path in files:
        yield from read_shard(path, columns=columns).to_pylist()


def eval_labels(c: EvalConfig) -> dict[str, Any]:
    """Score the combined labels and every source found in the shards' `verdicts`."""
    scores: dict[str, dict[str, list[ChainScore]]] = defaultdict(lambda: defaultdict(list))
    for row in _rows(c.labels_dir):
        human = row["human_first_error"]
        subset = row["source_dataset"]
        n = len(row["completions"])
        combined = row["first_error_step"]
        flags = tuple(Status.INCORRECT if i == combined else "" for i in range(n))
        scores["combined"][subset].append(ChainScore(human, combined, flags))
        per_source: dict[str, list[str]] = defaultdict(lambda n=n: [""] * n)
        for v in row["verdicts"] or ():
            if 0 <= v["step"] < n:
                per_source[v["source"]][v["step"]] = v["status"]
        for source, statuses in per_source.items():
            scores[source][subset].append(ChainScore(human, _flagged(statuses), tuple(statuses)))
    return {labeler: table(by_subset) for labeler, by_subset in scores.items()}


# --- mode=direct ---------------------------------------------------------------------------

_VERIFIER: Any = None


def _check_record(record: dict[str, Any], timeout_s: float) -> tuple[str, ...]:
    """Calculator statuses for one ProcessBench record (one verifier per worker process)."""
    global _VERIFIER  # one per process: its sympy worker is reused across records
    if _VERIFIER is None:
        _VERIFIER = CalculatorVerifier(timeout_s=timeout_s)
    verdicts = _VERIFIER.check_steps(record["steps"], record["problem"])
    return tuple(str(v.status) for v in verdicts), tuple(v.evidence for v in verdicts)


def eval_direct(c: EvalConfig) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    if list(c.sources) != ["calc"]:
        raise ConfigError("mode=direct runs sources=[calc] only (ProcessBench has no references)")
    if not c.dataset_dir:
        raise FileNotFoundError("set dataset_dir=<dir with ProcessBench <subset>.json files>")
    by_subset: dict[str, list[ChainScore]] = {}
    examples: list[dict[str, Any]] = []
    for subset in c.subsets:
        records = json.loads((Path(c.dataset_dir) / f"{subset}.json").read_text())
        records = records[: c.limit] if c.limit is not None else records
        args = [(r, c.calc_timeout_s) for r in records]
        ticker = Ticker(log, f"checking {subset}", len(records), "records")
        if c.workers > 1:
            with ProcessPoolExecutor(c.workers) as pool:
                results = []
                for result in pool.map(_check_record, *zip(*args, strict=True), chunksize=8):
                    results.append(result)
                    ticker.tick()
        else:
            results = []
            for a in args:
                results.append(_check_record(*a))
                ticker.tick()
        rows = []
        for record, (statuses, evidence) in zip(records, results, strict=True):
            rows.append(ChainScore(record["label"], _flagged(statuses), statuses))
            examples.extend(_examples(subset, record, statuses, evidence))
        by_subset[subset] = rows
    examples.sort(key=lambda e: e["kind"] != "false_flag")
    return {"calc": table(by_subset)}, examples[: c.examples]


def _examples(subset: str, record: dict, statuses: tuple, evidence: tuple) -> list[dict]:
    out = []
    human = record["label"]
    for i, status in enumerate(statuses):
        if status != Status.INCORRECT or (human >= 0 and i > human):
            continue
        kind = "hit" if i == human else "false_flag"
        out.append(
            {
                "kind": kind,
                "subset": subset,
                "id": record["id"],
                "step": i,
                "human": human,
                "evidence": evidence[i],
                "text": record["steps"][i][:600],
            }
        )
    return out


APP = HydraApp("prm-eval", "eval", EvalConfig, register, run, __doc__)


def main() -> None:
    APP.main()


if __name__ == "__main__":
    main()
