"""The label job's manifest: written last, so a finished dataset is visible as one file.

It holds the counts (checked: `problems_in == problems_labeled + problems_quarantined`), the
shard list with sizes and SHA-256, the config and its hash, lineage, cost and throughput.
Rows carry no wall-clock time; the manifest does (`created_at`, `wall_time_s`).
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from labeling.report.coverage import coverage_sentences, source_coverage
from labeling.report.stats import scan_dataset
from labeling.shards import DatasetDir
from pipelines.label.config import LabelJobConfig

log = logging.getLogger("prm-label")


def _cost(counts: dict[str, Any], tokens: dict[str, Any], wall: float) -> dict[str, Any]:
    labeled_steps = counts.get("steps_labeled", 0)
    spent = tokens.get("sample", 0) + tokens.get("rollout", 0)
    return {
        "tokens_per_labeled_step": round(spent / labeled_steps, 2) if labeled_steps else None,
        "rollouts": counts.get("rollouts", 0),
    }


def numerics(cfg: LabelJobConfig, models: list[Any]) -> dict[str, Any]:
    """Whether the same config and seed give the same shards here, for the manifest and the
    start line: each engine model's dtype and whether its engine is batch-invariant
    (`pipelines.engine.device`). `reproducible` is None where only the engines can tell (GPUs
    the driver cannot see)."""
    if str(cfg.engine.kind) == "simulated":
        return {"reproducible": True, "why": "the simulated engine is deterministic",
                "models": []}
    from pipelines.engine.device import choose

    out, verdicts = [], []
    for model in models:
        c = choose(str(model.dtype), cfg.engine.num_gpus, 1)
        gpu_unseen = c.device == "gpu" and not c.batch_invariant and "compute" not in c.reason
        verdict = None if gpu_unseen else c.batch_invariant
        verdicts.append(verdict)
        out.append({"name": model.name, "device": c.device, "dtype": c.dtype,
                    "reason": c.reason, "batch_invariant": verdict})
    same = None if None in verdicts else all(verdicts)
    why = {True: "every engine is batch-invariant (float32 on CPU; VLLM_BATCH_INVARIANT=1 on "
                 "GPUs of compute capability 8.0 and up)",
           False: "an engine is not batch-invariant (bf16 or fp16 on CPU, or a GPU older than "
                  "compute capability 8.0): the same config and seed can give other chains; "
                  "model.dtype=auto is reproducible",
           None: "each GPU engine decides (its start line says whether it is batch-invariant)"}
    return {"reproducible": same, "why": why[same], "models": out}


def numerics_line(n: dict[str, Any]) -> str:
    """One sentence on whether this run is reproducible (`numerics`)."""
    dtypes = ", ".join(f"{m['name']} {m['dtype']} on {m['device']}" for m in n["models"])
    head = {True: "reproducible", False: "NOT reproducible", None: "reproducible?"}
    return f"{head[n['reproducible']]}: {n['why']}" + (f" ({dtypes})" if dtypes else "")


def say_numerics(n: dict[str, Any]) -> None:
    """The start line on reproducibility: a warning when the run is not reproducible."""
    (log.warning if n["reproducible"] is False else log.info)(numerics_line(n))


def split_cost(records: dict[int, Any], reused: set[int]) -> dict[str, Any]:
    """The manifest's cost of this run (`tonight`: the units it labeled) apart from what it
    reused (`copied`: units copied from `output.previous` or resumed, with what they had
    cost when made), and `rollouts` of this run alone."""
    def part(units: list[Any]) -> dict[str, Any]:
        counts: Counter = Counter()
        tokens: Counter = Counter()
        for r in units:
            counts.update(r.counts)
            tokens.update(r.tokens)
        return {"units": len(units), "problems": counts.get("problems_in", 0),
                "problems_quarantined": counts.get("problems_quarantined", 0),
                "rollouts": counts.get("rollouts", 0), "tokens": dict(tokens)}

    tonight = part([r for n, r in records.items() if n not in reused])
    copied = part([r for n, r in records.items() if n in reused])
    return {"rollouts": tonight["rollouts"], "tonight": tonight, "copied": copied}


def _filter(cfg: LabelJobConfig, counts: dict[str, Any]) -> dict[str, Any]:
    """What the label policy kept: `consensus` drops chains whose sources disagree (they are
    in the quarantine with the reason); other policies keep every labeled chain."""
    kept, dropped = counts.get("chains", 0), counts.get("chains_filtered", 0)
    policy = cfg.labels.policy
    return {
        "policy": str(policy),
        "consensus": [str(s) for s in cfg.labels.consensus] if policy == "consensus" else None,
        "chains_kept": kept,
        "chains_dropped": dropped,
        "kept_share": round(kept / (kept + dropped), 4) if kept + dropped else None,
    }


def _split(cfg: LabelJobConfig, counts: dict[str, Any]) -> dict[str, Any]:
    """How chains were cut, so that the cut can be repeated: the mode and, for reasoning
    traces, the section budget, cap and cue tables; and what the traces were like. Who cut
    the chains is added from the rows (`who_cut`)."""
    sections = str(cfg.split.mode) == "sections"
    return {
        "mode": str(cfg.split.mode),
        "code_mode": str(cfg.split.code_mode),
        "max_steps": cfg.split.max_steps,
        "sections": cfg.split.section_options().record() if sections else None,
        "chains_thinking": counts.get("chains_thinking", 0),
        "chains_thinking_unfinished": counts.get("chains_thinking_unfinished", 0),
        "after_error": str(cfg.labels.after_error),
    }


def who_cut(root: Path, shards: list[dict[str, Any]]) -> dict[str, int]:
    """How many labeled chains this job cut with `split.*` (`chains_cut`: sampled, or given
    as one response string) and how many came as a list of steps (`chains_given_split`: cut
    by no rule here). Read from the rows: a math chain the job cut has its step spans, a
    sampled one its sampler seed; a given list of steps has neither. Code is cut by
    statements and keeps no spans: a given code chain counts as cut."""
    cut = given = 0
    for s in shards:
        t = pq.read_table(root / s["path"], columns=["domain", "sampler_seed", "step_spans"])
        for domain, seed, spans in zip(t.column("domain").to_pylist(),
                                       t.column("sampler_seed").to_pylist(),
                                       t.column("step_spans").to_pylist(), strict=True):
            split = domain == "math" and seed is None and not spans
            given, cut = given + split, cut + (not split)
    return {"chains_cut": cut, "chains_given_split": given}


def given_model(root: Path, shards: list[dict[str, Any]], shown: int = 20) -> dict[str, Any]:
    """The manifest's `model` block when no engine ran: the chains were given with the input,
    so the model is `given`, and the generators are the `model` values the rows carry."""
    seen: Counter[str] = Counter()
    for s in shards:
        seen.update(pq.read_table(root / s["path"], columns=["model"]).column("model").to_pylist())
    return {"name": "given", "path": None, "generators": [m for m, _ in seen.most_common(shown)],
            "generators_count": len(seen)}  # fmt: skip


def build_manifest(cfg: LabelJobConfig, head: dict[str, Any], model_path: str, wall: float,
                   prev: DatasetDir | None) -> dict[str, Any]:
    """The manifest from the driver's `head` (counts checked, shards, tokens, units): the
    label job's config, model, cost, filter, throughput and lineage."""
    c, tokens = head["counts"], head["tokens"]
    for k in ("chains", "steps"):
        c.setdefault(k, 0)
    return {
        **head,
        "config": asdict(cfg),
        "model": {"name": cfg.model.name, "path": model_path},
        "cost": _cost(c, tokens, wall),
        "filter": _filter(cfg, c),
        "split": _split(cfg, c),
        "throughput": {
            "chains_per_s": round(c["chains"] / wall, 3) if wall else None,
            "sample_tokens_per_s": round(tokens.get("sample", 0) / wall, 2) if wall else None,
        },
        "lineage": {
            "previous": str(prev.root) if prev else None,
            "previous_manifest": (prev.read_manifest() or {}).get("created_at") if prev else None,
        },
    }



