"""`prm-audit audit.mode=import`: reviewer verdicts become the `human` source of a new
dataset version. The old version is only read, never modified. File format: docs/audit.md.

What a reviewed step becomes in the new version:
- `human_ratings[step]`: the three-way verdict (1 correct, 0 neutral, -1 incorrect); a chain
  answer (ProcessBench's protocol) gives 1 to every step before its first error and -1 to
  that step, and says nothing about the steps after it (they stay null unless a step verdict
  rates them): "the chain has gone wrong by here" is a claim about the prefix, not the step;
- `human_labels[step]`: that rating as a boolean under `labels.neutral` (null for `mask`);
- `human_first_error`: a chain answer's first error (-1: every step right);
- `verdicts`: an entry with `source: "human"` (evidence: reviewer, review id, the verdict,
  and for a chain answer where it put the first error);
- `labels`: **a reviewed step's label is the reviewer's**, and nothing overwrites it: not a
  machine label, not the policy, not `after_error`. The other steps get the policy's labels
  again (`labeling.combine` re-run on the stored verdicts, so a machine first error a
  reviewer overturned stops masking the steps after it); `after_error` then applies to the
  unreviewed steps after the first False, and `first_error_step` is the first False.
A verdict that contradicts a human label the data already carries (ProcessBench, PRM800K) is
a conflict like any other: quarantined, not applied; a chain answer is applied whole or not
at all.

An answer to a check's own question (`claim: arithmetic`: "does the arithmetic in this step
hold?") is not a step label and changes no label: it goes to the manifest's `audit.checks`
(claim -> step key -> the answer), carried over from the version it was imported into, where
`estimate` scores calc's labels against it. Every record must answer a question the pack
asked about its step (`samples.jsonl`'s `asks`); one that does not is quarantined. A file
whose step records name no claim (written before claims) is read as answering the step
question, and the import says so once for that file (`audit.read_as_step`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from labeling.audit.claims import Claim
from labeling.audit.sample import HUMAN, step_claims, step_key
from labeling.audit.verdicts import RATINGS, ChainVerdict, Problem, Verdict, parse, resolve
from labeling.combine import DEFAULT_CONSENSUS, combine
from labeling.first_error import first_error
from labeling.rows import verdicts_from_structs
from labeling.schema import Neutral, StepVerdict, rating_label
from labeling.shards import DatasetDir, summarize_units
from pipelines.audit.pack import load_rows, neutral_of, read_pack
from pipelines.cli import UserError


@dataclass(frozen=True, slots=True)
class Applied:
    """One step verdict as it lands in a row: from a step record or implied by a chain."""

    row: dict[str, Any]
    step: int
    rating: int
    evidence: str


def machine_verdicts(row: dict[str, Any]) -> dict[str, list[StepVerdict]]:
    """The stored verdicts of every source but `human`, one per step (absent: unverifiable)."""
    vs = verdicts_from_structs(row["verdicts"], len(row["completions"]))
    vs.pop(HUMAN, None)
    return vs


def relabel(row: dict[str, Any], human: dict[int, bool | None], labels_cfg: dict[str, Any]
            ) -> tuple[list[bool | None], int | None]:  # fmt: skip
    """The chain's labels with `human` (step -> boolean or None) in place of the policy's on
    every reviewed step; `after_error` reaches only unreviewed steps."""
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
    merged = [human[i] if i in human else x for i, x in enumerate(base)]
    found = first_error(merged)
    first = n if found is None or found < 0 else found  # no step False: nothing to fill after
    fill_after = False if after == "negative" else None
    labels = [x if i in human or i <= first or after == "keep" else fill_after
              for i, x in enumerate(merged)]  # fmt: skip
    return labels, first_error(labels)


def _dataset_clash(row: dict[str, Any], step: int, mine: bool | None, rating: int | None,
                   neutral: Neutral) -> str:  # fmt: skip
    """What the data's own human labels say against a verdict ("" when they agree): its
    rating against a step verdict's `rating`, its boolean against `mine`."""
    ratings, bools = row.get("human_ratings"), row.get("human_labels")
    if rating is not None and ratings is not None and ratings[step] is not None and (
            ratings[step] != rating):
        return f"rating {ratings[step]}"
    theirs = [bools[step] if bools is not None else None,
              rating_label(ratings[step], neutral) if ratings is not None else None]
    for t in theirs:
        if mine is not None and t is not None and t != mine:
            return f"label {t}"
    return ""


def _step_applied(row: dict[str, Any], v: Verdict, neutral: Neutral) -> Applied | Problem:
    clash = _dataset_clash(row, v.step, rating_label(v.rating, neutral), v.rating, neutral)
    if clash:
        return Problem(v.index, v.item, f"verdict {v.verdict} for step {v.item} conflicts "
                       f"with the dataset's own human {clash}; not used", v.verdict, v.origin)
    return Applied(row, v.step, v.rating, f"{v.verdict} by {v.reviewer} (review {v.review_id})")


