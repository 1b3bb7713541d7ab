"""The ``elo`` placement method: the paper's Elo update, newcomer by newcomer,
against a frozen pool, with a bootstrap interval."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from arts_metric.judges.base import Judge
from arts_metric.placement.opponents import finish_fixed, play_fixed
from arts_metric.placement.result import DEFAULT_LEVEL, QUANTILE_LEVELS, PlacementResult, check_level, interval_bounds
from arts_metric.placement.streams import BOOTSTRAP, text_rng
from arts_metric.pool import Pool
from arts_metric.ratings.elo import K_FACTOR, START_RATING, elo_sequences, run_elo


def place_elo(
    judge: Judge,
    pool: Pool,
    texts: Sequence[str],
    budget: int | None = None,
    opponents: Any = "random",
    k: float = K_FACTOR,
    start: float = START_RATING,
    bootstrap: int = 200,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> PlacementResult:
    """Paper-faithful placement: each newcomer starts at ``start`` (1200) and plays
    ``budget`` matches (default ``ceil(2 log2 N)``) in order, updated with Elo's
    rule (K = 16) while the pool's ratings stay frozen.

    ``opponents``: ``"random"`` (uniform, no repeats), ``"spread"`` (one per
    rating stratum, in random order), or explicit pool indices ``(m,)`` /
    ``(n, m)`` (a schedule). Interval: percentile bootstrap over the newcomer's
    matches (``bootstrap`` resamples, drawn with replacement and replayed in
    the drawn order, so Elo's order dependence is part of the spread). A
    newcomer's opponents, sides and resamples depend on ``seed`` and its own
    text only.
    """
    level = check_level(level)
    if not k > 0:
        raise ValueError(f"k must be > 0, got {k!r}")
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, (int, np.integer)) or bootstrap < 0:
        raise ValueError(f"bootstrap must be a non-negative integer, got {bootstrap!r}")
    n, size = len(texts), len(pool)
    opps, outcomes, lost, asker, _ = play_fixed(judge, pool, texts, budget, opponents, seed)
    m = opps.shape[1]

    # Point estimate: the reference Elo implementation, pool frozen.
    starts = np.concatenate([pool.ratings, np.full(n, float(start))])
    frozen = np.concatenate([np.ones(size, dtype=bool), np.zeros(n, dtype=bool)])
    played = (
        (size + i, int(opps[i, j]), None if np.isnan(outcomes[i, j]) else float(outcomes[i, j]))
        for i in range(n)
        for j in range(m)
    )
    ratings = run_elo(size + n, played, k=k, start=starts, frozen=frozen)[size:]

    # Bootstrap replicates, (n, bootstrap): each text's resamples drawn from its own stream.
    opp_r = pool.ratings[opps]
    reps = np.empty((n, bootstrap))
    block = max(1, 4_000_000 // max(bootstrap * m, 1))  # bounded memory
    for lo in range(0, n if bootstrap else 0, block):
        hi = min(n, lo + block)
        draw = np.stack([text_rng(seed, t, BOOTSTRAP).integers(0, m, size=(bootstrap, m)) for t in texts[lo:hi]])
        rows = np.arange(lo, hi)[:, None, None]
        reps[lo:hi] = elo_sequences(start, opp_r[rows, draw], outcomes[rows, draw], k)

    none = np.isnan(outcomes).all(axis=1)
    ratings[none] = np.nan
    if bootstrap:
        interval = np.quantile(reps, interval_bounds(level), axis=1).T
        arts_q = np.quantile(pool.arts_of_rating(reps), QUANTILE_LEVELS, axis=1).T
        se = reps.std(axis=1, ddof=1) if bootstrap > 1 else np.full(n, np.nan)
    else:
        interval = np.full((n, 2), np.nan)
        arts_q = np.repeat(pool.arts_of_rating(ratings)[:, None], len(QUANTILE_LEVELS), axis=1)
        se = np.full(n, np.nan)
    interval[none], arts_q[none], se[none] = np.nan, np.nan, np.nan
    return finish_fixed(
        pool, opps, outcomes, lost, asker, ratings, se, interval, arts_q, "elo", level, {"k": k, "start": start}
    )