def redone(pool: Any, labelers: list[Any], places: list[Any], units_retried: int
           ) -> dict[str, Any]:  # fmt: skip
    """What had to be redone: engine calls re-sent to live engines (and the engines and
    nodes lost), labeler actors Ray restarted (their calls retried, possibly on another
    node: `places` holds each labeler's (node, pid) asked at its start, `labelers` is empty
    without Ray), units labeled again problem by problem after their call failed."""
    out: dict[str, Any] = {"engine_calls_resent": 0, "engine_requests_resent": 0,
                           "engines_lost": 0, "engine_nodes_lost": []}
    if pool is not None and hasattr(pool, "retries"):
        out.update(pool.retries())
    restarted, moved = 0, 0
    if labelers and places:
        import ray

        try:
            first = ray.get(places, timeout=30)
            now = ray.get([a.where.remote() for a in labelers], timeout=30)
        except Exception as exc:  # a figure must not fail a finished run
            log.warning("could not ask the labelers where they run: %s", exc)
            first = now = []
        for (node0, pid0), (node1, pid1) in zip(first, now, strict=True):
            restarted += (node0, pid0) != (node1, pid1)
            moved += node0 != node1
    out["labelers_restarted"] = restarted
    out["labelers_moved_node"] = moved
    out["units_retried_by_problem"] = units_retried
    return out


