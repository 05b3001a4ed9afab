"""The report's plots, each a matplotlib figure embedded as a base64 PNG `<img>`.

Input is what `labeling.report.stats` returns; names from the data reach the plots as plain
text (the page renders them with `text.parse_math` off: a "$" is a dollar sign).
"""

from __future__ import annotations

import base64
import html
import io
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display on servers; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

GREEN, RED, GREY, BLUE, ORANGE = "#2e7d32", "#c62828", "#b0b0b0", "#1565c0", "#ef6c00"


def png(fig: Any, alt: str) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="{html.escape(alt, quote=True)}" src="data:image/png;base64,{data}">'


def plot_labels(labels: pl.DataFrame) -> str:
    fig, ax = plt.subplots(figsize=(6, 0.5 + 0.45 * max(labels.height, 1)))
    names = labels["source"].to_list()[::-1]
    left = [0] * len(names)
    for col, color in (("true", GREEN), ("false", RED), ("unlabeled", GREY)):
        vals = labels[col].to_list()[::-1]
        ax.barh(names, vals, left=left, color=color, label=col)
        left = [a + b for a, b in zip(left, vals, strict=True)]
    ax.set_xlabel("steps")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(loc="lower right", fontsize=8, frameon=False, ncols=3, bbox_to_anchor=(1, 1))
    ax.spines[["top", "right"]].set_visible(False)
    return png(fig, "labels per source")


def plot_agreement(agree: pl.DataFrame, names: list[str]) -> str:
    import numpy as np

    m = np.full((len(names), len(names)), np.nan)
    n = np.zeros_like(m)
    idx = {s: i for i, s in enumerate(names)}
    for r in agree.iter_rows(named=True):
        i, j = idx[r["a"]], idx[r["b"]]
        m[i, j] = m[j, i] = np.nan if r["agree"] is None else r["agree"]
        n[i, j] = n[j, i] = r["n"]
    size = 1.2 + 0.75 * len(names)
    fig, ax = plt.subplots(figsize=(size + 1, size))
    cmap = plt.get_cmap("RdYlGn").with_extremes(bad="#eeeeee")  # grey: never overlapped
    im = ax.imshow(np.ma.masked_invalid(m), cmap=cmap, vmin=0.5, vmax=1.0)
    for i in range(len(names)):
        for j in range(len(names)):
            if i != j:
                txt = "–" if np.isnan(m[i, j]) else f"{m[i, j]:.2f}\nn={int(n[i, j])}"
                ax.text(j, i, txt, ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), names)
    fig.colorbar(im, ax=ax, fraction=0.046, label="agreement on steps both labeled")
    return png(fig, "agreement matrix")


def plot_first_error(hist: pl.DataFrame, max_position: int) -> str:
    # Every position up to the last one gets a bar (zeros included): an even axis.
    full = pl.DataFrame({"position": range(-1, int(hist["position"].max()) + 1)})
    hist = full.cast({"position": hist.schema["position"]}).join(
        hist, on="position", how="left").fill_null(0)  # fmt: skip
    fig, ax = plt.subplots(figsize=(7, 3))
    pos = hist["position"].to_list()
    ticks = ["none" if p < 0 else f"{p}+" if p >= max_position else str(p) for p in pos]
    x = range(len(pos))
    ax.bar([i - 0.2 for i in x], hist["combined"].to_list(), 0.4, color=BLUE, label="combined")
    if "human" in hist.columns and sum(hist["human"].to_list()):  # data with human labels
        ax.bar([i + 0.2 for i in x], hist["human"].to_list(), 0.4, color=ORANGE, label="human")
    ax.set_xticks(list(x), ticks)
    ax.set_xlabel("first step labeled wrong (0-based)")
    ax.set_ylabel("chains")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.legend(frameon=False, fontsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    return png(fig, "first-error position histogram")


def plot_mc(mc: pl.DataFrame) -> str:
    fig, ax = plt.subplots(figsize=(7, 3))
    lo, width = mc["lo"].to_list(), float(mc["hi"][0] - mc["lo"][0])
    bottom = [0] * mc.height
    for col, color in (("true", GREEN), ("false", RED), ("unlabeled", GREY)):
        vals = mc[col].to_list()
        ax.bar(lo, vals, width * 0.95, bottom=bottom, align="edge", color=color, label=col)
        bottom = [a + b for a, b in zip(bottom, vals, strict=True)]
    ax.set_xlim(0, 1)
    ax.set_xlabel("MC score (fraction of rollouts reaching the right answer)")
    ax.set_ylabel("steps")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.legend(title="combined label", frameon=False, fontsize=8, title_fontsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    return png(fig, "MC score histogram")


def plot_quality(q: pl.DataFrame) -> str:
    """Each figure as a point with its 95% interval as a bar; unreviewed ones left out."""
    q = q.filter(pl.col("estimate").is_not_null())
    fig, ax = plt.subplots(figsize=(7, 0.6 + 0.32 * max(q.height, 1)))
    names = [f"{r['source']} · {r['measure']}{' · ' + r['claim'] if r['claim'] else ''} "
             f"(n={r['reviews']})" for r in q.iter_rows(named=True)]  # fmt: skip
    y = list(range(q.height))[::-1]
    est, low, high = q["estimate"].to_list(), q["low"].to_list(), q["high"].to_list()
    ax.hlines(y, low, high, color=BLUE, linewidth=5, alpha=0.35)
    ax.plot(est, y, "o", color=BLUE)
    ax.set_yticks(y, names, fontsize=8)
    ax.set_xlim(-0.02, 1.02)  # a point at 0 or 1 stays whole
    ax.set_xlabel("share (95% interval)")
    ax.grid(axis="x", alpha=0.3)
    ax.spines[["top", "right"]].set_visible(False)
    return png(fig, "label quality with 95% intervals")


__all__ = ["plot_agreement", "plot_first_error", "plot_labels", "plot_mc", "plot_quality", "plt",
           "png"]
