"""What length carries in the judge, and whether moving it reaches the goals learned-4 does not
meet: one-word edits (99th percentile of the move in ``arts`` at most .05), the ASSET pairs
(.75) and ARTS94 (.83). Two parts:

1. **Length in the fit** (``--parts fit``), on the rows of ``benchmarks/judge_directions.py``
   (fold 0 of the training script's grouped CV held out; :class:`judge_directions.FitBench`),
   each built as learned-4 is: learned-3's kernel ridge on frozen MiniLM and the cheap
   features, README++ English train weighing 2, then the training half of the Cochrane reviews
   joined with targets 20 Elo above (abstract) or below (summary) the first fit. Rows:

   - learned-4's fit;
   - length taken out of the targets: every training target less ``share x b x (log words -
     their weighted mean)``, ``b`` the weighted least-squares slope of the targets on log
     words (so ``share`` 1 leaves no linear trace of length in what the judge learns), for
     shares .25, .5 and 1; the Cochrane sentences are then targeted at that fit's value of them
     plus or minus 20;
   - length weighed more after the fit: learned-4's fit plus ``k x b' x log words``, ``b'`` the
     fit's own slope on the GPT-4 pool texts, for k = 1, 2 and 4 (the judge's length slope
     doubled, tripled, five times), and k = -1 (taken out after the fit);
   - length alone: log words.

   Figures as in ``judge_directions.py``'s fit table (GPT-4 on the held-out fold; TLDR /
   elementary and OneStopEnglish same-length shares; README++ val and partial Spearman;
   ARTS94 and ASSET with each text the word-weighted mean of its sentences' values; the
   held-out Cochrane half same length and as written; one-word edits as the 99th percentile
   of the move in position among the row's own values of the GPT-4 pool texts, every edit and
   sentences under 10 words), and the row's slope on the pool texts in Elo per unit of log
   words. ARTS94, ASSET and the edits are read, not chosen on.
2. **Reading sentences together without their length** (``--parts reading``), with the shipped
   learned-4's latent scores (its model's Elo prediction of each piece, before placement in
   the pool): the word-weighted mean of the sentences (the default rule); windows of 2 or 3
   consecutive sentences (a text with fewer read whole), each weighing its words; and the same
   windows with their own length taken out: a window's value less ``b x (log of its words -
   the word-weighted mean of its sentences' log words)``, ``b`` the slope of the judge's
   shipped (cross-fitted) scores of the ARTS3000 pool texts, those placement reads against. A window of three 10-word sentences is then read as its content at a
   sentence's length. Figures: ARTS94 Spearman, ASSET pairs, TLDR rated easier than its own
   abstract (goal .30-.70), Cochrane abstract harder than its summary as written (the
   held-out half).

Sets: those of ``judge_probes.py`` (SciTLDR, Cochrane, OneStopEnglish, README++ English, ARTS94,
ASSET pairwise dev; see its docstring for sources and licences), read at run time; no text is
stored in the repository or printed.

Writes ``benchmarks/results/length_directions.md``. About 6 minutes on 2 CPU cores::

    .venv/bin/python benchmarks/length_directions.py [--parts fit,reading] [--dev-dir DIR] [--data-dir DIR]
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path
from typing import Sequence

import numpy as np
from scipy.stats import spearmanr

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "scripts"))

import judge_directions as directions  # noqa: E402
import judge_probes as probes_mod  # noqa: E402
import train_learned_judge as training  # noqa: E402
from documents import _table, load_scitldr  # noqa: E402

from arts_metric.judges.learned import LearnedJudge  # noqa: E402
from arts_metric.pool import load_pool  # noqa: E402
from arts_metric.text.features import words  # noqa: E402
from arts_metric.text.sentences import split_sentences  # noqa: E402

PARTS = ("fit", "reading")
#: learned-4's nudge of the Cochrane sentences' targets, in Elo points.
NUDGE = 20.0
#: Shares of the targets' linear length trend taken out before fitting.
TAKEN_OUT = (0.25, 0.5, 1.0)
#: Multiples of the fit's own length slope added after fitting (-1 takes it out).
ADDED = (1.0, 2.0, 4.0, -1.0)
#: The reading rules: (how the text is cut, sentences in a window, window's length taken out).
READING_RULES = {
    "mean of sentences (the default)": ("mean", 0, False),
    "windows of 2": ("windows", 2, False),
    "windows of 3": ("windows", 3, False),
    "windows of 2, their length taken out": ("windows", 2, True),
    "windows of 3, their length taken out": ("windows", 3, True),
}


def log_words(texts: Sequence[str]) -> np.ndarray:
    """Natural log of each text's word count (a text without a word counts one)."""
    return np.log([max(len(words(t)), 1) for t in texts])


def length_slope(values: np.ndarray, texts: Sequence[str], weight: np.ndarray | None = None) -> float:
    """Least-squares slope of ``values`` on log words (per unit of natural log), weighted by
    ``weight`` (each row's weight in the squared error)."""
    w = None if weight is None else np.sqrt(np.asarray(weight, dtype=float))
    return float(np.polyfit(log_words(texts), np.asarray(values, dtype=float), 1, w=w)[0])


def window_length_excess(unit: str) -> float:
    """How much longer ``unit`` is than its sentences, in log words: log of its words less the
    word-weighted mean of its sentences' log words (0 for one sentence; log 2 for two
    sentences of the same length)."""
    counts = np.array([max(len(words(s)), 1) for s in split_sentences(unit) or [unit]], dtype=float)
    return float(np.log(counts.sum()) - np.average(np.log(counts), weights=counts))


