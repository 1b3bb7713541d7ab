"""The rating maths of the Elo scale: Elo updates, the team rule and the
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
- **Bradley-Terry** fits of the same win probability (eq. 1) read as a
  likelihood live in :mod:`arts_metric.ratings.bradley_terry`. :func:`team_rating` is
  the Bradley-Terry team rule: a text's strength is the sum of its parts'.
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


def _mean_expected_scores(
    r: np.ndarray, pool_ratings: np.ndarray, c: float = _LN10_OVER_SCALE
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each rating ``r_i`` against the pool ``R``: ``mean_j E(r_i, R_j)``,
    ``mean_j (1 - E)`` (summed on its own, so that it keeps its precision where
    the first is close to 1) and ``mean_j E (1 - E)`` (the first's derivative in
    ``r_i`` over ``c``), with ``E = 1 / (1 + exp(-c (r_i - R_j)))`` (``c = ln 10 /
    400``: eq. 1). Each row is computed on its own, so its values do not depend on
    the other rows.

    Why not ``expit`` on the pair matrix: with ``q_ij = 10^((R_j - r_i)/400) =
    a_i b_j`` (both factors centred on the pool's mid-range), ``E = 1 / (1 + q)``,
    ``1 - E = q E`` and ``E (1 - E) = q E^2`` cost two ``exp`` per rating instead
    of one per pair, about 4x faster on 3,000 x 3,000 pairs. ``r`` must lie
    within the bracket of :func:`rating_of_expected_score` (pool range +- 3,600
    Elo), so the factors and their product stay finite; pools wider than
    ``_FACTOR_SPAN`` take the ``expit`` path (decided by the pool alone).
    """
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
    return _mean_logistic(pool_ratings, ratings, _LN10_OVER_SCALE)


def _mean_logistic(pool_ratings: np.ndarray, ratings: np.ndarray | Sequence[float], c: float) -> np.ndarray:
    """``mean_j expit(c (R - R_j))`` for each ``R``, each on its own; NaN stays NaN."""
    pool_ratings = np.asarray(pool_ratings, dtype=float)
    r = np.asarray(ratings, dtype=float)
    flat = r.ravel()
    out = np.full(flat.shape, np.nan)
    ok = ~np.isnan(flat)
    if ok.any():
        out[ok] = _mean_expected_scores(flat[ok], pool_ratings, c)[0]
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
    return _invert_mean_logistic(pool_ratings, share, _LN10_OVER_SCALE)


def _invert_mean_logistic(pool_ratings: np.ndarray, share: np.ndarray | Sequence[float], c: float) -> np.ndarray:
    """The ``R`` with ``mean_j expit(c (R - R_j)) = share``, ``share`` clipped to [1e-9, 1 - 1e-9]."""
    pool_ratings = np.asarray(pool_ratings, dtype=float)
    m = np.clip(np.asarray(share, dtype=float), 1e-9, 1.0 - 1e-9)
    flat = m.ravel()
    ok = ~np.isnan(flat)
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
        f, f_lose, var = (np.maximum(v, 1e-300) for v in _mean_expected_scores(ra, pool_ratings, c))
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


def position_width(pool_ratings: np.ndarray | Sequence[float]) -> float:
    """The width ``w`` (Elo points) that smooths a pool's ratings into its position
    scale (:func:`pool_position`): Silverman's rule of thumb for a kernel density,
    ``0.9 min(sd, IQR / 1.34) N^(-1/5)``, given to a logistic kernel as its standard
    deviation (``w = that * sqrt(3) / pi``). About 3.7 for ARTS3000. A pool of equal
    ratings gets 1 point. A property of the pool alone."""
    r = np.asarray(pool_ratings, dtype=float)
    sd = float(np.std(r, ddof=1)) if len(r) > 1 else 0.0
    q75, q25 = np.percentile(r, [75, 25])
    spread = min(sd, (q75 - q25) / 1.34) if q75 > q25 else sd
    if not spread > 0:
        return 1.0
    return 0.9 * spread * len(r) ** -0.2 * math.sqrt(3.0) / math.pi


def pool_position(pool_ratings: np.ndarray | Sequence[float], ratings: np.ndarray | Sequence[float]) -> np.ndarray:
    """A rating's position in a pool: the share of the pool's ratings below it, with
    each pool rating smoothed by a logistic kernel of width :func:`position_width`,
    ``mean_j expit((R - R_j) / w)``. In (0, 1), higher = harder; strictly increasing,
    so ratings beyond the pool's easiest and hardest text keep distinct positions;
    within the pool it follows the rank share (:func:`rank_scale`) to within a few
    hundredths. The inverse of :func:`rating_of_pool_position`; each value on its own;
    NaN stays NaN."""
    pool_ratings = np.asarray(pool_ratings, dtype=float)
    return _mean_logistic(pool_ratings, ratings, 1.0 / position_width(pool_ratings))


def rating_of_pool_position(
    pool_ratings: np.ndarray | Sequence[float], position: np.ndarray | Sequence[float]
) -> np.ndarray:
    """The rating at ``position`` (a share of the pool, higher = harder) on the pool's
    own scale: the ``R`` with :func:`pool_position` ``= position``. Within the pool's
    range it is the pool's rating quantile (position .5 is near the median rating);
    positions within ``1/N`` of 0 or 1 reach a few widths beyond the easiest or hardest
    pool rating, still distinct and ordered. ``position`` is clipped to
    [1e-9, 1 - 1e-9]; NaN stays NaN. Elo points, higher = harder."""
    pool_ratings = np.asarray(pool_ratings, dtype=float)
    return _invert_mean_logistic(pool_ratings, position, 1.0 / position_width(pool_ratings))
