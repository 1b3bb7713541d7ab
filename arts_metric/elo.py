"""The rating maths of the Elo scale: Elo updates, Bradley-Terry fits and the
conversions between ratings, expected scores and rank positions.

Pure numpy/scipy, no judges: pools appear only as arrays of their ratings.
What :mod:`arts_metric.placement` and :mod:`arts_metric.analysis.simulation` compute
from judges' decisions, they compute with these functions.

Convention: a match is won by the text judged **harder** to understand, so a
higher rating means a harder text. Ratings are Elo points (``SCALE`` = 400
points is a factor 10 in the odds).

- **Elo** (paper section 3.2): every text starts at ``start`` (1200) and each
  decision moves both texts by ``k`` (16) times the surprise (eq. 1, 2).
  Matches are applied strictly in the given order: Elo is order dependent.
- **Bradley-Terry**: the same win probability (eq. 1) read as a likelihood;
  :func:`mle_rating` gives the MAP rating of newcomers against opponents of
  known rating under a Gaussian prior, :func:`fit_mle` also profiles a common
  slope multiplier. Order independent.
- **Conversions**: :func:`rank_scale` (ratings to ARTS scores within one set),
  :func:`rating_of_position` and :func:`rating_of_expected_score` (a share of a
  pool back to a rating on the pool's scale).
"""

from __future__ import annotations

import math
from typing import Iterable, Literal, Sequence

import numpy as np
from scipy.special import expit, logsumexp
from scipy.stats import rankdata

START_RATING = 1200.0
K_FACTOR = 16.0
SCALE = 400.0
#: default sd of the Gaussian prior on a Bradley-Terry rating, in Elo points;
#: weak next to a handful of matches
DEFAULT_PRIOR_SD = 400.0
#: Bradley-Terry slope multipliers :func:`fit_mle` tries with ``slope="fit"``
FIT_SLOPES = tuple(np.geomspace(1.0, 64.0, 13))
#: usable decisions a newcomer needs before :func:`fit_mle` fits its own slope
MIN_FIT_DECISIONS = 8
_LN10_OVER_SCALE = math.log(10.0) / SCALE


def expected_score(r1: float | np.ndarray, r2: float | np.ndarray) -> float | np.ndarray:
    """Eq. 1: probability that a text rated ``r1`` beats (is harder than) one rated ``r2``."""
    return 1.0 / (1.0 + 10.0 ** ((np.asarray(r2) - np.asarray(r1)) / SCALE))


def update(r1: float, r2: float, s1: float, k: float = K_FACTOR) -> tuple[float, float]:
    """Eq. 2 for both players: ``s1`` is 1 if text 1 was judged harder, 0 if text 2 was
    (fractions are allowed for soft or combined decisions). Returns the new ratings."""
    e1 = 1.0 / (1.0 + 10.0 ** ((r2 - r1) / SCALE))
    delta = k * (s1 - e1)
    return r1 + delta, r2 - delta


