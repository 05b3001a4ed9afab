"""`prm-audit audit.mode=sample`: the review pack a person works through.

    <pack>/plan.json                what was sampled from which dataset, strata sizes, coverage
    <pack>/samples.jsonl            one line per step to review (strata, queue rank, labels)
    <pack>/review.html              self-contained review page (no server, no fetches)
    <pack>/labelstudio_tasks.json   the step questions as Label Studio tasks
    <pack>/labelstudio_config.xml   the labeling interface those tasks expect
    <pack>/labelstudio_chain_tasks.json, labelstudio_chain_config.xml: the chain questions
    <pack>/verdicts-oracle.json     audit.reviewer=oracle: answers from the data's human labels

Every file is written atomically; the dataset itself is only read.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from labeling.audit.claims import Claim, page_texts, question
from labeling.audit.estimate import coverage
from labeling.audit.sample import (
    SampleItem,
    StepView,
    asks,
    chain_views,
    review_plan,
    step_claims,
    strata,
)
from labeling.audit.verdicts import PAGE_FORMAT, Mode
from labeling.datasets import gives_sections
from labeling.first_error import first_error
from labeling.report.stats import read_manifest
from labeling.schema import Neutral
from labeling.shards import atomic_write_bytes, read_shard, shard_files
from pipelines.audit.oracle import oracle_export
from pipelines.cli import UserError

SAMPLES, PLAN, PAGE = "samples.jsonl", "plan.json", "review.html"
LS_TASKS, LS_CONFIG = "labelstudio_tasks.json", "labelstudio_config.xml"
LS_CHAIN_TASKS, LS_CHAIN_CONFIG = "labelstudio_chain_tasks.json", "labelstudio_chain_config.xml"
ORACLE = "verdicts-oracle.json"
MARK = "background:#fff3c4;border-left:4px solid #e0a800;padding:4px"  # the step under review


def load_rows(root: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every labeled row of a finished dataset (read whole: an audit's datasets fit in
    memory; the report is the tool for aggregates over millions of rows)."""
    manifest = read_manifest(root)
    rows = [r for p in shard_files(root) for r in read_shard(p).to_pylist()]
    return rows, manifest


def policy_of(manifest: dict[str, Any]) -> str:
    return str(((manifest.get("config") or {}).get("labels") or {}).get("policy") or "policy")


def after_error_of(manifest: dict[str, Any]) -> str:
    labels = (manifest.get("config") or {}).get("labels") or {}
    return str(labels.get("after_error") or "negative")


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
        "reasons": it.reasons, "labels": dict(v.labels), "claims": dict(v.claims),
        "first_errors": first_errors(chain), "asks": asks(it.strata, it.queue_rank is not None),
    }  # fmt: skip