# ----------------------------------------------------------------------------- part 1: fit
def fit_part(bench: "directions.FitBench") -> dict[str, dict[str, float]]:
    fd = bench.fd
    weight = fd.weights(training.README_WEIGHT)
    train_texts = [bench.texts[i] for i in bench.train_rows]
    pool_rows = [bench.pos[t] for t in fd.texts]
    lw = log_words(bench.texts)

    def measure(pred: np.ndarray) -> dict[str, float]:
        out = bench.measure(pred)
        out["slope"] = length_slope(pred[pool_rows], fd.texts)
        return out

    def learned4(y: np.ndarray) -> np.ndarray:
        return bench.with_cochrane(None, y, weight, NUDGE)

    rows: dict[str, dict[str, float]] = {}
    t0 = time.time()
    fit = learned4(fd.train_y)
    rows["learned-4's fit"] = measure(fit)
    b = length_slope(fd.train_y, train_texts, weight)
    centre = np.average(log_words(train_texts), weights=weight)
    for share in TAKEN_OUT:
        y = fd.train_y - share * b * (log_words(train_texts) - centre)
        rows[f"length taken out of the targets, share {share:g}"] = measure(learned4(y))
    own = length_slope(fit[pool_rows], fd.texts)
    for k in ADDED:
        name = (
            f"learned-4's fit, its length slope times {1 + k:g}"
            if k > 0
            else "learned-4's fit, its length slope taken out after the fit"
        )
        rows[name] = measure(fit + k * own * lw)
    rows["length alone (log words)"] = measure(lw.copy())
    rows["length alone (log words)"]["slope"] = float("nan")  # not on the Elo scale
    print(f"length in the fit: {time.time() - t0:.0f} s (targets' slope {b:.1f} Elo per log word)", file=sys.stderr)
    return rows


# ----------------------------------------------------------------------------- part 2: reading
def reading_part(dev_dir: Path, data_dir: Path, probes: dict, halves: dict[str, list]) -> dict:
    texts94, human94 = probes["arts94"]
    asset_h, asset_e = probes["asset"]
    scitldr = load_scitldr(dev_dir)
    cochrane = halves["held_reviews"]
    every = (
        texts94
        + asset_h
        + asset_e
        + [t for pair in scitldr for t in pair]
        + [r[k] for r in cochrane for k in ("abstract", "plain_language_summary")]
    )
    units = sorted(
        {
            u
            for t in every
            for cut, size, _ in READING_RULES.values()
            for u, _ in directions.reading_units(t, cut, size)
        }
    )
    judge = LearnedJudge(progress=False)
    t0 = time.time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a window past MiniLM's 256 word pieces is cut, as compute cuts a text
        latent = dict(zip(units, judge.score(units)))
    pool = load_pool("arts3000", data_dir)
    # the judge's scores of the pool texts ship with the pool (what placement reads them against)
    b = length_slope(np.asarray(pool.judge_scores[judge.score_key]), pool.get_texts())
    print(f"reading: {len(units)} pieces scored in {time.time() - t0:.0f} s", file=sys.stderr)
    out: dict = {"slope": b, "rules": {}}
    for rule, (cut, size, taken_out) in READING_RULES.items():

        def unit_value(u: str, taken_out: bool = taken_out) -> float:
            return latent[u] - (b * window_length_excess(u) if taken_out else 0.0)

        def v(t: str, cut: str = cut, size: int = size) -> float:
            return directions.weighted_mean(directions.reading_units(t, cut, size), unit_value)

        out["rules"][rule] = {
            "arts94": float(spearmanr([v(t) for t in texts94], human94)[0]),
            "asset": probes_mod.share_higher(np.array([v(t) for t in asset_h]), np.array([v(t) for t in asset_e])),
            "tldr_easier": float(np.mean([v(tldr) < v(abstract) for tldr, abstract in scitldr])),
            "cochrane": float(np.mean([v(r["abstract"]) > v(r["plain_language_summary"]) for r in cochrane])),
        }
    return out


# ----------------------------------------------------------------------------- report
FIT_COLUMNS = {k: v for k, v in directions.FIT_COLUMNS.items() if k != "cochrane"} | {
    "edits_short": "one-word edits, sentences under 10 words",
    "slope": "Elo per unit of log words on the pool",
}
READING_COLUMNS = {k: directions.READING_COLUMNS[k] for k in ("arts94", "asset", "tldr_easier")} | {
    "cochrane": "Cochrane as written, held-out half"
}


def report(results: dict, seconds: float) -> str:
    lines = directions.report_head("What length carries in the judge", "length_directions.py", seconds)
    if "fit" in results:
        lines += ["", "## Length in the fit (fold 0 of the grouped CV held out; learned-4's construction)", ""]
        lines += _table(
            ["row", *FIT_COLUMNS.values()],
            [
                [name, *(directions._figure(r[k], 1 if k == "slope" else 3) for k in FIT_COLUMNS)]
                for name, r in results["fit"].items()
            ],
        )
    if "reading" in results:
        r = results["reading"]
        lines += ["", "## Reading sentences together without their length (learned-4, latent scores)", ""]
        lines += _table(
            ["rule", *READING_COLUMNS.values()],
            [[rule, *(f"{x[k]:.3f}" for k in READING_COLUMNS)] for rule, x in r["rules"].items()],
        )
        lines += [
            "",
            f"The slope of the judge's shipped scores of the ARTS3000 pool texts: {r['slope']:.1f} Elo per unit of log "
            "words.",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    t0 = time.time()
    parts, dev_dir, data_dir, probes, halves = directions.start(__doc__, PARTS, argv)
    results = {}
    if "fit" in parts:
        results["fit"] = fit_part(directions.FitBench(data_dir, dev_dir, probes, halves, pieces=False))
    if "reading" in parts:
        results["reading"] = reading_part(dev_dir, data_dir, probes, halves)
    directions.print_report(report(results, time.time() - t0), "length_directions.md", parts, PARTS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
