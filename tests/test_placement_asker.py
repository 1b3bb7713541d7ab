"""How placements ask the judge (``placement/asker``, found by mutation testing):
a plain pointwise judge scores each text once, a pointwise judge
with its own ``compare`` is asked pairwise, a pool's scores are kept only when
every pool text got an answer, a pair with a pool text that got none is lost,
decisions outside [0, 1] are refused, and the judge's own progress bar is
silenced only when the placement draws one. A toy pool: no ARTS data.
"""

from __future__ import annotations

import numpy as np
import pytest
from ladder import ladder_pool
from scipy.special import expit
from test_placement_mle import DIFFICULTY, NEWCOMERS, KnownPairJudge

from arts_metric.judges.base import PointwiseJudge
from arts_metric.placement.asker import Asker, pool_judge_scores, pool_judge_scores_status
from arts_metric.pool import Pool


def toy_pool() -> Pool:  # a fresh pool each time: pools keep pointwise judges' scores
    return ladder_pool(40)


class CountingPointwiseJudge(PointwiseJudge):
    """Latent score = the toy difficulty; texts in ``lose`` get no answer; counts what it scores."""

    name = "counting-pointwise"

    def __init__(self, lose=()) -> None:
        super().__init__()
        self.lose = set(lose)
        self.scored: list[str] = []

    def score(self, texts):
        self.scored.extend(texts)
        return np.array([np.nan if t in self.lose else DIFFICULTY[t] for t in texts])

    def score_status(self, texts):
        return self.score(texts), np.array([t in self.lose for t in texts], dtype=bool)

    def prob_harder(self, score_a, score_b):
        return expit(np.asarray(score_a) - np.asarray(score_b))


class OwnCompareJudge(CountingPointwiseJudge):
    """A pointwise judge whose pairwise answers are its own (always 0.25): they must be used."""

    name = "own-compare"

    def compare(self, pairs):
        return [0.25] * len(pairs)


def test_a_pool_is_scored_once_then_reused_with_nothing_lost():
    pool, judge = toy_pool(), CountingPointwiseJudge()
    scores, lost, scored_now = pool_judge_scores_status(judge, pool)
    assert scored_now == len(pool) and not lost.any()
    np.testing.assert_array_equal(scores, [DIFFICULTY[t] for t in pool.get_texts()])
    again, lost_again, scored_again = pool_judge_scores_status(judge, pool)
    assert scored_again == 0 and not lost_again.any() and len(lost_again) == len(pool)
    np.testing.assert_array_equal(again, scores)
    assert len(judge.scored) == len(pool)
    np.testing.assert_array_equal(pool_judge_scores(judge, pool), scores)


def test_a_pool_with_an_unanswered_text_is_not_kept_and_is_asked_again():
    pool, judge = toy_pool(), CountingPointwiseJudge(lose={"pool text 3"})
    scores, lost, scored_now = pool_judge_scores_status(judge, pool)
    assert scored_now == len(pool) and list(np.flatnonzero(lost)) == [3] and np.isnan(scores[3])
    assert judge.score_key not in pool.judge_scores
    _, _, scored_again = pool_judge_scores_status(judge, pool)
    assert scored_again == len(pool)


def test_a_plain_pointwise_judge_scores_each_text_once():
    pool, judge = toy_pool(), CountingPointwiseJudge()
    asker = Asker(judge, pool, NEWCOMERS)
    assert asker.pointwise
    rows, opps = np.array([0, 1, 2, 0, 1, 2]), np.array([5, 5, 9, 1, 2, 3])
    out, lost = asker.ask(rows, opps, np.array([True, False] * 3))
    expected = expit(np.array([DIFFICULTY[NEWCOMERS[i]] - DIFFICULTY[f"pool text {j}"] for i, j in zip(rows, opps)]))
    np.testing.assert_allclose(out, expected)
    assert not lost.any() and asker.calls == 6
    assert sorted(judge.scored) == sorted(NEWCOMERS + pool.get_texts())


def test_a_pointwise_judge_with_its_own_compare_is_asked_pairwise():
    pool, judge = toy_pool(), OwnCompareJudge()
    asker = Asker(judge, pool, NEWCOMERS)
    assert not asker.pointwise
    out, lost = asker.ask(np.array([0, 1]), np.array([4, 7]), np.array([True, False]))
    np.testing.assert_allclose(out, [0.25, 0.75])  # from the newcomer's side
    assert judge.scored == []


def test_a_pair_with_a_pool_text_that_got_no_answer_is_lost_not_a_judgment():
    pool, judge = toy_pool(), CountingPointwiseJudge(lose={"pool text 5"})
    asker = Asker(judge, pool, NEWCOMERS)
    out, lost = asker.ask(np.array([0, 1]), np.array([5, 6]), np.array([True, True]))
    assert list(lost) == [True, False] and np.isnan(out[0]) and np.isfinite(out[1])
    assert (asker.calls, asker.failed, asker.invalid) == (2, 1, 0)


def test_one_pair_gets_one_answer_and_no_pairs_ask_nothing():
    judge = KnownPairJudge()
    asker = Asker(judge, toy_pool(), NEWCOMERS)
    out, lost = asker.ask(np.array([1]), np.array([22]), np.array([True]))
    np.testing.assert_allclose(out, [expit(DIFFICULTY["newcomer b"] - DIFFICULTY["pool text 22"])])
    assert lost.shape == (1,) and not lost.any()
    none, none_lost = asker.ask(np.array([], dtype=int), np.array([], dtype=int), np.array([], dtype=bool))
    assert none.shape == none_lost.shape == (0,) and asker.calls == 1


class FixedAnswerJudge(KnownPairJudge):
    def __init__(self, answer) -> None:
        super().__init__()
        self.answer = answer
        self.progress_seen: list = []

    def compare(self, pairs):
        self.progress_seen.append(self.progress)
        return [self.answer] * len(pairs)


@pytest.mark.parametrize("answer", [1.5, -0.2, 1.0000001])
def test_a_decision_outside_0_1_is_refused(answer):
    asker = Asker(FixedAnswerJudge(answer), toy_pool(), NEWCOMERS)
    with pytest.raises(ValueError, match=r"decisions must be in \[0, 1\]"):
        asker.ask(np.array([0]), np.array([1]), np.array([True]))


def test_the_judges_progress_bar_is_silenced_only_when_the_placement_draws_one():
    judge = FixedAnswerJudge(1.0)
    asker = Asker(judge, toy_pool(), NEWCOMERS)
    asker.ask(np.array([0]), np.array([1]), np.array([True]))
    asker.quiet = True
    asker.ask(np.array([0]), np.array([2]), np.array([True]))
    assert judge.progress_seen == [True, False] and judge.progress is True
