"""Draw where the example texts fall on the ARTS scale (the picture in the README and the docs).

Scores ``examples/texts.txt`` with the default settings (offline learned judge) and writes
``docs/assets/arts-scale.svg``: one row per text, its ``arts`` score on a 0-1 axis
(the share of the reference pool rated easier; higher = harder). The SVG carries no date
and fixed element ids, so the same scores give the same file (``tests/test_docs.py``).

Usage: ``.venv/bin/python scripts/scale_figure.py [--out PATH]``
"""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEXTS = ROOT / "examples" / "texts.txt"
OUT = ROOT / "docs" / "assets" / "arts-scale.svg"


def draw(texts: list[str], scores: list[float], out: Path) -> None:
    """Write the figure for ``texts`` and their ``arts`` ``scores`` (in [0, 1], higher = harder)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "arts-scale"
    plt.rcParams["svg.fonttype"] = "none"  # text stays text: smaller, searchable, no font outlines
    order = sorted(range(len(texts)), key=lambda i: scores[i])
    fig, ax = plt.subplots(figsize=(9, 0.55 * len(texts) + 1.3))
    ax.axvspan(0, 1, color="#f3f4f6", zorder=0)
    for row, i in enumerate(order):
        ax.plot([0, scores[i]], [row, row], color="#c7d2fe", linewidth=2, zorder=1)
        ax.scatter([scores[i]], [row], s=60, color="#4338ca", zorder=2)
        ax.annotate(f"{scores[i]:.2f}", (scores[i], row), xytext=(8, -4), textcoords="offset points", fontsize=9)
    labels = [textwrap.shorten(texts[i], width=60, placeholder=" ...") for i in order]
    ax.set_yticks(range(len(texts)), labels, fontsize=9)
    ax.set_xlim(0, 1.08)
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1])
    ax.set_ylim(-0.7, len(texts) - 0.3)
    ax.set_xlabel(
        "arts: the share of the reference pool (ARTS3000) rated easier\n\u2190 easier          harder \u2192"
    )
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.tick_params(axis="y", length=0)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="svg", metadata={"Date": None})
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"where to write the SVG (default {OUT})")
    args = parser.parse_args(argv)
    from arts_metric import score_texts

    texts = [line for line in TEXTS.read_text(encoding="utf-8").splitlines() if line.strip()]
    scores = score_texts(texts, formulas=[])["arts"]
    draw(texts, scores, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
