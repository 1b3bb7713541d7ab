"""Agreement measures: the paper's Krippendorff alphas, Elo agreement with humans,
majority votes, kappa and percent agreement."""

from __future__ import annotations

import numpy as np
import pytest

from arts_metric.data import Match, load_history, load_pool_rows
from arts_metric.ratings.agreement import (
    code_decisions,
    cohen_kappa,
    decision_matrix,
    krippendorff_alpha,
    majority_vote,
    percent_agreement,
)
from arts_metric.ratings.elo import ratings_from_history
from arts_metric.ratings.stats import correlations

GPT4 = "gpt-4-1106-preview"


def _runs(data_dir, prefix: str) -> list[list[Match]]:
    return [load_history("arts160", GPT4, f"{prefix}-{x}", data_dir) for x in "ABC"]


@pytest.mark.parametrize(
    "persona, published",
    [("medical", 0.9333), ("legislative-administration", 0.9459), ("philosophy", 0.9146), ("geography", 0.9563)],
)
def test_persona_alphas_reproduce_the_paper(data_dir, persona, published):
    assert round(krippendorff_alpha(_runs(data_dir, persona)), 4) == published


def test_overall_arts160_alpha(data_dir):
    # Paper 5.4: .8831 "for the twelve GPT annotations". From the released runs it comes
    # out exactly when the three no-persona runs are included (15 runs); the 12 persona
    # runs alone give .9024.
    personas = ["medical", "legislative-administration", "philosophy", "geography"]
    twelve = [h for p in personas for h in _runs(data_dir, p)]
    fifteen = twelve + _runs(data_dir, "no-domain")
    assert round(krippendorff_alpha(fifteen), 4) == 0.8831
    assert krippendorff_alpha(twelve) > krippendorff_alpha(fifteen)


def test_human_alpha_is_moderate(data_dir):
    # The paper reports .4231 for the 16 ARTS94 raters; the released rater files give
    # .4504 under the same coding that reproduces the persona alphas exactly. Both are
    # "moderate" agreement (.41-.60), far below the GPT-4 runs.
    raters = [load_history("arts94", "human", f"rater{i:02d}", data_dir) for i in range(1, 17)]
    alpha = krippendorff_alpha(raters)
    assert 0.41 <= alpha <= 0.60
    assert abs(alpha - 0.4231) < 0.03


def test_gpt4_elo_agrees_with_human_majority(data_dir):
    n = len(load_pool_rows("arts94", data_dir))
    human = ratings_from_history(n, load_history("arts94", "human", "majority", data_dir))
    gpt4 = ratings_from_history(n, load_history("arts94", GPT4, "pairwise-run1", data_dir))
    rho = correlations(gpt4, human)["spearman"]
    assert 0.78 <= rho <= 0.82  # paper Table 3: .7949


def test_majority_of_human_raters_matches_the_released_majority(data_dir):
    raters = [load_history("arts94", "human", f"rater{i:02d}", data_dir) for i in range(1, 17)]
    released = code_decisions(load_history("arts94", "human", "majority", data_dir))
    ours = code_decisions(majority_vote(raters, seed=0))
    votes = decision_matrix(raters).sum(axis=0)
    clear = votes != 8  # the 16 raters were not split evenly
    # The released majority disagrees with the raters' own vote on a few clear matches
    # (21 of 360), so we require broad, not total, agreement.
    assert np.mean(ours[clear] == released[clear]) > 0.9
    np.testing.assert_array_equal(ours[clear], (votes[clear] > 8).astype(float))


def test_majority_vote_ties_are_seeded():
    # 40 matches, two raters who always disagree: every match is a tie.
    r1 = np.tile([1.0, 0.0], 20)
    r2 = 1.0 - r1
    a = majority_vote([r1, r2], seed=7)
    assert np.array_equal(a, majority_vote([r1, r2], seed=7))
    assert not np.array_equal(a, majority_vote([r1, r2], seed=8))
    assert set(np.unique(a)) == {0.0, 1.0}


def test_majority_vote_clear_wins_and_missing_answers():
    raters = [[1, 0, None, 1, None], [1, 0, None, 0, 1], [0, 0, None, 1, None]]
    for seed in range(5):  # no tie here: the seed must not matter
        out = majority_vote(raters, seed=seed)
        np.testing.assert_array_equal(out, [1.0, 0.0, np.nan, 1.0, 1.0])


