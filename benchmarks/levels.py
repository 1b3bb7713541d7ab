"""Paragraphs and documents at known levels: how often does each measure order the
easier version of a pair first? Prints every measure on both development sets in one
run, for the scoring of releases up to 0.1, for release 0.2's default and for the current
default.

Sets (read at run time from ``../shared/dev`` or ``$ARTS_DEV_DIR``; no text is
stored in the repository):

- **Cochrane** (Devaraj et al. 2021, validation split, CC BY 4.0): review abstracts
  (results and conclusions) and the plain-language summaries their authors wrote; right =
  the summary is found easier. Only the held-out half, 205 reviews (the odd-numbered rows,
  :func:`arts_metric.data.split_cochrane_reviews`): the default judge, learned-4, was
  trained on the sentences of the others.
- **OneStopEnglish** (Vajjala & Lucic 2018, CC BY-SA 4.0; validation only, nothing
  shipped is fitted on it): 60 news articles, each rewritten by teachers at three
  levels; 180 pairs (elementary < intermediate < advanced, all three pairs per
  article), and the share of articles whose three levels are all in order.

Measures: ``arts`` (pointwise; ``source_arts > arts``), ``p_output_easier`` (> .5),
FKGL, Dale-Chall (higher = harder), FRE (higher = easier) and word count. A tie counts
one half. 95% intervals: percentile bootstrap (2,000 resamples, seed 0) over
abstracts and over articles (an article's three pairs move together).

Scorings compared (the default judge, learned-4, but for the first row):

- ``v1, chunks``: ``judge="learned:v1", long_texts="chunks"``, the scoring of
  releases up to 0.1 (learned-1; sentences packed into 150-character units,
  length-weighted mean);
- ``0.2, team``: ``judge="learned", long_texts="team"``, the rule of release 0.2
  (a text longer than 400 characters cut into its sentences, rated as their
  Bradley-Terry team: strengths summed, so more sentences rate harder);
- ``default``: ``judge="learned"`` with the default ``long_texts="mean"`` (every text
  cut into its sentences, rated as the mean of their ``arts_elo`` weighted by words).

Writes ``benchmarks/results/levels.md``. About 11 minutes on 2 CPU cores::

    .venv/bin/python benchmarks/levels.py [--dev-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from arts_metric.data import cochrane_halves, find_dev_dir  # noqa: E402
from arts_metric.scoring.api import score_texts  # noqa: E402
from arts_metric.text.features import words  # noqa: E402

N_BOOT = 2000
RESULTS = REPO / "benchmarks" / "results"
LEVELS = ("elementary", "intermediate", "advanced")
FORMULAS = ("fkgl", "fre", "dale_chall")
SCORINGS = {
    "v1, chunks": {"judge": "learned:v1", "long_texts": "chunks"},
    "0.2, team": {"judge": "learned", "long_texts": "team"},
    "default": {"judge": "learned"},
}


def load_sets(dev_dir: Path) -> dict[str, dict]:
    """Both sets as (easier, harder) pairs plus the cluster of each pair (its abstract or
    article) and, for OneStopEnglish, the three levels of each article."""
    rows = cochrane_halves(dev_dir)["held_reviews"]
    cochrane = {
        "easier": [r["plain_language_summary"] for r in rows],
        "harder": [r["abstract"] for r in rows],
        "cluster": list(range(len(rows))),
    }
    articles: dict[str, dict[str, str]] = {}
    for line in (dev_dir / "onestopenglish_dev.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        articles.setdefault(r["article"], {})[r["level"]] = r["text"]
    incomplete = [a for a, levels in articles.items() if set(levels) != set(LEVELS)]
    if incomplete:
        raise ValueError(f"onestopenglish_dev.jsonl: articles without all three levels: {incomplete[:5]}")
    triples = [[articles[a][lv] for lv in LEVELS] for a in sorted(articles)]
    easier, harder, cluster = [], [], []
    for k, t in enumerate(triples):
        for i, j in ((0, 1), (1, 2), (0, 2)):
            easier.append(t[i])
            harder.append(t[j])
            cluster.append(k)
    onestop = {"easier": easier, "harder": harder, "cluster": cluster, "triples": triples}
    return {"Cochrane": cochrane, "OneStopEnglish": onestop}


def right(easier: np.ndarray, harder: np.ndarray, higher_is_harder: bool = True) -> np.ndarray:
    """1 where the pair is ordered right, 0.5 on a tie, 0 where wrong (NaN stays NaN)."""
    d = np.asarray(harder, float) - np.asarray(easier, float)
    if not higher_is_harder:
        d = -d
    return np.where(np.isnan(d), np.nan, np.where(d > 0, 1.0, np.where(d == 0, 0.5, 0.0)))


def boot(values: np.ndarray, cluster: np.ndarray, rng: np.random.Generator) -> str:
    """Mean with a 95% percentile interval, resampling whole clusters."""
    ids = np.unique(cluster)
    sums = np.array([np.nansum(values[cluster == c]) for c in ids])
    counts = np.array([np.sum(~np.isnan(values[cluster == c])) for c in ids])
    pick = rng.integers(0, len(ids), size=(N_BOOT, len(ids)))
    means = sums[pick].sum(axis=1) / counts[pick].sum(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return f"{sums.sum() / counts.sum():.3f} ({lo:.3f}, {hi:.3f})"


def measure(
    sets: dict[str, dict], scores: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] | None = None
) -> dict[str, dict[str, tuple[np.ndarray, np.ndarray | None]]]:
    """Per measure and set: the per-pair outcomes and, for OneStopEnglish, per-article
    outcomes of all three levels in order (None where a measure has no such view).
    ``scores``, when given, receives each scoring's ``arts`` of the easier and the harder
    texts, keyed by (set, scoring)."""
    out: dict[str, dict[str, tuple[np.ndarray, np.ndarray | None]]] = {}
    for set_name, s in sets.items():
        n = len(s["easier"])
        triples = s.get("triples")
        first = None
        for label, settings in SCORINGS.items():
            t0 = time.time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # long units cut for the judge, formulas on non-English symbols
                res = score_texts(s["easier"], sources=s["harder"], formulas=list(FORMULAS), **settings)
            print(f"  {set_name}, {label}: {time.time() - t0:.0f} s", file=sys.stderr)
            first = first or res
            if scores is not None:
                scores[(set_name, label)] = (np.asarray(res["arts"], float), np.asarray(res["source_arts"], float))
            arts_pairs = right(res["arts"], res["source_arts"])
            arts_triples = None
            if triples is not None:
                # The easier side of pair (0,1) and (0,2) is the elementary text, of (1,2) the intermediate.
                e = np.asarray(res["arts"], float)
                h = np.asarray(res["source_arts"], float)
                arts_triples = np.array(
                    [(e[3 * k] < h[3 * k]) and (e[3 * k + 1] < h[3 * k + 1]) for k in range(len(triples))], dtype=float
                )
            out.setdefault(f"arts ({label})", {})[set_name] = (arts_pairs, arts_triples)
            p = np.asarray(res["p_output_easier"], float)
            out.setdefault(f"p_output_easier ({label})", {})[set_name] = (right(0.5, p), None)
        for f in FORMULAS:
            vals = right(first[f], first[f"source_{f}"], higher_is_harder=(f != "fre"))
            tri = None
            if triples is not None:
                e, h = np.asarray(first[f], float), np.asarray(first[f"source_{f}"], float)
                sign = -1.0 if f == "fre" else 1.0
                tri = np.array(
                    [
                        sign * (h[3 * k] - e[3 * k]) > 0 and sign * (h[3 * k + 1] - e[3 * k + 1]) > 0
                        for k in range(len(triples))
                    ],
                    dtype=float,
                )
            out.setdefault(f.upper().replace("_", "-") if f != "dale_chall" else "Dale-Chall", {})[set_name] = (
                vals,
                tri,
            )
        wc_e = np.array([len(words(t)) for t in s["easier"]], float)
        wc_h = np.array([len(words(t)) for t in s["harder"]], float)
        tri = None
        if triples is not None:
            tri = np.array([len(words(a)) < len(words(b)) < len(words(c)) for a, b, c in triples], dtype=float)
        out.setdefault("word count", {})[set_name] = (right(wc_e, wc_h), tri)
        assert all(len(v[set_name][0]) == n for v in out.values())
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--dev-dir", default=None, help="folder of the development sets (default $ARTS_DEV_DIR or ../shared/dev)"
    )
    args = ap.parse_args(argv)
    t0 = time.time()
    sets = load_sets(find_dev_dir(args.dev_dir))
    scores: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
    results = measure(sets, scores)
    rng = np.random.default_rng(0)
    c_clu = np.asarray(sets["Cochrane"]["cluster"])
    o_clu = np.asarray(sets["OneStopEnglish"]["cluster"])
    n_art = len(sets["OneStopEnglish"]["triples"])
    lines = [
        f"| measure | Cochrane pairs (n = {len(c_clu)}) | OneStopEnglish pairs (n = {len(o_clu)}) "
        f"| OneStopEnglish, three levels in order (n = {n_art}) |",
        "|---|---|---|---|",
    ]
    for name, by_set in results.items():
        c_pairs, _ = by_set["Cochrane"]
        o_pairs, o_tri = by_set["OneStopEnglish"]
        tri = boot(o_tri, np.arange(n_art), rng) if o_tri is not None else ""
        lines.append(f"| {name} | {boot(c_pairs, c_clu, rng)} | {boot(o_pairs, o_clu, rng)} | {tri} |")
    # Where the texts sit in the pool: arts of each side, median (5th-95th percentile).
    lines += ["", "| scoring | set | arts of the easier texts | arts of the harder texts |", "|---|---|---|---|"]
    for (set_name, label), (easier, harder) in scores.items():
        cells = [
            f"{np.median(v):.3f} ({np.percentile(v, 5):.3f}-{np.percentile(v, 95):.3f})" for v in (easier, harder)
        ]
        lines.append(f"| {label} | {set_name} | {cells[0]} | {cells[1]} |")
    table = "\n".join(lines)
    print(table)
    print(f"\n{time.time() - t0:.0f} s")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "levels.md").write_text(
        "# Paragraphs and documents at known levels\n\n"
        "Printed by `benchmarks/levels.py` (see its docstring for the sets, the scorings and the intervals). "
        "Share of pairs whose easier version each measure orders first (ties count one half), "
        "with 95% bootstrap intervals.\n\n" + table + "\n",
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
