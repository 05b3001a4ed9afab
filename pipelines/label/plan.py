"""What a label run will do, known before it starts anything: the input read and checked, the
units planned against the output dir (resume) and `output.previous` (refresh), and an
estimate of the work from a measured speed. The job says it at start; `dry_run=true` says
it and stops (no engine, no Ray, nothing written).

The estimate is only as good as its measurement: chains are `sampler.n` per problem to label
(or the chains it came with), tokens per chain, rollouts per problem, tokens per rollout and
generated tokens per second come from a finished run of the same config (the manifest of
`output.previous`, else of `output.dir`); without one, tokens are bounded by
`sampler.max_tokens` and rollouts and time are not estimated (the line says how to measure).
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from labeling.schema import Problem, Quarantined
from labeling.shards import DatasetDir, UnitRecord
from labeling.unit_plan import PlannedUnit
from pipelines.label.manifest import numerics, numerics_line
from pipelines.label.reuse import PreviousUnit, previous_units
from pipelines.unit_job import Members, read_members

log = logging.getLogger("prm-label")


@dataclass
class RunPlan:
    """The run's input and units. `resumed`: units this output dir already holds with the
    same key (skipped); a unit planned `same`/`shrunk` is copied from `prev`; the rest are
    labeled."""

    items: Members
    prev: DatasetDir | None
    before: dict[int, PreviousUnit]
    units: list[PlannedUnit]
    keys: dict[int, str]
    resumed: dict[int, UnitRecord] = field(default_factory=dict)

    def to_label(self) -> list[PlannedUnit]:
        return [pu for pu in self.units if pu.unit not in self.resumed and pu.kind == "new"]

    def summary(self) -> dict[str, Any]:
        """Counts of the plan: records, problems, quarantined at load (by reason), units
        resumed, copied (whole or in part) and to label, and the problems to label."""
        bad = [x for x in self.items.values() if isinstance(x, Quarantined)]
        label = self.to_label()
        problems = [self.items[m] for pu in label for m in pu.members
                    if isinstance(self.items[m], Problem)]
        copied = [pu for pu in self.units if pu not in label and pu.unit not in self.resumed]
        return {
            "records": len(self.items),
            "problems": len(self.items) - len(bad),
            "quarantined": len(bad),
            "quarantine_reasons": dict(Counter(q.reason for q in bad).most_common(3)),
            "units": len(self.units),
            "units_resumed": len(self.resumed),
            "units_copied_whole": sum(pu.kind == "same" for pu in copied),
            "units_copied_in_part": sum(pu.kind == "shrunk" for pu in copied),
            "units_to_label": len(label),
            "problems_to_label": len(problems),
            "given_chains": sum(len(p.given_chains) for p in problems),
            "problems_to_sample": sum(not p.given_chains for p in problems),
        }


def make_plan(job: Any) -> RunPlan:
    """Read the input and plan the units of `job` (a `LabelJob`) against its output dir and
    `output.previous`; starts nothing and writes nothing."""
    oc = job.cfg.output
    prev = DatasetDir(oc.previous) if oc.previous else None
    items = read_members(job.cfg.dataset)  # a bad input fails here, before Ray's start
    before = previous_units(prev, job.hash) if prev else {}
    units, keys = job.plan(items, oc.problems_per_unit,
                           {n: u.members for n, u in before.items()} if prev else None)
    plan = RunPlan(items, prev, before, units, keys)
    for pu in units:
        rec = job.resumed(pu.unit, keys[pu.unit])
        if rec is not None:
            plan.resumed[pu.unit] = rec
    return plan


def reference_run(cfg: Any, config_hash: str) -> tuple[str, dict[str, Any]] | None:
    """(where, manifest) of a finished run of this config that measured something: the
    previous version's, else the output dir's own."""
    for where in (cfg.output.previous, cfg.output.dir):
        if not where:
            continue
        m = DatasetDir(where).read_manifest() or {}
        if m.get("config_hash") == config_hash and m.get("counts", {}).get("problems_labeled"):
            return where, m
    return None


def estimate(cfg: Any, summary: dict[str, Any], config_hash: str) -> dict[str, Any]:
    """Chains, tokens, rollouts and seconds the plan's labeling needs (see the module)."""
    chains = summary["problems_to_sample"] * cfg.sampler.n + summary["given_chains"]
    sampled = summary["problems_to_sample"] * cfg.sampler.n
    mc = cfg.labels.mc is not None
    ref = reference_run(cfg, config_hash)
    out: dict[str, Any] = {"chains": chains, "measured_by": ref[0] if ref else None}
    if ref is None:
        out.update(sample_tokens_at_most=sampled * cfg.sampler.max_tokens, rollouts=None if mc
                   else 0, rollout_tokens=None if mc else 0, seconds=None, tokens_per_s=None)
        return out
    m = ref[1]
    c, t = m["counts"], m.get("tokens", {})
    per_chain = t.get("sample", 0) / c["chains_sampled"] if c.get("chains_sampled") else 0.0
    per_problem = c.get("rollouts", 0) / c["problems_labeled"]
    per_rollout = t.get("rollout", 0) / c["rollouts"] if c.get("rollouts") else 0.0
    rollouts = round(per_problem * summary["problems_to_label"]) if mc else 0
    tokens = round(per_chain * sampled) + round(per_rollout * rollouts)
    rate = (m.get("throughput") or {}).get("generated_tokens_per_s")
    out.update(sample_tokens=round(per_chain * sampled), rollouts=rollouts,
               rollout_tokens=round(per_rollout * rollouts), tokens_per_s=rate,
               seconds=round(tokens / rate, 1) if rate else None)
    return out


