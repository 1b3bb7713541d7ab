"""Do ``arts``, ``arts_elo`` and the pool's ratings say the same thing? Each built-in
pool's own texts are scored as new texts (``score_texts(texts, pool=name)``, the
default judge) and their values are set against the pool's own ratings and rank
scores, for two ways of reading a position as a rating, in one run:

- **expected score** (releases up to 0.5): ``arts_elo`` is the rating whose Elo
  expected score against the pool equals ``arts``
  (:func:`arts_metric.ratings.elo.rating_of_expected_score`), and a text of several
  sentences averages its sentences on that scale;
- **pool scale** (from release 0.6): ``arts_elo`` is the pool's own rating at that
  position (:func:`arts_metric.ratings.elo.rating_of_pool_position`), and a text of
  several sentences averages its sentences on it.

Both are computed from the same judge scores: each sentence's ``arts`` is the
same under both (``return_sentences=True``), only the reading as a rating and the
text's combination differ. A third row scores the texts with the judge of releases
up to 0.4 (``judge="learned:v1"``) on the pool scale: how close ``arts`` comes to
the own rank score is the judge's agreement with the pool's GPT-4 ratings, not the
scale's. Figures, per pool:

- spread: SD of ``arts_elo`` / SD of the pool's ratings (1 = the same spread);
- median ``|arts_elo - own rating|`` in pool SDs;
- outside: the share of texts whose ``arts_elo`` lies outside the pool's ratings'
  range (the histogram the Space draws);
- median ``|arts - own rank score|`` (the rank score is the published ARTS score,
  ``rank_scale(ratings)``), and Spearman of ``arts`` with it.

Writes ``benchmarks/results/one_scale.md``.

    .venv/bin/python benchmarks/one_scale.py [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from arts_metric import data as arts_data  # noqa: E402
from arts_metric.pool import load_pool  # noqa: E402
from arts_metric.ratings.elo import (  # noqa: E402
    mean_expected_score,
    pool_position,
    rank_scale,
    rating_of_expected_score,
    rating_of_pool_position,
)
from arts_metric.scoring.api import score_texts  # noqa: E402

POOLS = ("arts3000", "arts300", "arts94")
RESULTS = REPO / "benchmarks" / "results"
#: the targets of a single scale, as (figure, low, high)
TARGETS = {"spread": (0.75, 1.5), "median_gap_sd": (0.0, 1.0), "outside": (0.0, 0.10), "median_arts_gap": (0.0, 0.08)}


def _reading(
    ratings: np.ndarray, sentences: list[list[dict]], to_rating, to_position
) -> tuple[np.ndarray, np.ndarray]:
    """Each text's (arts, arts_elo) from its sentences' arts under one reading."""
    arts, elo = np.empty(len(sentences)), np.empty(len(sentences))
    for i, units in enumerate(sentences):
        unit_arts = np.array([u["arts"] for u in units])
        w = np.array([u["words"] for u in units], dtype=float)
        if len(units) == 1:
            arts[i], elo[i] = unit_arts[0], float(to_rating(ratings, unit_arts)[0])
            continue
        elo[i] = float(np.dot(to_rating(ratings, unit_arts), w) / w.sum())
        arts[i] = float(to_position(ratings, [elo[i]])[0])
    return arts, elo


def _figures(ratings: np.ndarray, arts: np.ndarray, elo: np.ndarray) -> dict[str, float]:
    own_rank = rank_scale(ratings)
    sd = ratings.std()
    return {
        "spread": float(elo.std() / sd),
        "median_gap_sd": float(np.median(np.abs(elo - ratings)) / sd),
        "outside": float(np.mean((elo < ratings.min()) | (elo > ratings.max()))),
        "median_arts_gap": float(np.median(np.abs(arts - own_rank))),
        "spearman": float(spearmanr(arts, own_rank).statistic),
    }


def _met(name: str, value: float) -> str:
    if name not in TARGETS:
        return ""
    low, high = TARGETS[name]
    return "yes" if low <= value <= high else "no"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data-dir", default=None, help="the ARTS data folder (default $ARTS_DATA_DIR or ../shared/arts)"
    )
    args = parser.parse_args()
    lines = [
        "# One scale: the pools' own texts scored as new texts",
        "",
        "`benchmarks/one_scale.py`, default judge. Each pool's texts are scored against that pool "
        "as new texts; the same sentence scores read as ratings two ways, and the judge of releases up to 0.4 "
        "read the new way (see the script).",
        "",
        "| pool | texts | reading | spread (SD ratio) | median \\|arts_elo - own\\| (pool SDs) "
        "| outside the pool's range | median \\|arts - own rank\\| | Spearman arts vs own rank |",
        "|---|---|---|---|---|---|---|---|",
    ]
    checks = []
    start = time.perf_counter()
    for name in POOLS:
        pool = load_pool(name)
        rows = {r["id"]: r["text"] for r in arts_data.load_pool_rows(name, args.data_dir)}
        texts = [rows[i] for i in pool.ids]
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore"
            )  # the odd long pool text is cut for the judge: counted by the judge, not here
            out = score_texts(texts, pool=name, formulas=[], return_sentences=True)
        readings = {
            "expected score (up to 0.5)": _reading(
                pool.ratings, out["sentences"], rating_of_expected_score, mean_expected_score
            ),
            "pool scale (0.6)": _reading(pool.ratings, out["sentences"], rating_of_pool_position, pool_position),
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v1 = score_texts(texts, pool=name, formulas=[], judge="learned:v1")
        readings["pool scale (0.6), judge learned-1"] = (np.asarray(v1["arts"]), np.asarray(v1["arts_elo"]))
        now = np.asarray(out["arts"], dtype=float), np.asarray(out["arts_elo"], dtype=float)
        same = np.allclose(now[0], readings["pool scale (0.6)"][0], atol=1e-9) and np.allclose(
            now[1], readings["pool scale (0.6)"][1], atol=1e-6
        )
        checks.append(f"{name}: `compute` returns the pool-scale reading: {'yes' if same else 'NO'}")
        for label, (arts, elo) in readings.items():
            f = _figures(pool.ratings, arts, elo)
            cells = [
                f"{f['spread']:.2f}x",
                f"{f['median_gap_sd']:.2f}",
                f"{100 * f['outside']:.1f}%",
                f"{f['median_arts_gap']:.3f}",
                f"{f['spearman']:.3f}",
            ]
            lines.append(f"| {name} | {len(texts)} | {label} | " + " | ".join(cells) + " |")
            if label == "pool scale (0.6)":
                checks.append(
                    f"{name}, pool scale: spread 0.75-1.5x {_met('spread', f['spread'])}; median gap <= 1 SD "
                    f"{_met('median_gap_sd', f['median_gap_sd'])}; outside <= 10% {_met('outside', f['outside'])}; "
                    f"median |arts - own rank| <= .08 {_met('median_arts_gap', f['median_arts_gap'])}"
                )
    lines += ["", "Targets (pool scale):", ""] + [f"- {c}" for c in checks]
    lines += ["", f"Run time: {time.perf_counter() - start:.0f} s."]
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "one_scale.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
