"""Scoring texts: the one function behind ``evaluate.load("arts").compute``, the
CLI and the app. Its settings are a :class:`arts_metric.scoring.config.ScoringConfig`.

Conventions: ``arts`` is in [0, 1] and **higher = harder** (the share of the
reference pool's texts rated easier than the text); ``arts_elo`` is the same
position read on the pool's own Elo scale (the rating a pool text at that
position has, :func:`arts_metric.ratings.elo.rating_of_pool_position`; a text beyond
every pool text lies a little beyond the pool's range, still ordered). ``arts_delta`` is
``source_arts - arts``: **positive = the output is easier than its source**.

The path of a score, one function each: the inputs and settings are checked
(:func:`check_inputs`), the texts gathered (:func:`arts_metric.scoring.batch.gather`) and
placed (:func:`arts_metric.scoring.batch.place_batch`), and the result assembled
(:mod:`arts_metric.scoring.assemble`). Order of work, so that a bad input never costs a
request: the inputs
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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arts_metric.ratings.directions import Direction
from arts_metric.scoring import assemble
from arts_metric.scoring.assemble import _json_safe
from arts_metric.scoring.batch import gather, place_batch
from arts_metric.scoring.config import ScoringConfig
from arts_metric.scoring.scorer import Scorer, split_settings
from arts_metric.text.checks import (
    EmptyPolicy,
    check_empty_policy,
    check_human_scores,
    check_references,
    check_same_length,
    check_texts,
)


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


@dataclass
class Inputs:
    """The checked inputs of a call: texts as lists, ``human`` scores as an array (None without),
    ``allow_empty`` for ``empty="score"``."""

    predictions: list[str]
    sources: list[str] | None
    references: list[list[str]] | None
    human: np.ndarray | None
    allow_empty: bool


def check_inputs(
    predictions: Sequence[str],
    sources: Sequence[str] | None,
    references: Sequence[Sequence[str]] | None,
    human_scores: Sequence[float] | None,
    human_higher_is: Direction,
    empty: EmptyPolicy,
    return_sentences: bool,
    config: ScoringConfig,
) -> Inputs:
    """Every input checked before anything is built or asked: a ``ValueError`` naming the offending item."""
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
    return Inputs(predictions, sources, references, human, allow_empty)


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
    given = check_inputs(
        predictions, sources, references, human_scores, human_higher_is, empty, return_sentences, config
    )
    judge = built["judge"] if "judge" in built else config.make_judge()
    stats_before = judge.stats.as_dict()  # a judge built once (evaluate.load) serves many calls
    scorer = Scorer.prepare(config, judge, built.get("pool"))

    batch = gather(given.predictions, given.sources, given.references, config.language)
    placement = place_batch(batch, scorer, return_sentences)
    result: dict[str, Any] = {}
    assemble.add_arts(result, batch, placement)
    formulas = assemble.add_formulas(result, batch, config)
    assemble.add_counts(result, batch, given.allow_empty)
    if given.sources is not None:
        assemble.add_sources(result, batch, placement, formulas, scorer)
    if given.references is not None:
        assemble.add_references(result, batch, placement, given.references)
    if given.human is not None:
        assemble.add_correlations(result, batch, placement, formulas, given.human, human_higher_is)
    assemble.add_run(result, batch, placement, scorer, stats_before, return_sentences)
    return _json_safe(result)
