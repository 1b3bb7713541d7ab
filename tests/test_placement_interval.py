"""The interval of a system's mean ARTS score (``placement.system_interval``), checked
against values known exactly (found by mutation testing: weights,
resampling, the quantile draws and the normal approximation of results without
quantiles were not pinned by any test). A pool of its own: no ARTS data needed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from ladder import ladder_pool

from arts_metric.placement import QUANTILE_LEVELS, PlacementResult, system_interval

POOL = ladder_pool(100, "evenly-spaced", text=None)
LEVELS = np.asarray(QUANTILE_LEVELS)


def _result(quantiles=None, ratings=None, interval=None) -> PlacementResult:
    n = len(quantiles) if quantiles is not None else len(ratings)
    ratings = np.full(n, 1500.0) if ratings is None else np.asarray(ratings, dtype=float)
    return PlacementResult(
        ratings=ratings,
        se=np.zeros(n),
        arts_quantiles=None if quantiles is None else np.asarray(quantiles),
        interval=None if interval is None else np.asarray(interval, dtype=float),
    )


def _points(values) -> np.ndarray:
    """Quantile rows of texts whose scores are known exactly."""
    return np.repeat(np.asarray(values, dtype=float)[:, None], len(LEVELS), axis=1)


def test_known_scores_give_exactly_their_weighted_mean():
    res = _result(_points([0.2, 0.5, 0.9]))
    for draws in (10, 2000):
        lo, hi = system_interval(res, POOL, weights=[1, 2, 5], resample_texts=False, draws=draws)
        assert lo == pytest.approx(0.7125, abs=1e-12) and hi == pytest.approx(0.7125, abs=1e-12)
    # units: text 0 = rows 0 and 1 weighted 1:3, text 1 = row 2 (a zero-weight unit adds nothing)
    lo, hi = system_interval(res, POOL, units=[[0, 1], [2, 0]], unit_weights=[[1, 3], [2, 0]], resample_texts=False)
    assert lo == pytest.approx((0.425 + 0.9) / 2, abs=1e-12) and hi == pytest.approx(lo, abs=1e-12)


def test_many_texts_are_drawn_in_blocks_without_losing_a_draw():
    values = np.linspace(0.0, 1.0, 2500)  # 2500 texts: the 2000 draws come in several blocks
    lo, hi = system_interval(_result(_points(values)), POOL, resample_texts=False)
    assert lo == pytest.approx(values.mean(), abs=1e-12) and hi == pytest.approx(values.mean(), abs=1e-12)


def test_resampling_two_known_texts_spans_both():
    """Two texts scored 0 and 1 exactly: a resampled mean is 0, 1/2 or 1 (1/4, 1/2, 1/4)."""
    lo, hi = system_interval(_result(_points([0.0, 1.0])), POOL, level=0.9)
    assert (lo, hi) == (0.0, 1.0)
    # a text of weight 0 changes nothing, even when only it is drawn
    lo, hi = system_interval(_result(_points([0.0, 1.0, 0.5])), POOL, weights=[1, 1, 0], level=0.9)
    assert (lo, hi) == (0.0, 1.0)


def test_texts_without_a_score_are_left_out():
    q = _points([0.2, 0.6, 0.4])
    q[2] = np.nan
    res = _result(q)
    assert system_interval(res, POOL, resample_texts=False) == pytest.approx((0.4, 0.4), abs=1e-12)
    # a text whose only scored unit has another unscored one next to it keeps the scored one
    assert system_interval(res, POOL, units=[[0, 2], [1]], resample_texts=False) == pytest.approx(
        (0.4, 0.4), abs=1e-12
    )
    assert system_interval(res, POOL, units=[[2], [0]], resample_texts=False) == pytest.approx((0.2, 0.2), abs=1e-12)


@pytest.mark.parametrize("level", [0.95, 0.99])
def test_one_texts_draws_follow_its_quantiles(level):
    """A text whose quantile at level p is p (uniform on the stored levels, ends at .0125
    and .9875): the interval of the mean of that one text is its own central interval."""
    expected = np.clip([(1 - level) / 2, (1 + level) / 2], LEVELS[0], LEVELS[-1])
    lo, hi = system_interval(_result(LEVELS[None, :]), POOL, resample_texts=False, draws=40000, level=level)
    assert (lo, hi) == pytest.approx(tuple(expected), abs=0.006)


def test_a_result_without_quantiles_uses_a_normal_of_its_interval():
    # rating 1495 sits at ARTS .5; its interval 1395..1595 is .4 to .6 on the ARTS scale
    res = _result(ratings=[1495.0], interval=[[1395.0, 1595.0]])
    assert system_interval(res, POOL, resample_texts=False, draws=40000) == pytest.approx((0.4, 0.6), abs=0.006)
    # near the top the normal is cut at 1
    top = _result(ratings=[1985.0], interval=[[1885.0, 2085.0]])
    assert system_interval(top, POOL, resample_texts=False, draws=40000)[1] <= 1.0
    # without an interval either: the score itself
    assert system_interval(_result(ratings=[1495.0]), POOL, resample_texts=False) == (0.5, 0.5)


def test_defaults_are_2000_draws_with_seed_0():
    res = _result(LEVELS[None, :].repeat(3, axis=0))
    assert system_interval(res, POOL) == system_interval(res, POOL, draws=2000, seed=0)


def test_bad_draws_and_units_are_named():
    res = _result(_points([0.2, 0.5, 0.9]))
    for draws in (5, 20.0, True):
        with pytest.raises(ValueError, match="draws must be an integer >= 10"):
            system_interval(res, POOL, draws=draws)
    with pytest.raises(ValueError, match=r"text 1: unit 3 is not a result row \(0\.\.2\)"):
        system_interval(res, POOL, units=[[0], [3]])
    for weight in (math.inf, -1.0):
        with pytest.raises(ValueError, match="text 0: unit weight .* is not a finite non-negative number"):
            system_interval(res, POOL, units=[[0]], unit_weights=[[weight]])
    assert math.isfinite(system_interval(res, POOL, units=[[0, 1]], unit_weights=[[0.5, 0.0]])[0])


@pytest.mark.parametrize("resample", [True, False])
def test_rows_no_text_uses_do_not_change_the_interval(resample):
    """Rows placed alongside the system's texts (a call's sources), a unit of weight 0
    and a text of weight 0 draw nothing: the interval is the one without them, exactly."""
    rng = np.random.default_rng(7)
    q = np.sort(rng.uniform(0.0, 1.0, (6, len(LEVELS))), axis=1)
    own = system_interval(_result(q[:3]), POOL, resample_texts=resample)
    assert own[0] < own[1]
    assert system_interval(_result(q), POOL, units=[[0], [1], [2]], resample_texts=resample) == own
    assert (
        system_interval(
            _result(q[[3, 0, 4, 1, 2]]),
            POOL,
            units=[[1], [3], [4, 2]],
            unit_weights=[[1], [1], [1, 0]],
            resample_texts=resample,
        )
        == own
    )
    assert (
        system_interval(
            _result(q[[0, 1, 5, 2]]), POOL, units=[[0], [1], [2], [3]], weights=[1, 1, 0, 1], resample_texts=resample
        )
        == own
    )


def test_texts_known_exactly_resample_the_texts_their_uncertain_neighbours_would():
    """Rows whose quantiles are all equal draw their value without interpolating, yet use
    the same random stream: nearly equal quantiles give nearly the same interval."""
    values = np.random.default_rng(5).random(300)
    exact = system_interval(_result(_points(values)), POOL, seed=7)
    almost = _points(values)
    almost[:, -1] += 1e-12
    near = system_interval(_result(almost), POOL, seed=7)
    assert exact != system_interval(_result(_points(values)), POOL, seed=8)
    np.testing.assert_allclose(exact, near, atol=1e-11)
