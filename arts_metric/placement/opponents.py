"""Fixed match schedules (methods ``elo``, ``mle``, pairwise ``exhaustive``): which
pool texts each newcomer plays, all asked of the judge in one call."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from arts_metric.judges.base import Judge
from arts_metric.placement.asker import _Asker
from arts_metric.placement.result import PlacementResult, _check_budget, _finish
from arts_metric.pool import Pool


def spread_opponents(pool: Pool, n_matches: int, rng: np.random.Generator) -> np.ndarray:
    """``n_matches`` pool indices spread over the rating range: one drawn at random
    from each of ``n_matches`` equal-size strata of the pool sorted by rating."""
    order = np.argsort(pool.ratings, kind="stable")
    n_matches = min(n_matches, len(pool))
    bounds = np.linspace(0, len(pool), n_matches + 1).astype(int)
    return np.array([order[rng.integers(lo, hi)] for lo, hi in zip(bounds[:-1], bounds[1:])])


def _choose_opponents(
    pool: Pool, n: int, budget: int, opponents: Any, rng: np.random.Generator
) -> np.ndarray:
    """``(n, m)`` pool indices each newcomer plays, in playing order.

    ``opponents``: ``"random"`` (``budget`` distinct texts), ``"spread"`` (one per
    rating stratum, :func:`spread_opponents`, in random order), ``"all"`` (every
    pool text in random order) or explicit pool indices ``(m,)`` / ``(n, m)``.
    """
    size = len(pool)
    if isinstance(opponents, str):
        if opponents == "random":
            return np.array([rng.choice(size, budget, replace=False) for _ in range(n)], dtype=int).reshape(n, budget)
        if opponents == "spread":
            return np.array([rng.permutation(spread_opponents(pool, budget, rng)) for _ in range(n)], dtype=int).reshape(n, -1)
        if opponents == "all":
            return np.array([rng.permutation(size) for _ in range(n)], dtype=int).reshape(n, size)
        raise ValueError(f"opponents must be 'random', 'spread', 'all' or an array of pool indices, got {opponents!r}")
    arr = np.asarray(opponents)
    if arr.ndim == 1:
        arr = np.broadcast_to(arr, (n, arr.shape[0]))
    if arr.ndim != 2 or arr.shape[0] != n or arr.shape[1] == 0:
        raise ValueError(f"opponents array must be (m,) or ({n}, m) pool indices, got shape {np.shape(opponents)}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"opponents must be integer pool indices, got dtype {arr.dtype}")
    bad = np.argwhere((arr < 0) | (arr >= size))
    if len(bad):
        i, j = bad[0]
        raise ValueError(f"opponents[{i}][{j}] = {arr[i, j]} is not a pool index (0..{size - 1})")
    return np.array(arr, dtype=int)


def _play_fixed(
    judge: Judge, pool: Pool, texts: Sequence[str], budget: int | None, opponents: Any, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, _Asker]:
    """Choose each newcomer's opponents and have the judge decide every match.

    Returns ``(opps, outcomes, asker)``: ``(n, m)`` pool indices in playing
    order, ``(n, m)`` outcomes from the newcomer's side (NaN = no usable
    answer) and the asker that counted the calls.
    """
    budget = _check_budget(budget, pool)
    opps = _choose_opponents(pool, len(texts), budget, opponents, rng)
    asker = _Asker(judge, pool, texts)
    return opps, asker.ask_schedule(opps), asker


def _finish_fixed(
    pool: Pool,
    opps: np.ndarray,
    outcomes: np.ndarray,
    asker: _Asker,
    ratings: np.ndarray,
    se: np.ndarray,
    interval: np.ndarray,
    arts_q: np.ndarray,
    method: str,
    level: float,
    info: dict,
) -> PlacementResult:
    """The result of a fixed schedule: every text spent ``m`` calls, its matches
    are the usable outcomes, its ARTS interval maps the Elo ``interval``."""
    matches = [
        [(int(j), float(s)) for j, s in zip(o_row, s_row) if not np.isnan(s)] for o_row, s_row in zip(opps, outcomes)
    ]
    return _finish(
        pool, ratings, arts_q, pool.arts_of_rating(interval), interval, se, asker,
        np.full(len(opps), opps.shape[1]), matches, method, level, info=info,
    )