def _chain_applied(row: dict[str, Any], c: ChainVerdict, explicit: set[int],
                   neutral: Neutral) -> list[Applied] | Problem:  # fmt: skip
    """The step verdicts a chain answer implies, all or none. A step that also has a step
    verdict keeps that one (more specific: it may be neutral); a step the data already
    rates keeps the data's rating where it agrees."""
    data_fe = row.get("human_first_error")
    clashes = [f"its first error {data_fe}"] if data_fe is not None and (
        data_fe != c.first_error) else []  # fmt: skip
    out = []
    ratings = row.get("human_ratings")
    for step, mine in enumerate(c.steps()):
        if mine is None or step in explicit:
            continue
        clash = _dataset_clash(row, step, mine, None, neutral)
        if clash:
            clashes.append(f"step {step}: {clash}")
        own = ratings[step] if ratings is not None else None
        rating = own if own is not None else (1 if mine else -1)
        word = "correct" if mine else "incorrect"
        out.append(Applied(row, step, rating, f"{word} by {c.reviewer}: chain answer, "
                           f"{c.said} (review {c.review_id})"))  # fmt: skip
    if clashes:
        return Problem(c.index, c.chain, f"chain answer '{c.said}' for {c.chain} conflicts "
                       f"with the dataset's own human labels ({'; '.join(clashes)}); not used",
                       c.said, c.origin)  # fmt: skip
    return out


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
    by_chain = {r["chain_id"]: r for r in rows}
    known = {x["key"]: set(step_claims(x)) for x in lines if x["key"] in by_key}
    chains = {x["chain_id"]: len(by_chain[x["chain_id"]]["completions"])
              for x in lines if x["chain_id"] in by_chain}  # fmt: skip
    verdicts: list[Verdict | ChainVerdict] = []
    problems: list[Problem] = []
    skips = 0
    read_as_step: dict[str, int] = {}  # file -> its step records that named no claim
    for f in files:
        try:
            got, bad, skipped = parse(Path(f).read_text(), known, Path(f).name, chains)
        except ValueError as exc:
            raise UserError(f"{f}: {exc}") from None
        verdicts, problems, skips = verdicts + got, problems + bad, skips + skipped
        unnamed = sum(isinstance(v, Verdict) and not v.named for v in got)
        if unnamed:
            read_as_step[str(f)] = unnamed
    verdicts, problems = resolve(verdicts, problems, neutral)
    checks, check_problems = _checks(verdicts, manifest)
    problems += check_problems
    applied: list[Applied] = []
    answered: dict[str, int] = {}  # chain -> a chain answer's first error
    verdicts = [v for v in verdicts if isinstance(v, ChainVerdict) or v.claim == Claim.step]
    explicit = {(v.chain, v.step) for v in verdicts if isinstance(v, Verdict)}
    step_verdicts = 0
    for v in verdicts:
        row = by_chain[v.chain]
        if isinstance(v, Verdict):
            got = _step_applied(row, v, neutral)
        else:
            mine = {s for c, s in explicit if c == v.chain}
            got = _chain_applied(row, v, mine, neutral)
            if not isinstance(got, Problem):
                answered[v.chain] = v.first_error
        if isinstance(got, Problem):
            problems.append(got)
        elif isinstance(got, Applied):
            applied.append(got)
            step_verdicts += 1
        else:
            applied += got
    changed = _apply(applied, answered, by_chain, manifest, neutral)
    return _write_version(root, out, rows, manifest, problems, started, {
        "pack": plan["pack"], "files": [str(f) for f in files],
        "verdicts_used": step_verdicts, "chain_answers_used": len(answered),
        "steps_reviewed": len(applied), "quarantined": len(problems), "skipped": skips,
        "neutral": str(neutral), "steps_relabeled": changed[0], "chains_relabeled": changed[1],
        "check_answers_used": checks[1], "checks": checks[0], "read_as_step": read_as_step,
    })  # fmt: skip


Checks = dict[str, dict[str, dict[str, str]]]  # claim -> step key -> the answer and who gave it


def _checks(verdicts: list[Verdict | ChainVerdict], manifest: dict[str, Any]
            ) -> tuple[tuple[Checks, int], list[Problem]]:  # fmt: skip
    """((claim -> step key -> answer, answers added), problems): the answers to checks'
    own questions, over those the version already holds (`audit.checks`); one that differs
    from a held answer is set aside (the held one stays)."""
    held = ((manifest.get("audit") or {}).get("checks")) or {}
    out = {claim: dict(answers) for claim, answers in held.items()}
    problems, added = [], 0
    for v in verdicts:
        if isinstance(v, ChainVerdict) or v.claim == Claim.step:
            continue
        mine = out.setdefault(str(v.claim), {})
        before = mine.get(v.item)
        if before is not None and before["verdict"] != v.verdict:
            problems.append(Problem(v.index, v.item, f"{v.claim} verdict {v.verdict} for step "
                                    f"{v.item} conflicts with the earlier review's "
                                    f"{before['verdict']}; not used", v.verdict, v.origin))
            continue
        added += before is None
        mine[v.item] = {"verdict": v.verdict, "reviewer": v.reviewer, "review_id": v.review_id}
    return (out, added), problems


def _apply(applied: list[Applied], answered: dict[str, int], by_chain: dict[str, dict],
           manifest: dict[str, Any], neutral: Neutral) -> tuple[int, int]:  # fmt: skip
    labels_cfg = (manifest.get("config") or {}).get("labels") or {}
    touched: dict[str, dict[str, Any]] = {}
    for a in applied:
        row, step = a.row, a.step
        n = len(row["completions"])
        ratings = list(row.get("human_ratings") or [None] * n)
        bools = list(row.get("human_labels") or [None] * n)
        ratings[step], bools[step] = a.rating, rating_label(a.rating, neutral)
        row["human_ratings"], row["human_labels"] = ratings, bools
        label = bools[step]
        row["verdicts"] = [*row["verdicts"], {
            "source": HUMAN, "step": step, "label": label, "score": float(a.rating),
            "status": ("unverifiable" if label is None else "correct" if label else "incorrect"),
            "rollouts": 0, "evidence": a.evidence,
        }]  # fmt: skip
        touched[row["chain_id"]] = row
    for chain, fe in answered.items():
        by_chain[chain]["human_first_error"] = fe
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
