"""The ``exhaustive`` placement's own numbers (found by mutation testing):
a pointwise judge's ARTS quantiles and interval are those of the soft placement's
distribution (checked exactly, ties included, against a direct computation from
the judge's scores and ``prob_harder``), ``se`` is the interval in normal units,
the invalid / failed / incomplete bookkeeping and the judge calls when pool texts
are scored now, and the pairwise default seed. Toy pools and judges: no ARTS data.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from ladder import ladder_pool
from scipy.special import expit
from scipy.stats import norm
from test_placement_adaptive import RecordingPairJudge
from test_placement_asker import CountingPointwiseJudge, toy_pool
from test_placement_mle import DIFFICULTY, NEWCOMERS, POOL

from arts_metric.judges.base import PointwiseJudge
from arts_metric.placement import QUANTILE_LEVELS, place_exhaustive
from arts_metric.ratings.elo import rating_of_pool_position


class SixteenthsJudge(PointwiseJudge):
    """Integer latent scores; P(a harder) = clip(1/2 + (a - b) / 16, 0, 1): every
    probability is an exact multiple of 1/16, so some equal a quantile level exactly."""

    name = "sixteenths"

    def __init__(self, scores: dict[str, int]) -> None:
        super().__init__()
        self.scores = scores

    def score(self, texts):
        return np.array([float(self.scores[t]) for t in texts])

    def prob_harder(self, score_a, score_b):
        return np.clip(0.5 + (np.asarray(score_a) - np.asarray(score_b)) / 16.0, 0.0, 1.0)


class FlakyPointwiseJudge(CountingPointwiseJudge):
    """Texts in ``lose`` get no answer, texts in ``bad`` an unusable one (NaN, a judgment);
    each text scored counts ``calls_per_score`` = 1 judge call (an LLM asked for a score)."""

    name = "flaky-pointwise"
    calls_per_score = 1

    def __init__(self, lose=(), bad=()) -> None:
        super().__init__(lose)
        self.bad = set(bad)

    def score(self, texts):
        return np.array([np.nan if t in self.bad else s for t, s in zip(texts, super().score(texts))])


def quantile_of_soft_placement(p: list[Fraction], u: Fraction) -> Fraction:
    """The u-quantile (smallest x with P(ARTS <= x) >= u) of ARTS = #{j : p_j > V} / N,
    V ~ Uniform(0, 1): P(ARTS <= k / N) = 1 - (the (k+1)-th largest p_j), 1 for k = N."""
    desc, n = sorted(p, reverse=True) + [Fraction(0)], len(p)
    return next(Fraction(k, n) for k in range(n + 1) if 1 - desc[k] >= u)


def test_quantiles_and_interval_are_those_of_the_soft_placement_ties_included():
    n_pool = 20
    pool = ladder_pool(n_pool, "toy16")
    newcomers = {"easy": 3, "middle": 10, "hard": 17}
    judge = SixteenthsJudge({**{f"pool text {j}": j for j in range(n_pool)}, **newcomers})
    res = place_exhaustive(judge, pool, list(newcomers), level=0.875)  # bounds at 1/16 and 15/16
    for i, s in enumerate(newcomers.values()):
        p = [min(max(Fraction(1, 2) + Fraction(s - b, 16), Fraction(0)), Fraction(1)) for b in range(n_pool)]
        assert res.arts[i] == pytest.approx(float(sum(p) / n_pool), abs=1e-12)  # the distribution's mean
        expected = [float(quantile_of_soft_placement(p, Fraction(2 * k + 1, 80))) for k in range(40)]
        np.testing.assert_array_equal(res.arts_quantiles[i], expected)
        bounds = [float(quantile_of_soft_placement(p, u)) for u in (Fraction(1, 16), Fraction(15, 16))]
        np.testing.assert_array_equal(res.arts_interval[i], bounds)
    assert len(QUANTILE_LEVELS) == 40
    # the ties are real: some p_j equal a level's 1 - u exactly (else this test could not tell > from >=)
    assert 0.5 + (10 - 3) / 16.0 == 1.0 - 0.0625
    np.testing.assert_array_equal(res.ratings, rating_of_pool_position(pool.ratings, res.arts))
    np.testing.assert_array_equal(res.interval, rating_of_pool_position(pool.ratings, res.arts_interval))


def test_se_is_the_interval_width_in_normal_units():
    res = place_exhaustive(CountingPointwiseJudge(), toy_pool(), NEWCOMERS, level=0.9)
    width = res.interval[:, 1] - res.interval[:, 0]
    np.testing.assert_allclose(res.se, width / (2.0 * norm.ppf(0.95)), rtol=1e-12)
    assert np.all(res.se > 0) and np.all(width > 0)
    assert res.sampled is False  # every pool text met: nothing sampled, so no per-text sampling interval


def test_an_invalid_pool_text_is_left_out_and_counted_only_when_scored_now():
    pool, judge = toy_pool(), FlakyPointwiseJudge(bad={"pool text 7"})
    first = place_exhaustive(judge, pool, NEWCOMERS)
    kept = [DIFFICULTY[t] for t in pool.get_texts() if t != "pool text 7"]
    expected = [expit(DIFFICULTY[t] - np.array(kept)).mean() for t in NEWCOMERS]
    np.testing.assert_allclose(first.arts, expected, rtol=1e-12)
    assert first.invalid == 1 and first.failed == 0 and not first.incomplete.any()
    assert first.judge_calls == len(NEWCOMERS) + len(pool) and list(first.calls_per_text) == [1, 1, 1]
    again = place_exhaustive(judge, pool, NEWCOMERS)  # the pool's scores are reused: nothing asked, nothing counted
    assert again.invalid == 0 and again.judge_calls == len(NEWCOMERS)
    np.testing.assert_array_equal(again.arts, first.arts)


def test_an_unanswered_newcomer_is_incomplete_and_an_invalid_one_is_not():
    judge = FlakyPointwiseJudge(lose={"newcomer b"}, bad={"newcomer c"})
    res = place_exhaustive(judge, toy_pool(), NEWCOMERS)
    assert list(res.incomplete) == [False, True, False]
    assert np.isfinite(res.ratings[0]) and np.isnan(res.ratings[1:]).all() and np.isnan(res.arts[1:]).all()
    assert res.failed == 1 and res.invalid == 1
    lost_only = place_exhaustive(FlakyPointwiseJudge(lose={"newcomer a", "newcomer b"}), toy_pool(), NEWCOMERS)
    assert lost_only.failed == 2 and lost_only.invalid == 0  # no answer is not an invalid answer
    assert list(lost_only.incomplete) == [True, True, False]


def test_an_unanswered_pool_text_leaves_every_newcomer_incomplete():
    res = place_exhaustive(FlakyPointwiseJudge(lose={"pool text 3"}), toy_pool(), NEWCOMERS)
    assert res.incomplete.all() and np.isnan(res.ratings).all() and np.isnan(res.arts).all()
    assert np.isnan(res.arts_quantiles).all() and np.isnan(res.interval).all()
    assert res.failed == 1 and res.invalid == 0
    both = place_exhaustive(FlakyPointwiseJudge(lose={"pool text 3", "newcomer a"}), toy_pool(), NEWCOMERS)
    assert both.failed == 2 and both.incomplete.all()


def test_a_pool_without_a_usable_score_places_nobody_and_warns_of_nothing():
    pool = toy_pool()
    judge = FlakyPointwiseJudge(bad=set(pool.get_texts()))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = place_exhaustive(judge, pool, NEWCOMERS)
        none = place_exhaustive(judge, toy_pool(), [])
    assert np.isnan(res.ratings).all() and np.isnan(res.arts_quantiles).all() and not res.incomplete.any()
    assert res.invalid == len(pool) and none.ratings.shape == (0,) and none.invalid == len(pool)


def test_pairwise_exhaustive_defaults_to_seed_0():
    asked = {}
    for seed in (None, 0, 1):
        judge = RecordingPairJudge()
        res = place_exhaustive(judge, POOL, NEWCOMERS, **({} if seed is None else {"seed": seed}))
        asked[seed] = judge.asked
        assert sorted(len(m) for m in res.matches) == [len(POOL)] * 3
    assert asked[None] == asked[0] and asked[1] != asked[0]  # the seed picks the sides


def test_counts_above_counts_by_bisection_what_comparing_every_value_counts():
    from arts_metric.placement.exhaustive import _counts_above

    rng = np.random.default_rng(3)
    ref = np.sort(np.round(rng.normal(0.0, 50.0, 500)))  # sorted pool scores, ties included
    p = expit((rng.normal(0.0, 80.0, 60)[:, None] - ref[None, :]) / 16.0)
    p[3] = rng.random(500)  # a row that does not fall: counted value by value
    p[4, 7] = np.nan
    thresholds = 1.0 - np.array([*QUANTILE_LEVELS, 0.025, 0.975, 0.5])
    direct = np.stack([(p > t).sum(axis=1) for t in thresholds], axis=1)
    np.testing.assert_array_equal(_counts_above(p, thresholds), direct)
    one = p[:, :1]  # a pool of one text
    np.testing.assert_array_equal(
        _counts_above(one, thresholds), np.stack([(one > t).sum(axis=1) for t in thresholds], 1)
    )
