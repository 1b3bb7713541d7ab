"""Bradley-Terry fits on the Elo scale: the win probability of eq. 1
(:func:`arts_metric.ratings.elo.expected_score`) read as a likelihood.

:func:`mle_rating` gives the MAP rating of newcomers against opponents of known
rating under a Gaussian prior, :func:`fit_mle` also profiles a common slope
multiplier, :func:`fit_bradley_terry` rates a whole set from its decisions.
Order independent (unlike Elo). Pure numpy/scipy, no judges; ratings are Elo
points, higher = harder.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit

from arts_metric.ratings.elo import SCALE, START_RATING, expected_score

#: default sd of the Gaussian prior on a Bradley-Terry rating, in Elo points;
#: weak next to a handful of matches
DEFAULT_PRIOR_SD = 400.0
#: Bradley-Terry slope multipliers :func:`fit_mle` tries with ``slope="fit"``
FIT_SLOPES = tuple(np.geomspace(1.0, 64.0, 13))
#: usable decisions a newcomer needs before :func:`fit_mle` fits its own slope
MIN_FIT_DECISIONS = 8
_LN10_OVER_SCALE = math.log(10.0) / SCALE


def mle_rating(
    opponent_ratings: np.ndarray,
    outcomes: np.ndarray,
    weights: np.ndarray | None = None,
    prior_mean: float | np.ndarray = START_RATING,
    prior_sd: float = DEFAULT_PRIOR_SD,
    iterations: int = 60,
) -> tuple[np.ndarray, np.ndarray]:
    """MAP Bradley-Terry rating of each newcomer (rows) against opponents (columns).

    Parameters
    ----------
    opponent_ratings : numpy.ndarray
        ``(m,)`` or ``(n, m)`` frozen ratings of the opponents.
    outcomes : numpy.ndarray
        ``(n, m)`` results in [0, 1] from the newcomer's side (1 = newcomer
        judged harder); NaN entries are ignored.
    weights : numpy.ndarray or None
        Optional ``(n, m)`` match weights (0 drops a match).
    prior_mean : float or numpy.ndarray
        Mean of the Gaussian prior on the rating, in Elo points (one value, or one
        per newcomer).
    prior_sd : float
        Standard deviation of the Gaussian prior, in Elo points.
    iterations : int
        Most Newton steps per newcomer (each stops once its step is below 1e-6).

    Returns
    -------
    ratings : numpy.ndarray
        ``(n,)`` ratings in Elo points (higher = harder).
    se : numpy.ndarray
        ``(n,)`` standard errors from the observed information, in Elo points.
    """
    s = np.atleast_2d(np.asarray(outcomes, dtype=float))
    opp = np.broadcast_to(np.asarray(opponent_ratings, dtype=float), s.shape)
    w = np.ones_like(s) if weights is None else np.broadcast_to(np.asarray(weights, dtype=float), s.shape).copy()
    w = np.where(np.isnan(s), 0.0, w)
    s = np.nan_to_num(s, nan=0.5)
    mu = np.broadcast_to(np.asarray(prior_mean, dtype=float), (s.shape[0],))
    inv_var = 1.0 / prior_sd**2
    # Newton steps on the concave log-posterior, from the prior mean. Each row stops
    # on its own, so a newcomer's rating does not depend on the others fitted with it.
    r = mu.copy()
    todo = np.arange(len(r))
    for _ in range(iterations):
        e = expected_score(r[todo, None], opp[todo])
        grad = _LN10_OVER_SCALE * (w[todo] * (s[todo] - e)).sum(axis=1) - (r[todo] - mu[todo]) * inv_var
        info = _LN10_OVER_SCALE**2 * (w[todo] * e * (1.0 - e)).sum(axis=1) + inv_var
        step = np.clip(grad / info, -400.0, 400.0)
        r[todo] = r[todo] + step
        todo = todo[np.abs(step) >= 1e-6]
        if len(todo) == 0:
            break
    e = expected_score(r[:, None], opp)
    info = _LN10_OVER_SCALE**2 * (w * e * (1.0 - e)).sum(axis=1) + inv_var
    return r, 1.0 / np.sqrt(info)


def bt_loglik_rows(ratings: np.ndarray, opp: np.ndarray, outcomes: np.ndarray) -> np.ndarray:
    """Bradley-Terry log-likelihood (natural log) of each newcomer's ``(n, m)`` ``outcomes``
    (newcomer's side, NaN ignored) for ratings ``(n,)`` against ``opp`` ``(n, m)``: ``(n,)``."""
    e = np.clip(expected_score(ratings[:, None], opp), 1e-12, 1 - 1e-12)
    ll = outcomes * np.log(e) + (1.0 - outcomes) * np.log1p(-e)
    return np.nansum(ll, axis=1)


def bt_loglik(ratings: np.ndarray, opp: np.ndarray, outcomes: np.ndarray) -> float:
    """The sum of :func:`bt_loglik_rows` over all newcomers."""
    return float(bt_loglik_rows(ratings, opp, outcomes).sum())


def profile_slope(
    pool_ratings: np.ndarray, opp_ratings: np.ndarray, outcomes: np.ndarray, prior_sd: float = DEFAULT_PRIOR_SD
) -> float:
    """The common slope multiplier (one of ``FIT_SLOPES``, 1..64) for a set of texts'
    ``(k, m)`` results against opponents rated ``opp_ratings``: profile likelihood,
    each text at its MAP rating under the prior of :func:`fit_mle` (so the slope
    and the prior's pull are traded off as they are when newcomers are fitted).
    1 when fewer than 20 results are usable."""
    outcomes = np.asarray(outcomes, dtype=float)
    if (~np.isnan(outcomes)).sum() < 20:
        return 1.0
    center = float(np.asarray(pool_ratings, dtype=float).mean())
    opp_ratings = np.asarray(opp_ratings, dtype=float)
    best_b, best_ll = 1.0, -np.inf
    for b in FIT_SLOPES:
        opp_b = center + b * (opp_ratings - center)
        r_b, _ = mle_rating(opp_b, outcomes, prior_mean=center, prior_sd=prior_sd)
        ll = bt_loglik(r_b, opp_b, outcomes)
        if ll > best_ll + 1e-9:
            best_b, best_ll = float(b), ll
    return best_b


def fit_mle(
    pool_ratings: np.ndarray,
    opp_ratings: np.ndarray,
    outcomes: np.ndarray,
    slope: str | float = "fit",
    prior_sd: float = DEFAULT_PRIOR_SD,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bradley-Terry MAP ratings of newcomers against frozen opponents of a pool.

    ``pool_ratings`` are the whole pool's ratings (their mean centres the prior
    and the slope); ``opp_ratings`` ``(n, m)`` the ratings of the opponents each
    newcomer played; ``outcomes`` ``(n, m)`` the results from the newcomer's
    side (NaN = no usable answer).

    ``slope`` multiplies Elo's nominal ``ln 10 / 400``: ``"elo"`` (= 1) trusts
    the pool's rating differences as Elo odds; ``"fit"`` estimates each
    newcomer's own multiplier by profile likelihood over ``FIT_SLOPES`` (1..64)
    from its own results only (a newcomer with fewer than ``MIN_FIT_DECISIONS``
    usable decisions keeps 1). A pool rated by Elo from few matches per text has
    compressed ratings (ARTS3000 spans about 1140-1260), so outcomes are steeper
    than the nominal scale says.

    Every row is fitted on its own: a newcomer's rating depends on its results
    only, never on the newcomers fitted with it.

    Returns ``(ratings, se, slopes)``: ratings and se ``(n,)`` in Elo points of
    the pool, and each newcomer's slope multiplier ``(n,)``.
    """
    center = float(np.asarray(pool_ratings, dtype=float).mean())
    outcomes = np.atleast_2d(np.asarray(outcomes, dtype=float))
    opp_ratings = np.broadcast_to(np.asarray(opp_ratings, dtype=float), outcomes.shape)
    n = outcomes.shape[0]
    if isinstance(slope, str):
        if slope == "elo":
            slopes: tuple[float, ...] = (1.0,)
        elif slope == "fit":
            slopes = FIT_SLOPES
        else:
            raise ValueError(f"slope must be 'fit', 'elo' or a positive number, got {slope!r}")
    else:
        if not float(slope) > 0:
            raise ValueError(f"slope must be 'fit', 'elo' or a positive number, got {slope!r}")
        slopes = (float(slope),)
    every = np.arange(n)
    if len(slopes) == 1:
        candidates = [(slopes[0], every)]
    else:  # 1 for every row (the fallback), the other slopes for rows with enough data
        enough = np.flatnonzero((~np.isnan(outcomes)).sum(axis=1) >= MIN_FIT_DECISIONS)
        candidates = [(1.0, every)] + [(b, enough) for b in slopes if b != 1.0]
    best_ll = np.full(n, -np.inf)
    best_b, best_r, best_se = np.ones(n), np.full(n, np.nan), np.full(n, np.nan)
    for b, rows in candidates:
        if len(rows) == 0:
            continue
        opp_b = center + b * (opp_ratings[rows] - center)
        r_b, se_b = mle_rating(opp_b, outcomes[rows], prior_mean=center, prior_sd=prior_sd)
        ll = bt_loglik_rows(r_b, opp_b, outcomes[rows])
        better = ll > best_ll[rows] + 1e-9
        take = rows[better]
        best_ll[take], best_b[take], best_r[take], best_se[take] = ll[better], b, r_b[better], se_b[better]
    return center + (best_r - center) / best_b, best_se / best_b, best_b


def fit_bradley_terry(
    wins: np.ndarray,
    prior_sd: float = DEFAULT_PRIOR_SD,
    anchor: float = START_RATING,
    iterations: int = 100,
) -> tuple[np.ndarray, np.ndarray]:
    """MAP Bradley-Terry ratings of players who all play each other (every player free).

    Used to rate systems from their head-to-head matches. ``wins[..., i, j]`` is
    how many matches player ``i`` won against ``j`` (won = judged **harder**;
    fractions allowed for soft decisions; the diagonal is ignored), vectorised
    over any leading axes (e.g. bootstrap resamples). Every rating gets the same
    Gaussian prior (mean ``anchor``, sd ``prior_sd`` Elo points): weak next to a
    few dozen matches, it keeps an undefeated or winless player finite, and
    because the likelihood only sees differences the ratings' mean is exactly
    ``anchor``. Returns ``(ratings, se)``, each ``(..., n)`` in Elo points
    (higher = harder; 400 points = 10:1 odds), ``se`` from the posterior's
    curvature given that mean.
    """
    w = np.asarray(wins, dtype=float)
    if w.ndim < 2 or w.shape[-1] != w.shape[-2]:
        raise ValueError(f"wins must be (..., n, n), got shape {w.shape}")
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        i = tuple(int(k) for k in np.argwhere(bad)[0])
        raise ValueError(f"wins{list(i)} is {w[i]}: win counts must be finite and >= 0")
    if not (np.isfinite(prior_sd) and prior_sd > 0):
        raise ValueError(f"prior_sd must be a positive number of Elo points, got {prior_sd!r}")
    n = w.shape[-1]
    eye = np.eye(n, dtype=bool)
    w = np.where(eye, 0.0, w)
    games = w + np.swapaxes(w, -1, -2)
    inv_var = 1.0 / prior_sd**2
    c = _LN10_OVER_SCALE

    def neg_hessian(r: np.ndarray) -> np.ndarray:
        p = expit(c * (r[..., :, None] - r[..., None, :]))
        info = c**2 * games * p * (1.0 - p)
        return -info + np.where(eye, info.sum(axis=-1)[..., :, None] + inv_var, 0.0)

    r = np.full(w.shape[:-1], float(anchor))
    # Newton steps on the concave log-posterior; n is small (systems), so the full
    # Hessian is solved directly, batched over the leading axes.
    for _ in range(iterations):
        p = expit(c * (r[..., :, None] - r[..., None, :]))
        grad = c * (w - games * p).sum(axis=-1) - (r - anchor) * inv_var
        step = np.clip(np.linalg.solve(neg_hessian(r), grad[..., None])[..., 0], -400.0, 400.0)
        r = r + step
        if np.all(np.abs(step) < 1e-9):
            break
    # The likelihood sees only differences: condition the posterior covariance on
    # the mean being ``anchor`` (otherwise every se would carry the prior's sd/sqrt(n)).
    cov = np.linalg.inv(neg_hessian(r))
    row = cov.sum(axis=-1)
    cov = cov - row[..., :, None] * row[..., None, :] / row.sum(axis=-1)[..., None, None]
    se = np.sqrt(np.clip(np.diagonal(cov, axis1=-2, axis2=-1), 0.0, None))
    return r, se