def run_elo(
    n: int,
    matches: Iterable[tuple[int, int, float | None]],
    k: float = K_FACTOR,
    start: float | Sequence[float] = START_RATING,
    frozen: Sequence[bool] | None = None,
) -> np.ndarray:
    """Play ``matches`` in order and return the final ratings of texts ``0..n-1``.

    Each match is ``(a, b, outcome_a)`` with ``outcome_a`` = 1.0 when ``a`` was
    judged harder, 0.0 when ``b`` was, and ``None`` (no usable answer) skipped.
    ``frozen[i]`` keeps text ``i``'s rating fixed (a reference pool that must
    not move while newcomers are placed against it). A match whose decision was
    never obtained (:data:`~arts_metric.judges.base.UNANSWERED`) raises
    ``ValueError``: Elo is order dependent, so skipping it would give ratings a
    complete run never gives; ask the judge again (its cache keeps the rest).
    """
    ratings = np.full(n, float(start)) if np.isscalar(start) else np.array(start, dtype=float)
    if ratings.shape != (n,):
        raise ValueError(f"start has shape {ratings.shape}, expected ({n},)")
    fixed = np.zeros(n, dtype=bool) if frozen is None else np.asarray(frozen, dtype=bool)
    for i, (a, b, s) in enumerate(matches):
        if s is None:
            continue
        if not isinstance(s, (int, float, np.integer, np.floating)):
            raise ValueError(
                f"match {i} ({a}, {b}) has no decision ({s!r}): the judge gave no answer "
                "(failed or not asked); run again to ask it"
            )
        if not (0 <= a < n and 0 <= b < n):
            raise ValueError(f"match {i}: index out of range 0..{n - 1}: ({a}, {b})")
        if a == b:
            raise ValueError(f"match {i}: text {a} cannot play itself")
        ra, rb = update(ratings[a], ratings[b], float(s), k)
        if not fixed[a]:
            ratings[a] = ra
        if not fixed[b]:
            ratings[b] = rb
    return ratings


def ratings_from_history(n: int, history: Iterable, k: float = K_FACTOR, start: float = START_RATING) -> np.ndarray:
    """Elo ratings from :class:`arts_metric.data.Match` rows (winner = harder text)."""
    return run_elo(n, ((m.a, m.b, m.outcome_a) for m in history), k=k, start=start)


def elo_sequences(start: float, opp_ratings: np.ndarray, outcomes: np.ndarray, k: float = K_FACTOR) -> np.ndarray:
    """Newcomer Elo ratings after playing their matches in order against frozen opponents.

    The same update as :func:`run_elo` with the opponents frozen, vectorised
    over the leading axes: ``opp_ratings`` and ``outcomes`` are ``(..., m)``
    (outcomes from the newcomer's side, 1 = newcomer judged harder; NaN
    skipped); every newcomer starts at ``start``. Returns ``(...)`` ratings.
    """
    r = np.full(opp_ratings.shape[:-1], float(start))
    for t in range(opp_ratings.shape[-1]):
        s = outcomes[..., t]
        step = k * (s - expected_score(r, opp_ratings[..., t]))
        r = np.where(np.isnan(s), r, r + np.nan_to_num(step))
    return r


def rank_scale(ratings: Sequence[float], method: Literal["published", "paper"] = "published") -> np.ndarray:
    """Map Elo ratings to ARTS scores in [0, 1], higher = harder.

    Rank 1 is the lowest rating (the easiest text). ``"published"`` gives
    ``(rank - 1) / (N - 1)``, the scaling of the published ARTS scores (paper
    Table 11); ``"paper"`` gives ``(rank - 1) / N``, the paper's equation 3.
    Tied ratings share the mean of their ranks.
    """
    r = np.asarray(ratings, dtype=float)
    n = len(r)
    if n == 0:
        return r
    ranks = rankdata(r, method="average")
    if method == "published":
        return (ranks - 1.0) / max(n - 1, 1)
    if method == "paper":
        return (ranks - 1.0) / n
    raise ValueError(f"method must be 'published' or 'paper', got {method!r}")


def rating_of_position(pool_ratings: np.ndarray, position: np.ndarray | Sequence[float]) -> np.ndarray:
    """The rating with (to within 1/N) the share ``position`` of ``pool_ratings`` below it.

    The inverse of a text's ARTS position in a pool (share of pool texts rated
    lower, in [0, 1], higher = harder). Monotone; 0 maps below the easiest
    pool rating, 1 above the hardest. NaN stays NaN. Elo points.
    """
    s = np.sort(pool_ratings)
    n = len(s)
    gap = (s[-1] - s[0]) / n if s[-1] > s[0] else 1.0
    fp = np.empty(n + 1)
    fp[0], fp[-1] = s[0] - gap, s[-1] + gap
    fp[1:-1] = 0.5 * (s[:-1] + s[1:])  # exactly k pool texts below
    return np.interp(np.asarray(position, dtype=float) * n, np.arange(n + 1), fp)


