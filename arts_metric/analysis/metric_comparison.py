"""Which readability metric agrees with humans? The comparison table.

Reusable logic behind ``benchmarks/compare_metrics.py`` (ARTS Table 3 layout;
Evaluating the Evaluators, Tables 2 and 9 / appendix C):

* every approach gets Pearson, Spearman and Kendall (tau-b) correlations with
  the human scores, signed so that **positive = agrees with humans** whatever
  the directions (FRE and C-Scores are higher = easier), each with a paired
  bootstrap 95 % interval over the texts (:func:`arts_metric.ratings.stats.bootstrap_ci`;
  BCa unless ``ci_method`` says otherwise);
* approaches that make pairwise decisions also get percent agreement and
  Cohen's kappa with the human decisions on the same matches;
* Williams' test (one-sided, :func:`arts_metric.ratings.stats.williams_test`) asks
  whether each approach correlates better with humans than the reference, by
  default the best formula (highest Spearman).

An :class:`Approach` is a score per text (NaN = no score; that text is left
out of that row only) plus, optionally, decisions on the human match schedule.
:func:`compare_metrics` builds the standard rows (nine formulas, length, the
learned judge, optionally RSRS) for any texts with human scores.
"""

from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Sequence

import numpy as np

from arts_metric.ratings.agreement import cohen_kappa, percent_agreement
from arts_metric.ratings.directions import Direction, check_direction, harder_up
from arts_metric.ratings.elo import run_elo
from arts_metric.ratings.stats import bootstrap_ci, correlations, williams_test

STATS: tuple[str, ...] = ("pearson", "spearman", "kendall")
#: CSV columns, in order (the first six are the ARTS Table 3 layout).
COLUMNS: tuple[str, ...] = (
    "approach",
    "agreement",
    "kappa",
    "pearson",
    "spearman",
    "kendall",
    "pearson_lo",
    "pearson_hi",
    "spearman_lo",
    "spearman_hi",
    "kendall_lo",
    "kendall_hi",
    "williams_ref",
    "williams_p_pearson",
    "williams_p_spearman",
    "williams_p_kendall",
    "kind",
    "higher_is",
    "n_texts",
    "n_pairs",
)
#: Display names of the formulas of :mod:`arts_metric.text.formulas`.
FORMULA_LABELS: dict[str, str] = {
    "fkgl": "FKGL",
    "fre": "FRE",
    "dale_chall": "Dale-Chall",
    "coleman_liau": "Coleman-Liau",
    "ari": "ARI",
    "gunning_fog": "Gunning Fog",
    "smog": "SMOG",
    "spache": "Spache",
    "linsear_write": "Linsear Write",
}


@dataclass
class Approach:
    """One row of the table.

    ``scores`` has one value per text (NaN where the approach gave none) and
    ``higher_is`` says what a larger score means. ``decisions`` are the
    approach's answers on the human match schedule (1.0 = first text harder,
    0.0 = second, None/NaN = no answer; fractions are rounded, 0.5 = none),
    for the agreement and kappa columns.
    """

    name: str
    scores: Sequence[float]
    higher_is: Direction = "harder"
    kind: str = "metric"
    decisions: Sequence[float | None] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _direction(value: str, what: str) -> Literal["harder", "easier"]:
    """The direction as this table's rows name it (``"easier"`` for higher = simpler)."""
    return "harder" if check_direction(value, what) == "harder" else "easier"


def _hard_decisions(decisions: Sequence[float | None], name: str) -> np.ndarray:
    out = np.full(len(decisions), np.nan)
    for j, d in enumerate(decisions):
        if d is None or (isinstance(d, (float, np.floating)) and math.isnan(d)):
            continue
        if not 0.0 <= float(d) <= 1.0:
            raise ValueError(f"{name}: decision {j} is {d!r}, expected a probability in [0, 1] or None")
        if d != 0.5:
            out[j] = 1.0 if d > 0.5 else 0.0
    return out


def _signed(values: np.ndarray, higher_is: Direction) -> np.ndarray:
    return harder_up(values, higher_is)


