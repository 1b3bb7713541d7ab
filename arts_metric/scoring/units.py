"""Whole texts in a frozen pool: each text is cut into judge units, the units are
placed, and every text gets a rating combined from its units'.

Texts are cut into units by :mod:`arts_metric.text.sentences`; a unit longer than the
judge reads is cut with a warning. Identical units are placed once. How a
text's values come from its units' depends on ``long_texts``:

- ``"mean"`` (default): one unit per sentence, at any length; the text's
  ``arts_elo`` is the mean of its sentences' ``arts_elo`` weighted by their
  words (:func:`mean_rating`), and its ``arts`` that rating's position in the
  pool (:func:`arts_metric.ratings.elo.pool_position`), both on the pool's one scale. A
  text's score is how hard its language is per word read, not how much there
  is to read: a text written twice scores as the text, two texts joined score
  between them. A text of one sentence keeps that sentence's values. Its
  interval (and its quantiles) apply the same mean to the units' bounds.
- ``"team"`` (the default of release 0.2): a text longer than ``split_above``
  characters is cut into one unit per sentence; its sentences' ``arts`` are
  read as Elo expected scores against the pool
  (:func:`arts_metric.ratings.elo.rating_of_expected_score`), combined by the
  Bradley-Terry team rule (:func:`arts_metric.ratings.elo.team_rating`: its strength is
  the sum of theirs), and the text's ``arts`` is the share of the pool that
  team rating is expected to beat (:func:`arts_metric.ratings.elo.mean_expected_score`);
  its ``arts_elo`` is that ``arts`` on the pool's scale
  (:func:`arts_metric.ratings.elo.rating_of_pool_position`). A text of one unit keeps
  that unit's values.
  Its interval applies the same rule to the units' bounds.
- ``"chunks"``: units of packed sentences; the text's values are the means of
  its units' values weighted by their lengths in characters, its interval the
  same mean of their bounds.
- ``"whole"``: every text is one unit.

A unit's placement depends on the unit, the pool, the judge and the placement
settings only (see :mod:`arts_metric.placement.streams`), and a text's values
on its own units only, so a text scores the same alone, among other texts or in
any batch. A text with a unit that got no judge answer at all (a failure, not
an unusable answer) gets NaN and is counted as incomplete; a rerun completes it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arts_metric import placement as placement_mod
from arts_metric.judges import PointwiseJudge
from arts_metric.placement.result import empty_result
from arts_metric.pool import Pool
from arts_metric.ratings.elo import (
    mean_expected_score,
    pool_position,
    rating_of_expected_score,
    rating_of_pool_position,
    team_rating,
)
from arts_metric.scoring.config import ScoringConfig
from arts_metric.scoring.scorer import Scorer
from arts_metric.text.features import words
from arts_metric.text.sentences import chunk_text, sentence_units, team_units
from arts_metric.userwarnings import warn as warn_user


@dataclass(frozen=True)
class PlacedTexts:
    """Texts placed in a frozen pool (:func:`place_texts`); arrays have one entry per text.

    ``arts`` in [0, 1] and ``arts_elo`` (Elo points), higher = harder, NaN for a text
    without a score; ``arts_interval`` ``(n, 2)`` on the ARTS scale, None when the
    placement sampled nothing; ``mean_interval`` the interval of the mean ``arts`` of
    the first ``n_mean`` texts; ``judge_calls`` every decision asked (pool texts a
    pointwise judge scored included); ``calls_per_text`` each text's own (a unit
    shared by two texts counts for both); ``invalid`` answers that stayed unusable;
    ``failed`` decisions for which no answer was obtained; ``incomplete`` True for
    texts left without a score by a failed decision; ``units`` how many pieces each
    text was judged in; ``method`` the placement used.
    """

    arts: np.ndarray
    arts_elo: np.ndarray
    arts_interval: np.ndarray | None
    mean_interval: tuple[float, float] | None
    judge_calls: int
    calls_per_text: list[int]
    invalid: int
    failed: int
    incomplete: np.ndarray
    units: list[int]
    method: str
    unit_texts: list[list[str]] | None = None
    unit_arts: list[np.ndarray] | None = None
    unit_elo: list[np.ndarray] | None = None
    unit_weights: list[np.ndarray] | None = None


def _units(texts: Sequence[str], config: ScoringConfig, max_chars: int, names: Sequence[str]) -> list[list[str]]:
    out = []
    for text, name in zip(texts, names):
        if config.long_texts == "mean":
            units = sentence_units(text)
        elif config.long_texts == "team":
            units = team_units(text, config.split_above)
        elif config.long_texts == "chunks":
            units = chunk_text(text, config.chunk_chars, config.split_above)
        else:
            units = [text]
        cut = []
        for u in units:
            if len(u) > max_chars:
                warn_user(
                    f"{name}: a unit of {len(u)} characters was cut to {max_chars} for the judge "
                    "(the formulas still see the whole text)"
                )
                u = u[:max_chars]
            cut.append(u)
        out.append(cut)
    return out


def unit_weights(units: Sequence[str], long_texts: str) -> np.ndarray | None:
    """Each unit's weight in its text's value: its words (at least 1) for ``"mean"``,
    its characters for ``"chunks"`` and ``"whole"``; None for ``"team"`` (no weights)."""
    if long_texts == "mean":
        return np.array([max(len(words(u)), 1) for u in units], dtype=float)
    if long_texts == "team":
        return None
    return np.array([float(len(u)) for u in units])


def mean_rating(ratings: np.ndarray | Sequence[float], weights: np.ndarray | Sequence[float]) -> float:
    """The rating of a text whose sentences are rated ``ratings`` under
    ``long_texts="mean"``: their mean weighted by ``weights`` (words). Elo points,
    higher = harder; between the easiest and the hardest sentence; the same for a
    text written once or several times. NaN if any rating is NaN."""
    r = np.asarray(ratings, dtype=float)
    w = np.asarray(weights, dtype=float)
    if r.size == 0 or r.shape != w.shape:
        raise ValueError(
            f"mean_rating needs one weight per rating and at least one rating, got {r.shape} and {w.shape}"
        )
    return float(np.dot(r, w) / w.sum())


def _mean_arts(pool: Pool, unit_arts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """ARTS values of a text from its units' ARTS values ``(units, k)`` column by column
    (bounds or quantiles at one level): each column read on the pool's scale
    (:func:`arts_metric.ratings.elo.rating_of_pool_position`), averaged by :func:`mean_rating`,
    then placed back as a position in the pool. ``(k,)``."""
    columns, back = np.unique(unit_arts, axis=1, return_inverse=True)
    unit_ratings = rating_of_pool_position(pool.ratings, columns)
    combined = [mean_rating(unit_ratings[:, j], weights) for j in range(unit_ratings.shape[1])]
    return pool_position(pool.ratings, np.asarray(combined))[np.ravel(back)]


def _team_arts(pool: Pool, unit_arts: np.ndarray) -> np.ndarray:
    """ARTS values of a text from its units' ARTS values ``(units, k)`` taken column by
    column (bounds or quantiles at one level): each column's ratings on the Elo
    expected-score scale (:func:`arts_metric.ratings.elo.rating_of_expected_score`, where
    the team rule's strengths add) combined by the team rule, then placed back on
    the pool's ARTS scale. ``(k,)``. Equal columns (all of them for a placement that
    sampled nothing) are computed once."""
    columns, back = np.unique(unit_arts, axis=1, return_inverse=True)
    unit_ratings = rating_of_expected_score(pool.ratings, columns)
    combined = [team_rating(unit_ratings[:, j]) for j in range(unit_ratings.shape[1])]
    return mean_expected_score(pool.ratings, np.asarray(combined))[np.ravel(back)]


@dataclass
class _Units:
    """The units of a batch of texts, placed: ``lists`` (each text's units, in reading order),
    ``idx`` (each text's units as indices into the placed units), ``weights`` (each text's
    unit weights, None under ``"team"``), the placement ``result`` with the units' ``arts``,
    ``ratings``, ``interval`` (None where nothing was sampled) and ``lost`` (no answer)."""

    lists: list[list[str]]
    idx: list[list[int]]
    weights: list[np.ndarray | None]
    result: Any
    arts: np.ndarray
    ratings: np.ndarray
    interval: np.ndarray | None
    lost: np.ndarray
    rule: str
    pool: Pool

    @property
    def by_rating(self) -> bool:
        """Whether texts are combined as ratings (a text of one unit keeps its values)."""
        return self.rule in ("mean", "team")


def _place_units(texts: Sequence[str], scorer: Scorer, names: list[str]) -> _Units:
    """Cut ``texts`` into units, place each distinct unit once with the scorer's placement."""
    config, judge, pool = scorer.config, scorer.judge, scorer.pool
    if not isinstance(judge, PointwiseJudge) or judge.score_key not in pool.judge_scores:
        pool.get_texts()  # fail before any judge call when the pool's texts are unavailable
    unit_lists = _units(texts, config, judge.max_chars, names)
    unique: dict[str, int] = {}
    for units in unit_lists:
        for u in units:
            unique.setdefault(u, len(unique))
    unit_texts = list(unique)
    result = scorer.placer(judge, pool, unit_texts, **scorer.options) if unit_texts else empty_result(scorer.method)
    unit_arts = np.asarray(
        result.arts if result.arts is not None else pool.arts_of_rating(result.ratings), dtype=float
    )
    unit_iv = result.arts_interval
    if not result.sampled:
        # A pointwise judge placed against every pool text (the learned judge):
        # no judge decisions were sampled, so there is no per-text sampling
        # interval to report (the judge's error is its disagreement with humans,
        # measured in benchmarks/). The mean's interval then resamples texts only.
        unit_iv = None
        q = np.repeat(unit_arts[:, None], len(placement_mod.QUANTILE_LEVELS), axis=1)
        result = dataclasses.replace(result, arts_quantiles=q)
    lost = np.asarray(result.incomplete if result.incomplete is not None else np.zeros(len(unit_texts)), dtype=bool)
    return _Units(
        lists=unit_lists,
        idx=[[unique[u] for u in units] for units in unit_lists],
        weights=[unit_weights(units, config.long_texts) for units in unit_lists],
        result=result,
        arts=unit_arts,
        ratings=np.asarray(result.ratings, dtype=float),
        interval=None if unit_iv is None else np.asarray(unit_iv, dtype=float),
        lost=lost,
        rule=config.long_texts,
        pool=pool,
    )


def _combine_columns(units: _Units, idx: np.ndarray, w: np.ndarray | None, columns: np.ndarray) -> np.ndarray:
    """A text's ARTS bounds or quantiles ``(k,)`` from its units' ``(units, k)``, by its rule."""
    if len(idx) == 1 and units.by_rating:
        return columns[0]
    if units.rule == "mean":
        return _mean_arts(units.pool, columns, w)
    if units.rule == "team":
        return _team_arts(units.pool, columns)
    return np.average(columns, axis=0, weights=w)


def _text_values(units: _Units, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """Each text's ``arts``, ``arts_elo``, interval bounds and ``incomplete`` from its units'."""
    pool, rule = units.pool, units.rule
    arts, ratings = np.full(n, np.nan), np.full(n, np.nan)
    bounds = np.full((n, 2), np.nan) if units.interval is not None else None
    incomplete = np.zeros(n, dtype=bool)
    combined: list[int] = []  # texts rated as a mean of several units' ratings: their ARTS follows below
    for i, idx_list in enumerate(units.idx):
        idx, w = np.array(idx_list), units.weights[i]
        ok = ~np.isnan(units.arts[idx])
        if units.lost[idx].any():  # a score from fewer units than a complete run would use: none
            incomplete[i] = True
            continue
        if not ok.any():
            continue
        idx = idx[ok]
        w = w[ok] if w is not None else None
        if len(idx) == 1 and units.by_rating:
            arts[i], ratings[i] = units.arts[idx[0]], units.ratings[idx[0]]
        elif rule == "mean":
            ratings[i] = mean_rating(units.ratings[idx], w)
            combined.append(i)
        elif rule == "team":
            arts[i] = _team_arts(pool, units.arts[idx][:, None])[0]
            ratings[i] = rating_of_pool_position(pool.ratings, arts[i])
        else:
            # Chunks (and "whole", one unit): the length-weighted mean of the units, on both
            # scales; the interval is the same mean of their bounds (conservative).
            arts[i] = np.average(units.arts[idx], weights=w)
            ratings[i] = np.average(units.ratings[idx], weights=w)
        if bounds is not None:
            bounds[i] = _combine_columns(units, idx, w, units.interval[idx])
    arts[combined] = pool_position(pool.ratings, ratings[combined])  # each value on its own
    return arts, ratings, bounds, incomplete


def _mean_interval(units: _Units, arts: np.ndarray, incomplete: np.ndarray, k: int) -> tuple[float, float] | None:
    """The interval of the mean ``arts`` of the first ``k`` texts (None when no text has a score)."""
    if not np.any(~np.isnan(arts)):
        return None
    result, pool = units.result, units.pool
    if not units.by_rating:
        kept = [[] if incomplete[i] else units.idx[i] for i in range(k)]  # an incomplete text has no score
        weights = [[] if incomplete[i] else list(units.weights[i]) for i in range(k)]
        return placement_mod.system_interval(result, pool, units=kept, unit_weights=weights)
    # Each text's quantiles by its rule over its units' quantiles at the same
    # level (as its interval), then the mean's interval over texts.
    q_units = np.asarray(result.arts_quantiles, dtype=float)
    q_text = np.full((k, q_units.shape[1]), np.nan)
    if not result.sampled:  # every quantile of a unit is its score, so every one of a text's is the text's
        q_text[:] = np.where(incomplete[:k], np.nan, arts[:k])[:, None]
    else:
        for i in range(k):
            idx, w = np.array(units.idx[i]), units.weights[i]
            if len(idx):
                keep = ~np.isnan(q_units[idx]).any(axis=1)
                idx, w = idx[keep], (w[keep] if w is not None else None)
            if incomplete[i] or not len(idx):
                continue
            q_text[i] = _combine_columns(units, idx, w, q_units[idx])
    text_result = dataclasses.replace(result, arts_quantiles=q_text)
    kept_rows = [[] if incomplete[i] or np.isnan(q_text[i]).any() else [i] for i in range(k)]
    return placement_mod.system_interval(text_result, pool, units=kept_rows)


def place_texts(
    texts: Sequence[str],
    scorer: Scorer,
    *,
    label: str = "predictions",
    n_mean: int | None = None,
    names: Sequence[str] | None = None,
) -> PlacedTexts:
    """Rate ``texts`` against the scorer's frozen pool with its judge, cutting long texts
    into units and placing them with its resolved placement. Warnings name text ``i``
    ``names[i]`` (default ``label[i]``); ``mean_interval`` covers the first ``n_mean``
    texts (default all)."""
    names = [f"{label}[{i}]" for i in range(len(texts))] if names is None else list(names)
    units = _place_units(texts, scorer, names)
    n, result = len(texts), units.result
    arts, ratings, bounds, incomplete = _text_values(units, n)
    unit_calls = np.asarray(result.calls_per_text if result.calls_per_text is not None else np.zeros(len(units.arts)))
    return PlacedTexts(
        arts=arts,
        arts_elo=ratings,
        arts_interval=bounds,
        mean_interval=_mean_interval(units, arts, incomplete, n if n_mean is None else n_mean),
        judge_calls=int(result.judge_calls),
        calls_per_text=[int(unit_calls[idx].sum()) for idx in units.idx],
        invalid=int(result.invalid),
        failed=int(result.failed),
        incomplete=incomplete,
        units=[len(u) for u in units.lists],
        method=result.method,
        unit_texts=units.lists,
        unit_arts=[units.arts[np.array(idx, dtype=int)] for idx in units.idx],
        unit_elo=[units.ratings[np.array(idx, dtype=int)] for idx in units.idx],
        unit_weights=units.weights,
    )
