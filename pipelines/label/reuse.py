"""A refresh's reuse of the previous version: who was in which unit, and copying units whole or
in part (the rows of the problems still in the input), so only new problems are labeled.

The previous version's memberships are read from its shards (`problem_id` of the rows and of
problem- or chain-level quarantine rows), so a version cut in input order by an older release
serves as well as one cut by content. Records the loader quarantined (stage `load`: unreadable
records, duplicates) are members by their content (`unit_job.load_member`): a bad line
quarantined last night is carried with its unit, not read as tonight's work.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from labeling.schema import QUARANTINE_SCHEMA, Quarantined, labeled_schema
from labeling.shards import DatasetDir, UnitRecord, atomic_copy, read_shard
from labeling.unit_plan import PlannedUnit
from pipelines.unit_job import load_member

LOAD = "load"


@dataclass
class PreviousUnit:
    record: UnitRecord
    members: frozenset[str]
    # The member each quarantine row stands for, in the file's order (a load-stage row by
    # its content, the others by problem id).
    quarantine_members: tuple[str, ...] = ()


def _table(root: Path, rel: str, schema: pa.Schema) -> pa.Table:
    return read_shard(root / rel) if rel else schema.empty_table()


def previous_units(prev: DatasetDir, config_hash: str) -> dict[int, PreviousUnit]:
    """The previous version's verified units labeled with this config (`config_hash`);
    units of another config, or whose files do not match their record, are not reused."""
    out: dict[int, PreviousUnit] = {}
    seen: Counter[str] = Counter()  # copies of each bad record, in unit order as when cut
    for number, rec in sorted(prev.done_units().items()):
        if prev.verify_unit(rec):
            continue
        hashes: set[str] = set()
        members: set[str] = set()
        of_rows: list[str] = []
        if rec.shard:
            t = read_shard(prev.root / rec.shard, columns=["problem_id", "config_hash"])
            members |= set(t["problem_id"].to_pylist())
            hashes |= set(t["config_hash"].to_pylist())
        if rec.quarantine:
            q = read_shard(prev.root / rec.quarantine,
                           columns=["problem_id", "stage", "config_hash", "raw", "reason"])
            hashes |= set(q["config_hash"].to_pylist())
            for pid, stage, raw, reason in zip(*(q[c].to_pylist() for c in (
                    "problem_id", "stage", "raw", "reason")), strict=True):
                member = (load_member(Quarantined("", -1, reason, raw, pid or ""), seen)
                          if stage == LOAD else (pid or ""))
                of_rows.append(member)
                if member:
                    members.add(member)
        if hashes == {config_hash} and members:
            out[number] = PreviousUnit(rec, frozenset(members), tuple(of_rows))
    return out


def counts_of(rows: pa.Table, quarantine: pa.Table, samples_per_problem: int) -> tuple[
        Counter, Counter]:
    """The unit counts and tokens that `rows` and `quarantine` stand for (what the labeler
    counted when it wrote them). `chains_sampled` of a problem quarantined before its chains
    were kept (stage `verify`) is taken as `samples_per_problem` (sampler.n)."""
    c: Counter = Counter()
    t: Counter = Counter()
    c["rows"] = c["chains"] = rows.num_rows
    if rows.num_rows:
        c["steps"] = int(pc.sum(pc.list_value_length(rows["completions"])).as_py() or 0)
        flat = pc.list_flatten(rows["labels"])
        c["steps_labeled"] = len(flat) - flat.null_count
        c["rollouts"] = int(pc.sum(rows["rollouts"]).as_py() or 0)
        t["sample"] = int(pc.sum(rows["sample_tokens"]).as_py() or 0)
        t["rollout"] = int(pc.sum(rows["rollout_tokens"]).as_py() or 0)
        if "mc_self_confidence" in rows.column_names:
            # the question's rollouts: once per problem (the labeler counted them so)
            seen: dict[str, dict] = {}
            for pid, sc in zip(rows["problem_id"].to_pylist(),
                               rows["mc_self_confidence"].to_pylist(), strict=True):
                if sc is not None:
                    seen.setdefault(pid, sc)
            c["rollouts"] += sum(sc["rollouts"] or 0 for sc in seen.values())
            t["rollout"] += sum(sc["tokens"] or 0 for sc in seen.values())
    labeled = set(rows["problem_id"].to_pylist())
    sampled_rows = rows.num_rows - rows["sampler_seed"].null_count
    chain_q = problem_q = 0
    quarantined: set[str] = set()
    for pid, cid, stage in zip(quarantine["problem_id"].to_pylist(),
                               quarantine["chain_id"].to_pylist(),
                               quarantine["stage"].to_pylist(), strict=True):
        if cid:
            c["chains_filtered" if stage == "filter" else "chains_quarantined"] += 1
            chain_q += 1
        else:
            quarantined.add(pid or f"record-{problem_q}")
            problem_q += 1
            if stage == "verify":
                c["chains_sampled"] += samples_per_problem
    c["chains_sampled"] += sampled_rows + chain_q
    c["problems_labeled"] = len(labeled)
    c["problems_quarantined"] = len(quarantined - labeled)
    c["problems_in"] = c["problems_labeled"] + c["problems_quarantined"]
    return c, t


def keep_members(prev: DatasetDir, unit: PreviousUnit, members: set[str]) -> tuple[
        pa.Table, pa.Table, pa.Table, pa.Table]:
    """The previous unit's rows and quarantine split into (kept rows, kept quarantine, removed
    rows, removed quarantine) by membership (a load-stage record by its content)."""
    rows = _table(prev.root, unit.record.shard, labeled_schema())
    quar = _table(prev.root, unit.record.quarantine, QUARANTINE_SCHEMA)
    ids = pa.array(sorted(members), pa.string())
    in_rows = pc.is_in(rows["problem_id"], value_set=ids)
    in_quar = pa.array([m in members for m in unit.quarantine_members], pa.bool_())
    return (rows.filter(in_rows), quar.filter(in_quar), rows.filter(pc.invert(in_rows)),
            quar.filter(pc.invert(in_quar)))


def copy_unit(out: DatasetDir, prev: DatasetDir, old: PreviousUnit, pu: PlannedUnit, key: str,
              samples_per_problem: int, row_group_size: int) -> UnitRecord:
    """Copy the previous version's unit `old` into `out` as unit `pu` (key `key`): whole when
    its members are the same, else the rows of the members still in the input, with the
    counts and tokens of the rest taken off (nothing relabeled)."""
    if pu.kind == "same":
        for rel in (old.record.shard, old.record.quarantine):
            if rel:
                atomic_copy(prev.root / rel, out.root / rel)
        rec = UnitRecord(**{**asdict(old.record), "unit": pu.unit, "key": key,
                            "reused_from": str(prev.root)})
        out.write_record(rec)
        return rec
    rows, quar, gone_rows, gone_quar = keep_members(prev, old, set(pu.members))
    gone_counts, gone_tokens = counts_of(gone_rows, gone_quar, samples_per_problem)
    counts = {k: v - gone_counts.get(k, 0) for k, v in old.record.counts.items()}
    tokens = {k: v - gone_tokens.get(k, 0) for k, v in old.record.tokens.items()}
    rec = out.write_unit(pu.unit, key, rows.to_pylist(), quar.to_pylist(), counts, tokens, 0.0,
                         row_group_size)
    rec.reused_from = str(prev.root)
    out.write_record(rec)
    return rec