def evaluate_approaches(
    approaches: Sequence[Approach],
    human_scores: Sequence[float],
    human_higher_is: Direction = "harder",
    *,
    human_decisions: Sequence[float | None] | None = None,
    reference: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    ci_method: Literal["percentile", "basic", "BCa"] = "BCa",
    progress: bool = True,
) -> list[dict[str, Any]]:
    """One row (dict keyed by :data:`COLUMNS`) per approach, in the given order.

    ``reference`` names the approach Williams' test compares with; by default
    the ``kind == "formula"`` approach with the highest Spearman (the table is
    then "is this better than the best formula?"). Empty cells are None. Each
    correlation's 95% interval resamples the texts ``n_boot`` times from ``seed``
    (:func:`arts_metric.ratings.stats.bootstrap_ci` with ``method=ci_method``).
    """
    human_higher_is = _direction(human_higher_is, "human_higher_is")
    human = np.asarray(human_scores, dtype=float)
    if human.ndim != 1 or not np.all(np.isfinite(human)):
        raise ValueError("human_scores must be a 1-D sequence of finite numbers")
    names = [a.name for a in approaches]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"approach names must be unique; repeated: {', '.join(dupes)}")
    human_dec = None if human_decisions is None else _hard_decisions(human_decisions, "human_decisions")
    # Human side signed once: larger = harder.
    human_signed = _signed(human, human_higher_is)

    signed: dict[str, np.ndarray] = {}
    rows: list[dict[str, Any]] = []
    from tqdm.auto import tqdm

    for a in tqdm(approaches, desc="approaches", unit="row", disable=not progress):
        scores = np.asarray(a.scores, dtype=float)
        if scores.shape != human.shape:
            raise ValueError(f"approach {a.name!r} has {scores.size} scores for {human.size} texts")
        if np.any(np.isinf(scores)):
            raise ValueError(f"approach {a.name!r} has infinite scores")
        higher_is = _direction(a.higher_is, f"approach {a.name!r}: higher_is")
        row: dict[str, Any] = {c: None for c in COLUMNS}
        row.update(approach=a.name, kind=a.kind, higher_is=higher_is)
        mask = np.isfinite(scores)
        row["n_texts"] = int(mask.sum())
        x = _signed(scores, higher_is)
        signed[a.name] = x
        try:
            corr = correlations(x[mask], human_signed[mask])
        except ValueError as exc:
            raise ValueError(f"approach {a.name!r}: {exc}") from None
        for stat in STATS:
            row[stat] = corr[stat]
            lo, hi = bootstrap_ci(
                x[mask], human_signed[mask], stat=stat, n_resamples=n_boot, seed=seed, method=ci_method
            )
            row[f"{stat}_lo"], row[f"{stat}_hi"] = lo, hi
        if a.decisions is not None and human_dec is not None:
            dec = _hard_decisions(a.decisions, a.name)
            if dec.shape != human_dec.shape:
                raise ValueError(f"approach {a.name!r} has {dec.size} decisions for {human_dec.size} human decisions")
            both = ~np.isnan(dec) & ~np.isnan(human_dec)
            row["n_pairs"] = int(both.sum())
            if both.any():
                row["agreement"] = percent_agreement([dec, human_dec])
                row["kappa"] = cohen_kappa(dec, human_dec)
        rows.append(row)

    ref = reference if reference is not None else best_formula(rows)
    if ref is not None:
        if ref not in signed:
            raise ValueError(f"reference {ref!r} is not one of the approaches: {', '.join(names)}")
        for row in rows:
            if row["approach"] == ref:
                continue
            row["williams_ref"] = ref
            x, y = signed[row["approach"]], signed[ref]
            common = np.isfinite(x) & np.isfinite(y)
            between = correlations(x[common], y[common])
            with_humans = (
                correlations(x[common], human_signed[common]),
                correlations(y[common], human_signed[common]),
            )
            for stat in STATS:
                try:
                    res = williams_test(with_humans[0][stat], with_humans[1][stat], between[stat], int(common.sum()))
                    row[f"williams_p_{stat}"] = res.pvalue
                except ValueError:  # e.g. r23 = 1 (identical rankings): the test is undefined
                    row[f"williams_p_{stat}"] = None
    return rows


def best_formula(rows: Iterable[dict[str, Any]], stat: str = "spearman") -> str | None:
    """Name of the ``kind == "formula"`` row with the highest ``stat``, or None."""
    formulas = [r for r in rows if r["kind"] == "formula" and r[stat] is not None]
    return max(formulas, key=lambda r: r[stat])["approach"] if formulas else None


