"""The Space's figures: the reference pool with each scored text at its pool rating
(Elo points, higher = harder), and before and after per (original, simplification) pair."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from arts_metric.pool import load_pool
from arts_metric.space_app.settings import EASIER, HARDER, MAX_LABELS, POOL_NOTES, SAME


def pool_rating(pool_name: str, arts: list[float | None]) -> list[float | None]:
    """Each text's place on the pool's own Elo scale: the pool rating at the text's ARTS (Elo
    points, higher = harder). The figure draws texts there and the table shows this number."""
    pool = load_pool(pool_name)
    ratings = np.sort(pool.ratings)
    share = pool.arts_of_rating(ratings)
    return [None if a is None else float(np.interp(a, share, ratings)) for a in arts]


def pool_figure(pool_name: str, lines: list[int], arts: list[float | None]) -> Figure:
    """The pool's ratings as a histogram (Elo points, higher = harder) with each scored text
    at its :func:`pool_rating`: a labelled line each up to :data:`MAX_LABELS` texts, beyond
    that a second histogram of the scored texts on the same axis."""
    pool = load_pool(pool_name)
    ratings = np.sort(pool.ratings)
    share = pool.arts_of_rating(ratings)  # each pool text's own ARTS position
    fig = Figure(figsize=(8.5, 3.6), layout="constrained")
    ax = fig.subplots()
    bins = np.linspace(ratings[0], ratings[-1], min(40, max(10, len(ratings) // 10)) + 1)
    ax.hist(ratings, bins=bins, color="#c9d3df", edgecolor="white", label="pool texts")
    ax.set_xlabel(f"pool rating, Elo points ({pool_name}: {POOL_NOTES.get(pool_name, '')})  ->  harder")
    ax.set_ylabel("pool texts")
    top = ax.secondary_xaxis(
        "top", functions=(lambda r: np.interp(r, ratings, share), lambda a: np.interp(a, share, ratings))
    )
    top.set_xticks([0.05, 0.25, 0.5, 0.75, 0.95])
    top.set_xlabel("ARTS: share of the pool judged easier (higher = harder)")
    placed = [(line, x) for line, x in zip(lines, pool_rating(pool_name, arts)) if x is not None]
    if len(lines) <= MAX_LABELS:
        height = ax.get_ylim()[1]
        for k, (line, x) in enumerate(placed):
            ax.axvline(x, color="#1f4e79", linewidth=2)
            ax.annotate(
                str(line),
                (x, height * (0.93 - 0.09 * (k % 4))),
                ha="center",
                va="center",
                fontsize=9,
                bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "#1f4e79"},
            )
        title = " (labels: line numbers)"
    else:
        mine = ax.twinx()
        mine.hist([x for _, x in placed], bins=bins, histtype="step", color="#1f4e79", linewidth=2)
        mine.set_ylabel("your texts", color="#1f4e79")
        title = f" ({len(placed)} texts: the blue outline)"
    ax.set_xlim(ratings[0], ratings[-1])
    ax.set_title("Where each text falls in the reference pool" + title, fontsize=10)
    return fig


def pairs_figure(
    lines: list[int], before: dict[str, list], after: dict[str, list], verdicts: dict[str, list[str]]
) -> Figure:
    """Before (original) and after (simplification) per pair and measure: an arrow per pair
    (up to :data:`MAX_LABELS` pairs), else one dot per pair against the diagonal; green when
    the verdict is easier, red when harder."""
    panels = list(before)
    arrows = len(lines) <= MAX_LABELS
    height = 0.42 * len(lines) + 1.6 if arrows else 4.2
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
