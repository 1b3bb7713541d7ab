"""The ``adaptive`` placement's settings and reported numbers (found by mutation
testing): its checks of the options, when it calibrates the judge
model, its defaults, and that ``se`` is the half-width of its interval in
normal units. A toy pool and a deterministic pairwise judge: no ARTS data.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm
from test_placement_mle import NEWCOMERS, POOL, KnownPairJudge

from arts_metric.placement import place_adaptive


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(grid_size=1), "grid_size must be an integer >= 2, got 1"),
        (dict(candidates=True), "candidates must be an integer >= 2, got True"),
        (dict(chunk_size=2.5), "chunk_size must be an integer >= 2, got 2.5"),
        (dict(lapse=0.5), r"lapse must be in \[0, 0.5\), got 0.5"),
        (dict(lapse=-0.1), r"lapse must be in \[0, 0.5\)"),
        (dict(lapse=1.2), r"lapse must be in \[0, 0.5\)"),
        (dict(width=0.0), "width must be > 0"),
        (dict(width=-0.1), "width must be > 0"),
    ],
)
def test_bad_settings_are_named(options, message):
    with pytest.raises(ValueError, match=message):
        place_adaptive(KnownPairJudge(), POOL, NEWCOMERS, **options)


def test_a_fixed_judge_model_needs_no_calibration_and_half_a_model_does():
    fixed = place_adaptive(
        KnownPairJudge(), POOL, NEWCOMERS, lapse=0.0, width=0.05, grid_size=2, candidates=2, chunk_size=2
    )
    assert fixed.info["calibration"]["calls"] == 0 and len(fixed.info["calibration"]["pool_texts"]) == 0
    assert np.isfinite(fixed.ratings).all()
    half = place_adaptive(KnownPairJudge(), POOL, NEWCOMERS, lapse=0.1)
    assert half.info["calibration"]["calls"] > 0 and len(half.info["calibration"]["pool_texts"]) > 0


def test_default_grid_of_200_and_se_is_the_interval_in_normal_units():
    judge = KnownPairJudge()
    res = place_adaptive(judge, POOL, NEWCOMERS)
    explicit = place_adaptive(judge, POOL, NEWCOMERS, grid_size=200)
    np.testing.assert_array_equal(res.ratings, explicit.ratings)
    half_width = (res.interval[:, 1] - res.interval[:, 0]) / 2.0
    np.testing.assert_allclose(res.se, half_width / norm.ppf(0.975), rtol=1e-12)
    assert np.all(res.se > 0)


class RecordingPairJudge(KnownPairJudge):
    """Keeps every pair asked; pairs with a text in ``fail_with`` get no answer."""

    def __init__(self, fail_with=()) -> None:
        super().__init__()
        self.fail_with = set(fail_with)
        self.asked: list[tuple[str, str]] = []

    def compare(self, pairs):
        from arts_metric.judges.base import UNANSWERED

        self.asked.extend(pairs)
        answers = super().compare(pairs)
        return [UNANSWERED if self.fail_with & {a, b} else p for (a, b), p in zip(pairs, answers)]


def test_a_newcomer_alternates_sides_from_one_call_to_the_next():
    judge = RecordingPairJudge()
    place_adaptive(judge, POOL, NEWCOMERS, lapse=0.05, width=0.03, target_width=0.0)
    for text in NEWCOMERS:
        first = [a == text for a, b in judge.asked if text in (a, b)]
        assert len(first) == 11 and all(x != y for x, y in zip(first, first[1:]))


def test_a_newcomer_whose_pair_got_no_answer_is_incomplete():
    res = place_adaptive(RecordingPairJudge(fail_with={"newcomer b"}), POOL, NEWCOMERS, lapse=0.05, width=0.03)
    assert list(res.incomplete) == [False, True, False]
    assert np.isnan(res.ratings[1]) and np.isfinite(res.ratings[[0, 2]]).all()


def test_a_calibration_without_every_answer_places_no_newcomer():
    judge = RecordingPairJudge(fail_with=set(POOL.texts))  # every calibration pair fails
    res = place_adaptive(judge, POOL, NEWCOMERS)
    assert res.incomplete.all() and np.isnan(res.ratings).all()
    assert not any(t in pair for pair in judge.asked for t in NEWCOMERS)