def formula_approaches(texts: Sequence[str], formulas: Iterable[str] | None = None) -> list[Approach]:
    """The traditional formulas (all nine by default) as approaches."""
    from arts_metric.text.formulas import FORMULAS, HIGHER_IS_HARDER, compute_formulas

    values = compute_formulas(texts, FORMULAS if formulas is None else formulas)
    return [
        Approach(FORMULA_LABELS.get(name, name), v, "harder" if HIGHER_IS_HARDER[name] else "easier", "formula")
        for name, v in values.items()
    ]


def length_approach(texts: Sequence[str]) -> Approach:
    """Plain length in characters (higher = harder): the baseline to beat."""
    return Approach("Length (characters)", [float(len(t)) for t in texts], "harder", "baseline")


def judge_score_approach(name: str, judge: Any, texts: Sequence[str], kind: str = "learned") -> Approach:
    """Any :class:`arts_metric.judges.base.PointwiseJudge`: its latent score (higher = harder)."""
    return Approach(name, np.asarray(judge.score(list(texts)), dtype=float), "harder", kind)


def pairwise_approach(
    name: str,
    judge: Any,
    texts: Sequence[str],
    schedule: Sequence[tuple[int, int]],
    reference_schedule: Sequence[tuple[int, int]] | None = None,
    kind: str = "pairwise",
) -> Approach:
    """A pairwise judge plays ``schedule`` (pairs of text indices) in order; its
    scores are the resulting Elo ratings (K=16, start 1200, higher = harder).
    Its decisions on ``reference_schedule`` (default: the same schedule) feed
    the agreement and kappa columns."""
    n = len(texts)
    for j, (a, b) in enumerate(schedule):
        if not (0 <= a < n and 0 <= b < n):
            raise ValueError(f"{name}: schedule pair {j} ({a}, {b}) is outside 0..{n - 1}")
    decisions = judge.compare([(texts[a], texts[b]) for a, b in schedule])
    ratings = run_elo(n, [(a, b, d) for (a, b), d in zip(schedule, decisions)])
    if reference_schedule is None or list(reference_schedule) == list(schedule):
        ref_decisions = decisions
    else:
        ref_decisions = judge.compare([(texts[a], texts[b]) for a, b in reference_schedule])
    played = sum(d is not None for d in decisions)
    return Approach(name, ratings, "harder", kind, decisions=ref_decisions, extra={"matches": played})


def compare_metrics(
    texts: Sequence[str],
    human_scores: Sequence[float],
    human_higher_is: Direction = "harder",
    *,
    formulas: Iterable[str] | None = None,
    length: bool = True,
    learned: bool = True,
    rsrs_model: Any = None,
    extra: Sequence[Approach] = (),
    human_decisions: Sequence[float | None] | None = None,
    reference: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    ci_method: Literal["percentile", "basic", "BCa"] = "BCa",
    progress: bool = True,
) -> list[dict[str, Any]]:
    """The comparison table for any texts with human scores.

    ``human_higher_is`` says what a larger human score means ("easier" for
    C-Scores or reading-ease ratings). Rows: the formulas, text length, the
    learned judge, RSRS when ``rsrs_model`` (a local model folder / cached
    name, or an :class:`arts_metric.analysis.rsrs.RSRS`) is given, then ``extra``.
    Each correlation's 95% interval resamples the texts ``n_boot`` times from
    ``seed`` (``ci_method``: ``"BCa"``, ``"percentile"`` or ``"basic"``).
    """
    if isinstance(texts, str):
        raise ValueError("texts must be a list of strings, not one string")
    texts = list(texts)
    if len(texts) != len(human_scores):
        raise ValueError(f"{len(texts)} texts but {len(human_scores)} human scores")
    for i, t in enumerate(texts):
        if not isinstance(t, str) or not t.strip():
            raise ValueError(f"text {i} is empty or not a string: {t!r}")
    approaches: list[Approach] = formula_approaches(texts, formulas)
    if length:
        approaches.append(length_approach(texts))
    if learned:
        from arts_metric.judges import get_judge

        approaches.append(judge_score_approach("Learned judge (ours)", get_judge("learned"), texts))
    if rsrs_model is not None:
        from arts_metric.analysis.rsrs import RSRS

        scorer = rsrs_model if isinstance(rsrs_model, RSRS) else RSRS(rsrs_model, progress=progress)
        approaches.append(Approach("RSRS", scorer.score(texts), "harder", "lm"))
    approaches.extend(extra)
    return evaluate_approaches(
        approaches,
        human_scores,
        human_higher_is,
        human_decisions=human_decisions,
        reference=reference,
        n_boot=n_boot,
        seed=seed,
        ci_method=ci_method,
        progress=progress,
    )


