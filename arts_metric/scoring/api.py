"""Scoring texts: the one function behind ``evaluate.load("arts").compute``, the
CLI and the app. Its settings are a :class:`arts_metric.scoring.config.ScoringConfig`.

Conventions: ``arts`` is in [0, 1] and **higher = harder** (the share of the
reference pool's texts rated easier than the text); ``arts_elo`` is the same
position read on the pool's own Elo scale (the rating a pool text at that
position has, :func:`arts_metric.ratings.elo.rating_of_pool_position`; a text beyond
every pool text lies a little beyond the pool's range, still ordered). ``arts_delta`` is
``source_arts - arts``: **positive = the output is easier than its source**.

Order of work, so that a bad input never costs a request: the inputs
(:mod:`arts_metric.text.checks`) and settings are checked, the judge is built (no
request), the placement options are tried in a dry run against a simulated
judge, and only then is the pool loaded (an unrated pool of one's own is rated
by the judge: the first requests) and are the texts placed.

A text without a word (:mod:`arts_metric.text.wordless`: punctuation, digits or
symbols only, a letter alone, or an empty text under ``empty="score"``) is
never sent to the judge: it gets ``arts`` 1.0, the hardest end of the scale,
and is named in a warning and counted (``n_wordless``, ``n_empty``).

Every value in the result is a finite number, a string or ``None``
(undefined: a formula on a text without words, a text without a usable
judge decision, a correlation over constant values), so
``json.dumps(result, allow_nan=False)`` always works.
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
from arts_metric.languages.scripts import mismatched_texts, script_warning
from arts_metric.llm.report import request_summary, stats_since
from arts_metric.ratings.directions import Direction
from arts_metric.ratings.elo import expected_score, rating_of_expected_score
from arts_metric.scoring.config import ScoringConfig
from arts_metric.scoring.scorer import Scorer, split_settings
from arts_metric.scoring.units import place_texts
from arts_metric.text.checks import (
    EmptyPolicy,
    blank_indices,
    check_empty_policy,
    check_human_scores,
    check_references,
    check_same_length,
    check_texts,
)
from arts_metric.text.formulas import LONG_SENTENCE_WORDS, looks_english, words_per_sentence
from arts_metric.text.wordless import RULE, WORDLESS_ARTS, top_rating, wordless_indices
from arts_metric.userwarnings import warn as warn_user

_CORRELATION_KEYS = ("pearson", "pearson_p", "spearman", "spearman_p", "kendall", "kendall_p")
#: At most this many indices are named in a warning.
_NAMED = 10


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


def check_return_sentences(value: Any, long_texts: str) -> bool:
    """``return_sentences`` must be a bool, and True only where texts are scored by their
    sentences (``long_texts="mean"``)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"return_sentences must be True or False, got {value!r:.80}")
    if value and long_texts != "mean":
        raise ValueError(
            f'return_sentences=True needs long_texts="mean" (the default), which scores every text by its '
            f'sentences; long_texts="{long_texts}" does not'
        )
    return bool(value)


def _fixed_p_easier(source_fixed: bool, output_fixed: bool) -> float:
    """P(output easier than its source) for a pair with a text without a word, by the
    rule that puts such a text at the hardest end: 0.0 when only the output has no
    word, 1.0 when only the source has none, 0.5 (a tie) when both have none."""
    return 0.5 if source_fixed == output_fixed else (1.0 if source_fixed else 0.0)


def _sentence_rows(placed: Any, k: int) -> list[dict[str, Any]]:
    """The ``k``-th placed text's sentences with their values, in reading order."""
    return [
        {"text": text, "arts": float(a), "arts_elo": float(r), "words": int(w)}
        for text, a, r, w in zip(placed.unit_texts[k], placed.unit_arts[k], placed.unit_elo[k], placed.unit_weights[k])
    ]


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


