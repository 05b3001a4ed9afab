"""`prm-audit audit.mode=sample`: the review pack a person works through.

    <pack>/plan.json                what was sampled from which dataset, strata sizes, coverage
    <pack>/samples.jsonl            one line per step to review (strata, queue rank, labels)
    <pack>/review.html              self-contained review page (no server, no fetches)
    <pack>/labelstudio_tasks.json   the same steps as Label Studio tasks
    <pack>/labelstudio_config.xml   the labeling interface those tasks expect
    <pack>/verdicts-oracle.json     audit.reviewer=oracle: answers from the data's human labels

Every file is written atomically; the dataset itself is only read.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from labeling.audit_estimate import coverage
from labeling.audit_sample import SampleItem, StepView, chain_views, review_plan, strata
from labeling.audit_verdicts import PAGE_FORMAT
from labeling.first_error import first_error
from labeling.report_stats import read_manifest
from labeling.schema import Neutral
from labeling.shards import atomic_write_bytes, read_shard, shard_files
from pipelines.cli import UserError

SAMPLES, PLAN, PAGE = "samples.jsonl", "plan.json", "review.html"
LS_TASKS, LS_CONFIG = "labelstudio_tasks.json", "labelstudio_config.xml"
ORACLE = "verdicts-oracle.json"
MARK = "background:#fff3c4;border-left:4px solid #e0a800;padding:4px"  # the step under review
VERDICT_WORDS = ("correct", "incorrect", "neutral", "skip")


def load_rows(root: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every labeled row of a finished dataset (read whole: an audit's datasets fit in
    memory; the report is the tool for aggregates over millions of rows)."""
    manifest = read_manifest(root)
    rows = [r for p in shard_files(root) for r in read_shard(p).to_pylist()]
    return rows, manifest


def policy_of(manifest: dict[str, Any]) -> str:
    return str(((manifest.get("config") or {}).get("labels") or {}).get("policy") or "policy")


def neutral_of(manifest: dict[str, Any]) -> Neutral:
    value = ((manifest.get("config") or {}).get("labels") or {}).get("neutral")
    return Neutral(value) if value else Neutral.positive


def mc_threshold(manifest: dict[str, Any]) -> float:
    mc = ((manifest.get("config") or {}).get("labels") or {}).get("mc") or {}
    return float(mc.get("threshold", 0.0)) if isinstance(mc, dict) else 0.0


def first_errors(chain: list[StepView]) -> dict[str, int | None]:
    """Each source's first error in the chain (`labeling.first_error.first_error`: -1 every
    step right, None nothing located)."""
    sources = chain[0].labels.keys() if chain else ()
    return {s: first_error([v.labels[s] for v in chain]) for s in sources}


def sample_line(it: SampleItem, chain: list[StepView]) -> dict[str, Any]:
    v = it.view
    return {
        "key": v.key, "problem_id": v.problem_id, "chain_id": v.chain_id, "step": v.step,
        "n_steps": v.n_steps, "strata": it.strata, "queue_rank": it.queue_rank,
        "reasons": it.reasons, "labels": dict(v.labels), "first_errors": first_errors(chain),
    }  # fmt: skip


