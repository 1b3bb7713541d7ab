"""Correlations (signed so positive = agrees with humans), bootstrap CIs, Williams' test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from arts_metric.data import load_history, load_pool_rows
from arts_metric.ratings.elo import ratings_from_history
from arts_metric.ratings.stats import bootstrap_ci, correlations, partial_spearman, williams_test
from arts_metric.text.formulas import HIGHER_IS_HARDER, compute_formulas


@pytest.fixture(scope="module")
def synthetic():
    rng = np.random.default_rng(11)
    human = rng.normal(size=120)
    metric = human + rng.normal(scale=1.0, size=120)  # noisy, higher = harder
    return metric, human


def test_signs_follow_directions(synthetic):
    metric, human = synthetic
    base = correlations(metric, human)
    assert base["pearson"] > 0.5 and base["spearman"] > 0.5 and base["kendall"] > 0.3
    assert base["pearson_p"] < 1e-6
    flipped = correlations(-metric, human, metric_higher_is="easier")  # an FRE-like metric
    both = correlations(-metric, -human, metric_higher_is="easier", human_higher_is="easier")
    for key in ("pearson", "spearman", "kendall"):
        assert flipped[key] == pytest.approx(base[key])
        assert both[key] == pytest.approx(base[key])
        assert correlations(-metric, human)[key] == pytest.approx(-base[key])  # raw disagreement
    assert base["pearson"] == pytest.approx(sps.pearsonr(metric, human).statistic)
    assert base["kendall"] == pytest.approx(sps.kendalltau(metric, human).statistic)


def test_fre_agrees_with_humans_once_signed(data_dir):
    rows = load_pool_rows("arts94", data_dir)
    human = ratings_from_history(len(rows), load_history("arts94", "human", "majority", data_dir))
    fre = compute_formulas([r["text"] for r in rows], ["fre"])["fre"]
    assert not HIGHER_IS_HARDER["fre"]
    signed = correlations(fre, human, metric_higher_is="easier")["spearman"]
    assert 0.3 < signed < 0.7  # paper: .52 (textstat's counts differ slightly)
    assert correlations(fre, human)["spearman"] == pytest.approx(-signed)


@pytest.mark.parametrize("stat", ["pearson", "spearman", "kendall"])
def test_bootstrap_ci_contains_the_estimate(synthetic, stat):
    metric, human = synthetic
    estimate = correlations(metric, human)[stat]
    low, high = bootstrap_ci(metric, human, stat=stat, n_resamples=400, seed=3)
    assert low < estimate < high
    assert high - low < 0.5
    assert (low, high) == bootstrap_ci(metric, human, stat=stat, n_resamples=400, seed=3)


def test_bootstrap_ci_is_paired_and_accepts_callables(synthetic):
    metric, human = synthetic
    fn = lambda x, y: sps.spearmanr(x, y).statistic  # noqa: E731
    low, high = bootstrap_ci(metric, human, stat=fn, n_resamples=300, seed=5, method="percentile")
    vec = bootstrap_ci(metric, human, stat="spearman", n_resamples=300, seed=5, method="percentile")
    # same resamples, same statistic: the vectorised Spearman equals scipy's
    assert (low, high) == pytest.approx(vec, abs=1e-12)
    # unpaired resampling would destroy the correlation; a paired CI stays well above 0
    assert low > 0.4


def _williams_by_hand(r12, r13, r23, n):
    k = 1 - r12 * r12 - r13 * r13 - r23 * r23 + 2 * r12 * r13 * r23
    numerator = (r12 - r13) * math.sqrt((n - 1) * (1 + r23))
    denominator = math.sqrt(2 * k * (n - 1) / (n - 3) + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3)
    return numerator / denominator


def test_williams_test_against_hand_computation():
    # r12=.6, r13=.4, r23=.5, n=100: K = .47, t = .2*sqrt(148.5) / sqrt(2*.47*99/97 + .25*.125)
    res = williams_test(0.6, 0.4, 0.5, 100)
    assert res.statistic == pytest.approx(0.2 * math.sqrt(148.5) / math.sqrt(0.94 * 99 / 97 + 0.03125))
    assert res.statistic == pytest.approx(2.448709, abs=1e-6)
    assert res.df == 97
    assert res.pvalue == pytest.approx(sps.t.sf(res.statistic, 97))
    assert res.pvalue < 0.01
    for args in [(0.75, 0.70, 0.8, 60), (0.3, 0.5, 0.2, 30), (0.9, 0.2, -0.1, 500)]:
        assert williams_test(*args).statistic == pytest.approx(_williams_by_hand(*args))


def test_williams_alternatives():
    g = williams_test(0.55, 0.45, 0.6, 80, alternative="greater")
    less = williams_test(0.55, 0.45, 0.6, 80, alternative="less")
    two = williams_test(0.55, 0.45, 0.6, 80, alternative="two-sided")
    assert g.pvalue + less.pvalue == pytest.approx(1.0)
    assert two.pvalue == pytest.approx(2 * min(g.pvalue, less.pvalue))
    swapped = williams_test(0.45, 0.55, 0.6, 80)
    assert swapped.statistic == pytest.approx(-g.statistic)
    assert williams_test(0.5, 0.5, 0.3, 50).statistic == 0.0


def test_validation_errors():
    with pytest.raises(ValueError, match="metric has 3 values but human has 4"):
        correlations([1, 2, 3], [1, 2, 3, 4])
    with pytest.raises(ValueError, match=r"human\[1\] is nan"):
        correlations([1, 2, 3], [1, float("nan"), 3])
    with pytest.raises(ValueError, match="metric is constant"):
        correlations([2, 2, 2, 2], [1, 2, 3, 4])
    with pytest.raises(ValueError, match="at least 3"):
        correlations([1, 2], [2, 1])
    with pytest.raises(ValueError, match="metric_higher_is must be 'harder' or 'simpler'"):
        correlations([1, 2, 3], [1, 2, 3], metric_higher_is="up")
    with pytest.raises(ValueError, match="stat must be one of"):
        bootstrap_ci([1, 2, 3, 4], [1, 3, 2, 4], stat="r2")
    with pytest.raises(ValueError, match=r"metric\[0\] is inf"):
        bootstrap_ci([np.inf, 2, 3, 4], [1, 3, 2, 4])
    with pytest.raises(ValueError, match="r23 must be a correlation"):
        williams_test(0.5, 0.4, 1.2, 50)
    with pytest.raises(ValueError, match="n must be an integer >= 4"):
        williams_test(0.5, 0.4, 0.3, 3)
    with pytest.raises(ValueError, match="cannot come from one data set"):
        williams_test(0.9, -0.9, 0.9, 50)
    with pytest.raises(ValueError, match="alternative must be"):
        williams_test(0.5, 0.4, 0.3, 50, alternative="bigger")


def test_bootstrap_ci_defaults_are_1000_resamples_with_seed_0(synthetic):
    x, y = synthetic[0], synthetic[1]
    assert bootstrap_ci(x, y) == bootstrap_ci(x, y, n_resamples=1000, seed=0)


def test_bootstrap_ci_needs_at_least_one_resample(synthetic):
    x, y = synthetic[0], synthetic[1]
    with pytest.raises(ValueError, match="n_resamples must be >= 1, got 0"):
        bootstrap_ci(x, y, n_resamples=0)
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):  # scipy: no spread from one resample
        low, high = bootstrap_ci(x, y, n_resamples=1, method="percentile")
    assert low == high


def test_williams_test_at_the_edges_of_its_domain():
    # correlations of exactly +-1 are correlations (here K = 0: a boundary, not an impossible set)
    for r12, r13, r23 in [(1.0, 0.5, 0.5), (-1.0, -0.5, 0.5)]:
        assert math.isfinite(williams_test(r12, r13, r23, 50).statistic)
    assert williams_test(0.6, 0.3, 0.4, 4).df == 1  # the smallest n
    with pytest.raises(ValueError, match=r"r12 must be a correlation in \[-1, 1\]"):
        williams_test(-1.5, 0.0, 0.0, 50)
    with pytest.raises(ValueError, match="undefined here"):  # r23 = 1 and r12 = r13: zero variance
        williams_test(0.5, 0.5, 1.0, 50)


def test_one_direction_vocabulary_everywhere():
    """compute(), the systems comparison and the statistics accept the same words:
    "easier" is "simpler" wherever a direction is asked."""
    from arts_metric.ratings.directions import check_direction, harder_up
    from arts_metric.text.checks import check_human_scores

    assert [check_direction(v) for v in ("harder", "simpler", "easier")] == ["harder", "simpler", "simpler"]
    with pytest.raises(
        ValueError, match="human_higher_is must be 'harder' or 'simpler' \\(alias 'easier'\\), got 'up'"
    ):
        check_human_scores([1.0, 2.0, 3.0], 3, "up")
    assert list(check_human_scores([1.0, 2.0, 3.0], 3, "easier")) == [1.0, 2.0, 3.0]
    assert list(harder_up(np.array([1.0, -2.0]), "easier")) == [-1.0, 2.0]


def test_partial_spearman_removes_what_the_covariate_explains():

    rng = np.random.default_rng(0)
    length = rng.normal(size=2000)
    # both follow length only: correlated, but nothing in common beyond length
    a, b = length + 0.3 * rng.normal(size=2000), length + 0.3 * rng.normal(size=2000)
    assert sps.spearmanr(a, b)[0] > 0.8 and abs(partial_spearman(a, b, length)) < 0.08
    # a shared part beyond length survives
    shared = rng.normal(size=2000)
    c, d = length + shared, length + shared + 0.3 * rng.normal(size=2000)
    assert partial_spearman(c, d, length) > 0.9
    # monotone transforms change nothing (ranks)
    assert partial_spearman(np.exp(c), d**3, np.exp(length)) == pytest.approx(partial_spearman(c, d, length))
    with pytest.raises(ValueError, match="one length"):
        partial_spearman([1, 2, 3], [1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match=r"x\[1\] is nan"):
        partial_spearman([1, float("nan"), 3], [1, 2, 3], [1, 2, 3])