def test_majority_vote_on_histories_returns_a_history():
    sched = [(0, 1), (2, 3), (1, 2)]
    h1 = [Match(i, a, b, w) for i, ((a, b), w) in enumerate(zip(sched, [0, 3, None]))]
    h2 = [Match(i, a, b, w) for i, ((a, b), w) in enumerate(zip(sched, [0, 2, None]))]
    h3 = [Match(i, a, b, w) for i, ((a, b), w) in enumerate(zip(sched, [1, 3, None]))]
    out = majority_vote([h1, h2, h3], seed=0)
    assert [(m.match, m.a, m.b) for m in out] == [(0, 0, 1), (1, 2, 3), (2, 1, 2)]
    assert [m.harder for m in out] == [0, 3, None]


def test_percent_agreement_and_kappa_by_hand():
    r1 = [1, 1, 0, 0, 1, 0, 1, 1]
    r2 = [1, 0, 0, 0, 1, 1, 1, 1]
    assert percent_agreement([r1, r2]) == pytest.approx(6 / 8)
    # p_o = 6/8, p_e = (5/8)^2 + (3/8)^2 = 34/64  ->  kappa = (48/64 - 34/64) / (30/64)
    assert cohen_kappa(r1, r2) == pytest.approx(14 / 30)
    assert cohen_kappa(r1, r1) == pytest.approx(1.0)
    assert np.isnan(cohen_kappa([1, 1, 1], [1, 1, 1]))  # one label only: kappa undefined
    # three raters, one answer missing: pairs (1,2) 4/4, (1,3) 2/3, (2,3) 2/3 -> 8/10
    three = [[1, 0, 1, 1], [1, 0, 1, 1], [1, 0, None, 0]]
    assert percent_agreement(three) == pytest.approx(8 / 10)
    # kappa drops matches either rater left unanswered
    assert cohen_kappa([1, 0, None, 1], [1, 0, 1, None]) == pytest.approx(1.0)


def test_krippendorff_alpha_by_hand():
    # coincidences: o11 = 2, o10 = o01 = 1, o00 = 4; n1 = 3, n0 = 5, n = 8
    # alpha = 1 - (n - 1) * (o10 + o01) / (2 * n1 * n0) = 1 - 7 * 2 / 30
    assert krippendorff_alpha([[1, 1, 0, 0], [1, 0, 0, 0]]) == pytest.approx(1 - 14 / 30)
    assert krippendorff_alpha(np.array([[1, 0, 1], [1, 0, 1]])) == pytest.approx(1.0)


def test_code_decisions():
    h = [Match(0, 4, 5, 4), Match(1, 4, 5, 5), Match(2, 4, 5, None)]
    np.testing.assert_array_equal(code_decisions(h), [1.0, 0.0, np.nan])


def test_bad_inputs_are_named():
    h1 = [Match(0, 1, 2, 1), Match(1, 3, 4, 3)]
    h2 = [Match(0, 1, 2, 2), Match(1, 4, 3, 3)]
    with pytest.raises(ValueError, match=r"rater 1, match 1: pair \(4, 3\)"):
        krippendorff_alpha([h1, h2])
    with pytest.raises(ValueError, match="rater 1 has 1 decisions"):
        percent_agreement([h1, h2[:1]])
    with pytest.raises(ValueError, match=r"rater 0, match 2: decision 2"):
        majority_vote([[1, 0, 2], [1, 0, 1]])
    with pytest.raises(ValueError, match="different numbers"):
        percent_agreement([[1, 0], [1, 0, 1]])
    with pytest.raises(ValueError, match="do not mix"):
        decision_matrix([[1, 0], h1])
    with pytest.raises(ValueError, match="at least two raters"):
        krippendorff_alpha([[1, 0, 1]])
    with pytest.raises(ValueError, match="same code"):
        krippendorff_alpha([[1, 1], [1, 1]])
    with pytest.raises(ValueError, match="no answered match in common"):
        cohen_kappa([1, None], [None, 0])


def test_majority_vote_default_seed_is_zero():
    r1 = np.tile([1.0, 0.0], 20)
    assert np.array_equal(majority_vote([r1, 1.0 - r1]), majority_vote([r1, 1.0 - r1], seed=0))


def test_majority_of_one_rater_is_that_rater():
    np.testing.assert_array_equal(majority_vote([[1, 0, None]]), [1.0, 0.0, np.nan])
    h = [Match(0, 4, 5, 5), Match(1, 6, 7, None)]
    assert majority_vote([h]) == h


def test_percent_agreement_of_a_single_common_match():
    assert percent_agreement([[1], [1]]) == 1.0
    assert percent_agreement([[1, None], [0, 1]]) == 0.0


def test_percent_agreement_needs_two_raters_and_a_common_answer():
    with pytest.raises(ValueError, match="at least two raters"):
        percent_agreement([[1, 0, 1]])
    with pytest.raises(ValueError, match="no match was answered by two raters"):
        percent_agreement([[], []])