def write_report_quietly(root: Path) -> None:
    """report.html beside the manifest. A plotting failure must not fail a finished run:
    the shards and manifest are already written, so it only logs a warning."""
    try:
        # matplotlib loads only when the report is drawn, at the job's end.
        from pipelines.report.app import write_report

        path = write_report(root)
        print(f"prm-label: report -> {path}")
    except Exception as exc:
        log.warning("could not write the report (%s); run prm-report dir=%s", exc, root)


def log_done(manifest: dict[str, Any], wall: float, root: Path) -> None:
    c = manifest["counts"]
    log.info(
        "done: %d problems in, %d labeled, %d quarantined; %d rows, %d steps in %.1fs -> %s",
        c["problems_in"], c["problems_labeled"], c["problems_quarantined"], c["rows"],
        c["steps"], wall, root,
    )
    if c["problems_in"] and c["problems_quarantined"] == c["problems_in"]:
        log.warning("every one of the %d problems was quarantined (no row written): the "
                    "reasons are in %s (prm-report lists them)", c["problems_in"],
                    root / "quarantine")
    unfinished = manifest.get("split", {}).get("chains_thinking_unfinished", 0)
    if unfinished:
        log.warning("%d of %d traces never closed their thinking (no </think>; cut at "
                    "max_tokens?): their final answer is unknown (answer unverifiable, "
                    "final_answer null, thinking_finished false)", unfinished,
                    manifest["split"]["chains_thinking"])
    reused = manifest.get("units_reused", 0)
    print(
        f"prm-label: {c['rows']} rows ({c['steps']} steps) from {c['problems_in']} problems "
        f"({c['problems_quarantined']} quarantined) in {wall:.1f}s -> {root / 'manifest.json'}"
        + (f"\n  {reused} of {manifest.get('units', reused)} units reused from an earlier run "
           "with this config, not labeled again" if reused else "")
    )


def say_coverage(root: Path) -> None:
    """The job's last lines: what each source could judge and what it left unverifiable, and
    why; a warning with the figure when the Monte Carlo completer rarely solves the problems
    it completes. A figure must not fail a finished run: a failure to count is logged."""
    try:
        said, low = coverage_sentences(source_coverage(scan_dataset(root)[0]))
    except Exception as exc:
        log.warning("could not count what each source judged: %s", exc)
        return
    for line in said:
        log.info(line)
    if low:
        log.warning(low)
