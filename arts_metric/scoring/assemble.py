"""The result of a ``score_texts`` call, assembled step by step from the placed
:class:`~arts_metric.scoring.batch.Batch`: the ARTS values, the formulas, the counts of empty
texts and texts without a word, the values against sources and references, the correlations
with human scores, and what the run used and cost. Each step adds its keys to the result in
the order the metric card lists them.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from arts_metric.judges import Judge
from arts_metric.languages.formulas import formula_higher_is_harder
from arts_metric.languages.formulas import formula_values as compute_formulas
from arts_metric.llm.report import request_summary, stats_since
from arts_metric.ratings.elo import expected_score, rating_of_expected_score
from arts_metric.scoring.batch import Batch, Placement
from arts_metric.scoring.config import ScoringConfig
from arts_metric.scoring.scorer import Scorer
from arts_metric.text.formulas import LONG_SENTENCE_WORDS, looks_english, words_per_sentence
from arts_metric.text.wordless import RULE, WORDLESS_ARTS
from arts_metric.userwarnings import warn as warn_user

_CORRELATION_KEYS = ("pearson", "pearson_p", "spearman", "spearman_p", "kendall", "kendall_p")
#: At most this many indices are named in a warning.
_NAMED = 10


def add_arts(result: dict[str, Any], batch: Batch, placement: Placement) -> None:
    """``arts``, ``arts_elo``, ``arts_interval``, ``arts_mean`` and ``arts_mean_interval`` of the predictions."""
    n, n_scored, placed = len(batch.groups["predictions"]), placement.n_predictions_placed, placement.placed
    result["arts"] = batch.part(placement.arts, "predictions")
    result["arts_elo"] = batch.part(placement.elo, "predictions")
    if placement.bounds is not None:
        result["arts_interval"] = batch.part(placement.bounds, "predictions")
    result["arts_mean"] = _mean(batch.part(placement.arts, "predictions"))
    if n_scored == 0:
        result["arts_mean_interval"] = [WORDLESS_ARTS, WORDLESS_ARTS]
    elif placed is not None and placed.mean_interval is not None:
        # Texts without a word are fixed at 1: the mean over all predictions is the scored
        # texts' mean times their share plus the fixed texts' share, and so is its interval.
        fixed_sum = (n - n_scored) * WORDLESS_ARTS
        result["arts_mean_interval"] = [(float(v) * n_scored + fixed_sum) / n for v in placed.mean_interval]


def add_formulas(result: dict[str, Any], batch: Batch, config: ScoringConfig) -> dict[str, dict[str, np.ndarray]]:
    """Each formula of ``config`` on the predictions (and sources), ``n_formula_undefined``, and the
    formulas' warnings for English; returns the values by formula and group."""
    names, values = list(config.formulas), {}
    if not names:
        return values
    predictions, sources = batch.groups["predictions"], batch.groups.get("sources")
    n = len(predictions)
    computed = compute_formulas(predictions + (sources or []), names, config.language)
    for f in names:
        values[f] = {"predictions": computed[f][:n]}
        if sources is not None:
            values[f]["sources"] = computed[f][n:]
    for f in names:
        result[f] = values[f]["predictions"]
    undefined = np.zeros(n, dtype=bool)
    for f in names:
        undefined |= np.isnan(values[f]["predictions"])
    result["n_formula_undefined"] = int(undefined.sum())
    if config.language == "en":
        said = {name: batch.blank[name] | batch.foreign[name] for name in batch.groups}  # already warned about
        _warn_formulas(names, values, {k: v for k, v in batch.groups.items() if k != "references"}, said)
    return values


def add_counts(result: dict[str, Any], batch: Batch, allow_empty: bool) -> None:
    """``n_empty`` (with ``empty="score"``) and ``n_wordless``, each named in a warning."""
    if allow_empty:
        result["n_empty"] = len(batch.blank["predictions"])
        if any(batch.blank.values()):
            named = "; ".join(_named(sorted(batch.blank[name]), name) for name in batch.groups if batch.blank[name])
            warn_user(f"empty texts {RULE}: {named}")
    wordless = {name: batch.fixed[name] - batch.blank[name] for name in batch.groups}
    result["n_wordless"] = len(wordless["predictions"])
    if any(wordless.values()):
        named = "; ".join(_named(sorted(wordless[name]), name) for name in batch.groups if wordless[name])
        warn_user(f"texts without a word (fewer than two letters in a row) {RULE}: {named}")


