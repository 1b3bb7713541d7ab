"""Elo of ARTS: the published ARTS94 scores from the human majority, and the update rules."""

from __future__ import annotations

import numpy as np
import pytest

from arts_metric.data import load_history, load_pool_rows
from arts_metric.ratings.elo import (
    K_FACTOR,
    START_RATING,
    expected_score,
    rank_scale,
    ratings_from_history,
    run_elo,
    update,
)

# Paper Table 11: texts located at run time by their first words (the texts stay in the
# data folder), with the published ARTS scores.
TABLE_11 = [
    ("She was born in", 0.0215),
    ("Ohio state's library", 0.0538),
    ("Dauenhauer died", 0.2473),
    ("Typically, the biggest", 0.5269),
    ("Executive power", 0.5484),
    ("Its status as an official", 0.7312),
    ("In some mollusks", 0.8925),
]


def _index_by_opening(rows: list[dict], opening: str) -> int:
    hits = [r["index"] for r in rows if r["text"].lstrip(" \"'").startswith(opening)]
    assert len(hits) == 1, f"{opening!r} matches {len(hits)} pool texts"
    return hits[0]


@pytest.fixture(scope="module")
def arts94(data_dir):
    rows = load_pool_rows("arts94", data_dir)
    majority = load_history("arts94", "human", "majority", data_dir)
    return rows, majority


def test_defaults_are_the_papers():
    assert K_FACTOR == 16 and START_RATING == 1200


@pytest.mark.parametrize("opening, published", TABLE_11)
def test_table_11_scores_from_human_majority(arts94, opening, published):
    rows, majority = arts94
    scores = rank_scale(ratings_from_history(len(rows), majority))
    assert round(float(scores[_index_by_opening(rows, opening)]), 4) == published


def test_k_32_changes_a_published_score(arts94):
    rows, majority = arts94
    i = _index_by_opening(rows, "Ohio state's library")
    k16 = rank_scale(ratings_from_history(len(rows), majority, k=16))[i]
    k32 = rank_scale(ratings_from_history(len(rows), majority, k=32))[i]
    assert round(float(k16), 4) == 0.0538 and round(float(k32), 4) == 0.0645


def test_real_history_is_zero_sum(arts94):
    rows, majority = arts94
    ratings = ratings_from_history(len(rows), majority)
    assert ratings.mean() == pytest.approx(START_RATING, abs=1e-9)
    assert ratings.std() > 10  # and the matches did move the ratings


def test_rank_scale_variants():
    ratings = [1300.0, 1100.0, 1200.0, 1250.0, 1150.0]
    np.testing.assert_allclose(rank_scale(ratings), [1.0, 0.0, 0.5, 0.75, 0.25])
    np.testing.assert_allclose(rank_scale(ratings, "published"), [4, 0, 2, 3, 1] / np.float64(4))
    np.testing.assert_allclose(rank_scale(ratings, "paper"), [4, 0, 2, 3, 1] / np.float64(5))
    # ties share the mean of their ranks; the order of the inputs is preserved
    np.testing.assert_allclose(rank_scale([1200, 1200, 1100]), [0.75, 0.75, 0.0])
    assert rank_scale([]).shape == (0,)
    np.testing.assert_allclose(rank_scale([1234.0]), [0.0])
    with pytest.raises(ValueError, match="'published' or 'paper'"):
        rank_scale(ratings, "minmax")


def test_expected_score():
    assert expected_score(1200, 1200) == pytest.approx(0.5)
    assert expected_score(1600, 1200) == pytest.approx(10 / 11)  # 400 points = odds 10:1
    assert expected_score(1310, 1200) + expected_score(1200, 1310) == pytest.approx(1.0)
    np.testing.assert_allclose(expected_score(np.array([1200, 1600]), 1200), [0.5, 10 / 11])


def test_update_math_is_zero_sum():
    assert update(1200, 1200, 1.0) == pytest.approx((1208.0, 1192.0))
    assert update(1200, 1200, 0.0, k=32) == pytest.approx((1184.0, 1216.0))
    e1 = 1 / (1 + 10 ** (-200 / 400))  # 1400 vs 1200
    r1, r2 = update(1400, 1200, 0.0)  # the favourite is judged easier
    assert r1 == pytest.approx(1400 - 16 * e1) and r2 == pytest.approx(1200 + 16 * e1)
    for s in (0.0, 0.3, 1.0):
        a, b = update(1333.0, 1111.0, s)
        assert a + b == pytest.approx(1333.0 + 1111.0)
    assert update(1250, 1150, 0.5)[0] < 1250  # a draw costs the stronger text