def page_item(line: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    """What the page shows for one step: the problem, the chain, and (after the answer, when
    blind) what every source said about this step."""
    said = [
        {"source": v["source"], "status": v["status"], "score": v["score"],
         "evidence": v["evidence"] or ""}
        for v in row["verdicts"] or () if v["step"] == line["step"]
    ]  # fmt: skip
    return {
        "key": line["key"], "problem": row["prompt"], "steps": row["completions"],
        "step": line["step"], "labels": line["labels"], "said": said,
        "why": "; ".join(line["reasons"]) or ("stratified: " + ", ".join(line["strata"])),
    }


def render_page(pack_id: str, items: list[dict[str, Any]], blind: bool, title: str) -> str:
    env = Environment(
        loader=PackageLoader("pipelines.audit", "templates"),
        autoescape=select_autoescape(["html", "j2"]), keep_trailing_newline=True,
    )  # fmt: skip
    data = {"pack": pack_id, "format": PAGE_FORMAT, "blind": blind, "items": items}
    return env.get_template("review.html.j2").render(data=data, title=title)


def labelstudio_tasks(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One task per step; the chain as HTML with the step under review marked."""
    from html import escape

    tasks = []
    for it in items:
        steps = "".join(
            f'<p style="{MARK if i == it["step"] else ""}">'
            f"<b>Step {i + 1}.</b> {escape(s)}</p>"
            for i, s in enumerate(it["steps"])
        )  # fmt: skip
        tasks.append({"data": {"item": it["key"], "problem": it["problem"], "chain": steps,
                               "step_number": it["step"] + 1}})  # fmt: skip
    return tasks


LS_INTERFACE = """<View>
  <Header value="Problem"/>
  <Text name="problem" value="$problem"/>
  <Header value="Is step $step_number (highlighted) correct?"/>
  <HyperText name="chain" value="$chain"/>
  <Choices name="verdict" toName="chain" choice="single" showInline="true" required="true">
    <Choice value="correct" hotkey="c"/>
    <Choice value="incorrect" hotkey="i"/>
    <Choice value="neutral" hotkey="n"/>
  </Choices>
</View>
"""


def oracle_verdict(row: dict[str, Any], step: int) -> str:
    """What the data's own human labels say about a step (skip where they say nothing)."""
    ratings, bools = row.get("human_ratings"), row.get("human_labels")
    if ratings is not None and ratings[step] is not None:
        return {1: "correct", 0: "neutral", -1: "incorrect"}[int(ratings[step])]
    if bools is not None and bools[step] is not None:
        return "correct" if bools[step] else "incorrect"
    return "skip"


def write_pack(
    root: Path, pack: Path, seed: int, halfwidth: float, budget: int, queue: int,
    blind: bool, oracle: bool,
) -> dict[str, Any]:  # fmt: skip
    """Sample the dataset at `root` into the review pack at `pack`; returns the plan."""
    rows, manifest = load_rows(root)
    policy = policy_of(manifest)
    by_chain = {r["chain_id"]: r for r in rows}
    if len(by_chain) != len(rows):
        raise UserError(f"{root}: chain ids repeat across rows; cannot address steps")
    chains = {r["chain_id"]: chain_views(r, policy) for r in rows}
    views = [v for vs in chains.values() for v in vs]
    plan_items = review_plan(views, seed, halfwidth, budget, queue, mc_threshold(manifest))
    lines = [sample_line(it, chains[it.view.chain_id]) for it in plan_items]
    sizes = {f"{s}:{st}": len(vs) for (s, st), vs in sorted(strata(views).items())}
    digest = hashlib.blake2b(digest_size=6)
    for part in (str(manifest.get("config_hash")), str(seed), *[x["key"] for x in lines]):
        digest.update(part.encode() + b"\x1f")
    pack_id = digest.hexdigest()
    plan = {
        "pack": pack_id, "dataset": str(root), "dataset_created_at": manifest.get("created_at"),
        "config_hash": manifest.get("config_hash"), "policy": policy, "seed": seed,
        "target_halfwidth": halfwidth, "budget": budget, "queue": queue, "blind": blind,
        "steps": len(views), "items": len(lines),
        "stratified_items": sum(1 for x in lines if x["strata"]),
        "sizes": sizes, "coverage": coverage(sizes),
    }  # fmt: skip
    items = [page_item(x, by_chain[x["chain_id"]]) for x in lines]
    title = f"{Path(root).name}: {len(items)} steps to review"
    text = "".join(json.dumps(x, sort_keys=True) + "\n" for x in lines)
    atomic_write_bytes(pack / SAMPLES, text.encode())
    atomic_write_bytes(pack / PAGE, render_page(pack_id, items, blind, title).encode())
    atomic_write_bytes(pack / LS_TASKS, json.dumps(labelstudio_tasks(items), indent=1).encode())
    atomic_write_bytes(pack / LS_CONFIG, LS_INTERFACE.encode())
    if oracle:
        verdicts = [
            {"item": x["key"], "verdict": oracle_verdict(by_chain[x["chain_id"]], x["step"])}
            for x in lines
        ]
        export = {"format": PAGE_FORMAT, "pack": pack_id, "reviewer": "oracle",
                  "verdicts": verdicts}  # fmt: skip
        atomic_write_bytes(pack / ORACLE, json.dumps(export, indent=1).encode())
    atomic_write_bytes(pack / PLAN, json.dumps(plan, indent=1, sort_keys=True).encode())
    return plan


def read_pack(pack: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(plan, sample lines) of a written pack; UserError when it is not one."""
    try:
        plan = json.loads((pack / PLAN).read_text())
        lines = [json.loads(x) for x in (pack / SAMPLES).read_text().splitlines() if x]
    except (OSError, ValueError) as exc:
        raise UserError(f"{pack} is not a review pack ({exc}); run prm-audit "
                        "audit.mode=sample first") from None  # fmt: skip
    return plan, lines


__all__ = ["load_rows", "read_pack", "write_pack"]
