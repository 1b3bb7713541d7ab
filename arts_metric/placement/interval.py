"""The interval of a system's mean ARTS score over its placed texts
(:func:`system_interval`), from each text's ARTS-scale quantiles."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from scipy import sparse
from scipy.stats import norm

from arts_metric.placement.result import QUANTILE_LEVELS, PlacementResult, check_level, interval_bounds
from arts_metric.pool import Pool


def _draw(quantiles: np.ndarray, rows: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-CDF draws: ``quantiles[rows]`` interpolated at probabilities ``u``."""
    levels = QUANTILE_LEVELS
    x = np.clip(np.interp(u, levels, np.arange(len(levels))), 0, len(levels) - 1)
    lo = np.floor(x).astype(int)
    hi = np.minimum(lo + 1, len(levels) - 1)
    frac = x - lo
    return quantiles[rows, lo] * (1 - frac) + quantiles[rows, hi] * frac


def system_interval(
    result: PlacementResult,
    pool: Pool,
    weights: Sequence[float] | None = None,
    level: float | None = None,
    draws: int = 2000,
    resample_texts: bool = True,
    seed: int = 0,
    units: Sequence[Sequence[int]] | None = None,
    unit_weights: Sequence[Sequence[float]] | None = None,
) -> tuple[float, float]:
    """Interval of the (weighted) mean ARTS score of a system's texts.

    Each of ``draws`` replicates draws every placed text's score from its own
    distribution (``result.arts_quantiles``: posterior, bootstrap or
    likelihood) and, with ``resample_texts``, also resamples the texts with
    replacement (the system's texts are a sample of what it writes). With
    ``resample_texts=False`` only the measurement error is counted. Texts
    without any scored piece are left out.

    Parameters
    ----------
    result : PlacementResult
        The placement of the system's texts (or of their pieces).
    pool : Pool
        The pool they were placed in (its scale turns ratings into ARTS).
    weights : Sequence[float] | None
        Weight of each text in the mean (default equal).
    level : float or None
        The interval's level (default ``result.level``).
    draws : int
        Replicates drawn (at least 10).
    resample_texts : bool
        Also resample the texts with replacement in each replicate.
    seed : int
        Seeds the replicates.
    units : Sequence[Sequence[int]] | None
        When texts were cut into pieces, the result rows of each text (a piece
        shared by two texts may appear in both). Default: every result row is
        one text.
    unit_weights : Sequence[Sequence[float]] | None
        With ``units``: the weight of each of a text's pieces (e.g. their
        lengths); a text's score is the weighted mean of its pieces'.

    Returns
    -------
    tuple of float
        ``(low, high)`` on the ARTS scale (NaN, NaN when nothing was scored).
    """
    level = check_level(result.level if level is None else level)
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 10:
        raise ValueError(f"draws must be an integer >= 10, got {draws!r}")
    q = result.arts_quantiles
    if q is None:  # a result without quantiles: normal approximation from its interval
        arts = pool.arts_of_rating(result.ratings)
        if result.interval is not None:
            iv = pool.arts_of_rating(np.asarray(result.interval))
            sd = (iv[:, 1] - iv[:, 0]) / (2.0 * norm.ppf(interval_bounds(level)[1]))
        else:
            sd = np.zeros(len(arts))
        q = np.clip(arts[:, None] + sd[:, None] * norm.ppf(QUANTILE_LEVELS)[None, :], 0.0, 1.0)
    q = np.asarray(q, dtype=float)
    n_rows = len(q)
    scored = ~np.isnan(q).any(axis=1)

    # Text x row averaging matrix (identity when every row is a text).
    if units is None:
        if unit_weights is not None:
            raise ValueError("unit_weights needs units")
        members = [[i] for i in range(n_rows)]
        member_w = [[1.0] for _ in range(n_rows)]
    else:
        members = [list(u) for u in units]
        member_w = [[1.0] * len(u) for u in members] if unit_weights is None else [list(w) for w in unit_weights]
        if len(member_w) != len(members):
            raise ValueError(f"unit_weights has {len(member_w)} entries but units has {len(members)}")
    r_idx, t_idx, vals = [], [], []
    for t, (rows_t, w_t) in enumerate(zip(members, member_w)):
        if len(rows_t) != len(w_t):
            raise ValueError(f"text {t}: {len(rows_t)} units but {len(w_t)} unit weights")
        for r, wt in zip(rows_t, w_t):
            if not isinstance(r, (int, np.integer)) or not 0 <= r < n_rows:
                raise ValueError(f"text {t}: unit {r!r} is not a result row (0..{n_rows - 1})")
            if not (np.isfinite(wt) and wt >= 0):
                raise ValueError(f"text {t}: unit weight {wt!r} is not a finite non-negative number")
            if scored[r] and wt > 0:
                r_idx.append(int(r))
                t_idx.append(t)
                vals.append(float(wt))
    n_texts = len(members)
    avg = sparse.csr_matrix((vals, (r_idx, t_idx)), shape=(n_rows, n_texts))
    colsum = np.asarray(avg.sum(axis=0)).ravel()
    if weights is None:
        w = np.ones(n_texts)
    else:
        w = np.asarray(list(weights), dtype=float)
        if w.shape != (n_texts,):
            raise ValueError(f"weights has {w.size} values but there are {n_texts} texts")
        bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
        if len(bad):
            raise ValueError(f"weights[{bad[0]}] = {w[bad[0]]!r} is not a finite non-negative number")
    ok = np.flatnonzero((colsum > 0) & (w > 0))
    if len(ok) == 0:
        return (math.nan, math.nan)
    avg = sparse.csr_matrix(avg[:, ok] @ sparse.diags(1.0 / colsum[ok]))
    avg.eliminate_zeros()
    # Only rows that enter the mean draw random numbers, so rows placed alongside
    # (a call's sources, references) do not shift the stream and the interval.
    used = np.flatnonzero(avg.getnnz(axis=1) > 0)
    avg = avg[used]
    rng = np.random.default_rng(seed)
    means = np.empty(draws)
    block = max(1, 2_000_000 // max(len(used), len(ok)))
    # Rows whose quantiles are all equal (a placement that sampled nothing) draw that value:
    # their uniforms are still drawn, so the texts resampled are the same either way.
    fixed = np.asarray(avg.T @ q[used, 0]) if bool((q[used] == q[used, :1]).all()) else None
    unweighted = bool((w[ok] == 1.0).all())
    for d0 in range(0, draws, block):
        d = min(block, draws - d0)
        u = rng.random((d, len(used)))
        if fixed is not None:
            text_draws = np.broadcast_to(fixed, (d, len(ok)))
        else:
            text_draws = np.asarray((avg.T @ _draw(q, np.broadcast_to(used, u.shape), u).T).T)  # (d, texts)
        if resample_texts:
            pick = rng.integers(0, len(ok), size=(d, len(ok)))
            if fixed is not None and unweighted:  # the same values, without a 2-D gather and products by 1
                means[d0 : d0 + d] = fixed[pick].sum(axis=1) / float(len(ok))
                continue
            text_draws = np.take_along_axis(text_draws, pick, axis=1)
            ww = w[ok][pick]
        else:
            ww = np.broadcast_to(w[ok], text_draws.shape)
        means[d0 : d0 + d] = (text_draws * ww).sum(axis=1) / ww.sum(axis=1)
    lo, hi = np.quantile(means, interval_bounds(level))
    return (float(lo), float(hi))
