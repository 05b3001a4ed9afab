"""`prm-audit`: how good are the labels? A human review sample with 95% intervals, and the
reviewers' verdicts folded back in as a new dataset version.

    prm-audit audit.dir=runs/v1                            # review pack -> runs/v1/audit/
    prm-audit audit.mode=import audit.dir=runs/v1 audit.verdicts=[verdicts.json] output.dir=runs/v2
    prm-audit audit.mode=estimate audit.dir=runs/v2 audit.pack=runs/v1/audit

`main()` only parses the config and calls `run(cfg)`, which tests call directly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omegaconf import DictConfig

from labeling.audit.estimate import Method, Reviewed, estimate
from labeling.audit.sample import HUMAN, step_key
from labeling.report.stats import read_manifest
from labeling.shards import DatasetDir
from pipelines.audit.config import AuditJobConfig, Mode, register, validate
from pipelines.audit.importer import import_verdicts
from pipelines.audit.pack import load_rows, read_pack, write_pack
from pipelines.cli import HydraApp
from pipelines.config_fields import typed_config


def typed(cfg: DictConfig | AuditJobConfig) -> AuditJobConfig:
    """The config as the dataclass object (enums as members), validated."""
    return typed_config(AuditJobConfig, cfg, validate)


def pack_dir(cfg: AuditJobConfig) -> Path:
    return Path(cfg.audit.pack) if cfg.audit.pack else Path(cfg.audit.dir) / "audit"


def human_verdicts(root: Path) -> dict[str, bool | None]:
    """Step key -> the imported reviewer's boolean (None: neutral under `mask`)."""
    rows, _ = load_rows(root)
    return {step_key(r["chain_id"], v["step"]): v["label"]
            for r in rows for v in r["verdicts"] or () if v["source"] == HUMAN}  # fmt: skip


def checked_answers(manifest: dict[str, Any]) -> dict[str, dict[str, bool]]:
    """A check's claim (`arithmetic`, ...) -> step key -> the reviewer's answer to that
    question (True: it holds), from the reviewed version's `audit.checks`."""
    held = (manifest.get("audit") or {}).get("checks") or {}
    return {claim: {key: a["verdict"] == "correct" for key, a in answers.items()}
            for claim, answers in held.items()}  # fmt: skip


def quality(root: Path, pack: Path, method: Method) -> dict[str, Any]:
    """The manifest's `quality` block for the reviewed dataset at `root`."""
    plan, lines = read_pack(pack)
    items = [Reviewed(x["key"], x["chain_id"], x["step"], tuple(x["strata"]), x["labels"],
                      x["first_errors"]) for x in lines]  # fmt: skip
    human = human_verdicts(root)
    checked = checked_answers(read_manifest(root))
    rows = [q.row() for q in estimate(items, human, plan["sizes"], method, checked)]
    sampled = {x["chain_id"] for x in lines}
    steps = [k.rsplit("#", 1)[0] for k, v in human.items() if v is not None]
    steps = [c for c in steps if c in sampled]
    return {"pack": plan["pack"], "policy": plan["policy"],
            "after_error": plan.get("after_error", "negative"), "interval": str(method),
            "confidence": 0.95, "reviews": len(steps), "reviewed_chains": len(set(steps)),
            "check_answers": {c: len(a) for c, a in checked.items()},
            "sampled_chains": len(sampled), "sampled_steps": len(lines),
            "coverage": plan["coverage"], "figures": rows}  # fmt: skip


def format_quality(q: dict[str, Any]) -> str:
    out = [
        f"label quality: {q['interval']} 95% intervals, policy {q['policy']}, after_error "
        f"{q.get('after_error', 'negative')}",
        f"reviewed: {q.get('reviewed_chains', '?')} of {q.get('sampled_chains', '?')} sampled "
        f"chains, {q['reviews']} steps with a verdict (a chain answer gives one to every",
        "  step up to its first error)" + "".join(
            f", {n} answers to '{c}'" for c, n in q.get("check_answers", {}).items()) + (
            "; each row rests on its own `reviews`: the labels its"),
        "  stratum drew whose claim the answers decide (a step drawn by several strata counts "
        "in each)",
        "claim step: the label is about the step itself, scored against its verdict;",
        "  arithmetic (calc), syntax (tests): only what the check checks, scored against the",
        "  answer to that question (\"does the arithmetic hold?\"); prefix: a False after the",
        "  first error (\"the chain has gone wrong by here\"), scored against the chain's first "
        "error",
        f"{'source':<16}{'claim':<11}{'measure':<21}{'estimate':>9}  {'95% interval':<17}"
        f"{'reviews':>8}{'population':>11}",
    ]
    for r in q["figures"]:
        est = "–" if r["estimate"] is None else f"{r['estimate']:.3f}"
        out.append(f"{r['source']:<16}{r.get('claim') or '-':<11}{r['measure']:<21}{est:>9}  "
                   f"[{r['low']:.3f}, {r['high']:.3f}]  {r['reviews']:>8}"
                   f"{r['population']:>11}")  # fmt: skip
    cov = ", ".join(f"{s} {c}" for s, c in q["coverage"].items())
    out.append(f"coverage (share of steps labeled): {cov}")
    return "\n".join(out)


def run(cfg: DictConfig | AuditJobConfig) -> dict[str, Any]:
    """Run the configured mode; returns the plan, the new manifest, or the quality block."""
    c = typed(cfg)
    a, root, pack = c.audit, Path(c.audit.dir), pack_dir(c)
    if a.mode == Mode["sample"]:
        plan = write_pack(root, pack, a.seed, a.target_halfwidth, a.budget, a.queue, a.blind,
                          a.reviewer == "oracle", a.review_mode)  # fmt: skip
        print(f"prm-audit: {plan['items']} steps of {plan['chains']} chains to review "
              f"({plan['stratified_items']} stratified, the rest from the uncertainty queue) "
              f"-> {pack / 'review.html'} ({plan['review_mode']} mode)")
        return plan
    if a.mode == Mode["import"]:
        man = import_verdicts(root, pack, a.verdicts, Path(c.output.dir), c.labels.neutral)
        s = man["audit"]
        for f, n in s["read_as_step"].items():
            print(f"prm-audit: {f}: {n} step records name no claim; read as answering "
                  "'is this step itself correct?', as files written before claims did")
        print(f"prm-audit: {s['verdicts_used']} step verdicts, {s['check_answers_used']} "
              f"answers to checks' own questions and {s['chain_answers_used']} "
              f"chain answers applied ({s['steps_reviewed']} steps reviewed, "
              f"{s['steps_relabeled']} step labels changed in {s['chains_relabeled']} chains), "
              f"{s['quarantined']} quarantined, {s['skipped']} skipped -> "
              f"{Path(c.output.dir) / 'manifest.json'}")
        return man
    q = quality(root, pack, a.interval)
    d = DatasetDir(root)
    manifest = d.read_manifest()
    if manifest is None:
        raise FileNotFoundError(f"no manifest.json in {root}")
    d.write_manifest({**manifest, "quality": q})
    print(format_quality(q))
    return q


APP = HydraApp("prm-audit", "audit", AuditJobConfig, register, run, __doc__)


def main() -> None:
    APP.main()


if __name__ == "__main__":
    main()


__all__ = ["main", "run"]