def score_texts(
    predictions: Sequence[str],
    *,
    sources: Sequence[str] | None = None,
    references: Sequence[Sequence[str]] | None = None,
    human_scores: Sequence[float] | None = None,
    human_higher_is: Direction = "harder",
    empty: EmptyPolicy = "error",
    return_sentences: bool = False,
    config: ScoringConfig | None = None,
    **settings: Any,
) -> dict[str, Any]:
    """Score ``predictions`` (and optionally their ``sources`` and ``references``) with
    ARTS and formulas; higher ``arts`` = harder.

    Parameters
    ----------
    predictions : the texts to score (e.g. system outputs).
    sources : the texts before simplification, aligned with ``predictions``; adds
        ``source_*`` and ``arts_delta`` (positive = output easier).
    references : one list of reference texts per prediction (a string counts as a
        list of one); adds ``reference_arts``, the mean ``arts`` of each
        prediction's references. ARTS itself stays reference-free.
    human_scores : human difficulty judgments of the predictions, one per
        prediction (at least 3, not all equal); adds ``correlation``.
    human_higher_is : what a larger human score means: ``"harder"`` (the
        default) or ``"simpler"`` (alias ``"easier"``).
    empty : ``"error"`` (default): an empty or whitespace-only text is a
        ``ValueError`` naming it; ``"score"``: it is scored as a text without a
        word (below) and counted in ``n_empty``, with None formulas.
    return_sentences : add ``sentences`` (and ``source_sentences`` with sources):
        for each text, its sentences as judged, each a dict with ``text``,
        ``arts``, ``arts_elo`` and ``words`` (its weight in the text's rating),
        in reading order; the text's ``arts_elo`` is the mean of their
        ``arts_elo`` weighted by ``words``. Needs ``long_texts="mean"`` (the default).
    config : the scoring settings to start from (default: every default).
    **settings : the fields of :class:`~arts_metric.scoring.config.ScoringConfig`
        (``pool=``, ``judge=``, ``formulas=``, ``placement=``, ...) applied over
        ``config``. ``judge=`` may also be a built
        :class:`~arts_metric.judges.Judge` and ``pool=`` a built
        :class:`~arts_metric.pool.Pool`: they are used as they are.

    Notes
    -----
    A text without a word (:func:`arts_metric.text.wordless.has_word`: fewer than two
    letters in a row, e.g. ``"!"``, ``"42"``, ``"A"``) is not sent to the judge: it
    gets ``arts`` 1.0 (the hardest end: it tells the reader nothing), ``arts_elo``
    at the top of the pool's scale (:func:`arts_metric.text.wordless.top_rating`) and no
    sentences, is named in a warning and counted in ``n_wordless`` (the
    predictions that are not empty but have no word).

    Every input and setting is checked before the first judge request. The
    result keys are documented in the metric card; undefined values are None.
    """
    config, built = split_settings(settings, base=config)
    allow_empty = check_empty_policy(empty) == "score"
    check_return_sentences(return_sentences, config.long_texts)
    predictions = check_texts(predictions, "predictions", allow_empty=allow_empty)
    n = len(predictions)
    if sources is not None:
        sources = check_texts(sources, "sources", allow_empty=allow_empty)
        check_same_length(sources, "sources", n)
    if references is not None:
        references = check_references(references, n, allow_empty=allow_empty)
    human = None if human_scores is None else check_human_scores(human_scores, n, human_higher_is)
    formula_names = list(config.formulas)

    judge_obj = built["judge"] if "judge" in built else config.make_judge()
    stats_before = judge_obj.stats.as_dict()  # a judge built once (evaluate.load) serves many calls
    scorer = Scorer.prepare(config, judge_obj, built.get("pool"))

    groups = {"predictions": predictions}
    if sources is not None:
        groups["sources"] = sources
    if references is not None:
        groups["references"] = [r for refs in references for r in refs]
    offsets, all_texts = {}, []
    for name, texts in groups.items():
        offsets[name] = len(all_texts)
        all_texts += texts
    foreign: dict[str, set[int]] = {}  # texts in another language's script, named in one warning each group
    for name, texts in groups.items():  # before any judge request
        foreign[name] = set(mismatched_texts(texts, config.language))
        if (message := script_warning(texts, config.language, name)) is not None:
            warn_user(message)
    blank_all = set(blank_indices(all_texts))
    fixed_all = set(wordless_indices(all_texts))  # the blank texts too: they have no word

    def by_group(indices: set[int]) -> dict[str, set[int]]:
        return {
            name: {i - offsets[name] for i in indices if 0 <= i - offsets[name] < len(ts)}
            for name, ts in groups.items()
        }

    blank, fixed = by_group(blank_all), by_group(fixed_all)
    scored = [i for i in range(len(all_texts)) if i not in fixed_all]
    n_pred_scored = sum(i < n for i in scored)

    size = len(all_texts)
    arts, elo, units = np.full(size, np.nan), np.full(size, np.nan), np.zeros(size, dtype=int)
    sentence_rows: list[list[dict[str, Any]]] = [[] for _ in range(size)]  # texts without a word have none
    bounds = None
    placed = None
    if scored:
        names = [f"{name}[{i}]" for name, ts in groups.items() for i in range(len(ts))]
        placed = place_texts(
            [all_texts[i] for i in scored], scorer, n_mean=n_pred_scored or None, names=[names[i] for i in scored]
        )
        arts[scored], elo[scored], units[scored] = placed.arts, placed.arts_elo, placed.units
        if return_sentences:
            for k, i in enumerate(scored):
                sentence_rows[i] = _sentence_rows(placed, k)
        if placed.arts_interval is not None:
            bounds = np.full((size, 2), np.nan)
            bounds[scored] = placed.arts_interval
            bounds[sorted(fixed_all)] = WORDLESS_ARTS
    arts[sorted(fixed_all)] = WORDLESS_ARTS  # the hardest end: a text without a word tells the reader nothing
    elo[sorted(fixed_all)] = top_rating(scorer.pool.ratings)

    def part(values: np.ndarray, name: str) -> np.ndarray:
        return values[offsets[name] : offsets[name] + len(groups[name])]

    result: dict[str, Any] = {"arts": part(arts, "predictions"), "arts_elo": part(elo, "predictions")}
    if bounds is not None:
        result["arts_interval"] = part(bounds, "predictions")
    result["arts_mean"] = _mean(part(arts, "predictions"))
    if n_pred_scored == 0:
        result["arts_mean_interval"] = [WORDLESS_ARTS, WORDLESS_ARTS]
    elif placed is not None and placed.mean_interval is not None:
        # Texts without a word are fixed at 1: the mean over all predictions is the scored
        # texts' mean times their share plus the fixed texts' share, and so is its interval.
        fixed_sum = (n - n_pred_scored) * WORDLESS_ARTS
        result["arts_mean_interval"] = [(float(v) * n_pred_scored + fixed_sum) / n for v in placed.mean_interval]

    formula_values: dict[str, dict[str, np.ndarray]] = {}
    if formula_names:
        formula_texts = predictions + (sources or [])
        computed = compute_formulas(formula_texts, formula_names, config.language)
        for f in formula_names:
            formula_values[f] = {"predictions": computed[f][:n]}
            if sources is not None:
                formula_values[f]["sources"] = computed[f][n:]
        for f in formula_names:
            result[f] = formula_values[f]["predictions"]
        undefined = np.zeros(n, dtype=bool)
        for f in formula_names:
            undefined |= np.isnan(formula_values[f]["predictions"])
        result["n_formula_undefined"] = int(undefined.sum())
        if config.language == "en":
            named = {name: blank[name] | foreign[name] for name in groups}  # already said
            _warn_formulas(
                formula_names, formula_values, {k: v for k, v in groups.items() if k != "references"}, named
            )
    if allow_empty:
        result["n_empty"] = len(blank["predictions"])
        if blank_all:
            named = "; ".join(_named(sorted(blank[name]), name) for name in groups if blank[name])
            warn_user(f"empty texts {RULE}: {named}")
    wordless = {name: fixed[name] - blank[name] for name in groups}
    result["n_wordless"] = len(wordless["predictions"])
    if any(wordless.values()):
        named = "; ".join(_named(sorted(wordless[name]), name) for name in groups if wordless[name])
        warn_user(f"texts without a word (fewer than two letters in a row) {RULE}: {named}")

    if sources is not None:
        src_arts, pred_arts = part(arts, "sources"), part(arts, "predictions")
        result["source_arts"] = src_arts
        result["source_arts_elo"] = part(elo, "sources")
        for f in formula_names:
            result[f"source_{f}"] = formula_values[f]["sources"]
        delta = src_arts - pred_arts
        result["arts_delta"] = delta
        result["arts_delta_mean"] = _mean(delta)
        # The close-pair probability where the judge offers one: it reads both texts,
        # so it orders near-paraphrases better than the difference of two scores.
        both = [i for i in range(n) if i not in fixed["predictions"] and i not in fixed["sources"]]
        src_units, pred_units = part(units, "sources"), part(units, "predictions")
        # win probabilities live on the Elo expected-score scale of the two texts' arts, not on
        # the pool's rating scale of arts_elo (the pool's K=16 ratings are narrower than the judge's odds)
        pool_ratings = scorer.pool.ratings
        p = _p_output_easier(
            judge_obj,
            [sources[i] for i in both],
            [predictions[i] for i in both],
            rating_of_expected_score(pool_ratings, part(arts, "sources")[both]),
            rating_of_expected_score(pool_ratings, part(arts, "predictions")[both]),
            ((src_units[both] > 1) | (pred_units[both] > 1)) & (config.long_texts in ("mean", "team")),
        )
        if p is not None:
            p_easier = np.array([_fixed_p_easier(i in fixed["sources"], i in fixed["predictions"]) for i in range(n)])
            p_easier[both] = p
            result["p_output_easier"] = p_easier
            result["p_output_easier_mean"] = _mean(p_easier)
    if references is not None:
        ref_arts = part(arts, "references")
        per_prediction, start = [], 0
        for refs in references:
            per_prediction.append(_mean(ref_arts[start : start + len(refs)]))
            start += len(refs)
        result["reference_arts"] = per_prediction
        result["reference_arts_mean"] = _mean(np.array([np.nan if v is None else v for v in per_prediction]))
    if human is not None:
        metrics: dict[str, tuple[np.ndarray, bool]] = {
            "arts": (part(arts, "predictions"), True),
            "arts_elo": (part(elo, "predictions"), True),
        }
        for f in formula_names:
            metrics[f] = (formula_values[f]["predictions"], formula_higher_is_harder(f))
        result["correlation"] = {
            name: _correlation(values, human, harder, human_higher_is) for name, (values, harder) in metrics.items()
        }
    result["units"] = part(units, "predictions")
    if return_sentences:
        result["sentences"] = sentence_rows[: len(predictions)]
        if sources is not None:
            result["source_sentences"] = sentence_rows[offsets["sources"] : offsets["sources"] + len(sources)]
    result["placement"] = placed.method if placed is not None else scorer.method
    result["judge_calls"] = placed.judge_calls if placed is not None else 0
    result["invalid"] = placed.invalid if placed is not None else 0
    result["failed"] = placed.failed if placed is not None else 0
    result["judge"] = judge_obj.name
    result["pool"] = scorer.pool.name
    result["arts_signature"] = scorer.signature
    result["judge_stats"] = stats_since(stats_before, judge_obj.stats.as_dict())
    result["judge_report"] = request_summary(result["judge_stats"])  # None: the judge counts no requests
    return _json_safe(result)
