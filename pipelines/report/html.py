"""The report as one self-contained HTML page: tables, and plots as base64 PNGs.

Input is what `labeling.report.stats` returns (small aggregates); nothing here reads shards.
All text that comes from data (dataset names, source names, quarantine reasons and raw
records) is HTML-escaped, and the page carries a Content-Security-Policy that allows no
scripts and no network fetches at all, so a hostile record can neither run nor phone home.
"""

from __future__ import annotations

import html
from typing import Any

import polars as pl

from labeling.report.stats import HUMAN
from pipelines.report.plots import (
    plot_agreement,
    plot_first_error,
    plot_labels,
    plot_mc,
    plot_quality,
    plt,
)
from pipelines.report.story import run_story, sources_run

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
SECTIONS = {  # id -> title, in page order
    "about": "What this run did",
    "summary": "Summary",
    "counts": "Counts per dataset and domain",
    "labels": "Labels per source",
    "quality": "Label quality",
    "agreement": "Agreement between sources",
    "first-error": "First-error position",
    "mc": "Monte Carlo scores",
    "cost": "Rollouts and tokens per labeled step",
    "quarantine": "Quarantine",
    "throughput": "Run and throughput",
}
NAV = {"about": "About", "quality": "Quality", "first-error": "First error", "mc": "MC",
       "cost": "Cost", "throughput": "Run"}
STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d1d1f;
background:#f6f7f9}
header{background:#1f2a44;color:#fff;padding:18px 28px}header h1{margin:0;font-size:22px}
header p{margin:4px 0 0;opacity:.8;font-size:13px;word-break:break-all}
nav{padding:8px 28px;background:#e9ecf2;font-size:13px}nav a{margin-right:14px;color:#1f2a44}
main{padding:8px 28px 40px}section{background:#fff;border-radius:8px;margin:16px 0;
padding:14px 18px;box-shadow:0 1px 2px rgba(0,0,0,.08)}h2{font-size:17px;margin:0 0 10px}
.grid{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
.cards{display:flex;flex-wrap:wrap;gap:10px}.card{background:#f1f4f9;border-radius:6px;
padding:8px 14px;min-width:110px}.card b{display:block;font-size:20px}
.card span{font-size:12px;color:#555}table{border-collapse:collapse;font-size:13px}
th,td{padding:3px 9px;border-bottom:1px solid #e4e4e4;text-align:right}
th{background:#f1f4f9}table{margin:0 0 12px}
h3{font-size:15px;margin:10px 0 6px}td.s,th.s{text-align:left}
td.raw{font-family:monospace;font-size:12px;
max-width:420px;word-break:break-all;text-align:left}img{max-width:100%}
.note{color:#666;font-size:13px;margin:6px 0}.warn{color:#b71c1c}
"""


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.3f}".rstrip("0").rstrip(".") if abs(value) < 1e6 else f"{value:.3g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def table(df: pl.DataFrame, raw: tuple[str, ...] = (), empty: str = "nothing to show") -> str:
    """An HTML table of a small DataFrame; text columns left-aligned, `raw` ones monospace."""
    if df.height == 0:
        return f'<p class="note">{esc(empty)}</p>'
    text = {c for c, t in df.schema.items() if t == pl.String or t == pl.Boolean}
    head = "".join(f'<th class="{"s" if c in text else ""}">{esc(c)}</th>' for c in df.columns)
    body = []
    for row in df.iter_rows(named=True):
        cells = []
        for c, v in row.items():
            cls = "raw" if c in raw else "s" if c in text else ""
            cells.append(f'<td class="{cls}">{esc(fmt(v))}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def kv_table(items: dict[str, Any]) -> str:
    rows = "".join(
        f'<tr><th class="s">{esc(k)}</th><td class="s">{esc(fmt(v))}</td></tr>'
        for k, v in items.items()
    )
    return f"<table>{rows}</table>"


def quality_frame(quality: dict[str, Any]) -> pl.DataFrame:
    """The manifest's `quality` block (written by `prm-audit audit.mode=estimate`) as a table."""
    rows = quality.get("figures") or []
    cols = ["source", "claim", "measure", "estimate", "low", "high", "reviews", "population"]
    return pl.DataFrame([{c: r.get(c) for c in cols} for r in rows],
                        schema={"source": pl.String, "claim": pl.String, "measure": pl.String,
                                "estimate": pl.Float64, "low": pl.Float64, "high": pl.Float64,
                                "reviews": pl.Int64, "population": pl.Int64})  # fmt: skip


def run_facts(manifest: dict[str, Any]) -> dict[str, Any]:
    """The run's own account from the manifest: what ran, how long, at what throughput."""
    cfg = manifest.get("config") or {}
    flat: dict[str, Any] = {
        "created_at": manifest.get("created_at"),
        "code_version": manifest.get("code_version"),
        "config_hash": manifest.get("config_hash"),
        "model": (manifest.get("model") or {}).get("name"),
        "dataset": (cfg.get("dataset") or {}).get("name"),
        "label sources": ", ".join(sources_run(manifest)),
        "label policy": (cfg.get("labels") or {}).get("policy"),
        "wall_time_s": manifest.get("wall_time_s"),
        "units (reused)": f"{manifest.get('units')} ({manifest.get('units_reused')})",
    }
    # filter: chains the label policy kept and dropped (consensus), with the kept share
    for group in ("throughput", "tokens", "cost", "filter", "lineage"):
        for k, v in (manifest.get(group) or {}).items():
            flat[f"{group}.{k}"] = v
    return flat


def _section(sid: str, body: str, title: str | None = None) -> str:
    return f'<section id="{sid}"><h2>{esc(title or SECTIONS[sid])}</h2>{body}</section>'


def _cards(items: dict[str, Any]) -> str:
    return '<div class="cards">' + "".join(
        f'<div class="card"><b>{esc(fmt(v))}</b><span>{esc(k)}</span></div>'
        for k, v in items.items()
    ) + "</div>"  # fmt: skip


def _grid(*parts: str) -> str:
    return '<div class="grid">' + "".join(f"<div>{p}</div>" for p in parts if p) + "</div>"


def without_absent_human(s: dict[str, Any]) -> dict[str, Any]:
    """The stats without the `human` row (labels), column (first errors) and pairs
    (agreement) when the data carried no human label: human labels come with the input
    (ProcessBench, PRM800K, an audit), they are not a source a run can have on, and an empty
    row reads as one that ran and said nothing."""
    human = s["labels"].filter(pl.col("source") == HUMAN)
    if human.height and int(human["true"][0]) + int(human["false"][0]) > 0:
        return s
    first_error = s["first_error"]
    if HUMAN in first_error.columns and not first_error[HUMAN].sum():
        first_error = first_error.drop(HUMAN)
    return {**s, "labels": s["labels"].filter(pl.col("source") != HUMAN),
            "first_error": first_error,
            "agreement": s["agreement"].filter((pl.col("a") != HUMAN) & (pl.col("b") != HUMAN))}


def render_sections(s: dict[str, Any], max_position: int = 20) -> list[str]:
    """The dataset's sections, in page order."""
    s = without_absent_human(s)
    m, c = s["manifest"], s["manifest"].get("counts") or {}
    labels, fe = s["labels"], s["first_error"]
    # Sources that labeled nothing only add empty cells to the agreement matrix.
    names = labels.filter(pl.col("true") + pl.col("false") > 0)["source"].to_list()
    silent = labels.filter(pl.col("true") + pl.col("false") == 0)["source"].to_list()
    agree = s["agreement"].filter(pl.col("a").is_in(names) & pl.col("b").is_in(names))
    check = ""
    if s["rows"] != s["manifest_rows"]:
        check = (f'<p class="note warn">the shards hold {s["rows"]:,} rows but the manifest '
                 f'lists {s["manifest_rows"]:,}</p>')  # fmt: skip
    summary = _cards({
        "problems in": c.get("problems_in"), "labeled": c.get("problems_labeled"),
        "quarantined": c.get("problems_quarantined"), "chains": s["rows"],
        "steps": c.get("steps"), "labeled steps": c.get("steps_labeled"),
        "sources with labels": len(names), "wall time (s)": m.get("wall_time_s"),
        # The cost headline: what a labeled step takes of the engines (docs/benchmarks.md).
        "labeled steps per engine-hour":
            (m.get("throughput") or {}).get("labeled_steps_per_engine_hour"),
        "tokens per labeled step": (m.get("cost") or {}).get("tokens_per_labeled_step"),
    }) + check  # fmt: skip
    mc = s["mc"]
    mc_body = (
        _grid(plot_mc(mc), table(mc.drop("bin")))
        if mc.height
        else '<p class="note">no MC scores in this dataset (the mc source did not run)</p>'
    )
    fe_body = (
        _grid(plot_first_error(fe, max_position), table(fe))
        if fe.height
        else '<p class="note">no chains</p>'
    )
    agree_body = '<p class="note">fewer than two sources labeled any step</p>'
    if agree.height:
        agree_body = _grid(plot_agreement(agree, names), table(agree)) + (
            '<p class="note">agree: fraction of steps both sources labeled where the labels '
            "are equal; kappa: Cohen's kappa (agreement beyond chance); n: steps both "
            "labeled. Absent verdicts count as unlabeled."
            + (f" Sources without any label: {esc(', '.join(silent))}." if silent else "")
            + "</p>"
        )
    quality = m.get("quality")
    quality_body = ('<p class="note">no audit yet: run prm-audit (sample, review, import, '
                    "estimate) to measure label precision with 95% intervals</p>")
    if quality:
        qf = quality_frame(quality)
        cov = ", ".join(f"{k} {fmt(v)}" for k, v in (quality.get("coverage") or {}).items())
        quality_body = _grid(plot_quality(qf) if qf["estimate"].is_not_null().any() else "",
                             table(qf)) + (
            f'<p class="note">{esc(fmt(quality.get("reviews")))} steps with a reviewer\'s '
            f'verdict in {esc(fmt(quality.get("reviewed_chains")))} chains; each row rests on '
            f'its own reviews (the labels its stratum drew whose claim the answers decide), '
            f'{esc(quality.get("interval"))} 95% intervals, policy {esc(quality.get("policy"))}'
            f"; precision_incorrect / precision_correct: share of a source's incorrect / "
            "correct labels that are right about what they claim (claim step: the step "
            "itself; prefix: a False after the first error, \"the chain has gone wrong by "
            "here\", against the chain's first error); first_error: its first error is the "
            "reviewer's; accuracy: over its labeled steps, weighted by stratum size. "
            f"Coverage (share of steps labeled): {esc(cov)}.</p>")  # fmt: skip
    q = s["quarantine"]
    q_body = '<p class="note">nothing was quarantined</p>'
    if q.height:
        q_body = (
            table(s["quarantine_by_dataset"]) + table(q, raw=("reason", "example"))
            + f'<p class="note">{s["quarantined_rows"]:,} quarantined rows; the most frequent '
            "reasons first, with one example record each (truncated)</p>"
        )  # fmt: skip
    return [
        _section("about", run_story(s)),
        _section("summary", summary),
        _section("counts", table(s["by_dataset"], empty="no labeled chains")),
        _section(
            "labels",
            _grid(plot_labels(labels), table(labels))
            + "<h3>Verdicts per status</h3>"
            + table(s["statuses"], empty="no verdicts"),
        ),  # fmt: skip
        _section("quality", quality_body),
        _section("agreement", agree_body),
        _section("first-error", fe_body),
        _section("mc", mc_body),
        _section("cost", table(s["cost"])),
        _section("quarantine", q_body),
        _section("throughput", kv_table(run_facts(m))),
    ]


def render_diff(d: dict[str, Any]) -> str:
    """The `diff` section: what changed from the old version to this one."""
    lin = d["lineage"]
    note = (
        "this version was refreshed from the old one"
        if lin["previous_is_old"]
        else "the manifest's lineage does not name the old directory as its previous version"
    )
    trans = d["transitions"].with_columns(
        pl.when(pl.col("old").eq_missing(pl.col("new")))
        .then(pl.lit("same"))
        .otherwise(pl.lit("changed"))
        .alias("step")  # fmt: skip
    )
    body = (
        f'<p class="note">new: {esc(d["new"])}<br>old: {esc(d["old"])}</p>'
        + _cards(
            {
                "chains new": d["added"],
                "chains gone": d["removed"],
                "in both (same text)": d["both"],
                "relabeled": d["labels_changed"],
                "first error moved": d["first_error_moved"],
            }
        )  # fmt: skip
        + _grid(
            "<h3>Added / removed per dataset</h3>" + table(d["by_dataset"], empty="none"),
            "<h3>Step labels, old → new (chains in both)</h3>" + table(trans, empty="none"),
            "<h3>Manifest counts</h3>" + table(d["counts"]),
            "<h3>Tokens</h3>" + table(d["tokens"]),
            "<h3>Lineage</h3>" + kv_table(lin) + f'<p class="note">{esc(note)}</p>',
        )
        + "<h3>Examples</h3>"
        + _grid(
            "<b>labels changed</b>" + table(d["changed_examples"], empty="none"),
            "<b>added</b>" + table(d["added_examples"], empty="none"),
            "<b>removed</b>" + table(d["removed_examples"], empty="none"),
        )
    )
    return _section("diff", body, "Diff against the old version")


def render_page(stats: dict[str, Any], diff: dict[str, Any] | None = None,
                max_position: int = 20) -> str:  # fmt: skip
    """The whole page. Deterministic for equal inputs except matplotlib's PNG bytes."""
    m = stats["manifest"]
    # Source and dataset names reach plot labels: no mathtext, so "$" in data is just text.
    with plt.rc_context({"text.parse_math": False}):
        sections = render_sections(stats, max_position)
    ids = list(SECTIONS)
    if diff is not None:  # after the summary: what changed comes before the details
        sections.insert(2, render_diff(diff))
        ids.insert(2, "diff")
    nav = "".join(
        f'<a href="#{i}">{esc(NAV.get(i) or SECTIONS.get(i, "Diff").split(" ")[0])}</a>'
        for i in ids
    )
    model_block = m.get("model") or {}
    model = model_block.get("name")  # the engine's; "given" when the input carried the chains
    if model == "given" and model_block.get("generators"):
        shown = ", ".join(model_block["generators"][:3])
        more = model_block.get("generators_count", 0) - 3
        model = f"given (written by {shown}{f' and {more} more' if more > 0 else ''})"
    facts = (stats["root"], m.get("created_at"), model and f"model {model}",
             f"code {m.get('code_version')}", f"config {m.get('config_hash')}")  # fmt: skip
    sub = " · ".join(esc(x) for x in facts if x)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>PRM label report: {esc(stats['root'])}</title><style>{STYLE}</style></head>"
        f"<body><header><h1>PRM label report</h1><p>{sub}</p></header><nav>{nav}</nav>"
        f"<main>{''.join(sections)}</main></body></html>\n"
    )