def test_none_decisions_are_skipped():
    with_none = [(0, 1, 1.0), (1, 2, None), (2, 0, 0.0), (0, 2, None)]
    without = [(0, 1, 1.0), (2, 0, 0.0)]
    np.testing.assert_array_equal(run_elo(3, with_none), run_elo(3, without))
    assert np.all(run_elo(3, [(0, 1, None)]) == START_RATING)


def test_order_dependence():
    matches = [(0, 1, 1.0), (0, 2, 1.0), (1, 2, 1.0), (2, 0, 1.0)]
    forward = run_elo(3, matches)
    backward = run_elo(3, matches[::-1])
    assert not np.allclose(forward, backward)
    assert forward.sum() == pytest.approx(backward.sum())  # both still zero-sum


def test_frozen_players_do_not_move():
    start = [1300.0, 1100.0, 1200.0, 1200.0]
    frozen = [True, True, False, False]
    matches = [(2, 0, 1.0), (3, 1, 0.0), (0, 1, 1.0), (2, 3, 0.0)]
    ratings = run_elo(4, matches, start=start, frozen=frozen)
    assert ratings[0] == 1300.0 and ratings[1] == 1100.0
    # newcomer 2 beat a 1300 text, then lost to 3: both moves apply to it alone
    r2, _ = update(1200.0, 1300.0, 1.0)
    r3, _ = update(1200.0, 1100.0, 0.0)
    r2b, r3b = update(r2, r3, 0.0)
    np.testing.assert_allclose(ratings[2:], [r2b, r3b])


def test_run_elo_rejects_bad_matches():
    with pytest.raises(ValueError, match=r"match 1: index out of range"):
        run_elo(3, [(0, 1, 1.0), (0, 3, 1.0)])
    with pytest.raises(ValueError, match="cannot play itself"):
        run_elo(3, [(2, 2, 0.0)])
    with pytest.raises(ValueError, match="expected"):
        run_elo(3, [], start=[1200.0, 1200.0])


# -- Bradley-Terry ratings of players who all play each other (systems) ---------------

from arts_metric.ratings.bradley_terry import fit_bradley_terry  # noqa: E402


def _expected_wins(true: np.ndarray, games: float) -> np.ndarray:
    w = games * expected_score(true[:, None], true[None, :])
    np.fill_diagonal(w, 0.0)
    return w


def test_bradley_terry_recovers_known_ratings_anchored_at_1200():
    true = np.array([1050.0, 1180.0, 1240.0, 1330.0])
    ratings, se = fit_bradley_terry(_expected_wins(true, 20000.0))
    np.testing.assert_allclose(ratings, true - true.mean() + START_RATING, atol=0.5)
    assert ratings.mean() == pytest.approx(START_RATING, abs=1e-9)
    assert np.all(se < 3.0)  # 20,000 games per pair: the differences are known to a few points
    few = fit_bradley_terry(_expected_wins(true, 20.0))[1]
    assert np.all(few > 10 * se)


def test_bradley_terry_is_the_maximum_of_the_log_posterior():
    from scipy.optimize import minimize

    wins = np.array([[0.0, 7.0, 3.5], [2.0, 0.0, 6.0], [1.5, 4.0, 0.0]])
    c = np.log(10.0) / 400.0

    def neg_log_posterior(r):
        p = 1.0 / (1.0 + np.exp(-c * (r[:, None] - r[None, :])))
        return -(wins * np.log(p)).sum() + ((r - 1200.0) ** 2).sum() / (2 * 400.0**2)

    best = minimize(neg_log_posterior, np.full(3, 1200.0), method="BFGS", options={"gtol": 1e-10}).x
    np.testing.assert_allclose(fit_bradley_terry(wins)[0], best, atol=1e-3)


def test_bradley_terry_keeps_an_undefeated_player_finite_and_on_top():
    wins = np.array([[0.0, 10.0, 10.0], [0.0, 0.0, 6.0], [0.0, 4.0, 0.0]])
    ratings, se = fit_bradley_terry(wins)
    assert np.all(np.isfinite(ratings)) and np.all(np.isfinite(se))
    assert ratings[0] > ratings[1] > ratings[2] and ratings[0] < 2400.0
    # a weaker prior lets the undefeated player run further away
    assert fit_bradley_terry(wins, prior_sd=4000.0)[0][0] > ratings[0]


def test_bradley_terry_batches_and_soft_wins():
    rng = np.random.default_rng(0)
    batch = rng.uniform(0.0, 5.0, size=(6, 4, 4))
    together = fit_bradley_terry(batch)[0]
    one_by_one = np.array([fit_bradley_terry(w)[0] for w in batch])
    np.testing.assert_allclose(together, one_by_one, atol=1e-8)
    # draws (0.5 each way) and no games at all leave everyone at the anchor
    np.testing.assert_allclose(fit_bradley_terry(np.full((3, 3), 2.5))[0], START_RATING)
    np.testing.assert_allclose(fit_bradley_terry(np.zeros((2, 2)), anchor=1500.0)[0], 1500.0)


