"""benchmarks/learned_judge_accuracy.py: the GPT-4 protocol for pointwise judges (Elo on a schedule)."""

from __future__ import annotations

import numpy as np
import pytest
from repo_scripts import load_script

from arts_metric.data import Match


@pytest.fixture(scope="module")
def bench():
    return load_script("benchmarks/learned_judge_accuracy.py")


def test_elo_on_schedule_lets_the_higher_score_win_in_the_schedules_order(bench):
    schedule = [
        Match(match=0, a=0, b=1, harder=0),
        Match(match=1, a=2, b=1, harder=2),
        Match(match=2, a=0, b=2, harder=0),
    ]
    # text 1 scores highest: it wins both its matches whatever the schedule's recorded winners say
    elo = bench.elo_on_schedule(np.array([0.5, 2.0, 1.0]), schedule)
    assert elo[1] == pytest.approx(1200.0 + 8.0 + 16.0 / (1.0 + 10.0 ** (8.0 / 400.0)))
    assert elo[2] > elo[0]  # text 2 beat text 0 in the last match
    np.testing.assert_allclose(elo.sum(), 3 * 1200.0)
    # only the order of the scores matters, and a tie is half a win for each
    np.testing.assert_array_equal(bench.elo_on_schedule(np.exp(np.array([0.5, 2.0, 1.0])), schedule), elo)
    assert list(bench.elo_on_schedule(np.ones(3), schedule)) == [1200.0] * 3
