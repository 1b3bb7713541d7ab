"""The metric-comparison table as CSV, Markdown and a plot
(rows of :func:`arts_metric.analysis.metric_comparison.evaluate_approaches`)."""

from __future__ import annotations

import csv
import math
import os
from typing import Any, Sequence

import numpy as np

from arts_metric.analysis.metric_comparison import COLUMNS, STATS


def write_csv(rows: Sequence[dict[str, Any]], path: str | os.PathLike) -> None:
    """The rows as CSV with :data:`COLUMNS` (empty cell = not applicable); floats in full precision."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(COLUMNS), extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if row.get(k) is None else row[k]) for k in COLUMNS})


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{digits}f}"


def _fmt_p(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.2e}" if value < 0.001 else f"{value:.3f}"


def to_markdown(rows: Sequence[dict[str, Any]]) -> str:
    """A Markdown table: A, kappa, then each correlation with its 95 % interval, then Williams p-values."""
    ref = next((r["williams_ref"] for r in rows if r.get("williams_ref")), None)
    head = ["Approach", "A", "κ", "Pearson [95% CI]", "Spearman ρ [95% CI]", "Kendall τ [95% CI]", "texts", "pairs"]
    if ref:
        head += [f"p(r>{ref}) Pearson", "Spearman", "Kendall"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["approach"], _fmt(r["agreement"]), _fmt(r["kappa"])]
        for stat in STATS:
            cells.append(f"{_fmt(r[stat])} [{_fmt(r[stat + '_lo'])}, {_fmt(r[stat + '_hi'])}]")
        cells += [str(r["n_texts"]), "-" if r["n_pairs"] is None else str(r["n_pairs"])]
        if ref:
            cells += ["(reference)" if r["approach"] == ref else _fmt_p(r[f"williams_p_{stat}"]) for stat in STATS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot_rows(rows: Sequence[dict[str, Any]], path: str | os.PathLike, title: str = "") -> None:
    """A PNG: each approach's Pearson, Spearman and Kendall with 95 % intervals (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["approach"] for r in rows]
    y = np.arange(len(rows))[::-1]
    fig, axes = plt.subplots(1, 3, figsize=(13, 0.38 * len(rows) + 1.6), sharey=True)
    colors = {
        "formula": "tab:gray",
        "baseline": "tab:orange",
        "pairwise": "tab:blue",
        "ranking": "tab:cyan",
        "pointwise": "tab:red",
        "learned": "tab:green",
        "lm": "tab:purple",
    }
    for ax, stat in zip(axes, STATS):
        for yi, r in zip(y, rows):
            c = colors.get(r["kind"], "tab:blue")
            lo, hi = r[f"{stat}_lo"], r[f"{stat}_hi"]
            ax.errorbar(r[stat], yi, xerr=[[r[stat] - lo], [hi - r[stat]]], fmt="o", color=c, capsize=3, markersize=4)
        ax.axvline(0, color="black", linewidth=0.6)
        ax.set_title(stat.capitalize())
        lows = [r[f"{stat}_lo"] for r in rows] + [r[stat] for r in rows]
        ax.set_xlim(min(-0.2, float(np.nanmin(np.array(lows, dtype=float))) - 0.05), 1.0)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y)
    axes[0].set_yticklabels(names)
    kinds = list(dict.fromkeys(r["kind"] for r in rows))
    handles = [plt.Line2D([], [], color=colors.get(k, "tab:blue"), marker="o", linestyle="") for k in kinds]
    axes[-1].legend(handles, kinds, loc="lower left", fontsize="small", title="kind (95% CI)")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