def rater_agreement_rows(
    raters: dict[str, Sequence[Any]], reference: Sequence[Any], n_texts: int
) -> list[dict[str, Any]]:
    """Each rater's history against a reference history on the same schedule (ARTS
    Table 9): percent agreement and Cohen's kappa of the decisions, Spearman and
    Kendall between the two Elo rankings (K=16, start 1200). Keys: ``rater,
    agreement, kappa, spearman, kendall, n_pairs``."""
    from arts_metric.ratings.elo import ratings_from_history

    ref_dec = np.array([np.nan if m.harder is None else float(m.harder == m.a) for m in reference])
    ref_ratings = ratings_from_history(n_texts, reference)
    rows = []
    for name, history in raters.items():
        if [(m.a, m.b) for m in history] != [(m.a, m.b) for m in reference]:
            raise ValueError(f"rater {name!r} did not decide the reference schedule (same pairs, same order)")
        dec = np.array([np.nan if m.harder is None else float(m.harder == m.a) for m in history])
        corr = correlations(ratings_from_history(n_texts, history), ref_ratings)
        rows.append(
            {
                "rater": name,
                "agreement": percent_agreement([dec, ref_dec]),
                "kappa": cohen_kappa(dec, ref_dec),
                "spearman": corr["spearman"],
                "kendall": corr["kendall"],
                "n_pairs": int(np.sum(~np.isnan(dec) & ~np.isnan(ref_dec))),
            }
        )
    return rows


def load_human_file(
    path: str | os.PathLike, text_column: str = "text", score_column: str = "score"
) -> tuple[list[str], np.ndarray]:
    """Texts and human scores from any file :mod:`arts_metric.text.reading` reads (CSV with a
    header row, JSON Lines, a JSON list, TSV, Parquet).

    Every row needs a non-empty ``text_column`` and a finite number in
    ``score_column``; a bad row raises ValueError naming its line.
    """
    from arts_metric.text.reading import read_labelled_rows

    path = os.fspath(path)
    rows = read_labelled_rows(path, text_column)
    if rows and score_column not in rows[0][1]:
        raise ValueError(f"{path}: no column {score_column!r} (columns: {', '.join(map(str, rows[0][1]))})")
    if not rows:
        raise ValueError(f"{path}: no rows")
    texts: list[str] = []
    scores: list[float] = []
    for label, row in rows:
        text, score = row.get(text_column), row.get(score_column)
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{label}: column {text_column!r} is missing or empty")
        if isinstance(score, str):
            score = score.strip()
        try:
            value = float(score)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise ValueError(f"{label}: {score_column}={score!r} is not a number") from None
        if not math.isfinite(value):
            raise ValueError(f"{label}: {score_column}={score!r} is not finite")
        texts.append(text)
        scores.append(value)
    return texts, np.asarray(scores)


def cscore_human_scores(
    log_path: str | os.PathLike,
    texts_path: str | os.PathLike,
    variant: str = "simple",
    **cscore_options: Any,
) -> tuple[list[str], np.ndarray]:
    """C-Scores as the human side: computes them from a comprehension-test log
    (see :mod:`arts_metric.cscore`) and joins them to a CSV of ``text_id,text``.
    Returns ``(texts, c_scores)``; C-Scores are higher = **easier**."""
    from arts_metric.cscore import compute_cscores, read_log

    scores = {r.text_id: r.c_score for r in compute_cscores(read_log(log_path), variant, **cscore_options)}  # type: ignore[arg-type]
    with open(texts_path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames is None or not {"text_id", "text"} <= set(reader.fieldnames):
            raise ValueError(f"{texts_path}: needs the columns text_id,text (has {reader.fieldnames})")
        by_id = {}
        for i, row in enumerate(reader):
            tid = (row["text_id"] or "").strip()
            if tid in by_id:
                raise ValueError(f"{texts_path}, line {i + 2}: text_id {tid!r} appears twice")
            if not (row["text"] or "").strip():
                raise ValueError(f"{texts_path}, line {i + 2}: text_id {tid!r} has no text")
            by_id[tid] = row["text"]
    missing = [t for t in scores if t not in by_id]
    if missing:
        raise ValueError(f"{texts_path} has no text for text_id(s) {', '.join(missing[:5])} of the log")
    ids = list(scores)
    return [by_id[t] for t in ids], np.array([scores[t] for t in ids])
