"""The Space's figures: the reference pool's ratings with each scored text at its ``arts_elo``
(one Elo scale, higher = harder), and before and after per (original, simplification) pair."""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from arts_metric.pool import load_pool
from arts_metric.space_app.settings import EASIER, HARDER, MAX_LABELS, SAME

#: How far beyond the pool's easiest and hardest rating the pool figure's axis reaches to show
#: texts (Elo points: 800 = 100:1 odds); a text beyond it is drawn at the axis' edge, marked.
REACH = 800.0
#: The colours of the pool figure: pool texts, the pool's range, your texts, a text beyond the axis.
POOL_BARS, POOL_RANGE, TEXT_LINE, BEYOND = "#9fb3c8", "#eef2f6", "#1f4e79", "#b34700"


def _dips(counts: np.ndarray) -> bool:
    """Whether a bin holds clearly fewer texts than both its neighbours: under 80% of the smaller
    and more than two standard deviations of a count (its square root) below it."""
    for i in range(1, len(counts) - 1):
        near = min(counts[i - 1], counts[i + 1])
        if counts[i] < 0.8 * near and counts[i] < near - 2 * math.sqrt(near):
            return True
    return False


def pool_bins(ratings: np.ndarray) -> np.ndarray:
    """Edges of the pool's histogram: the most equal-width bins (4 to Sturges' 1 + log2 N, at
    most 30) in which no bin dips below its neighbours. A pool's ratings bunch at the steps of its
    rating schedule; narrower bins draw those steps as a barcode, not the distribution.

    Parameters
    ----------
    ratings : numpy.ndarray
        The pool's ratings (Elo points).

    Returns
    -------
    numpy.ndarray
        The bin edges, from the easiest rating to the hardest.
    """
    ratings = np.asarray(ratings, dtype=float)
    most = min(30, max(4, int(1 + math.log2(len(ratings)))))
    for k in range(most, 4, -1):
        counts, edges = np.histogram(ratings, bins=k)
        if not _dips(counts):
            return edges
    return np.histogram_bin_edges(ratings, bins=4)


def _axis(ratings: np.ndarray, elo: list[float]) -> tuple[float, float]:
    """The figure's Elo range: the pool's ratings and every text within :data:`REACH` of them."""
    low = max(min([ratings[0], *elo]), ratings[0] - REACH)
    high = min(max([ratings[-1], *elo]), ratings[-1] + REACH)
    pad = 0.04 * (high - low)
    return low - pad, high + pad


def pool_figure(pool_name: str, lines: list[int], arts_elo: list[float | None]) -> Figure:
    """The pool's ratings as a histogram (:func:`pool_bins`; Elo points, higher = harder), its
    range shaded, and each scored text at its ``arts_elo``, the number the table shows: a
    labelled line each up to :data:`MAX_LABELS` texts (dashed beyond the pool's range), beyond
    that a second histogram of the scored texts on the same axis. A text further than
    :data:`REACH` from the pool is drawn at the axis' edge with an arrow and its rating.

    Parameters
    ----------
    pool_name : str
        A built-in pool.
    lines : list of int
        The texts' line numbers, as the visitor sees them (the labels).
    arts_elo : list of float or None
        Each text's ``arts_elo``; None (no score) is not drawn.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    ratings = np.sort(load_pool(pool_name).ratings)
    placed = [(line, float(x)) for line, x in zip(lines, arts_elo) if x is not None and math.isfinite(x)]
    low, high = _axis(ratings, [x for _, x in placed])
    fig = Figure(figsize=(8.5, 3.9), layout="constrained")
    ax = fig.subplots()
    ax.axvspan(ratings[0], ratings[-1], color=POOL_RANGE, zorder=0)
    bins = pool_bins(ratings)
    ax.hist(ratings, bins=bins, color=POOL_BARS, edgecolor="white", zorder=1)
    ax.set_xlim(low, high)
    ax.set_ylim(0, ax.get_ylim()[1] * 1.15)  # room for the labels above the bars
    ax.set_xlabel(
        f"arts_elo, Elo points (higher = harder). Shaded: the range of {pool_name}'s ratings, "
        f"{ratings[0]:.0f} to {ratings[-1]:.0f}"
    )
    ax.set_ylabel(f"pool texts per {bins[1] - bins[0]:.0f} points")
    inside = [(line, x) for line, x in placed if low <= x <= high]
    outside = [(line, x) for line, x in placed if not low <= x <= high]
    if len(lines) <= MAX_LABELS:
        top = ax.get_ylim()[1]
        for k, (line, x) in enumerate(inside):
            beyond = not ratings[0] <= x <= ratings[-1]
            ax.axvline(x, color=TEXT_LINE, linewidth=2, linestyle=(0, (4, 2)) if beyond else "-", zorder=2)
            ax.annotate(
                str(line),
                (x, top * (0.93 - 0.09 * (k % 4))),
                ha="center",
                va="center",
                fontsize=9,
                bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": TEXT_LINE},
                zorder=3,
            )
        for k, (line, x) in enumerate(outside):
            _beyond_mark(ax, f"{line} at {x:.0f}, beyond the axis", x < low, top * (0.55 - 0.09 * (k % 4)))
        title = " (labels: line numbers; dashed: beyond the pool's range)"
    else:
        mine = ax.twinx()
        clipped = np.clip([x for _, x in placed], low, high)
        mine.hist(clipped, bins=np.linspace(low, high, 41), histtype="step", color=TEXT_LINE, linewidth=2)
        mine.set_ylabel("your texts", color=TEXT_LINE)
        for left in (True, False):
            n = sum(1 for _, x in outside if (x < low) == left)
            if n:
                side = f"below {low:.0f}" if left else f"above {high:.0f}"
                _beyond_mark(mine, f"{n} beyond the axis, {side}", left, mine.get_ylim()[1] * 0.8)
        title = f" ({len(placed)} texts: the blue outline)"
    ax.set_title("Where each text falls beside the reference pool" + title, fontsize=10)
    return fig


def _beyond_mark(ax, label: str, left: bool, y: float) -> None:
    """An arrow at the axis' left or right edge for texts beyond it, labelled (line and rating)."""
    low, high = ax.get_xlim()
    edge = low if left else high
    inward = 0.1 * (high - low) * (1 if left else -1)
    ax.annotate(
        label,
        xy=(edge, y),
        xytext=(edge + inward, y),
        ha="left" if left else "right",
        va="center",
        fontsize=9,
        color=BEYOND,
        arrowprops={"arrowstyle": "-|>", "color": BEYOND, "lw": 2},
        bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": BEYOND},
        zorder=3,
    )


