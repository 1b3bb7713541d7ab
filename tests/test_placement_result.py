"""What every placement method returns and the checks they share
(``placement/result``, found by mutation testing): the stored
quantile levels, the default budget, the level and budget checks, the central
interval's bounds, ``incomplete`` as each method reports it, and the result of
placing no texts. A toy pool and deterministic judges: no ARTS data.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_placement_adaptive import RecordingPairJudge
from test_placement_mle import NEWCOMERS, POOL, KnownPairJudge

from arts_metric.placement import METHODS, QUANTILE_LEVELS, place
from arts_metric.placement.result import default_budget, interval_bounds


def test_quantile_levels_are_the_midpoints_of_equal_probability_bins():
    k = len(QUANTILE_LEVELS)
    np.testing.assert_allclose(np.diff(QUANTILE_LEVELS), 1.0 / k)
    np.testing.assert_allclose(QUANTILE_LEVELS + QUANTILE_LEVELS[::-1], 1.0)  # symmetric about the median
    assert 0.0 < QUANTILE_LEVELS[0] < QUANTILE_LEVELS[-1] < 1.0


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 17, 300, 3000])
def test_default_budget_is_ceil_2_log2_of_the_pool_size(size):
    assert default_budget(size) == math.ceil(2.0 * math.log2(max(size, 2)))


@pytest.mark.parametrize("level", [0.5, 0.9, 0.95])
def test_bounds_are_the_central_interval_at_level(level):
    lo, hi = interval_bounds(level)
    assert lo == pytest.approx((1.0 - level) / 2.0) and hi == pytest.approx((1.0 + level) / 2.0)


@pytest.mark.parametrize("level", [0.0, 1.0, 1.5, -0.2])
def test_a_level_outside_0_1_is_refused(level):
    with pytest.raises(ValueError, match=r"level must be in \(0, 1\)"):
        place(KnownPairJudge(), POOL, NEWCOMERS, method="mle", level=level)


@pytest.mark.parametrize("budget", [0, -3, True, 2.0])
def test_a_budget_that_is_not_a_positive_count_is_refused(budget):
    with pytest.raises(ValueError, match="budget must be a positive integer"):
        place(KnownPairJudge(), POOL, NEWCOMERS, method="mle", budget=budget)


def test_a_budget_of_one_call_is_allowed():
    res = place(KnownPairJudge(), POOL, NEWCOMERS, method="mle", budget=1, calibration=0)
    assert list(res.calls_per_text) == [1, 1, 1]


@pytest.mark.parametrize("method", ["elo", "mle", "adaptive", "exhaustive"])
def test_every_method_reports_which_texts_are_incomplete(method):
    complete = place(KnownPairJudge(), POOL, NEWCOMERS, method=method)
    assert complete.incomplete.dtype == bool and list(complete.incomplete) == [False, False, False]
    options = {"lapse": 0.05, "width": 0.03} if method == "adaptive" else {}
    res = place(RecordingPairJudge(fail_with={"newcomer b"}), POOL, NEWCOMERS, method=method, **options)
    assert list(res.incomplete) == [False, True, False]
    assert np.isnan(res.ratings[1]) and np.isfinite(res.ratings[[0, 2]]).all()


@pytest.mark.parametrize("method", METHODS)
def test_placing_no_texts_costs_nothing_and_has_the_shapes_of_zero_texts(method):
    res = place(KnownPairJudge(), POOL, [], method=method)
    assert (res.judge_calls, res.invalid, res.failed) == (0, 0, 0)
    assert res.method == method
    assert res.ratings.shape == res.se.shape == res.arts.shape == (0,)
    assert res.calls_per_text.shape == res.incomplete.shape == (0,)
    assert res.interval.shape == res.arts_interval.shape == (0, 2)
    assert res.arts_quantiles.shape == (0, len(QUANTILE_LEVELS))
