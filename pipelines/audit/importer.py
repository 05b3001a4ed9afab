"""`prm-audit audit.mode=import`: reviewer verdicts become the `human` source of a new
dataset version. The old version is only read, never modified.

What a reviewed step becomes in the new version:
- `human_ratings[step]`: the three-way verdict (1 correct, 0 neutral, -1 incorrect);
- `human_labels[step]`: that rating as a boolean under `labels.neutral` (null for `mask`);
- `verdicts`: an entry with `source: "human"` (evidence: reviewer, review id, the verdict);
- `labels`: **the human verdict overrides the machine label** of that step (a person looked
  at it); the chain's other labels are the policy's again (`labeling.combine` re-run on the
  stored verdicts, so a machine first error a reviewer overturned stops masking the steps
  after it), then `after_error` and `first_error_step` follow from the new labels exactly as
  the label job computes them.
A verdict that contradicts a human label the data already carries (ProcessBench, PRM800K) is
a conflict like any other: quarantined, not applied.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from labeling.audit_sample import HUMAN, step_key
from labeling.audit_verdicts import RATINGS, Problem, Verdict, parse, resolve
from labeling.combine import DEFAULT_CONSENSUS, combine
from labeling.rows import verdicts_from_structs
from labeling.schema import Neutral, Status, StepVerdict, rating_label
from labeling.shards import DatasetDir, summarize_units
from pipelines.audit.pack import load_rows, neutral_of, read_pack
from pipelines.cli import UserError


def machine_verdicts(row: dict[str, Any]) -> dict[str, list[StepVerdict]]:
    """The stored verdicts of every source but `human`, one per step (absent: unverifiable)."""
    vs = verdicts_from_structs(row["verdicts"], len(row["completions"]))
    vs.pop(HUMAN, None)
    return vs


def relabel(row: dict[str, Any], human: dict[int, bool | None], labels_cfg: dict[str, Any]
            ) -> tuple[list[bool | None], int | None]:  # fmt: skip
    """The chain's labels with `human` (step -> boolean or None) overriding the policy's."""
    n = len(row["completions"])
    policy = str(labels_cfg.get("policy") or "verifier_first")
    after = str(labels_cfg.get("after_error") or "negative")
    consensus = labels_cfg.get("consensus") or DEFAULT_CONSENSUS
    # A manifest without the key was written before the option: right-answer chains were
    # then filled with positives (what `positive` names now).
    fill = str(labels_cfg.get("outcome_fill") or "positive")
    stored = list(row["labels"])
    base = stored
    verdicts = machine_verdicts(row)
    again = combine(verdicts, n, policy, after, consensus, fill)
    if again.labels == stored:  # the stored labels are this policy's: undo after_error
        base = combine(verdicts, n, policy, "keep", consensus, fill).labels
    labels = [human[i] if i in human else x for i, x in enumerate(base)]
    # The judge policy copies a source's labels as they are: through it, after_error and
    # first_error_step come out exactly as the label job computes them.
    as_source = [StepVerdict(Status.CORRECT if x else Status.INCORRECT, x) if x is not None
                 else StepVerdict.unverifiable() for x in labels]  # fmt: skip
    final = combine({"judge": as_source}, n, "judge", after)
    return final.labels, final.first_error_step


def _dataset_conflict(row: dict[str, Any], step: int, v: Verdict, neutral: Neutral) -> str:
    ratings, bools = row.get("human_ratings"), row.get("human_labels")
    if ratings is not None and ratings[step] is not None and ratings[step] != v.rating:
        return f"rating {ratings[step]}"
    if bools is not None and bools[step] is not None:
        mine = rating_label(v.rating, neutral)
        if mine is not None and mine != bools[step]:
            return f"label {bools[step]}"
    return ""


def import_verdicts(root: Path, pack: Path, files: list[str], out: Path,
                    neutral: Neutral | None) -> dict[str, Any]:  # fmt: skip
    """Write the new version at `out`; returns its manifest."""
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    if out.exists() and any(out.iterdir()):
        raise UserError(f"output.dir={out} exists and is not empty; name a new directory")
    if out.resolve() == root.resolve():
        raise UserError("output.dir must differ from audit.dir: the old version is kept as is")
    rows, manifest = load_rows(root)
    plan, lines = read_pack(pack)
    if plan.get("config_hash") != manifest.get("config_hash"):
        raise UserError(f"the review pack {pack} was sampled from another dataset "
                        f"({plan.get('dataset')}), not {root}")  # fmt: skip
    neutral = neutral or neutral_of(manifest)
    by_key = {step_key(r["chain_id"], i): r for r in rows for i in range(len(r["completions"]))}
    known = {x["key"] for x in lines} & set(by_key)
    verdicts: list[Verdict] = []
    problems: list[Problem] = []
    skips = 0
    for f in files:
        try:
            got, bad, skipped = parse(Path(f).read_text(), known, Path(f).name)
        except ValueError as exc:
            raise UserError(f"{f}: {exc}") from None
        verdicts, problems, skips = verdicts + got, problems + bad, skips + skipped
    verdicts, problems = resolve(verdicts, problems)
    usable = []
    for v in verdicts:
        row = by_key[v.item]
        step = int(v.item.rsplit("#", 1)[1])
        clash = _dataset_conflict(row, step, v, neutral)
        if clash:
            problems.append(Problem(v.index, v.item, f"verdict {v.verdict} for step {v.item} "
                                    f"conflicts with the dataset's own human {clash}; not used",
                                    v.verdict, v.origin))  # fmt: skip
        else:
            usable.append((row, step, v))
    changed = _apply(usable, manifest, neutral)
    return _write_version(root, out, rows, manifest, problems, started, {
        "pack": plan["pack"], "files": [str(f) for f in files], "verdicts_used": len(usable),
        "quarantined": len(problems), "skipped": skips, "neutral": str(neutral),
        "steps_relabeled": changed[0], "chains_relabeled": changed[1],
    })  # fmt: skip


def _apply(usable: list[tuple[dict, int, Verdict]], manifest: dict[str, Any],
           neutral: Neutral) -> tuple[int, int]:  # fmt: skip
    labels_cfg = (manifest.get("config") or {}).get("labels") or {}
    touched: dict[str, dict[str, Any]] = {}
    for row, step, v in usable:
        n = len(row["completions"])
        ratings = list(row.get("human_ratings") or [None] * n)
        bools = list(row.get("human_labels") or [None] * n)
        ratings[step], bools[step] = v.rating, rating_label(v.rating, neutral)
        row["human_ratings"], row["human_labels"] = ratings, bools
        label = bools[step]
        row["verdicts"] = [*row["verdicts"], {
            "source": HUMAN, "step": step, "label": label, "score": float(v.rating),
            "status": ("unverifiable" if label is None else "correct" if label else "incorrect"),
            "rollouts": 0, "evidence": f"{v.verdict} by {v.reviewer} (review {v.review_id})",
        }]  # fmt: skip
        touched[row["chain_id"]] = row
    steps = 0
    for row in touched.values():
        human = {v["step"]: v["label"] for v in row["verdicts"] if v["source"] == HUMAN}
        labels, first = relabel(row, human, labels_cfg)
        steps += sum(a != b for a, b in zip(labels, row["labels"], strict=True))
        row["labels"], row["first_error_step"] = labels, first
    return steps, len(touched)


def _write_version(root: Path, out: Path, rows: list[dict[str, Any]], manifest: dict[str, Any],
                   problems: list[Problem], started: str, audit: dict[str, Any]
                   ) -> dict[str, Any]:  # fmt: skip
    old, new = DatasetDir(root), DatasetDir(out)
    records = old.done_units()
    chash = str(manifest.get("config_hash") or "")
    units = sorted({s["unit"] for s in manifest.get("shards", [])}
                   | {q["unit"] for q in manifest.get("quarantine", [])})  # fmt: skip
    shard_of = {s["unit"]: s["path"] for s in manifest.get("shards", [])}
    quar_of = {q["unit"]: q["path"] for q in manifest.get("quarantine", [])}
    by_chain = {r["chain_id"]: r for r in rows}
    written = []
    for unit in units:
        unit_rows = []
        if shard_of.get(unit):
            ids = pq.read_table(root / shard_of[unit], columns=["chain_id"])
            unit_rows = [by_chain[c] for c in ids.column("chain_id").to_pylist()]
        quar = pq.read_table(root / quar_of[unit]).to_pylist() if quar_of.get(unit) else []
        rec = records.get(unit)
        written.append(new.write_unit(
            unit, rec.key if rec else "", unit_rows, quar, rec.counts if rec else {},
            rec.tokens if rec else {}, rec.seconds if rec else 0.0))  # fmt: skip
    extra = (max(units) + 1) if units else 0
    if problems:
        qrows = [{"source_dataset": f"audit:{p.origin}", "record_index": p.index,
                  "problem_id": None, "chain_id": p.item.rsplit("#", 1)[0] or None,
                  "stage": "audit", "reason": p.reason, "raw": p.raw, "config_hash": chash}
                 for p in problems]  # fmt: skip
        written.append(new.write_unit(extra, "audit", [], qrows, {}, {}, 0.0))
    summary = summarize_units(written)
    result = {
        **manifest, "created_at": started, "shards": summary["shards"],
        "quarantine": summary["quarantine"], "units": len(written), "units_reused": 0,
        "lineage": {"previous": str(root), "previous_manifest": manifest.get("created_at")},
        "audit": audit,
    }  # fmt: skip
    result.pop("quality", None)  # the old version's figures do not describe this one
    new.write_manifest(result)
    return result


__all__ = ["RATINGS", "import_verdicts", "relabel"]
