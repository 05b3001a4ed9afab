"""`<output.dir>/report.html` of a search run: accuracy against generated tokens.

One self-contained page built with `pipelines.report.html`'s helpers (its style, escaping,
Content-Security-Policy and PNG embedding): a plot with one line per strategy (and
aggregation) through its budgets, and the table behind it. Reads only the manifest's
summary (small); nothing here touches shards.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from labeling.shards import atomic_write_bytes
from pipelines.report.html import CSP, STYLE, esc, kv_table, table
from pipelines.report.plots import plt, png

MARKERS = "osD^v<>ph*"


def plot_accuracy(summary: list[dict[str, Any]]) -> str:
    """Accuracy vs mean generated tokens per problem (log x), one line per strategy."""
    lines: dict[str, list[dict[str, Any]]] = {}
    for r in summary:
        name = r["strategy"] + (f" ({r['aggregation']})" if r["aggregation"] else "")
        lines.setdefault(name, []).append(r)
    fig, ax = plt.subplots(figsize=(8, 5))
    for k, (name, rs) in enumerate(sorted(lines.items())):
        rs = sorted(rs, key=lambda r: r["budget"])
        x = [max(r["tokens_per_problem"], 1.0) for r in rs]
        ax.plot(x, [r["accuracy"] for r in rs], marker=MARKERS[k % len(MARKERS)],
                linestyle="-" if "(" not in name or "last" in name else "--", label=name)
        for r, xx in zip(rs, x, strict=True):
            ax.annotate(f"N={r['budget']}", (xx, r["accuracy"]), fontsize=7,
                        textcoords="offset points", xytext=(3, 3))  # fmt: skip
    ax.set_xscale("log")
    # Plain tick labels: mathtext is off (data names may hold "$"), so 10^k would show raw.
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("generated tokens per problem (mean, log scale)")
    ax.set_ylabel("accuracy")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    return png(fig, "accuracy vs generated tokens per strategy")


def render(manifest: dict[str, Any], root: str) -> str:
    summary = manifest.get("summary") or []
    cfg = manifest.get("config", {})
    facts = {
        "problems searched": manifest["counts"].get("problems_searched", 0),
        "problems quarantined": manifest["counts"].get("problems_quarantined", 0),
        "generated tokens": manifest["tokens"].get("generated", 0),
        "model": (cfg.get("model") or {}).get("name"),
        "PRM": (cfg.get("prm") or {}).get("checkpoint") or "none",
        "beam width M": (cfg.get("search") or {}).get("width"),
        "wall time (s)": manifest.get("wall_time_s"),
    }
    df = pl.DataFrame(summary) if summary else pl.DataFrame()
    if df.height:
        df = df.with_columns(pl.col("accuracy").round(3), pl.col("tokens_per_problem").round(1),
                             pl.col("prm_calls_per_problem").round(1))  # fmt: skip
    with plt.rc_context({"text.parse_math": False}):
        plot = plot_accuracy(summary) if summary else '<p class="note">no rows</p>'
    body = (
        f"<section id='summary'><h2>Run</h2>{kv_table(facts)}</section>"
        "<section id='curve'><h2>Accuracy vs generated tokens</h2>"
        "<p class='note'>Each point is one budget N. Majority vote, best-of-N and the "
        "weighted vote at budget N share the same N sampled chains; beam search and DVTS "
        "spend N generations per step. Tokens count every generated token, PRM calls every "
        "scored chain or prefix.</p>"
        f"{plot}{table(df, empty='no rows')}</section>"
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<title>PRM search report: {esc(root)}</title><style>{STYLE}</style></head>"
        f"<body><header><h1>PRM search report</h1><p>{esc(root)} · "
        f"{esc(manifest.get('created_at'))} · config {esc(manifest.get('config_hash'))}</p>"
        f"</header><main>{body}</main></body></html>\n"
    )


def write_report(root: str | Path, manifest: dict[str, Any]) -> Path:
    path = Path(root) / "report.html"
    atomic_write_bytes(path, render(manifest, str(root)).encode())
    return path