def test_bradley_terry_rejects_bad_counts():
    with pytest.raises(ValueError, match="shape"):
        fit_bradley_terry(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"wins\[0, 1\]"):
        fit_bradley_terry(np.array([[0.0, -1.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="prior_sd"):
        fit_bradley_terry(np.zeros((2, 2)), prior_sd=0.0)


# -- Placing newcomers against a frozen pool (these had no fast test of their own) --

from scipy.optimize import minimize_scalar  # noqa: E402
from scipy.special import expit  # noqa: E402

from arts_metric.pool import Pool  # noqa: E402
from arts_metric.ratings.bradley_terry import (  # noqa: E402
    FIT_SLOPES,
    MIN_FIT_DECISIONS,
    bt_loglik,
    bt_loglik_rows,
    fit_mle,
    mle_rating,
    profile_slope,
)
from arts_metric.ratings.elo import elo_sequences, rating_of_expected_score, rating_of_position  # noqa: E402

_C = np.log(10.0) / 400.0
POOL = np.array([1100.0, 1150.0, 1180.0, 1200.0, 1210.0, 1240.0, 1300.0, 1330.0])


def _map_rating(opp, outcomes, slope=1.0, prior_mean=1200.0, prior_sd=400.0, weights=None):
    """The MAP rating by brute force: P(win) = logistic(slope * c * (R - opp)), R ~ N(mean, sd)."""
    opp, s = np.asarray(opp, float), np.asarray(outcomes, float)
    w = np.ones_like(s) if weights is None else np.asarray(weights, float)
    keep = ~np.isnan(s)

    def neg(r):
        p = np.clip(1.0 / (1.0 + np.exp(-slope * _C * (r - opp[keep]))), 1e-300, 1.0)
        q = np.clip(1.0 - p, 1e-300, 1.0)
        return -(w[keep] * (s[keep] * np.log(p) + (1 - s[keep]) * np.log(q))).sum() + (r - prior_mean) ** 2 / (
            2 * prior_sd**2
        )

    r = minimize_scalar(
        neg, bounds=(prior_mean - 4000, prior_mean + 4000), method="bounded", options={"xatol": 1e-7}
    ).x
    h = 1e-3
    curvature = (neg(r + h) - 2 * neg(r) + neg(r - h)) / h**2
    return r, 1.0 / np.sqrt(curvature)


def test_elo_sequences_is_run_elo_against_frozen_opponents():
    opp = np.array([[1100.0, 1300.0, 1250.0, 1180.0], [1330.0, 1150.0, 1200.0, 1210.0]])
    outcomes = np.array([[1.0, 0.0, np.nan, 1.0], [0.0, 0.3, 1.0, np.nan]])
    got = elo_sequences(1200.0, opp, outcomes, k=24.0)
    for row in range(2):
        start = np.r_[1200.0, opp[row]]
        matches = [(0, t + 1, None if np.isnan(s) else s) for t, s in enumerate(outcomes[row])]
        frozen = [False] + [True] * 4
        assert got[row] == pytest.approx(run_elo(5, matches, k=24.0, start=start, frozen=frozen)[0], abs=1e-9)
    assert elo_sequences(1234.0, opp, np.full((2, 4), np.nan)) == pytest.approx([1234.0, 1234.0])


def test_rating_of_position_inverts_the_share_of_the_pool_below():
    pool = Pool(name="p", ids=[str(i) for i in range(len(POOL))], ratings=POOL[::-1])  # any order
    positions = np.linspace(0.0, 1.0, 41)
    ratings = rating_of_position(POOL[::-1], positions)
    assert np.all(np.diff(ratings) >= 0) and ratings[0] < POOL.min() and ratings[-1] > POOL.max()
    np.testing.assert_allclose(pool.arts_of_rating(ratings), positions, atol=1.0 / len(POOL))
    # exactly k pool texts below: halfway between the k-th and (k+1)-th rating
    assert rating_of_position(POOL, [3 / 8])[0] == pytest.approx((1180.0 + 1200.0) / 2)
    gap = (POOL.max() - POOL.min()) / len(POOL)
    assert rating_of_position(POOL, [0.0, 1.0]) == pytest.approx([POOL.min() - gap, POOL.max() + gap])
    assert np.isnan(rating_of_position(POOL, [np.nan])[0])
    flat = rating_of_position(np.full(4, 1200.0), [0.0, 1.0])  # a pool of equal ratings: 1 point apart
    assert flat == pytest.approx([1199.0, 1201.0])
    # ties at either end still span the pool's range (a gap of range / N beyond each end)
    for tied in ([1100.0, 1200.0, 1200.0, 1200.0], [1100.0, 1100.0, 1100.0, 1200.0]):
        assert rating_of_position(np.array(tied), [0.0, 1.0]) == pytest.approx([1075.0, 1225.0])


def test_rating_of_expected_score_is_the_rating_with_that_mean_expected_score():
    shares = np.array([[0.001, 0.1, 0.37], [0.5, 0.8, 0.999]])
    ratings = rating_of_expected_score(POOL, shares)
    assert ratings.shape == shares.shape
    achieved = expected_score(ratings[..., None], POOL).mean(axis=-1)
    np.testing.assert_allclose(achieved, shares, rtol=1e-6)
    assert np.all(np.diff(ratings.ravel()) > 0)
    assert np.isnan(rating_of_expected_score(POOL, [np.nan, 0.5])[0])
    # a pool of one rating: the logit of the share on the Elo scale
    assert rating_of_expected_score([1200.0, 1200.0], [10 / 11])[0] == pytest.approx(1600.0)
    assert np.isfinite(rating_of_expected_score(POOL, [0.0, 1.0])).all()  # clipped, not infinite


def test_mle_rating_is_the_map_rating_with_its_curvature_se():
    opp = np.array([1100.0, 1300.0, 1250.0, 1180.0, 1330.0, 1150.0])
    outcomes = np.array([[1.0, 0.0, 1.0, 1.0, np.nan, 0.4], [0.0, 0.0, 1.0, 0.0, 0.0, 1.0]])
    weights = np.array([[1.0, 2.0, 0.5, 1.0, 1.0, 1.0], [1.0] * 6])
    r, se = mle_rating(opp, outcomes, weights=weights, prior_mean=1210.0, prior_sd=150.0)
    for row in range(2):
        want_r, want_se = _map_rating(opp, outcomes[row], prior_mean=1210.0, prior_sd=150.0, weights=weights[row])
        assert r[row] == pytest.approx(want_r, abs=1e-3) and se[row] == pytest.approx(want_se, rel=1e-3)
    # a weight of 0 drops a match; rows are fitted on their own
    dropped = mle_rating(opp[:5], outcomes[1:, :5])[0]
    assert mle_rating(opp, outcomes[1:], weights=[[1, 1, 1, 1, 1, 0]])[0] == pytest.approx(dropped, abs=1e-6)
    assert mle_rating(opp, outcomes)[0][1] == pytest.approx(mle_rating(opp, outcomes[1:])[0][0], abs=1e-9)
    # all wins: finite, above every opponent, and further up under a weaker prior
    wins = np.ones((1, 6))
    assert opp.max() < mle_rating(opp, wins)[0][0] < mle_rating(opp, wins, prior_sd=4000.0)[0][0] < 1e4
    for sd in (400.0, 1500.0):  # still the exact MAP far out in the tail
        want_r, want_se = _map_rating(opp, wins[0], prior_sd=sd)
        r, se = mle_rating(opp, wins, prior_sd=sd)
        assert r[0] == pytest.approx(want_r, abs=1e-4) and se[0] == pytest.approx(want_se, rel=1e-3)


def test_bt_loglik_is_the_bernoulli_log_likelihood():
    r = np.array([1200.0, 1300.0])
    opp = np.array([[1100.0, 1250.0, 1400.0], [1300.0, 1200.0, 1000.0]])
    s = np.array([[1.0, 0.0, np.nan], [0.25, 1.0, 0.0]])
    p = expected_score(r[:, None], opp)
    want = np.nansum(s * np.log(p) + (1 - s) * np.log(1 - p), axis=1)
    np.testing.assert_allclose(bt_loglik_rows(r, opp, s), want, rtol=1e-12)
    assert bt_loglik(r, opp, s) == pytest.approx(want.sum(), rel=1e-12)


def _steep_results(slope: float, n: int, m: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Results of ``n`` newcomers against ``m`` pool opponents each, from a judge ``slope`` times
    surer than the pool's Elo differences say."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(POOL.min(), POOL.max(), n)
    opp = rng.choice(POOL, size=(n, m))
    p = 1.0 / (1.0 + np.exp(-slope * _C * (truth[:, None] - opp)))
    return truth, opp, (rng.random((n, m)) < p).astype(float)


def test_profile_slope_finds_a_steep_judge_and_needs_twenty_results():
    _, opp, outcomes = _steep_results(8.0, 40, 12)
    found = profile_slope(POOL, opp, outcomes)
    assert found in FIT_SLOPES and 4.0 <= found <= 16.0
    # the likelihood profile peaks there
    center = POOL.mean()
    lls = []
    for b in FIT_SLOPES:
        opp_b = center + b * (opp - center)
        lls.append(bt_loglik(mle_rating(opp_b, outcomes, prior_mean=center)[0], opp_b, outcomes))
    assert found == FIT_SLOPES[int(np.argmax(lls))]
    # a judge that is never wrong: the steepest slope, from exactly 20 results; 19 are not enough
    opp20 = np.tile(np.linspace(1150.0, 1290.0, 10), (2, 1))
    sure = (np.array([[1215.0], [1225.0]]) > opp20).astype(float)
    assert profile_slope(POOL, opp20, sure) == FIT_SLOPES[-1]
    sure[0, 0] = np.nan
    assert profile_slope(POOL, opp20, sure) == 1.0
    _, opp1, flat = _steep_results(1.0, 40, 12, seed=1)
    assert profile_slope(POOL, opp1, flat) <= 2.0  # a judge as sure as the pool's scale


def test_fit_mle_with_a_given_slope_is_the_map_rating_on_the_stretched_scale():
    _, opp, outcomes = _steep_results(4.0, 3, 10)
    outcomes[1, 3] = np.nan
    center = POOL.mean()
    for slope in ("elo", 4.0, 0.5):
        b = 1.0 if slope == "elo" else slope
        r, se, slopes = fit_mle(POOL, opp, outcomes, slope=slope, prior_sd=300.0)
        assert np.all(slopes == b)
        for row in range(3):
            # R ~ N(center, sd / b): the prior is on the stretched rating
            want_r, want_se = _map_rating(opp[row], outcomes[row], slope=b, prior_mean=center, prior_sd=300.0 / b)
            assert r[row] == pytest.approx(want_r, abs=1e-3) and se[row] == pytest.approx(want_se, rel=1e-3)


def test_fit_mle_fits_each_newcomers_slope_from_its_own_results():
    _, opp, outcomes = _steep_results(16.0, 4, 24)
    short = outcomes.copy()
    short[0, MIN_FIT_DECISIONS - 1 :] = np.nan  # one decision short of a slope of its own
    short[1, MIN_FIT_DECISIONS:] = np.nan  # just enough
    r, se, slopes = fit_mle(POOL, opp, short)
    assert slopes[0] == 1.0 and slopes[2] > 2.0 and slopes[3] > 2.0
    for row in range(4):  # the chosen slope is the one under which the row's results are likeliest
        if row > 0:
            ll = {b: _loglik_under_slope(b, opp[row : row + 1], short[row : row + 1]) for b in FIT_SLOPES}
            assert slopes[row] == max(ll, key=ll.get)
    alone = fit_mle(POOL, opp[2:3], short[2:3])
    assert (r[2], se[2], slopes[2]) == pytest.approx((alone[0][0], alone[1][0], alone[2][0]))
    for bad in ("steep", 0.0, -2.0):
        with pytest.raises(ValueError, match="slope must be"):
            fit_mle(POOL, opp, outcomes, slope=bad)


def _loglik_under_slope(b: float, opp: np.ndarray, s: np.ndarray) -> float:
    """Log-likelihood of results at their MAP rating when the pool's scale is stretched ``b`` times."""
    center = POOL.mean()
    opp_b = center + b * (opp - center)
    return float(bt_loglik_rows(mle_rating(opp_b, s, prior_mean=center)[0], opp_b, s)[0])


def test_bradley_terry_rejects_a_batch_of_non_square_tables():
    with pytest.raises(ValueError, match=r"wins must be \(\.\.\., n, n\), got shape \(2, 3, 4\)"):
        fit_bradley_terry(np.zeros((2, 3, 4)))


def test_slope_grid_and_minimum_decisions_are_the_tuned_ones():
    # placement's calibration and benchmarks were measured with these: 1..64 in steps of sqrt(2),
    # and a newcomer's own slope from 8 usable decisions on
    np.testing.assert_allclose(FIT_SLOPES, 2.0 ** (np.arange(13) / 2), rtol=1e-12)
    assert MIN_FIT_DECISIONS == 8


def test_run_elo_names_a_first_index_out_of_range():
    with pytest.raises(ValueError, match=r"match 0: index out of range 0\.\.2: \(3, 0\)"):
        run_elo(3, [(3, 0, 1.0)])


def test_elo_sequences_over_any_leading_axes():
    rng = np.random.default_rng(3)
    opp = rng.uniform(1100.0, 1300.0, size=(2, 3, 5))
    outcomes = rng.integers(0, 2, size=(2, 3, 5)).astype(float)
    got = elo_sequences(1200.0, opp, outcomes)
    assert got.shape == (2, 3)
    flat = elo_sequences(1200.0, opp.reshape(6, 5), outcomes.reshape(6, 5))
    np.testing.assert_allclose(got.ravel(), flat, rtol=1e-12)
    assert got[1, 2] == pytest.approx(elo_sequences(1200.0, opp[1, 2][None], outcomes[1, 2][None])[0])


def test_rank_scale_of_two_and_of_one_text():
    np.testing.assert_allclose(rank_scale([1250.0, 1100.0]), [1.0, 0.0])
    np.testing.assert_allclose(rank_scale([1250.0, 1100.0], method="paper"), [0.5, 0.0])
    np.testing.assert_allclose(rank_scale([1200.0]), [0.0])


def test_bt_loglik_of_a_loss_far_below_is_finite():
    # a newcomer 6000 points above an opponent it lost to: improbable, not impossible
    ll = bt_loglik_rows(np.array([7000.0]), np.array([[1000.0]]), np.array([[0.0]]))
    assert np.isfinite(ll[0]) and ll[0] == pytest.approx(np.log(1e-12), rel=1e-6)


def test_results_that_cannot_tell_slopes_apart_keep_the_nominal_slope():
    # every opponent at the pool's mean: stretching the pool changes nothing, every slope ties
    center = np.full((3, 10), POOL.mean())
    outcomes = np.tile([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0], (3, 1))
    assert profile_slope(POOL, center, outcomes) == 1.0
    assert fit_mle(POOL, center, outcomes)[2] == pytest.approx([1.0, 1.0, 1.0])


def test_profile_slope_keeps_one_for_a_judge_less_sure_than_the_pool():
    _, opp, outcomes = _steep_results(0.3, 40, 12, seed=2)
    assert profile_slope(POOL, opp, outcomes) == 1.0


def test_fit_mle_can_choose_every_slope_of_the_grid():
    # rows whose likeliest slope is 2 (the grid's third point) get it
    found = []
    for seed in range(40):
        _, opp, outcomes = _steep_results(2.0, 1, 30, seed=seed)
        ll = {b: _loglik_under_slope(b, opp, outcomes) for b in FIT_SLOPES}
        if max(ll, key=ll.get) == 2.0:
            found.append((opp, outcomes))
    assert found
    for opp, outcomes in found[:3]:
        assert fit_mle(POOL, opp, outcomes)[2][0] == 2.0


def _neg_log_posterior(r, wins, anchor=1200.0, prior_sd=400.0):
    p = 1.0 / (1.0 + np.exp(-_C * (r[:, None] - r[None, :])))
    return -(wins * np.log(p)).sum() + ((r - anchor) ** 2).sum() / (2 * prior_sd**2)


def test_bradley_terry_se_is_the_posterior_curvature_given_the_mean():
    wins = (
        np.array(
            [
                [0.0, 700.0, 350.0, 90.0],
                [200.0, 0.0, 600.0, 40.0],
                [150.0, 400.0, 0.0, 300.0],
                [60.0, 10.0, 500.0, 0.0],
            ]
        )
        * 100.0
    )
    r, se = fit_bradley_terry(wins)
    # numerical Hessian of the negative log-posterior at the MAP
    h, n = 0.1, len(r)
    hess = np.empty((n, n))
    for i in range(n):
        for j in range(n):

            def f(di, dj):
                x = r.copy()
                x[i] += di
                x[j] += dj
                return _neg_log_posterior(x, wins)

            hess[i, j] = (f(h, h) - f(h, -h) - f(-h, h) + f(-h, -h)) / (4 * h * h)
    cov = np.linalg.inv(hess)
    row = cov.sum(axis=1)
    conditioned = cov - np.outer(row, row) / row.sum()  # the covariance given the mean rating
    np.testing.assert_allclose(se, np.sqrt(np.diag(conditioned)), rtol=1e-3)
    assert se.max() < 1.0  # a hundred thousand games: under one Elo point


def test_bradley_terry_over_two_leading_axes_and_a_tight_prior():
    rng = np.random.default_rng(5)
    wins = rng.uniform(0.0, 6.0, size=(2, 3, 4, 4))
    r, se = fit_bradley_terry(wins)
    assert r.shape == se.shape == (2, 3, 4)
    one = fit_bradley_terry(wins[1, 2])
    np.testing.assert_allclose(r[1, 2], one[0], atol=1e-8)
    np.testing.assert_allclose(se[1, 2], one[1], rtol=1e-8)
    tight = fit_bradley_terry(wins[0, 0], prior_sd=0.5)[0]  # a valid, very confident prior
    assert np.all(np.abs(tight - START_RATING) < 0.5)


def test_rating_of_expected_score_is_exact_for_a_widely_spread_pool():
    from scipy.optimize import brentq

    pool = np.random.default_rng(1).normal(1200.0, 1000.0, 40)
    shares = np.array([0.001, 0.05, 0.3, 0.5, 0.7, 0.95, 0.999])
    roots = [brentq(lambda r: expected_score(r, pool).mean() - s, -1e5, 1e5, xtol=1e-12, rtol=1e-15) for s in shares]
    np.testing.assert_allclose(rating_of_expected_score(pool, shares), roots, rtol=0, atol=1e-8)


def test_profile_slope_takes_even_a_small_gain_in_likelihood():
    """The profile's maximum is taken however little it beats slope 1 by (here < 1 log-unit)."""
    center = POOL.mean()
    cases = []
    for seed in range(60):
        _, opp, outcomes = _steep_results(1.5, 2, 10, seed=seed)
        lls = []
        for b in FIT_SLOPES:
            opp_b = center + b * (opp - center)
            lls.append(bt_loglik(mle_rating(opp_b, outcomes, prior_mean=center)[0], opp_b, outcomes))
        best = int(np.argmax(lls))
        if best > 0 and lls[best] - lls[0] < 1.0:
            cases.append((opp, outcomes, FIT_SLOPES[best]))
    assert cases
    for opp, outcomes, want in cases[:3]:
        assert profile_slope(POOL, opp, outcomes) == want


def _mean_expected_score_roots(pool, shares):
    from scipy.optimize import brentq

    return [brentq(lambda r: expected_score(r, pool).mean() - s, -1e6, 1e6, xtol=1e-12, rtol=1e-15) for s in shares]


def test_rating_of_expected_score_with_one_far_outlier_in_the_pool():
    """Twenty texts near 1000 and one at 5000: shares up to .99 (the outlier not yet reached) are exact."""
    pool = np.concatenate([np.random.default_rng(1).normal(1000.0, 5.0, 20), [5000.0]])
    shares = np.array([1e-9, 1e-6, 0.01, 0.3, 0.5, 0.7, 0.99])
    np.testing.assert_allclose(
        rating_of_expected_score(pool, shares), _mean_expected_score_roots(pool, shares), rtol=0, atol=1e-6
    )


def test_rating_of_expected_score_is_exact_for_pools_with_a_wide_gap():
    outlier = np.concatenate([np.random.default_rng(1).normal(1000.0, 5.0, 20), [5000.0]])
    for pool, shares in [(np.array([0.0, 10000.0]), [0.01, 0.3, 0.7, 0.99]), (outlier, [0.999, 1 - 1e-6])]:
        np.testing.assert_allclose(
            rating_of_expected_score(pool, shares), _mean_expected_score_roots(pool, shares), rtol=0, atol=1e-6
        )


def test_mean_expected_scores_match_the_pairwise_formula_on_both_paths():
    """The factored form (ordinary pools) and the expit form (pools wider than
    ~104,000 Elo) give the means of eq. 1, of its complement and of its derivative."""
    from arts_metric.ratings.elo import _mean_expected_scores

    rng = np.random.default_rng(3)
    # an ordinary pool; one just inside the factored form's span, far from 0 (the
    # factors are centred on its mid-range, or they overflow); one beyond it
    for pool in (
        rng.normal(1200.0, 40.0, 3000),
        np.array([100000.0, 150000.0, 200000.0]),
        np.array([-60000.0, 0.0, 70000.0]),
    ):
        r = np.concatenate(
            [pool.min() - [3600.0, 10.0], rng.uniform(pool.min(), pool.max(), 300), pool.max() + [10.0, 3600.0]]
        )
        e = expit(_C * (r[:, None] - pool[None, :]))  # eq. 1, without overflow
        lose = expit(_C * (pool[None, :] - r[:, None]))  # 1 - e without cancellation
        mean_e, mean_lose, mean_var = _mean_expected_scores(r, pool)
        np.testing.assert_allclose(mean_e, e.mean(axis=1), rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(mean_lose, lose.mean(axis=1), rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(mean_var, (e * lose).mean(axis=1), rtol=1e-12, atol=1e-300)


def test_rating_of_expected_score_is_exact_for_a_pool_wider_than_the_factored_form():
    pool = np.array([-60000.0, 0.0, 70000.0])
    shares = [1e-6, 0.2, 0.5, 0.8, 1 - 1e-6]
    np.testing.assert_allclose(
        rating_of_expected_score(pool, shares), _mean_expected_score_roots(pool, shares), rtol=0, atol=1e-6
    )


def test_rating_of_expected_score_of_a_share_does_not_depend_on_the_others():
    """Bit for bit: each share alone, in a batch spanning several blocks, and reversed."""
    pool = np.random.default_rng(4).normal(1200.0, 40.0, 3000)
    shares = np.random.default_rng(5).uniform(0.0, 1.0, 200)
    batch = rating_of_expected_score(pool, shares)
    assert np.array_equal(rating_of_expected_score(pool, shares[::-1])[::-1], batch)
    assert np.array_equal([rating_of_expected_score(pool, [s])[0] for s in shares], batch)


def test_rating_of_expected_score_is_exact_at_the_extreme_shares():
    """Shares within 1e-9 of 0 or 1 (and 0, 1 themselves, clipped there): the
    rating is the root to 1e-9 Elo (1 - mean E is summed on its own, not as a
    difference from 1, which loses seven digits there)."""
    from scipy.optimize import brentq

    pool = np.random.default_rng(6).normal(1200.0, 40.0, 300)
    shares = np.array([0.0, 1e-9, 1e-7, 1 - 1e-7, 1 - 1e-9, 1.0])
    clipped = np.clip(shares, 1e-9, 1 - 1e-9)
    want = []
    for s in clipped:
        logit = np.log(s) - np.log1p(-s)
        want.append(
            brentq(
                lambda r: np.log(expit(_C * (r - pool)).mean()) - np.log(expit(_C * (pool - r)).mean()) - logit,
                pool.min() - 5000.0,
                pool.max() + 5000.0,
                xtol=1e-12,
                rtol=1e-15,
            )
        )
    np.testing.assert_allclose(rating_of_expected_score(pool, shares), want, rtol=0, atol=1e-9)


def test_team_rating_sums_strengths():
    from arts_metric.ratings.elo import team_rating

    assert team_rating([1234.5]) == pytest.approx(1234.5, abs=1e-9)
    assert team_rating([1200.0, 1200.0]) == pytest.approx(1200.0 + 400.0 * np.log10(2.0), abs=1e-9)
    r = [1100.0, 1350.0, 1200.0]
    assert team_rating(r) == pytest.approx(400.0 * np.log10(sum(10 ** (x / 400.0) for x in r)), abs=1e-9)
    assert team_rating(r) == team_rating(r[::-1])
    assert max(r) < team_rating(r) < max(r) + 400.0 * np.log10(3)
    assert np.isnan(team_rating([1200.0, np.nan]))
    with pytest.raises(ValueError, match="at least one"):
        team_rating([])


def test_mean_expected_score_inverts_rating_of_expected_score():
    from arts_metric.ratings.elo import expected_score, mean_expected_score, rating_of_expected_score

    pool = np.array([1100.0, 1180.0, 1250.0, 1400.0])
    shares = np.array([0.01, 0.3, 0.5, 0.97, np.nan])
    back = mean_expected_score(pool, rating_of_expected_score(pool, shares))
    assert np.allclose(back[:4], shares[:4], atol=1e-10) and np.isnan(back[4])
    assert mean_expected_score(pool, [1300.0])[0] == pytest.approx(np.mean(expected_score(1300.0, pool)), abs=1e-12)


def test_pool_position_is_the_pools_smoothed_rank_share_and_its_inverse_reaches_beyond_it():
    from arts_metric.ratings.elo import pool_position, position_width, rank_scale, rating_of_pool_position

    rng = np.random.default_rng(3)
    pool = 1200.0 + 40.0 * rng.standard_normal(500)
    w = position_width(pool)
    iqr = np.subtract(*np.percentile(pool, [75, 25]))
    silverman = 0.9 * min(pool.std(ddof=1), iqr / 1.34) * 500**-0.2
    assert w == pytest.approx(silverman * np.sqrt(3.0) / np.pi)
    pos = pool_position(pool, pool)
    assert np.max(np.abs(pos - rank_scale(pool))) < 0.05  # within the pool: about the rank share
    shares = np.array([1e-9, 1e-6, 1e-3, 0.25, 0.5, 0.75, 1 - 1e-3, 1 - 1e-6, 1 - 1e-9])
    r = rating_of_pool_position(pool, shares)
    assert np.all(np.diff(r) > 0)
    np.testing.assert_allclose(pool_position(pool, r), shares, rtol=1e-6, atol=0)
    np.testing.assert_allclose(r[3:6], np.percentile(pool, [25, 50, 75]), atol=0.1 * pool.std())
    # beyond the pool's easiest and hardest text, a few widths out, not hundreds of points
    assert pool.min() - 40 * w < r[0] < r[1] < pool.min() and pool.max() < r[-2] < r[-1] < pool.max() + 40 * w
    assert np.isnan(rating_of_pool_position(pool, [np.nan])[0]) and np.isnan(pool_position(pool, [np.nan])[0])
    assert position_width(np.full(5, 1200.0)) == 1.0  # a pool of equal ratings
