"""The leaderboard figure of a system comparison, drawn into a matplotlib ``Figure``
(no pyplot state: safe in a web app's worker threads).

Panels, left to right, as the views allow: mean ARTS per system with its 95%
interval (pool view), the simplicity rating with intervals (head-to-head Bradley-Terry, higher = simpler), and
the head-to-head heat map (the probability that the row system's output was judged
simpler than the column system's, averaged over their matches). Every panel reads higher = simpler
except mean ARTS (higher = harder, the metric's own scale). Systems are in
leaderboard order, simplest at the top.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure


class _Comparison(Protocol):
    """What the figure reads of a :class:`~arts_metric.systems.result.SystemComparison`
    (a protocol, so that this module and ``result``, which draws with it, do not import each other)."""

    leaderboard: pd.DataFrame
    win_rates: pd.DataFrame
    info: dict[str, Any]


def _interval_panel(ax, lb, col: str, title: str, xlabel: str) -> None:
    y = np.arange(len(lb))[::-1]
    value = lb[col].to_numpy(float)
    low, high = lb[f"{col}_low"].to_numpy(float), lb[f"{col}_high"].to_numpy(float)
    colors = ["tab:gray" if k == "reference" else "tab:blue" for k in lb["kind"]]
    for yi, v, lo, hi, c in zip(y, value, low, high, colors):
        if np.isnan(v):
            continue
        err = [[max(v - lo, 0.0)], [max(hi - v, 0.0)]] if not (np.isnan(lo) or np.isnan(hi)) else None
        ax.errorbar(v, yi, xerr=err, fmt="o", color=c, capsize=3, markersize=5)
    ax.set_yticks(y)
    ax.set_yticklabels(lb["system"])
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)


def plot_comparison(comparison: _Comparison) -> Figure:
    """The figure of ``comparison`` (see the module docstring); raises ``ImportError``
    when matplotlib (the ``plot`` extra) is missing."""
    from matplotlib.figure import Figure

    lb = comparison.leaderboard
    panels = []
    if lb["arts_mean"].notna().any():
        panels.append("arts")
    if lb["simplicity_rating"].notna().any():
        panels.append("rating")
    wr = comparison.win_rates
    if len(wr) >= 2 and np.isfinite(wr.to_numpy(float)).any():
        panels.append("heat")
    n = len(lb)
    fig = Figure(figsize=(4.2 * max(len(panels), 1) + 0.8, 0.45 * n + 1.9), layout="constrained")
    axes = fig.subplots(1, max(len(panels), 1), squeeze=False)[0]
    level = comparison.info.get("level", 0.95)
    pct = f"{level * 100:g}%"
    for ax, panel in zip(axes, panels):
        if panel == "arts":
            _interval_panel(ax, lb, "arts_mean", f"mean ARTS ({pct} CI)", "ARTS (higher = harder)")
        elif panel == "rating":
            _interval_panel(
                ax, lb, "simplicity_rating", f"simplicity rating ({pct} CI)", "Elo points (higher = simpler)"
            )
        else:
            order = list(lb["system"])
            m = 1.0 - wr.loc[order, order].to_numpy(float)
            im = ax.imshow(m, cmap="RdBu", vmin=0.0, vmax=1.0)
            ax.set_xticks(range(n))
            ax.set_xticklabels(order, rotation=45, ha="right")
            ax.set_yticks(range(n))
            ax.set_yticklabels(order)
            for i in range(n):
                for j in range(n):
                    if np.isfinite(m[i, j]):
                        ax.text(
                            j,
                            i,
                            f"{m[i, j]:.2f}",
                            ha="center",
                            va="center",
                            fontsize=8,
                            color="white" if abs(m[i, j] - 0.5) > 0.3 else "black",
                        )
            ax.set_title("mean P(row judged simpler\nthan column)")
            fig.colorbar(im, ax=ax, shrink=0.8)
    if not panels:
        axes[0].text(0.5, 0.5, "nothing to draw", ha="center", va="center")
        axes[0].set_axis_off()
    fig.suptitle(f"{comparison.info.get('judge', {}).get('judge', '')} on {comparison.info.get('pool', '')}".strip())
    return fig