def add_sources(
    result: dict[str, Any],
    batch: Batch,
    placement: Placement,
    formulas: dict[str, dict[str, np.ndarray]],
    scorer: Scorer,
) -> None:
    """With sources: ``source_*``, ``arts_delta`` (positive = output easier) and, for a judge with
    a close-pair method, ``p_output_easier``."""
    predictions, sources, n = batch.groups["predictions"], batch.groups["sources"], len(batch.groups["predictions"])
    src_arts, pred_arts = batch.part(placement.arts, "sources"), batch.part(placement.arts, "predictions")
    result["source_arts"] = src_arts
    result["source_arts_elo"] = batch.part(placement.elo, "sources")
    for f in formulas:
        result[f"source_{f}"] = formulas[f]["sources"]
    delta = src_arts - pred_arts
    result["arts_delta"] = delta
    result["arts_delta_mean"] = _mean(delta)
    # The close-pair probability where the judge offers one: it reads both texts,
    # so it orders near-paraphrases better than the difference of two scores.
    fixed = batch.fixed
    both = [i for i in range(n) if i not in fixed["predictions"] and i not in fixed["sources"]]
    src_units, pred_units = batch.part(placement.units, "sources"), batch.part(placement.units, "predictions")
    # win probabilities live on the Elo expected-score scale of the two texts' arts, not on
    # the pool's rating scale of arts_elo (the pool's K=16 ratings are narrower than the judge's odds)
    pool_ratings = scorer.pool.ratings
    p = _p_output_easier(
        scorer.judge,
        [sources[i] for i in both],
        [predictions[i] for i in both],
        rating_of_expected_score(pool_ratings, src_arts[both]),
        rating_of_expected_score(pool_ratings, pred_arts[both]),
        ((src_units[both] > 1) | (pred_units[both] > 1)) & (scorer.config.long_texts in ("mean", "team")),
    )
    if p is not None:
        p_easier = np.array([_fixed_p_easier(i in fixed["sources"], i in fixed["predictions"]) for i in range(n)])
        p_easier[both] = p
        result["p_output_easier"] = p_easier
        result["p_output_easier_mean"] = _mean(p_easier)


def add_references(result: dict[str, Any], batch: Batch, placement: Placement, references: list[list[str]]) -> None:
    """``reference_arts`` (the mean ``arts`` of each prediction's references) and its mean."""
    ref_arts = batch.part(placement.arts, "references")
    per_prediction, start = [], 0
    for refs in references:
        per_prediction.append(_mean(ref_arts[start : start + len(refs)]))
        start += len(refs)
    result["reference_arts"] = per_prediction
    result["reference_arts_mean"] = _mean(np.array([np.nan if v is None else v for v in per_prediction]))


def add_correlations(
    result: dict[str, Any],
    batch: Batch,
    placement: Placement,
    formulas: dict[str, dict[str, np.ndarray]],
    human: np.ndarray,
    human_higher_is: str,
) -> None:
    """``correlation``: ``arts``, ``arts_elo`` and each formula against the human scores."""
    metrics: dict[str, tuple[np.ndarray, bool]] = {
        "arts": (batch.part(placement.arts, "predictions"), True),
        "arts_elo": (batch.part(placement.elo, "predictions"), True),
    }
    for f in formulas:
        metrics[f] = (formulas[f]["predictions"], formula_higher_is_harder(f))
    result["correlation"] = {
        name: _correlation(values, human, harder, human_higher_is) for name, (values, harder) in metrics.items()
    }


def add_run(
    result: dict[str, Any],
    batch: Batch,
    placement: Placement,
    scorer: Scorer,
    stats_before: dict[str, Any],
    return_sentences: bool,
) -> None:
    """``units`` and the sentences, then what the run used and cost: ``placement``, ``judge_calls``,
    ``invalid``, ``failed``, ``judge``, ``pool``, ``arts_signature``, ``judge_stats`` and ``judge_report``."""
    placed, judge = placement.placed, scorer.judge
    result["units"] = batch.part(placement.units, "predictions")
    if return_sentences:
        result["sentences"] = batch.part(placement.sentences, "predictions")
        if "sources" in batch.groups:
            result["source_sentences"] = batch.part(placement.sentences, "sources")
    result["placement"] = placed.method if placed is not None else scorer.method
    result["judge_calls"] = placed.judge_calls if placed is not None else 0
    result["invalid"] = placed.invalid if placed is not None else 0
    result["failed"] = placed.failed if placed is not None else 0
    result["judge"] = judge.name
    result["pool"] = scorer.pool.name
    result["arts_signature"] = scorer.signature
    result["judge_stats"] = stats_since(stats_before, judge.stats.as_dict())
    result["judge_report"] = request_summary(result["judge_stats"])  # None: the judge counts no requests


