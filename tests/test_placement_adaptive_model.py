"""The ``adaptive`` placement's judge model (found by mutation testing): the
family of judge models the calibration recognises, and the grid posterior
(:class:`RankPosterior`: its likelihood, evidence, model weights, model-averaged
posterior and quantiles) and the binary entropy that scores a match, each against
an independent computation with scipy. A toy pool and simulated judges: no ARTS data.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from ladder import ladder_pool
from scipy.special import expit, logsumexp, softmax
from scipy.stats import entropy, uniform

from arts_metric.judges.base import Judge
from arts_metric.placement.adaptive import _calibrate
from arts_metric.placement.opponents import calibration_texts
from arts_metric.placement.rank_posterior import LAPSES, WIDTHS, RankPosterior, binary_entropy

N = 100
POOL = ladder_pool(N, "rank-toy", text="rank text {j}")
POSITION = dict(zip(POOL.texts, POOL.arts_of_rating(POOL.ratings)))  # each pool text's ARTS, (j + 0.5) / N

# The judges the family is built for (module comment: a lapse rate, and a logistic blur
# in ARTS units): from 1% to 40% lapses, from nearly sharp (0.003) to very blurred (0.2).
JUDGE_LAPSES = (0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4)
JUDGE_WIDTHS = (0.003, 0.01, 0.03, 0.08, 0.2)


def _p_harder(lapse: float, width: float, d: np.ndarray) -> np.ndarray:
    """The judge model of the docstring, evaluated directly: P(judged harder) at offset d = z - q."""
    return lapse + (1.0 - 2.0 * lapse) * expit(np.asarray(d, dtype=float) / width)


class ModelJudge(Judge):
    """Soft answers that follow one judge model exactly on the pool's rank scale."""

    name = "model-judge"
    preferred_batch = None

    def __init__(self, lapse: float, width: float) -> None:
        super().__init__()
        self.lapse, self.width = lapse, width

    def compare(self, pairs):
        d = np.array([POSITION[a] - POSITION[b] for a, b in pairs])
        return [float(p) for p in _p_harder(self.lapse, self.width, d)]


def test_the_family_keeps_to_the_documented_ranges():
    assert all(0.0 <= lapse < 0.5 for lapse in LAPSES), LAPSES
    assert all(width > 0.0 for width in WIDTHS), WIDTHS


@pytest.mark.parametrize("lapse, width", list(itertools.product(JUDGE_LAPSES, JUDGE_WIDTHS)))
def test_the_calibration_recognises_a_judge_that_follows_one_model(lapse, width):
    # Soft answers equal to the model's own probabilities: by Gibbs' inequality the
    # expected log-likelihood is largest for exactly that model, however few the results.
    own = calibration_texts(POOL, 25)
    _, lost, log_prior = _calibrate(ModelJudge(lapse, width), POOL, own, 60, 0, LAPSES, WIDTHS, quiet=True)
    models = list(itertools.product(LAPSES, WIDTHS))
    assert not lost and len(log_prior) == len(models)
    assert models[int(np.argmax(log_prior))] == (lapse, width)


def test_entropy_is_the_binary_entropy_in_nats():
    p = np.array([0.0, 1e-15, 0.01, 0.3, 0.5, 0.77, 1.0 - 1e-15, 1.0])
    expected = np.array([entropy([x, 1.0 - x]) for x in p])
    np.testing.assert_allclose(binary_entropy(p), expected, rtol=1e-12, atol=1e-9)


G = 20
CENTRES = (np.arange(G) + 0.5) / G  # the grid's cell centres on [0, 1], computed here
MODELS = list(itertools.product((0.02, 0.2), (0.01, 0.1)))


def test_curve_is_the_model_at_the_cell_centres():
    post = RankPosterior(1, G, (0.02, 0.2), (0.01, 0.1))
    q = np.array([0.0, 0.33, 0.5, 0.95])
    expected = np.array([[_p_harder(lapse, width, CENTRES - qk) for qk in q] for lapse, width in MODELS])
    np.testing.assert_allclose(post.curve(q), expected, rtol=1e-12)


def test_loglik_at_a_known_position_is_the_bernoulli_log_likelihood():
    post = RankPosterior(1, 2, (0.02, 0.2), (0.01, 0.1))
    q = np.array([0.05, 0.3, 0.41, 0.45, 0.6, 0.99])
    s = np.array([1.0, 1.0, 0.8, 0.0, 0.3, 0.0])
    p = np.array([_p_harder(lapse, width, 0.42 - q) for lapse, width in MODELS])
    expected = (s * np.log(p) + (1.0 - s) * np.log1p(-p)).sum(axis=1)
    np.testing.assert_allclose(post.loglik_at(0.42, q, s), expected, rtol=1e-12)


def test_a_lapse_free_model_leaves_every_result_possible():
    # lapse 0 with a sharp blur: far from the text the model is all but certain,
    # yet a single error there must cost a finite log-likelihood, not rule out the position.
    post = RankPosterior(2, G, (0.0,), (0.003,))
    curve = post.curve(np.array([0.0, 1.0]))
    assert np.all(curve > 0.0) and np.all(curve < 1.0)
    error = post.loglik_at(0.9, np.array([0.1]), np.array([0.0]))
    assert np.isfinite(error).all() and error[0] < np.log(1e-6)
    post.update(
        np.array([0, 1]), np.array([0.0, 1.0]), np.array([0.0, 1.0])
    )  # loses to the easiest, beats the hardest
    dist = post.posterior(np.array([0, 1]), post.model_weights(np.array([0, 1])))
    assert np.isfinite(dist).all() and np.all(dist > 0.0)  # surprised, but no position ruled out
    np.testing.assert_allclose(dist.sum(axis=1), 1.0, rtol=0, atol=1e-12)


