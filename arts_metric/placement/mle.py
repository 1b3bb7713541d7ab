"""The ``mle`` placement method: a fixed schedule of matches per newcomer and its
Bradley-Terry MAP rating (:func:`arts_metric.elo.fit_mle`) with a Wald interval."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from scipy.stats import norm

from arts_metric.elo import DEFAULT_PRIOR_SD, fit_mle
from arts_metric.judges.base import Judge
from arts_metric.placement.opponents import _finish_fixed, _play_fixed
from arts_metric.placement.result import DEFAULT_LEVEL, QUANTILE_LEVELS, PlacementResult, _bounds, _check_level
from arts_metric.pool import Pool


def place_mle(
    judge: Judge,
    pool: Pool,
    texts: Sequence[str],
    budget: int | None = None,
    opponents: Any = "spread",
    slope: str | float = "fit",
    prior_sd: float = DEFAULT_PRIOR_SD,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> PlacementResult:
    """Bradley-Terry placement: ``budget`` matches per newcomer (default
    ``ceil(2 log2 N)``) against opponents of known rating, all in one judge
    call; the rating maximises the likelihood of the results (order
    independent; a weak Gaussian prior, ``prior_sd`` Elo points around the
    pool mean, keeps all-win or all-loss texts finite). See
    :func:`arts_metric.elo.fit_mle` for ``slope``. Interval: Wald, rating +- z
    * se from the observed information.
    """
    level = _check_level(level)
    rng = np.random.default_rng(seed)
    opps, outcomes, asker = _play_fixed(judge, pool, texts, budget, opponents, rng)
    ratings, se, b = fit_mle(pool.ratings, pool.ratings[opps], outcomes, slope=slope, prior_sd=prior_sd)
    none = np.isnan(outcomes).all(axis=1)
    ratings[none], se[none] = np.nan, np.nan
    zq = norm.ppf(QUANTILE_LEVELS)
    arts_q = pool.arts_of_rating(ratings[:, None] + se[:, None] * zq[None, :])
    interval = ratings[:, None] + se[:, None] * norm.ppf(_bounds(level))[None, :]
    return _finish_fixed(pool, opps, outcomes, asker, ratings, se, interval, arts_q, "mle", level, {"slope": b})


def place_pairwise(
    judge: Judge, pool: Pool, texts: Sequence[str], matches_per_text: int = 16, seed: int = 0
) -> PlacementResult:
    """Backward-compatible alias: :func:`place_mle` with ``matches_per_text``
    opponents spread over the rating range and the nominal Elo slope."""
    return place_mle(judge, pool, texts, budget=matches_per_text, opponents="spread", slope="elo", seed=seed)
