"""The ``mle`` placement method: a fixed schedule of matches per newcomer and its
Bradley-Terry MAP rating (:func:`arts_metric.ratings.bradley_terry.fit_mle`) with a Wald interval,
on a slope calibrated on pool texts of known rating."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from scipy.stats import norm

from arts_metric.judges.base import Judge
from arts_metric.placement.opponents import calibration_texts, finish_fixed, play_fixed
from arts_metric.placement.result import DEFAULT_LEVEL, QUANTILE_LEVELS, PlacementResult, check_level, interval_bounds
from arts_metric.pool import Pool
from arts_metric.ratings.bradley_terry import DEFAULT_PRIOR_SD, fit_mle, profile_slope


def place_mle(
    judge: Judge,
    pool: Pool,
    texts: Sequence[str],
    budget: int | None = None,
    opponents: Any = "spread",
    slope: str | float = "fit",
    prior_sd: float = DEFAULT_PRIOR_SD,
    level: float = DEFAULT_LEVEL,
    calibration: int = 16,
    seed: int = 0,
) -> PlacementResult:
    """Bradley-Terry placement: ``budget`` matches per newcomer (default
    ``ceil(2 log2 N)``) against opponents of known rating, all in one judge
    call; the rating maximises the likelihood of the results (order
    independent; a weak Gaussian prior, ``prior_sd`` Elo points around the
    pool mean, keeps all-win or all-loss texts finite). Interval: Wald,
    rating +- z * se from the observed information.

    ``slope`` multiplies Elo's nominal ``ln 10 / 400`` (a pool rated by Elo
    from few matches per text has compressed ratings, so outcomes are steeper
    than the nominal scale says): ``"elo"`` = 1, a number, or ``"fit"``: one
    multiplier for the judge, profiled (:func:`arts_metric.ratings.bradley_terry.profile_slope`)
    on the results of ``calibration`` pool texts
    (:func:`~arts_metric.placement.opponents.calibration_texts`) that play
    ``budget`` spread opponents each in the same judge call, exactly as
    newcomers do; ``calibration=0`` fits each
    newcomer's own slope from its own results instead
    (:func:`arts_metric.ratings.bradley_terry.fit_mle`: no extra calls, but narrower, less
    honest intervals). A newcomer's opponents, sides and rating depend on
    ``seed`` and its own text only, never on the texts placed with it.
    """
    level = check_level(level)
    if isinstance(calibration, bool) or not isinstance(calibration, (int, np.integer)) or calibration < 0:
        raise ValueError(f"calibration must be a non-negative integer (pool texts), got {calibration!r}")
    calib_idx = calibration_texts(pool, calibration) if isinstance(slope, str) and slope == "fit" else None
    opps, outcomes, lost, asker, calib = play_fixed(judge, pool, texts, budget, opponents, seed, calib_idx)
    used_slope: str | float = slope
    info: dict = {}
    if calib is not None:
        cal_opps, cal_out, cal_lost = calib
        if cal_lost.any():  # the calibration is incomplete: no newcomer gets a score from it
            lost = np.ones_like(lost)
        used_slope = profile_slope(pool.ratings, pool.ratings[cal_opps], cal_out, prior_sd)
        info["calibration"] = {"pool_texts": calib_idx, "calls": int(cal_opps.size), "slope": used_slope}
    ratings, se, b = fit_mle(pool.ratings, pool.ratings[opps], outcomes, slope=used_slope, prior_sd=prior_sd)
    info["slope"] = b
    none = np.isnan(outcomes).all(axis=1)
    ratings[none], se[none] = np.nan, np.nan
    zq = norm.ppf(QUANTILE_LEVELS)
    arts_q = pool.arts_of_rating(ratings[:, None] + se[:, None] * zq[None, :])
    interval = ratings[:, None] + se[:, None] * norm.ppf(interval_bounds(level))[None, :]
    return finish_fixed(pool, opps, outcomes, lost, asker, ratings, se, interval, arts_q, "mle", level, info)


def place_pairwise(
    judge: Judge, pool: Pool, texts: Sequence[str], matches_per_text: int = 16, seed: int = 0
) -> PlacementResult:
    """Backward-compatible alias: :func:`place_mle` with ``matches_per_text``
    opponents spread over the rating range and the nominal Elo slope."""
    return place_mle(judge, pool, texts, budget=matches_per_text, opponents="spread", slope="elo", seed=seed)
