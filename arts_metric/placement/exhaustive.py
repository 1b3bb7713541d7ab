"""The ``exhaustive`` placement method: every newcomer against every pool text
(free soft placement for a pointwise judge, ``len(pool)`` calls per text otherwise)."""

from __future__ import annotations

import functools
from typing import Sequence

import numpy as np
from scipy.stats import norm

from arts_metric.judges.base import Judge, PointwiseJudge
from arts_metric.placement.asker import Asker, pool_judge_scores_status
from arts_metric.placement.mle import place_mle
from arts_metric.placement.result import (
    DEFAULT_LEVEL,
    QUANTILE_LEVELS,
    PlacementResult,
    check_level,
    finish_result,
    interval_bounds,
)
from arts_metric.pool import Pool
from arts_metric.ratings.bradley_terry import DEFAULT_PRIOR_SD
from arts_metric.ratings.elo import rating_of_pool_position


def _counts_above(p: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """``(p > t).sum(axis=1)`` for every threshold ``t``: ``(rows, thresholds)`` integers.

    ``p`` holds each newcomer's ``prob_harder`` against the pool texts sorted by score,
    so each row falls (a judge's ``prob_harder`` falls as its opponent's score rises)
    and the texts above ``t`` are a prefix, found by bisection for all rows and
    thresholds at once: the same counts as comparing every value, in a few passes
    instead of one per threshold."""
    n, m = p.shape
    lo = np.zeros((n, len(thresholds)), dtype=np.int64)
    hi = np.full_like(lo, m)
    row = np.arange(n)[:, None]
    while True:
        active = lo < hi
        if not active.any():
            break
        mid = (lo + hi) // 2
        above = p[row, np.minimum(mid, m - 1)] > thresholds[None, :]
        lo = np.where(active & above, mid + 1, lo)
        hi = np.where(active & ~above, mid, hi)
    # Rows that rise somewhere (or hold a NaN) are counted value by value.
    irregular = np.flatnonzero(~(p[:, 1:] <= p[:, :-1]).all(axis=1) | np.isnan(p[:, :1]).any(axis=1))
    for i in irregular:
        lo[i] = [(p[i] > t).sum() for t in thresholds]
    return lo


@functools.lru_cache(maxsize=8)
def _rating_of_count(pool_ratings: bytes, m: int) -> np.ndarray:
    """``rating_of_pool_position(pool ratings, k / m)`` for ``k = 0 .. m``: the ratings of
    the interval bounds, which are shares of ``m`` pool texts (solved once per pool; each
    value is computed on its own, so it is the one a direct call gives)."""
    return rating_of_pool_position(np.frombuffer(pool_ratings), np.arange(m + 1) / m)


def place_pointwise(
    judge: PointwiseJudge, pool: Pool, texts: Sequence[str], level: float = DEFAULT_LEVEL
) -> PlacementResult:
    """Exhaustive soft placement: each newcomer "plays" every pool text with the
    outcome ``P_j = judge.prob_harder(newcomer, pool text j)``. Costs one
    ``score`` per newcomer, no pairwise calls.

    Score: ``mean_j P_j``, the expected share of pool texts easier than the
    newcomer (its expected ARTS score when the judge is calibrated). Unlike the
    share of pool ratings below a Bradley-Terry fit on the nominal Elo scale,
    this does not pile texts up at 0 or 1 when the judge is much surer than the
    pool's compressed ratings. The rating (``arts_elo``) is the pool's rating at
    that position (:func:`arts_metric.ratings.elo.rating_of_pool_position`): the score
    read on the pool's own scale, which keeps texts apart, ordered, beyond the
    pool's hardest and easiest texts.

    Interval: a text is placed above every pool text the judge is more than
    ``1 - u`` sure it beats, for ``u`` = the quantile level; so the 95% interval
    runs from the share of pool texts the judge is more than 97.5% sure are easier to
    the share it is not 97.5% sure are harder (the judge's own uncertainty,
    honest when its ``prob_harder`` is calibrated). The mean of this
    distribution is the score.

    Cost: the pool texts are scored once (shipped scores, or scores kept on the
    pool object, are reused); ``judge_calls`` counts ``judge.calls_per_score``
    per text scored here, pool texts included (0 for the learned judge, one
    request per text for an LLM asked for a score). Pool texts whose answer was
    unusable are left out of every comparison; if a pool text or a newcomer got
    no answer at all, the newcomers it affects are incomplete (NaN) until a
    rerun asks it again.
    """
    level = check_level(level)
    n = len(texts)
    pool_scores, pool_lost, pool_asked = pool_judge_scores_status(judge, pool)
    new_scores, new_lost = judge.score_status(list(texts))
    new_scores, new_lost = np.asarray(new_scores, dtype=float), np.asarray(new_lost, dtype=bool)
    incomplete = new_lost | bool(pool_lost.any())
    ref = pool_scores[~np.isnan(pool_scores)]
    arts = np.full(n, np.nan)
    arts_q = np.full((n, len(QUANTILE_LEVELS)), np.nan)
    interval_arts = np.full((n, 2), np.nan)
    lo_u, hi_u = interval_bounds(level)
    ok = ~np.isnan(new_scores) & ~incomplete
    # Chunked so that memory stays at a few MB for any number of newcomers.
    step = max(1, 2_000_000 // max(len(pool), 1))
    idx = np.flatnonzero(ok) if len(ref) else np.empty(0, dtype=int)
    order = np.argsort(ref, kind="stable")
    counts = np.zeros((n, len(QUANTILE_LEVELS) + 2), dtype=np.int64)
    thresholds = 1.0 - np.array([*QUANTILE_LEVELS, lo_u, hi_u])
    for start in range(0, len(idx), step):
        rows = idx[start : start + step]
        p = np.asarray(judge.prob_harder(new_scores[rows][:, None], ref[None, :]), dtype=float)
        arts[rows] = p.mean(axis=1)
        counts[rows] = _counts_above(p[:, order], thresholds)
    ratings = rating_of_pool_position(pool.ratings, arts)
    interval = np.full((n, 2), np.nan)
    if len(idx):
        shares = counts[idx] / len(ref)
        arts_q[idx], interval_arts[idx] = shares[:, : len(QUANTILE_LEVELS)], shares[:, len(QUANTILE_LEVELS) :]
        table = _rating_of_count(np.ascontiguousarray(pool.ratings, dtype=float).tobytes(), len(ref))
        interval[idx] = table[counts[idx, len(QUANTILE_LEVELS) :]]
    se = (interval[:, 1] - interval[:, 0]) / (2.0 * norm.ppf(hi_u))
    asker = Asker(judge, pool, texts)
    asker.failed = int(new_lost.sum() + pool_lost.sum())
    asker.invalid = int((np.isnan(new_scores) & ~new_lost).sum())
    if pool_asked:
        asker.invalid += int((np.isnan(pool_scores) & ~pool_lost).sum())
    per_text = int(judge.calls_per_score)
    return finish_result(
        pool,
        ratings,
        arts_q,
        interval_arts,
        interval,
        se,
        asker,
        np.full(n, per_text, dtype=int),
        [[] for _ in range(n)],
        "exhaustive",
        level,
        arts=arts,
        info={"pool_scored": pool_asked},
        incomplete=incomplete,
        judge_calls=per_text * (n + pool_asked),
        sampled=False,
    )


def place_exhaustive(
    judge: Judge,
    pool: Pool,
    texts: Sequence[str],
    slope: str | float = "fit",
    prior_sd: float = DEFAULT_PRIOR_SD,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> PlacementResult:
    """Every newcomer against every pool text. Pointwise judges: soft placement
    (:func:`place_pointwise`, no pairwise calls). Other judges: ``len(pool)``
    calls per text and the Bradley-Terry MLE of :func:`place_mle`, each text's
    slope fitted on its own ``N`` results (no calibration needed)."""
    if isinstance(judge, PointwiseJudge):
        return place_pointwise(judge, pool, texts, level=level)
    result = place_mle(
        judge,
        pool,
        texts,
        budget=len(pool),
        opponents="all",
        slope=slope,
        prior_sd=prior_sd,
        level=level,
        calibration=0,
        seed=seed,
    )
    result.method = "exhaustive"
    return result