def page_item(line: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    """One sampled step on the page: which questions it needs, and (after the answer, when
    blind) what every source said about it."""
    said = [
        {"source": v["source"], "status": v["status"], "score": v["score"],
         "evidence": v["evidence"] or ""}
        for v in row["verdicts"] or () if v["step"] == line["step"]
    ]  # fmt: skip
    return {
        "key": line["key"], "chain": line["chain_id"], "step": line["step"],
        "asks": line.get("asks") or [str(Claim.step)], "labels": line["labels"],
        "claims": line.get("claims") or {}, "said": said,
        "why": "; ".join(line["reasons"]) or ("stratified: " + ", ".join(line["strata"])),
    }


def page_chain(row: dict[str, Any], views: list[StepView]) -> dict[str, Any]:
    """One sampled chain on the page: its text and every source's labels (shown after the
    answer, when blind)."""
    sources = views[0].labels.keys() if views else ()
    return {"problem": row["prompt"], "steps": row["completions"],
            "labels": {s: [v.labels[s] for v in views] for s in sources}}  # fmt: skip


def unit_of(manifest: dict[str, Any]) -> str:
    """What one label is about: "section" for reasoning traces cut into sections (by
    `split.mode=sections`, or given in people's sections), else "step"."""
    config = manifest.get("config") or {}
    mode = (manifest.get("split") or {}).get("mode") or (config.get("split") or {}).get("mode")
    dataset = config.get("dataset") or {}
    given = gives_sections(dataset.get("adapter") or dataset.get("name"))
    return "section" if mode == "sections" or given else "step"


def render_page(pack_id: str, chains: dict[str, Any], items: list[dict[str, Any]],
                blind: bool, mode: str, title: str, neutral: str = "positive",
                unit: str = "step") -> str:  # fmt: skip
    env = Environment(
        loader=PackageLoader("pipelines.audit", "templates"),
        autoescape=select_autoescape(["html", "j2"]), keep_trailing_newline=True,
    )  # fmt: skip
    # `neutral`: what a neutral step verdict counts as when the page checks it against a
    # chain answer (the dataset's labels.neutral, as the import does by default).
    # `claims`: every claim's question and words (labeling.audit.claims, their one home).
    data = {"pack": pack_id, "format": PAGE_FORMAT, "blind": blind, "mode": str(mode),
            "neutral": str(neutral), "chains": chains, "items": items,
            "unit": unit, "claims": page_texts(unit)}  # fmt: skip
    return env.get_template("review.html.j2").render(data=data, title=title)


def _ls_chain_html(steps: list[str], mark: int | None = None) -> str:
    from html import escape

    return "".join(f'<p style="{MARK if i == mark else ""}"><b>Step {i}.</b> {escape(s)}</p>'
                   for i, s in enumerate(steps))  # fmt: skip


def labelstudio_tasks(items: list[dict[str, Any]], chains: dict[str, Any], unit: str = "step"
                      ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:  # fmt: skip
    """(step tasks, chain tasks): one step task per step question a sampled step needs (one
    per claim: "is it correct?", "does its arithmetic hold?"), the step under review marked
    and the question the claim's; one chain task per chain with a prefix claim to check.
    Steps are numbered from 0, as in the data."""
    step_tasks = [{"data": {"item": it["key"], "claim": claim,
                            "question": question(claim, unit, it["step"]),
                            "problem": chains[it["chain"]]["problem"],
                            "chain": _ls_chain_html(chains[it["chain"]]["steps"], it["step"]),
                            "step_number": it["step"]}}
                  for it in items for claim in step_claims(it)]  # fmt: skip
    wanted = dict.fromkeys(it["chain"] for it in items if str(Claim.prefix) in it["asks"])
    chain_tasks = [{"data": {"chain_id": c, "problem": chains[c]["problem"],
                             "chain": _ls_chain_html(chains[c]["steps"]),
                             "last_step": len(chains[c]["steps"]) - 1}} for c in wanted]
    return step_tasks, chain_tasks


LS_INTERFACE = """<View>
  <Header value="Problem"/>
  <Text name="problem" value="$problem"/>
  <Header value="$question (Steps count from 0.)"/>
  <HyperText name="chain" value="$chain"/>
  <Choices name="verdict" toName="chain" choice="single" showInline="true" required="true">
    <Choice value="correct" hotkey="c"/>
    <Choice value="incorrect" hotkey="i"/>
    <Choice value="neutral" hotkey="n"/>
  </Choices>
</View>
"""

LS_CHAIN_INTERFACE = """<View>
  <Header value="Problem"/>
  <Text name="problem" value="$problem"/>
  <Header value="Which step is the first wrong one? Steps count from 0 (the last is
    $last_step); -1: every step is correct."/>
  <HyperText name="chain" value="$chain"/>
  <Number name="first_error" toName="chain" min="-1" required="true"/>
</View>
"""


def write_pack(
    root: Path, pack: Path, seed: int, halfwidth: float, budget: int, queue: int,
    blind: bool, oracle: bool, mode: str = Mode.chain.value,
) -> dict[str, Any]:  # fmt: skip
    """Sample the dataset at `root` into the review pack at `pack`; returns the plan. `mode`:
    the page's opening mode, and the one the oracle answers in (`auto`: `sections` for
    traces cut into sections, whose labels judge each section on its own, else `chain`)."""
    rows, manifest = load_rows(root)
    unit = unit_of(manifest)
    if mode == "auto":
        mode = Mode.sections.value if unit == "section" else Mode.chain.value
    policy, after_error = policy_of(manifest), after_error_of(manifest)
    by_chain = {r["chain_id"]: r for r in rows}
    if len(by_chain) != len(rows):
        raise UserError(f"{root}: chain ids repeat across rows; cannot address steps")
    chains = {r["chain_id"]: chain_views(r, policy, after_error) for r in rows}
    views = [v for vs in chains.values() for v in vs]
    plan_items = review_plan(views, seed, halfwidth, budget, queue, mc_threshold(manifest))
    lines = [sample_line(it, chains[it.view.chain_id]) for it in plan_items]
    sizes = {name: len(vs) for name, vs in sorted(strata(views).items())}
    digest = hashlib.blake2b(digest_size=6)
    for part in (str(manifest.get("config_hash")), str(seed), *[x["key"] for x in lines]):
        digest.update(part.encode() + b"\x1f")
    pack_id = digest.hexdigest()
    plan = {
        "pack": pack_id, "dataset": str(root), "dataset_created_at": manifest.get("created_at"),
        "config_hash": manifest.get("config_hash"), "policy": policy,
        "after_error": after_error, "seed": seed, "target_halfwidth": halfwidth,
        "budget": budget, "queue": queue, "blind": blind, "review_mode": mode,
        "steps": len(views), "items": len(lines),
        "chains": len({x["chain_id"] for x in lines}),
        "stratified_items": sum(1 for x in lines if x["strata"]),
        "sizes": sizes, "coverage": coverage(sizes),
    }  # fmt: skip
    items = [page_item(x, by_chain[x["chain_id"]]) for x in lines]
    order = dict.fromkeys(x["chain"] for x in items)
    shown = {c: page_chain(by_chain[c], chains[c]) for c in order}
    title = f"{Path(root).name}: {len(items)} {unit}s of {len(shown)} chains to review"
    text = "".join(json.dumps(x, sort_keys=True) + "\n" for x in lines)
    step_tasks, chain_tasks = labelstudio_tasks(items, shown, unit)
    atomic_write_bytes(pack / SAMPLES, text.encode())
    page = render_page(pack_id, shown, items, blind, mode, title, neutral_of(manifest), unit)
    atomic_write_bytes(pack / PAGE, page.encode())
    atomic_write_bytes(pack / LS_TASKS, json.dumps(step_tasks, indent=1).encode())
    atomic_write_bytes(pack / LS_CONFIG, LS_INTERFACE.encode())
    atomic_write_bytes(pack / LS_CHAIN_TASKS, json.dumps(chain_tasks, indent=1).encode())
    atomic_write_bytes(pack / LS_CHAIN_CONFIG, LS_CHAIN_INTERFACE.encode())
    if oracle:
        export = oracle_export(pack_id, lines, by_chain, mode)
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
