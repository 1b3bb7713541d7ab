"""Which pool texts a newcomer plays: fixed match schedules (methods ``elo``,
``mle``, pairwise ``exhaustive``), all asked of the judge in one call, and the
pool texts that calibrate a judge (:func:`calibration_texts`)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from arts_metric.judges.base import Judge
from arts_metric.placement.asker import Asker
from arts_metric.placement.result import PlacementResult, check_budget, finish_result
from arts_metric.placement.streams import CALIBRATION, check_seed, first_sides, text_rng
from arts_metric.pool import Pool


def spread_opponents(pool: Pool, n_matches: int, rng: np.random.Generator) -> np.ndarray:
    """``n_matches`` pool indices spread over the rating range: one drawn at random
    from each of ``n_matches`` equal-size strata of the pool sorted by rating."""
    order = np.argsort(pool.ratings, kind="stable")
    n_matches = min(n_matches, len(pool))
    bounds = np.linspace(0, len(pool), n_matches + 1).astype(int)
    return np.array([order[rng.integers(lo, hi)] for lo, hi in zip(bounds[:-1], bounds[1:])])


def calibration_texts(pool: Pool, k: int) -> np.ndarray:
    """The ``k`` pool texts (indices) whose results against the rest of the pool
    calibrate the judge (placement methods ``adaptive`` and ``mle``): one at each
    ``(i + 0.5) / k`` quantile of the pool's ratings, fixed by the pool (no draw);
    at most a quarter of the pool."""
    k = min(int(k), len(pool) // 4)
    if k <= 0:
        return np.empty(0, dtype=int)
    order = np.argsort(pool.ratings, kind="stable")
    return order[((np.arange(k) + 0.5) / k * len(pool)).astype(int)]


def calibration_schedule(pool: Pool, own: np.ndarray, budget: int, seed: int) -> np.ndarray:
    """``(k, m)`` opponents of the calibration texts ``own``: spread over the rating
    range (:func:`spread_opponents`, from each text's calibration stream), never the
    text itself (``m = min(budget, N - 1)``)."""
    texts = pool.get_texts()
    m = min(budget, len(pool) - 1)
    rows = []
    for j in own:
        rng = text_rng(seed, texts[j], CALIBRATION)
        others = np.delete(np.arange(len(pool)), j)
        order = others[np.argsort(pool.ratings[others], kind="stable")]
        bounds = np.linspace(0, len(order), m + 1).astype(int)
        rows.append(rng.permutation([order[rng.integers(lo, hi)] for lo, hi in zip(bounds[:-1], bounds[1:])]))
    return np.array(rows, dtype=int).reshape(len(own), m)


def _choose_opponents(pool: Pool, texts: Sequence[str], budget: int, opponents: Any, seed: int) -> np.ndarray:
    """``(n, m)`` pool indices each newcomer plays, in playing order.

    ``opponents``: ``"random"`` (``budget`` distinct texts), ``"spread"`` (one per
    rating stratum, :func:`spread_opponents`, in random order), ``"all"`` (every
    pool text in random order) or explicit pool indices ``(m,)`` / ``(n, m)``.
    Each newcomer's draws come from its own generator (:func:`text_rng`), so its
    opponents do not depend on the other texts placed with it.
    """
    size, n = len(pool), len(texts)
    if isinstance(opponents, str):
        if opponents not in ("random", "spread", "all"):
            raise ValueError(
                f"opponents must be 'random', 'spread', 'all' or an array of pool indices, got {opponents!r}"
            )
        rows = []
        for text in texts:
            rng = text_rng(seed, text)
            if opponents == "random":
                rows.append(rng.choice(size, budget, replace=False))
            elif opponents == "spread":
                rows.append(rng.permutation(spread_opponents(pool, budget, rng)))
            else:
                rows.append(rng.permutation(size))
        width = {"random": budget, "spread": min(budget, size), "all": size}[opponents]
        return np.array(rows, dtype=int).reshape(n, width)
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


def play_fixed(
    judge: Judge,
    pool: Pool,
    texts: Sequence[str],
    budget: int | None,
    opponents: Any,
    seed: int,
    calibration: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Asker, tuple[np.ndarray, np.ndarray, np.ndarray] | None]:
    """Choose each newcomer's opponents and have the judge decide every match.

    Returns ``(opps, outcomes, lost, asker, calib)``: ``(n, m)`` pool indices in
    playing order, ``(n, m)`` outcomes from the newcomer's side (NaN = no usable
    answer), ``(n, m)`` True where no answer was obtained, the asker that counted
    the calls, and for ``calibration`` pool texts (indices; see
    :func:`calibration_schedule`) their ``(opps, outcomes, lost)``, asked in the
    same judge call (None without calibration).
    """
    seed = check_seed(seed)
    budget = check_budget(budget, pool)
    opps = _choose_opponents(pool, texts, budget, opponents, seed)
    n, m = opps.shape
    rows = np.repeat(np.arange(n), m)
    first = (first_sides(texts)[rows] + np.tile(np.arange(m), n)) % 2 == 0
    asked_opps = opps.ravel()
    all_texts = list(texts)
    cal_opps = None
    if calibration is not None and len(calibration):
        pool_texts = pool.get_texts()
        cal_opps = calibration_schedule(pool, calibration, budget, seed)
        k, mc = cal_opps.shape
        cal_texts = [pool_texts[j] for j in calibration]
        cal_rows = np.repeat(np.arange(k), mc)
        rows = np.concatenate([rows, n + cal_rows])
        first = np.concatenate([first, (first_sides(cal_texts)[cal_rows] + np.tile(np.arange(mc), k)) % 2 == 0])
        asked_opps = np.concatenate([asked_opps, cal_opps.ravel()])
        all_texts += cal_texts
    asker = Asker(judge, pool, all_texts)
    out, lost = asker.ask(rows, asked_opps, first)
    outcomes, lost_new = out[: n * m].reshape(n, m), lost[: n * m].reshape(n, m)
    calib = None
    if cal_opps is not None:
        calib = (cal_opps, out[n * m :].reshape(cal_opps.shape), lost[n * m :].reshape(cal_opps.shape))
    return opps, outcomes, lost_new, asker, calib


def finish_fixed(
    pool: Pool,
    opps: np.ndarray,
    outcomes: np.ndarray,
    lost: np.ndarray,
    asker: Asker,
    ratings: np.ndarray,
    se: np.ndarray,
    interval: np.ndarray,
    arts_q: np.ndarray,
    method: str,
    level: float,
    info: dict,
) -> PlacementResult:
    """The result of a fixed schedule: every text spent ``m`` calls, its matches
    are the usable outcomes, its ARTS interval maps the Elo ``interval``. A text
    with a match that got no answer is incomplete: NaN everywhere."""
    incomplete = lost.any(axis=1)
    ratings, se, interval, arts_q = (np.array(x, dtype=float) for x in (ratings, se, interval, arts_q))
    ratings[incomplete], se[incomplete], interval[incomplete], arts_q[incomplete] = np.nan, np.nan, np.nan, np.nan
    matches = [
        [(int(j), float(s)) for j, s in zip(o_row, s_row) if not np.isnan(s)] for o_row, s_row in zip(opps, outcomes)
    ]
    return finish_result(
        pool,
        ratings,
        arts_q,
        pool.arts_of_rating(interval),
        interval,
        se,
        asker,
        np.full(len(opps), opps.shape[1]),
        matches,
        method,
        level,
        info=info,
        incomplete=incomplete,
    )