def pairs_figure(
    lines: list[int], before: dict[str, list], after: dict[str, list], verdicts: dict[str, list[str]]
) -> Figure:
    """Before (original) and after (simplification) per pair and measure: an arrow per pair
    (up to :data:`MAX_LABELS` pairs), else one dot per pair against the diagonal; green when
    the verdict is easier, red when harder."""
    panels = list(before)
    arrows = len(lines) <= MAX_LABELS
    height = max(3.2, 0.42 * len(lines) + 1.6) if arrows else 4.2  # at least 200 px tall on a phone
    fig = Figure(figsize=(4.6 * len(panels), height), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    colors = {EASIER: "#2e7d32", HARDER: "#c62828", SAME: "#777777"}
    y = np.arange(len(lines))[::-1]
    for ax, panel in zip(axes, panels):
        shown = [
            (yi, b, a, v)
            for yi, b, a, v in zip(y, before[panel], after[panel], verdicts[panel])
            if b is not None and a is not None
        ]
        if arrows:
            for yi, b, a, v in shown:
                ax.plot([b], [yi], "o", color="#555555", markersize=5)
                ax.annotate(
                    "",
                    xy=(a, yi),
                    xytext=(b, yi),
                    arrowprops={"arrowstyle": "-|>", "color": colors.get(v, "#777777"), "lw": 2},
                    annotation_clip=False,
                )
            ends = [x for _, b, a, _ in shown for x in (b, a)]
            if ends:  # the range holds both ends of every arrow, not only the originals
                low, high = min(ends), max(ends)
                pad = 0.08 * (high - low) or 0.05
                ax.set_xlim(low - pad, high + pad)
            ax.set_yticks(y)
            ax.set_yticklabels([f"line {line}" for line in lines])
            ax.set_xlabel(f"{panel} (higher = harder)")
        else:
            ax.scatter(
                [b for _, b, _, _ in shown],
                [a for _, _, a, _ in shown],
                s=12,
                alpha=0.7,
                c=[colors.get(v, "#777777") for *_, v in shown],
            )
            low, high = ax.get_xlim()[0], ax.get_xlim()[1]
            ax.plot([low, high], [low, high], color="#999999", linewidth=1)
            ax.set_xlabel(f"{panel} of the original (higher = harder)")
            ax.set_ylabel(f"{panel} of the simplification")
        ax.grid(alpha=0.3)
    axes[0].set_title(
        "dot = original, arrow head = simplification"
        if arrows
        else f"{len(lines)} pairs: below the diagonal = easier",
        fontsize=10,
    )
    return fig
