"""Elo of ARTS: the published ARTS94 scores from the human majority, and the update rules."""

from __future__ import annotations

import numpy as np
import pytest

from arts_metric.data import load_history, load_pool_rows
from arts_metric.elo import (
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

from arts_metric.elo import fit_bradley_terry  # noqa: E402


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