# Results on positions that are cell edges or centres (no rounding of pool positions):
# (rows, pool positions, the newcomer's result), one update each.
RESULTS = [
    ([0, 1, 2], [0.5, 0.25, 0.8], [1.0, 0.0, 0.7]),
    ([0, 2], [0.75, 0.05], [0.0, 1.0]),
    ([1], [0.1], [1.0]),
    ([0, 1, 2], [0.625, 0.175, 0.825], [1.0, 1.0, 0.0]),
]
PRIOR = np.array([0.1, 0.2, 0.3, 0.4])


def _direct_likelihoods() -> np.ndarray:
    """``(M, rows, G)`` likelihood of each row's results at each cell centre, by direct products."""
    like = np.ones((len(MODELS), 3, G))
    for rows, q, s in RESULTS:
        for r, qk, sk in zip(rows, q, s):
            for m, (lapse, width) in enumerate(MODELS):
                p = _p_harder(lapse, width, CENTRES - qk)
                like[m, r] *= p**sk * (1.0 - p) ** (1.0 - sk)
    return like


def test_update_weights_and_posterior_are_bayes_rule_under_the_model_average():
    post = RankPosterior(3, G, (0.02, 0.2), (0.01, 0.1))
    post.log_prior = np.log(PRIOR)
    for rows, q, s in RESULTS:
        post.update(np.array(rows), np.array(q), np.array(s))
    rows = np.arange(3)
    like = _direct_likelihoods()
    evidence = like.mean(axis=2).T  # (rows, M): uniform prior over the cells
    weights = PRIOR[None, :] * evidence
    weights /= weights.sum(axis=1, keepdims=True)
    assert weights.min() > 1e-6  # none is cut to 0 by the 1e-8 rule
    expected = np.einsum("rm,mrg->rg", weights, like / like.sum(axis=2, keepdims=True))

    w = post.model_weights(rows)
    np.testing.assert_allclose(w, weights, rtol=1e-4)
    dist = post.posterior(rows, w)
    np.testing.assert_allclose(dist, expected, rtol=1e-4, atol=1e-12)
    np.testing.assert_allclose(dist.sum(axis=1), 1.0, rtol=0, atol=1e-13)


def test_model_weights_survive_a_long_run_of_contradictory_answers():
    # 160 pairs of answers that no position explains (harder than 0.95, easier than 0.05):
    # each model's evidence falls to about exp(-390), yet the weights stay a distribution.
    lapses, width, pairs = (0.1, 0.11), 0.003, 160
    post = RankPosterior(1, G, lapses, (width,))
    for _ in range(pairs):
        post.update(np.array([0]), np.array([0.95]), np.array([1.0]))
        post.update(np.array([0]), np.array([0.05]), np.array([0.0]))
    log_like = np.array(
        [
            pairs
            * (np.log(_p_harder(lapse, width, CENTRES - 0.95)) + np.log1p(-_p_harder(lapse, width, CENTRES - 0.05)))
            for lapse in lapses
        ]
    )
    assert logsumexp(log_like, axis=1).max() < -370  # exp(2 x this) underflows: a real test of the scaling
    expected = softmax(logsumexp(log_like, axis=1))
    w = post.model_weights(np.array([0]))
    assert np.isfinite(w).all()
    np.testing.assert_allclose(w[0], expected, rtol=1e-3)
    dist = post.posterior(np.array([0]), w)
    assert np.isfinite(dist).all() and abs(dist.sum() - 1.0) < 1e-12


LEVELS = (0.01, 0.025, 0.3, 0.5, 0.9, 0.975)


def test_quantiles_of_a_uniform_posterior_are_the_levels():
    post = RankPosterior(1, 4, (0.1,), (0.1,))
    q = post.quantiles(np.full((1, 4), 0.25), LEVELS)
    np.testing.assert_allclose(q[0], uniform.ppf(LEVELS), rtol=1e-12)


def test_quantiles_below_a_gap_are_the_smallest_positions_reaching_the_level():
    # Half the mass on [0, 0.25], half on [0.75, 1]: up to level 0.5 the quantile is that
    # of Uniform(0, 0.25) at twice the level; at 0.5 it is where the CDF first reaches 0.5.
    post = RankPosterior(1, 4, (0.1,), (0.1,))
    levels = (0.05, 0.2, 0.5)
    q = post.quantiles(np.array([[0.5, 0.0, 0.0, 0.5]]), levels)
    np.testing.assert_allclose(q[0], uniform(0.0, 0.25).ppf(2.0 * np.array(levels)), rtol=1e-12)


def test_quantiles_of_a_single_cell_are_those_of_that_cell():
    post = RankPosterior(1, 4, (0.1,), (0.1,))
    q = post.quantiles(np.array([[0.0, 0.0, 1.0, 0.0]]), LEVELS)
    np.testing.assert_allclose(q[0], uniform(0.5, 0.25).ppf(LEVELS), rtol=1e-12)


def test_quantiles_above_a_gap_lie_in_the_cell_with_the_mass():
    post = RankPosterior(1, 4, (0.1,), (0.1,))
    levels = np.array([0.6, 0.75, 0.975])
    q = post.quantiles(np.array([[0.5, 0.0, 0.0, 0.5]]), levels)
    np.testing.assert_allclose(q[0], uniform(0.75, 0.25).ppf(2.0 * levels - 1.0), rtol=1e-12)
