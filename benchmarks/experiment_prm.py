"""README experiment: a PRM on our automatic labels vs one on human labels, same budget.

    .venv/bin/python benchmarks/experiment_prm.py --auto-shards outputs/labels \\
        --processbench /work/shared/data/processbench_dev --bon-shards outputs/bon \\
        --steps 300 --out outputs/experiment_prm
    .venv/bin/python benchmarks/experiment_prm.py --dry-run --out /tmp/exp   # tiny, synthetic

1. ProcessBench records are split by a hash of the problem text: one side trains the
   "human" PRM (labels: correct before the first error, wrong at it, masked after, since
   ProcessBench marks nothing later), the other side is held out for evaluation only.
2. Both PRMs start from the same backbone and train with the same steps, batch, grad_accum,
   learning rate and seed; the number of chains and labeled steps each saw is reported.
3. Both are evaluated by `pipelines.eval.checkpoint` on the held-out records (threshold chosen
   on a part of them, reported on the rest) and, if given, best-of-N on `--bon-shards`.
The automatic shards must not contain held-out problems; the script checks and stops if so.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import pyarrow.parquet as pq

from labeling.shards import input_shards
from pipelines.eval.checkpoint import evaluate_checkpoint, load_processbench
from pipelines.train.app import run
from tests.prm_fixtures import synthetic_rows, write_shards


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def _held_out(problem: str, fraction: float) -> bool:
    h = hashlib.blake2b(_norm(problem).encode(), digest_size=8).hexdigest()
    return int(h, 16) / 2**64 < fraction


def processbench_rows(records: list[dict]) -> list[dict]:
    """ProcessBench records as LABELED_SCHEMA rows (human labels; after-error steps masked)."""
    rows = []
    for r in records:
        n, err = len(r["steps"]), int(r["label"])
        labels = [True] * n if err < 0 else [True] * err + [False] + [None] * (n - err - 1)
        rows.append(
            {
                "prompt": r["problem"],
                "completions": list(r["steps"]),
                "labels": labels,
                "problem_id": "pb-"
                + hashlib.blake2b(_norm(r["problem"]).encode(), digest_size=8).hexdigest(),
                "chain_id": str(r["id"]),
                "chain_index": 0,
                "domain": "math",
                "source_dataset": "processbench_" + r["subset"],
                "outcome_correct": r.get("final_answer_correct"),
                "first_error_step": err,
                "human_labels": labels,
                "human_first_error": err,
                "verdicts": [],
                "sample_tokens": 0,
                "rollout_tokens": 0,
                "rollouts": 0,
                "model": r.get("generator", ""),
                "label_policy": "human",
                "config_hash": "human",
            }
        )
    return rows


def _count(shards: str) -> dict[str, int]:
    chains = steps = 0
    for f in input_shards([shards]):
        for labels in pq.read_table(f, columns=["labels"]).column("labels").to_pylist():
            chains += 1
            steps += sum(x is not None for x in labels)
    return {"chains": chains, "labeled_steps": steps}


def _check_no_leak(auto_shards: str, held_out: list[dict]) -> None:
    held = {_norm(r["problem"]) for r in held_out}
    for f in input_shards([auto_shards]):
        # `prompt` may wrap the problem in a template, so look for the problem inside it.
        for prompt in set(pq.read_table(f, columns=["prompt"]).column("prompt").to_pylist()):
            text = _norm(prompt)
            hit = next((h for h in held if h in text), None)
            if hit:
                raise SystemExit(
                    f"{f} holds a held-out ProcessBench problem ({hit[:60]!r}); "
                    "label problems outside ProcessBench or drop those rows"
                )


def _dry_run_inputs(out: Path) -> dict[str, str]:
    """Synthetic stand-ins for every input, plus a tiny model (no downloads)."""
    from tests.prm_fixtures import build_tiny_model

    auto = synthetic_rows(60, 2, seed=11)
    bon = synthetic_rows(12, 4, seed=12)
    pb = [
        {
            "id": f"gsm8k-{i}",
            "problem": r["prompt"],
            "steps": r["completions"],
            "label": r["first_error_step"],
            "final_answer_correct": r["outcome_correct"],
            "generator": "synthetic",
        }
        for i, r in enumerate(synthetic_rows(80, 1, seed=13))
    ]
    (out / "pb").mkdir(parents=True, exist_ok=True)
    (out / "pb" / "gsm8k.json").write_text(json.dumps(pb))
    texts = [r["prompt"] + " \n\n " + " \n\n ".join(r["completions"]) for r in auto + bon]
    model = build_tiny_model(out / "tiny_model", texts)
    return {
        "auto": str(write_shards(auto, out / "auto_labels")),
        "pb": str(out / "pb"),
        "bon": str(write_shards(bon, out / "bon")),
        "model": str(model),
    }


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--auto-shards", help="prm-label output dir (the project's labels)")
    ap.add_argument("--processbench", help="dir of ProcessBench *.json (the dev split)")
    ap.add_argument("--bon-shards", default="", help="held-out chains, several per problem")
    ap.add_argument("--model", default="", help='backbone dir; "" = embedded SmolLM2-135M')
    ap.add_argument("--label-source", default="labels", help="data.label_source of the auto PRM")
    ap.add_argument("--holdout", type=float, default=0.5, help="share of PB problems held out")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--grad-accum", type=int, default=4)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--max-length", type=int, default=1024)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", default="outputs/experiment_prm")
    ap.add_argument("--dry-run", action="store_true", help="synthetic inputs, tiny model")
    ap.add_argument(
        "--only", choices=["auto", "human"], default=None,
        help="train and evaluate one PRM; read the other's results from an earlier run in --out",
    )
    return ap


def _train_and_evaluate(a: argparse.Namespace, name: str, shards: str, source: str,
                        out: Path, eval_files: list[str]) -> dict:
    """One PRM trained on `shards` with the shared budget, then evaluated on the held-out
    side; its entry of the report."""
    summary = run(
        {
            "model": {"path": a.model, "max_length": a.max_length},
            "data": {"shards": [shards], "label_source": source, "val_fraction": 0.1},
            "optim": {"lr": a.lr, "warmup_steps": max(1, a.steps // 10)},
            "train": {
                "max_steps": a.steps, "batch_size": a.batch, "grad_accum": a.grad_accum,
                "eval_every": 0, "save_every": 0, "resume": "none", "workers": a.workers,
            },
            "output": {"dir": str(out / f"prm_{name}")},
        }
    )  # fmt: skip
    metrics = evaluate_checkpoint(
        {
            "checkpoint": summary["final"],
            "processbench": eval_files,
            "dev_fraction": 0.3,
            "bon_shards": [a.bon_shards] if a.bon_shards else [],
        },
        out / f"eval_{name}",
    )
    return _entry(shards, summary, metrics)


def main() -> None:
    ap = _parser()
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    if a.dry_run:
        d = _dry_run_inputs(out)
        a.auto_shards, a.processbench, a.bon_shards, a.model = (
            d["auto"],
            d["pb"],
            d["bon"],
            d["model"],
        )
        a.steps, a.lr, a.max_length = min(a.steps, 20), 3e-3, 256
    if not a.auto_shards or not a.processbench:
        ap.error("--auto-shards and --processbench are required (or --dry-run)")

    records = [r for p in sorted(Path(a.processbench).glob("*.json")) for r in load_processbench(p)]
    held = [r for r in records if _held_out(r["problem"], a.holdout)]
    train_pb = [r for r in records if not _held_out(r["problem"], a.holdout)]
    _check_no_leak(a.auto_shards, held)
    human = str(write_shards(processbench_rows(train_pb), out / "human_labels"))
    (out / "heldout").mkdir(exist_ok=True)
    eval_files = []
    for subset in sorted({r["subset"] for r in held}):
        path = out / "heldout" / f"{subset}.json"
        path.write_text(json.dumps([r for r in held if r["subset"] == subset]))
        eval_files.append(str(path))

    report: dict = {
        "budget": {
            "steps": a.steps,
            "batch": a.batch,
            "grad_accum": a.grad_accum,
            "lr": a.lr,
            "workers": a.workers,
            "model": a.model or "embedded",
        },
        "heldout_records": len(held),
    }
    for name, shards, source in (
        ("auto", a.auto_shards, a.label_source),
        ("human", human, "labels"),
    ):
        if a.only and a.only != name:  # measured in an earlier run into the same --out
            summary = json.loads((out / f"prm_{name}" / "summary.json").read_text())
            metrics = json.loads((out / f"eval_{name}" / "metrics.json").read_text())
            report[name] = _entry(shards, summary, metrics)
            continue
        report[name] = _train_and_evaluate(a, name, shards, source, out, eval_files)
    (out / "experiment.json").write_text(json.dumps(report, indent=2))
    print(table(report))


def _entry(shards: str, summary: dict, metrics: dict) -> dict:
    return {
        "data": _count(shards),
        "train_val_auroc": summary.get("val_auroc"),
        "processbench": metrics.get("processbench"),
        "best_of_n": metrics.get("best_of_n"),
    }


def table(report: dict) -> str:
    """A markdown table for the README."""
    lines = [
        "| PRM trained on | chains | labeled steps | PB threshold | PB avg F1 | BoN min |"
        " BoN last | majority | pass@N |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in ("auto", "human"):
        r = report[name]
        pb, bon = r["processbench"] or {}, r["best_of_n"] or {}
        cells = [
            pb.get("threshold"),
            (pb.get("average") or {}).get("f1"),
            bon.get("prm_min"),
            bon.get("prm_last"),
            bon.get("majority_vote"),
            bon.get("pass_at_n"),
        ]
        shown = ["-" if c is None else f"{c:.3f}" for c in cells]
        lines.append(
            f"| {name} | {r['data']['chains']} | {r['data']['labeled_steps']} | "
            + " | ".join(shown)
            + " |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