def _json_safe(value: Any) -> Any:
    """``value`` with NaN and infinities turned into None and numpy scalars into Python ones."""
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return _json_safe(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return value


def _mean(values: np.ndarray) -> float | None:
    ok = np.isfinite(values)
    return float(values[ok].mean()) if ok.any() else None


def _named(indices: Sequence[int], name: str) -> str:
    shown = ", ".join(f"{name}[{i}]" for i in indices[:_NAMED])
    return shown + (f" and {len(indices) - _NAMED} more" if len(indices) > _NAMED else "")


def _p_output_easier(
    judge: Judge,
    sources: list[str],
    outputs: list[str],
    source_elo: np.ndarray,
    output_elo: np.ndarray,
    split: np.ndarray,
) -> list[float] | None:
    """P(the output is easier than its source), for judges with a close-pair method
    (the learned judge's ``compare_close``), None for the others (LLM judges).

    A pair of single units (two sentences under ``long_texts="mean"``) goes to
    ``compare_close``, which reads both texts: the words an edit removed and added,
    for near-paraphrases whose absolute scores differ by noise. A pair where either
    text was cut into sentences (``split``; ``long_texts="mean"`` or ``"team"``) is judged
    from the two texts' ``arts`` read as Elo ratings against the pool
    (:func:`arts_metric.ratings.elo.rating_of_expected_score`), ``E(source, output)`` of eq. 1
    (``source_elo`` and ``output_elo`` are those ratings): the close-pair head reads at most one
    window of text, and on paragraphs the sentence ratings order pairs better
    (``benchmarks/levels.py``). An empty list when there is no pair to judge."""
    close = getattr(judge, "compare_close", None)
    if not callable(close):
        return None
    out = np.asarray(expected_score(np.asarray(source_elo, float), np.asarray(output_elo, float)), dtype=float)
    short = [i for i in range(len(sources)) if not split[i]]
    if short:
        out[short] = [float(p) for p in close([(sources[i], outputs[i]) for i in short])]
    return [float(p) for p in out]


def _fixed_p_easier(source_fixed: bool, output_fixed: bool) -> float:
    """P(output easier than its source) for a pair with a text without a word, by the
    rule that puts such a text at the hardest end: 0.0 when only the output has no
    word, 1.0 when only the source has none, 0.5 (a tie) when both have none."""
    return 0.5 if source_fixed == output_fixed else (1.0 if source_fixed else 0.0)


def _correlation(values: np.ndarray, human: np.ndarray, harder: bool, human_higher_is: str) -> dict[str, Any]:
    """Correlations over the texts where ``values`` are defined; None where undefined
    (fewer than 3 such texts, or constant values). ``n``: texts used."""
    from arts_metric.ratings.stats import correlations

    ok = np.isfinite(values)
    n_ok = int(ok.sum())
    if n_ok < 3 or np.ptp(values[ok]) == 0 or np.ptp(human[ok]) == 0:
        return {**{k: None for k in _CORRELATION_KEYS}, "n": n_ok}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's small-sample notes; the values stand
        out = correlations(
            values[ok], human[ok], metric_higher_is="harder" if harder else "simpler", human_higher_is=human_higher_is
        )
    return {**out, "n": n_ok}


def _warn_formulas(
    formula_names: list[str], values: dict[str, np.ndarray], groups: dict[str, list[str]], said: dict[str, set[int]]
) -> None:
    """Warn about texts the formulas are undefined on and about texts that do not look
    English, leaving out the texts of ``said`` (empty, or already named as written in
    another script)."""
    for name, texts in groups.items():
        undefined = [
            i
            for i in range(len(texts))
            if i not in said[name] and any(np.isnan(values[f][name][i]) for f in formula_names)
        ]
        if undefined:
            warn_user(
                f"readability formulas are undefined on {_named(undefined, name)} (no word in Latin script: "
                f"punctuation, emoji, digits or another script only): {', '.join(formula_names)} are None there; "
                "ARTS scores them"
            )
        endless = [
            i
            for i in range(len(texts))
            if i not in said[name]
            and len(texts[i]) > 2 * LONG_SENTENCE_WORDS  # fewer characters cannot hold that many words
            and not any(np.isnan(values[f][name][i]) for f in formula_names)
            and words_per_sentence(texts[i]) > LONG_SENTENCE_WORDS
        ]
        if endless:
            warn_user(
                f"the readability formulas read {_named(endless, name)} as sentences of more than "
                f"{LONG_SENTENCE_WORDS} words on average (little or no sentence-ending punctuation): "
                f"{', '.join(formula_names)} {'means' if len(formula_names) == 1 else 'mean'} little there"
            )
    # Texts without a letter (already warned about above) say nothing about the language.
    texts = [
        t
        for name, ts in groups.items()
        for i, t in enumerate(ts)
        if i not in said[name] and any(c.isalpha() for c in t)
    ]
    foreign = sum(not looks_english(t) for t in texts)
    if texts and foreign > len(texts) / 2:
        warn_user(
            f"{foreign} of {len(texts)} texts do not look English: {', '.join(formula_names)} are English formulas "
            "and mean little on other languages (ARTS's pools and learned judge are English too)"
        )
