"""The ``elo`` placement's settings and bootstrap (found by mutation testing):
its defaults, the checks of ``k`` and ``bootstrap``, that ``se`` is
the replicates' standard deviation (ddof = 1), what zero, one and two resamples
give, and that a resample can draw every match. A toy pool and a deterministic
pairwise judge: no ARTS data.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from test_placement_mle import NEWCOMERS, POOL, KnownPairJudge

from arts_metric.placement import QUANTILE_LEVELS, place_elo


def _same(a, b) -> bool:
    return all(
        np.array_equal(x, y, equal_nan=True)
        for x, y in [
            (a.ratings, b.ratings),
            (a.interval, b.interval),
            (a.se, b.se),
            (a.arts_quantiles, b.arts_quantiles),
        ]
    )


def test_defaults_are_200_resamples_and_seed_0():
    judge = KnownPairJudge()
    default = place_elo(judge, POOL, NEWCOMERS)
    assert _same(default, place_elo(judge, POOL, NEWCOMERS, bootstrap=200, seed=0))
    # each setting shows in the result, so the comparison above can fail
    assert not _same(default, place_elo(judge, POOL, NEWCOMERS, bootstrap=201, seed=0))
    assert not _same(default, place_elo(judge, POOL, NEWCOMERS, bootstrap=200, seed=1))


@pytest.mark.parametrize("k", [0, 0.0, -16.0])
def test_k_must_be_positive(k):
    with pytest.raises(ValueError, match=f"k must be > 0, got {k!r}"):
        place_elo(KnownPairJudge(), POOL, NEWCOMERS, k=k)


def test_a_small_k_moves_less_than_the_default():
    small = place_elo(KnownPairJudge(), POOL, NEWCOMERS, k=0.5, bootstrap=0)
    default = place_elo(KnownPairJudge(), POOL, NEWCOMERS, bootstrap=0)
    assert small.info["k"] == 0.5 and np.isfinite(small.ratings).all()
    assert np.all(np.abs(small.ratings - 1200.0) < np.abs(default.ratings - 1200.0))


@pytest.mark.parametrize("bootstrap", [True, -1, 1.5])
def test_bootstrap_must_be_a_non_negative_integer(bootstrap):
    with pytest.raises(ValueError, match=f"bootstrap must be a non-negative integer, got {bootstrap!r}"):
        place_elo(KnownPairJudge(), POOL, NEWCOMERS, bootstrap=bootstrap)


def test_no_resamples_give_no_interval_and_the_point_score_at_every_level():
    res = place_elo(KnownPairJudge(), POOL, NEWCOMERS, bootstrap=0)
    assert res.interval.shape == (3, 2) and np.isnan(res.interval).all() and np.isnan(res.se).all()
    assert np.isfinite(res.ratings).all()
    expected = np.repeat(POOL.arts_of_rating(res.ratings)[:, None], len(QUANTILE_LEVELS), axis=1)
    np.testing.assert_array_equal(res.arts_quantiles, expected)
    assert place_elo(KnownPairJudge(), POOL, [], bootstrap=0).ratings.shape == (0,)


def test_one_resample_has_no_standard_deviation_and_warns_of_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = place_elo(KnownPairJudge(), POOL, NEWCOMERS, bootstrap=1)
    assert np.isnan(res.se).all() and np.isfinite(res.interval).all()
    np.testing.assert_array_equal(res.interval[:, 0], res.interval[:, 1])  # one replicate: both bounds


def test_se_is_the_standard_deviation_of_the_replicates_with_ddof_1():
    # Two replicates r1 <= r2: the interval at level L runs from r1 + (1 - L) / 2 * d to
    # r1 + (1 + L) / 2 * d (linear interpolation), d = r2 - r1, and std(ddof=1) = d / sqrt(2).
    level = 0.5
    res = place_elo(KnownPairJudge(), POOL, NEWCOMERS, bootstrap=2, level=level)
    d = (res.interval[:, 1] - res.interval[:, 0]) / level
    assert np.all(d > 0)
    np.testing.assert_allclose(res.se, d / np.sqrt(2.0), rtol=1e-9)
    many = place_elo(KnownPairJudge(), POOL, NEWCOMERS)
    assert np.all(np.isfinite(many.se) & (many.se > 0))


def test_a_resample_of_a_single_match_replays_that_match():
    res = place_elo(KnownPairJudge(), POOL, NEWCOMERS, budget=1, bootstrap=20)
    assert all(len(m) == 1 for m in res.matches)
    np.testing.assert_allclose(res.interval, np.c_[res.ratings, res.ratings], rtol=0, atol=1e-9)
    np.testing.assert_allclose(res.se, 0.0, atol=1e-9)