def plan_lines(cfg: Any, s: dict[str, Any], e: dict[str, Any]) -> list[str]:
    """The plan in a few sentences: what is read, reused and labeled, and the estimate."""
    reasons = "; ".join(f"{r}: {n}" for r, n in s["quarantine_reasons"].items())
    lines = [f"input: {s['records']} records: {s['problems']} problems, {s['quarantined']} "
             f"quarantined at load" + (f" ({reasons})" if reasons else "")]
    reuse = [f"{s['units_resumed']} already done in {cfg.output.dir} (resume)"]
    if cfg.output.previous:
        reuse.append(f"{s['units_copied_whole']} copied whole and {s['units_copied_in_part']} "
                     f"in part from {cfg.output.previous}")
    lines.append(f"units: {s['units']} of at most {cfg.output.problems_per_unit} problems: "
                 f"{', '.join(reuse)}; {s['units_to_label']} to label with "
                 f"{s['problems_to_label']} problems")
    if e["measured_by"] is None:
        tokens = f"at most {e['sample_tokens_at_most']:,} sample tokens (sampler.max_tokens)"
        rollouts = "rollouts not estimated" if e["rollouts"] is None else "no rollouts"
        when = ("no time estimate: no finished run of this config to measure from (label a "
                "few problems first, e.g. dataset.limit=20, then refresh from it)")
    else:
        tokens = f"~{e['sample_tokens']:,} sample tokens"
        rollouts = f"~{e['rollouts']:,} rollouts (~{e['rollout_tokens']:,} tokens)"
        when = (f"~{e['seconds']:,.0f} s of generation at {e['tokens_per_s']:,.0f} tok/s "
                f"measured by the run in {e['measured_by']}" if e["seconds"] is not None
                else f"no time estimate: {e['measured_by']} measured no speed")
    lines.append(f"estimate: {e['chains']:,} chains, {tokens}, {rollouts}; {when}")
    return lines


def dry_run(job: Any) -> dict[str, Any]:
    """Check the input and plan the run of `job` without starting or writing anything; print
    the plan and its estimate; return both (`plan`, `estimate`)."""
    job.check_inputs()
    summary = make_plan(job).summary()
    est = estimate(job.cfg, summary, job.hash)
    same = numerics(job.cfg, [job.cfg.model, *job._own_models()])
    print("prm-label dry run (nothing started, nothing written):")
    for line in [*plan_lines(job.cfg, summary, est), numerics_line(same)]:
        print("  " + line)
    return {"dry_run": True, "plan": summary, "estimate": est, "numerics": same}


def say_what_resume_redoes(job: Any, keys: dict[int, str]) -> None:
    """One sentence when an output dir holds units that match none of this run's (written
    by an older version's input-order cutting, or with other input or config)."""
    if not job.cfg.output.resume:
        return
    done = job.out.done_units()
    if done and not any(keys.get(n) == r.key for n, r in done.items()):
        log.warning(
            "%d units already in %s match none of this run's %d units (cut in input order "
            "by an older version, or another input or config), so all of them will be "
            "labeled; to reuse their rows, refresh into a new dir with output.previous=%s",
            len(done), job.out.root, len(keys), job.out.root)