#: pairs (newcomers x pool texts) per block in :func:`_mean_expected_scores`:
#: 2 MB of float64, so each block's passes stay in the CPU cache
_PAIRS_PER_BLOCK = 2**18
#: pools whose ratings span more than this many logits (about 104,000 Elo)
#: are evaluated with ``expit`` in :func:`_mean_expected_scores`
_FACTOR_SPAN = 600.0


def _mean_expected_scores(r: np.ndarray, pool_ratings: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each rating ``r_i`` against the pool ``R``: ``mean_j E(r_i, R_j)``,
    ``mean_j (1 - E)`` (summed on its own, so that it keeps its precision where
    the first is close to 1) and ``mean_j E (1 - E)`` (the first's derivative in
    ``r_i`` over ``ln 10 / 400``). Each row is computed on its own, so its values
    do not depend on the other rows.

    Why not ``expit`` on the pair matrix: with ``q_ij = 10^((R_j - r_i)/400) =
    a_i b_j`` (both factors centred on the pool's mid-range), ``E = 1 / (1 + q)``,
    ``1 - E = q E`` and ``E (1 - E) = q E^2`` cost two ``exp`` per rating instead
    of one per pair, about 4x faster on 3,000 x 3,000 pairs. ``r`` must lie
    within the bracket of :func:`rating_of_expected_score` (pool range +- 3,600
    Elo), so the factors and their product stay finite; pools wider than
    ``_FACTOR_SPAN`` take the ``expit`` path (decided by the pool alone).
    """
    c = _LN10_OVER_SCALE
    low, high = pool_ratings.min(), pool_ratings.max()
    mid = 0.5 * (high + low)
    x = c * (r - mid)
    y = c * (pool_ratings - mid)
    if c * (high - low) > _FACTOR_SPAN:
        z = x[:, None] - y[None, :]
        e, lose = expit(z), expit(-z)
        return e.mean(axis=1), lose.mean(axis=1), (e * lose).mean(axis=1)
    a, b = np.exp(-x), np.exp(y)
    mean_e, mean_lose, mean_var = np.empty(len(r)), np.empty(len(r)), np.empty(len(r))
    rows = max(1, _PAIRS_PER_BLOCK // len(b))
    for start in range(0, len(r), rows):
        block = slice(start, start + rows)
        q = np.multiply.outer(a[block], b)
        e = np.reciprocal(q + 1.0)
        mean_e[block] = e.mean(axis=1)
        q *= e  # 1 - E
        mean_lose[block] = q.mean(axis=1)
        q *= e  # E (1 - E)
        mean_var[block] = q.mean(axis=1)
    return mean_e, mean_lose, mean_var


def mean_expected_score(pool_ratings: np.ndarray, ratings: np.ndarray | Sequence[float]) -> np.ndarray:
    """``mean_j E(R, R_j)`` for each rating ``R`` against ``pool_ratings``: the share of
    the pool a text rated ``R`` is expected to beat (be harder than), in [0, 1]. The
    inverse of :func:`rating_of_expected_score`; NaN stays NaN. Each value is computed
    on its own, so it does not depend on the other ratings passed with it."""
    pool_ratings = np.asarray(pool_ratings, dtype=float)
    r = np.asarray(ratings, dtype=float)
    flat = r.ravel()
    out = np.full(flat.shape, np.nan)
    ok = ~np.isnan(flat)
    if ok.any():
        out[ok] = _mean_expected_scores(flat[ok], pool_ratings)[0]
    return out.reshape(r.shape)


def team_rating(ratings: np.ndarray | Sequence[float]) -> float:
    """The Elo rating of a text made of parts rated ``ratings``, by the Bradley-Terry
    team rule: its strength ``10^(R/400)`` is the sum of its parts' strengths, so
    ``R = 400 log10(sum_i 10^(R_i/400))``. One part keeps its rating; ``n`` equally
    hard parts rate ``400 log10(n)`` Elo above one (about 120 Elo for two, 400 for
    ten); the hardest part weighs most. Elo points, higher = harder; NaN if any part
    is NaN."""
    r = np.asarray(ratings, dtype=float)
    if r.size == 0:
        raise ValueError("team_rating needs at least one rating")
    if np.isnan(r).any():
        return math.nan
    return float(logsumexp(_LN10_OVER_SCALE * r) / _LN10_OVER_SCALE)


def rating_of_expected_score(pool_ratings: np.ndarray, share: np.ndarray | Sequence[float]) -> np.ndarray:
    """The Elo rating ``R`` whose mean expected score (eq. 1) against ``pool_ratings``
    equals ``share``: ``mean_j E(R, R_j) = share``.

    Strictly increasing and unbounded (share 0.5 is near the pool's mean
    rating; each step towards 0 or 1 stretches further), so it separates texts
    that are harder or easier than the whole pool. ``share`` is clipped to
    [1e-9, 1 - 1e-9]; NaN stays NaN. Elo points.
    """
    pool_ratings = np.asarray(pool_ratings, dtype=float)
    m = np.clip(np.asarray(share, dtype=float), 1e-9, 1.0 - 1e-9)
    flat = m.ravel()
    ok = ~np.isnan(flat)
    c = _LN10_OVER_SCALE
    target = np.log(flat[ok]) - np.log1p(-flat[ok])  # logit(share)
    r = pool_ratings.mean() + target / c  # exact for a pool of one rating
    # The root lies between the ratings that score `share` against the pool's
    # easiest and hardest text alone; Newton steps that leave that bracket
    # (pools with wide gaps, where logit(mean E) bends sharply) bisect instead.
    lo = pool_ratings.min() + target / c
    hi = pool_ratings.max() + target / c
    active = np.ones(len(r), dtype=bool)
    # Newton on logit(mean expected score), which is close to linear in R.
    for _ in range(200):
        if not active.any():
            break
        idx = np.flatnonzero(active)
        ra = r[idx]
        f, f_lose, var = (np.maximum(v, 1e-300) for v in _mean_expected_scores(ra, pool_ratings))
        g = np.log(f) - np.log(f_lose) - target[idx]
        lo[idx] = np.where(g < 0, np.maximum(lo[idx], ra), lo[idx])
        hi[idx] = np.where(g > 0, np.minimum(hi[idx], ra), hi[idx])
        dg = c * var / (f * f_lose)
        step = g / np.maximum(dg, 1e-12)
        done = (np.abs(step) < 1e-7) | (g == 0)
        outside = ~done & ~((ra - step > lo[idx]) & (ra - step < hi[idx]))
        r[idx] = np.where(outside, 0.5 * (lo[idx] + hi[idx]), ra - step)
        active[idx[done]] = False
    out = np.full(flat.shape, np.nan)
    out[ok] = r
    return out.reshape(m.shape)


def mle_rating(
    opponent_ratings: np.ndarray,
    outcomes: np.ndarray,
    weights: np.ndarray | None = None,
    prior_mean: float | np.ndarray = START_RATING,
    prior_sd: float = DEFAULT_PRIOR_SD,
    iterations: int = 60,
) -> tuple[np.ndarray, np.ndarray]:
    """MAP Bradley-Terry rating of each newcomer (rows) against opponents (columns).

    Args:
        opponent_ratings: ``(m,)`` or ``(n, m)`` frozen ratings of the opponents.
        outcomes: ``(n, m)`` results in [0, 1] from the newcomer's side (1 = newcomer
            judged harder); NaN entries are ignored.
        weights: optional ``(n, m)`` match weights (0 drops a match).
        prior_mean, prior_sd: Gaussian prior on the rating, in Elo points.

    Returns:
        ``(ratings, se)``, each ``(n,)`` in Elo points (higher = harder); ``se``
        from the observed information.
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
