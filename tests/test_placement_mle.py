"""The ``mle`` placement's own numbers (found by mutation testing): its
defaults, the checks of ``calibration``, and that its interval and stored
ARTS quantiles are those of Normal(rating, se) (the Wald interval the
docstring promises). A toy pool and a deterministic pairwise judge: no ARTS data.
"""

from __future__ import annotations

import numpy as np
import pytest
from ladder import ladder_pool
from scipy.stats import norm

from arts_metric.judges.base import Judge
from arts_metric.placement import QUANTILE_LEVELS, place_mle, place_pairwise

N = 40
POOL = ladder_pool(N)
NEWCOMERS = ["newcomer a", "newcomer b", "newcomer c"]
DIFFICULTY = {**{f"pool text {j}": j / 4.0 for j in range(N)}, "newcomer a": 2.0, "newcomer b": 5.5, "newcomer c": 9.0}


class KnownPairJudge(Judge):
    """Deterministic soft answers: P(a harder) = logistic(difficulty(a) - difficulty(b))."""

    name = "known-pair"
    preferred_batch = None

    def compare(self, pairs):
        return [float(1.0 / (1.0 + np.exp(DIFFICULTY[b] - DIFFICULTY[a]))) for a, b in pairs]


def _same(a, b) -> bool:
    return np.array_equal(a.ratings, b.ratings, equal_nan=True) and np.array_equal(a.interval, b.interval)


def test_defaults_seed_0_and_pairwise_16_matches():
    judge = KnownPairJudge()
    assert _same(place_mle(judge, POOL, NEWCOMERS), place_mle(judge, POOL, NEWCOMERS, seed=0))
    pw = place_pairwise(judge, POOL, NEWCOMERS)
    assert _same(pw, place_mle(judge, POOL, NEWCOMERS, budget=16, opponents="spread", slope="elo", seed=0))
    assert list(pw.calls_per_text) == [16] * 3


def test_the_interval_and_quantiles_are_those_of_a_normal_of_the_rating_and_se():
    res = place_mle(KnownPairJudge(), POOL, NEWCOMERS, level=0.9)
    z = norm.ppf(0.95)
    np.testing.assert_allclose(res.interval, np.c_[res.ratings - z * res.se, res.ratings + z * res.se], rtol=1e-12)
    expected = POOL.arts_of_rating(res.ratings[:, None] + res.se[:, None] * norm.ppf(QUANTILE_LEVELS)[None, :])
    np.testing.assert_array_equal(res.arts_quantiles, expected)
    assert res.sampled is True  # the opponents are a sample of the pool
    assert np.all(np.diff(res.arts_quantiles, axis=1) >= 0) and np.all(res.se > 0)


@pytest.mark.parametrize("calibration", [True, 1.5, -1])
def test_calibration_must_be_a_count_of_pool_texts(calibration):
    with pytest.raises(ValueError, match="calibration must be a non-negative integer"):
        place_mle(KnownPairJudge(), POOL, NEWCOMERS, calibration=calibration)
