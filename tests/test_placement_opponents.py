"""Fixed match schedules and the random streams behind them (found by mutation
testing): which pool texts calibrate a judge and whom they play, the
checks of an explicit opponents array, the side a text takes in each match, and
the per-text streams (64-bit digest, first side, distinct streams, seed checks).
A toy pool and a deterministic pairwise judge that records what it is asked: no
ARTS data. The expected values are computed here from the promises (quantiles,
SHA-256), not taken from a run of the code.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from scipy.stats import rankdata
from test_placement_mle import POOL

from arts_metric.judges.base import Judge
from arts_metric.placement import place_elo, place_mle
from arts_metric.placement.opponents import calibration_schedule, calibration_texts
from arts_metric.placement.streams import (
    BOOTSTRAP,
    CALIBRATION,
    OPPONENTS,
    check_seed,
    first_sides,
    text_digest,
    text_rng,
)
from arts_metric.pool import Pool

N = len(POOL)
POOL_TEXTS = POOL.get_texts()
NEWCOMERS = [f"newcomer {i}" for i in range(6)]
# Ratings in no particular order: the quantiles must come from the ratings, not the listing order.
SHUFFLED = Pool(
    name="shuffled",
    ids=[str(j) for j in range(N)],
    ratings=1000.0 + 10.0 * np.random.default_rng(7).permutation(N),
    texts=list(POOL_TEXTS),
)


def _top_bit(text: str) -> int:
    """The most significant bit of the text's SHA-256 (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).digest()[0] >> 7


def _difficulty(text: str) -> float:
    if text.startswith("pool text "):
        return int(text.rsplit(" ", 1)[1]) / 4.0
    return 1.5 * int(text.rsplit(" ", 1)[1]) + 0.7


class RecordingJudge(Judge):
    """P(a harder) = logistic(difficulty(a) - difficulty(b)); keeps every compare() call's pairs."""

    name = "recording"
    preferred_batch = None

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[tuple[str, str]]] = []

    def compare(self, pairs):
        self.calls.append(list(pairs))
        return [float(1.0 / (1.0 + np.exp(_difficulty(b) - _difficulty(a)))) for a, b in pairs]


def _expected_pairs(text: str, opponents) -> list[tuple[str, str]]:
    """``text``'s matches as shown to the judge: first in match ``k`` when (its top bit + k) is even."""
    side = _top_bit(text)
    return [(text, POOL_TEXTS[j]) if (side + k) % 2 == 0 else (POOL_TEXTS[j], text) for k, j in enumerate(opponents)]


# --- calibration texts and their schedule -------------------------------------------------


@pytest.mark.parametrize("k", [1, 3, 4, 10])
def test_calibration_texts_sit_at_the_midpoint_quantiles_of_the_ratings(k):
    rank = rankdata(SHUFFLED.ratings, method="ordinal") - 1  # 0 = lowest rating
    wanted_ranks = [int(np.floor((2 * i + 1) * N / (2 * k))) for i in range(k)]  # the (i + 0.5) / k quantiles
    expected = [int(np.flatnonzero(rank == r)[0]) for r in wanted_ranks]
    assert list(calibration_texts(SHUFFLED, k)) == expected


def test_calibration_texts_are_at_most_a_quarter_of_the_pool():
    assert list(calibration_texts(SHUFFLED, 100)) == list(calibration_texts(SHUFFLED, N // 4))
    assert len(calibration_texts(SHUFFLED, 100)) == N // 4 == 10
    small = Pool(name="small", ids=["a", "b", "c"], ratings=np.array([1.0, 2.0, 3.0]), texts=["x", "y", "z"])
    for k in (0, 1, 5):
        assert len(calibration_texts(small, k)) == 0
    assert len(calibration_texts(SHUFFLED, 0)) == 0


@pytest.mark.parametrize("budget", [N, N - 1, 100])
def test_a_calibration_text_with_a_large_budget_plays_every_other_pool_text_once(budget):
    own = calibration_texts(POOL, 4)
    sched = calibration_schedule(POOL, own, budget, seed=3)
    assert sched.shape == (4, N - 1)
    for j, row in zip(own, sched):
        assert sorted(row) == [i for i in range(N) if i != j]


def test_a_calibration_schedule_is_one_opponent_per_rating_stratum_of_the_other_texts():
    own = calibration_texts(SHUFFLED, 4)
    m = 3  # N - 1 = 39 other texts: strata of 13
    sched = calibration_schedule(SHUFFLED, own, m, seed=1)
    assert sched.shape == (4, m)
    for j, row in zip(own, sched):
        others = np.delete(np.arange(N), j)
        by_rating = list(others[np.argsort(SHUFFLED.ratings[others])])
        strata = sorted(by_rating.index(o) // 13 for o in row)
        assert strata == list(range(m)) and j not in row


# --- explicit opponents arrays ------------------------------------------------------------


def test_a_single_explicit_opponent_is_a_schedule():
    res = place_mle(RecordingJudge(), POOL, NEWCOMERS[:3], opponents=[7], slope="elo")
    assert [[j for j, _ in row] for row in res.matches] == [[7]] * 3
    assert list(res.calls_per_text) == [1, 1, 1]
    res = place_elo(RecordingJudge(), POOL, NEWCOMERS[:3], opponents=np.array([[7], [8], [9]]), bootstrap=0)
    assert [[j for j, _ in row] for row in res.matches] == [[7], [8], [9]]


@pytest.mark.parametrize(
    "opponents, shape",
    [
        (5, r"\(\)"),
        (np.zeros((3, 2, 1), dtype=int), r"\(3, 2, 1\)"),
        (np.zeros((2, 4), dtype=int), r"\(2, 4\)"),
        (np.zeros((4, 4), dtype=int), r"\(4, 4\)"),
        (np.zeros((3, 0), dtype=int), r"\(3, 0\)"),
        (np.zeros(0, dtype=int), r"\(0,\)"),
    ],
)
def test_an_opponents_array_of_the_wrong_shape_is_refused(opponents, shape):
    with pytest.raises(
        ValueError, match=r"opponents array must be \(m,\) or \(3, m\) pool indices, got shape " + shape
    ):
        place_mle(RecordingJudge(), POOL, NEWCOMERS[:3], opponents=opponents, slope="elo")


@pytest.mark.parametrize(
    "opponents, message",
    [
        ([3, N], rf"opponents\[0\]\[1\] = {N} is not a pool index \(0\.\.{N - 1}\)$"),
        ([-1, 3], rf"opponents\[0\]\[0\] = -1 is not a pool index \(0\.\.{N - 1}\)$"),
        ([[1, 2], [3, 4], [5, 99]], rf"opponents\[2\]\[1\] = 99 is not a pool index \(0\.\.{N - 1}\)$"),
    ],
)
def test_an_index_outside_the_pool_is_named_with_the_pool_range(opponents, message):
    with pytest.raises(ValueError, match=message):
        place_elo(RecordingJudge(), POOL, NEWCOMERS[:3], opponents=opponents)


def test_opponents_must_be_integers():
    with pytest.raises(ValueError, match="opponents must be integer pool indices, got dtype float64"):
        place_elo(RecordingJudge(), POOL, NEWCOMERS[:3], opponents=[1.0, 2.0])


# --- sides --------------------------------------------------------------------------------


def test_a_newcomer_alternates_sides_starting_from_its_own_first_side():
    assert {_top_bit(t) for t in NEWCOMERS} == {0, 1}  # newcomers starting on either side
    judge = RecordingJudge()
    m = 7
    res = place_mle(judge, POOL, NEWCOMERS, budget=m, opponents="spread", slope="elo")
    assert len(judge.calls) == 1  # every match in one judge call
    expected = [p for t, row in zip(NEWCOMERS, res.matches) for p in _expected_pairs(t, [j for j, _ in row])]
    assert judge.calls[0] == expected


def test_calibration_texts_play_their_schedule_with_alternating_sides_in_the_same_call():
    judge = RecordingJudge()
    m, k, n = 5, 4, len(NEWCOMERS)
    res = place_mle(judge, POOL, NEWCOMERS, budget=m, opponents="random", calibration=k, seed=2)
    assert len(judge.calls) == 1
    asked = judge.calls[0]
    assert len(asked) == n * m + k * m and res.info["calibration"]["calls"] == k * m
    newcomers = [p for t, row in zip(NEWCOMERS, res.matches) for p in _expected_pairs(t, [j for j, _ in row])]
    assert asked[: n * m] == newcomers
    own = calibration_texts(POOL, k)
    assert list(res.info["calibration"]["pool_texts"]) == list(own)
    sched = calibration_schedule(POOL, own, m, seed=2)
    calibration = [p for j, row in zip(own, sched) for p in _expected_pairs(POOL_TEXTS[j], row)]
    assert sorted(asked[n * m :]) == sorted(calibration)
    assert not set(NEWCOMERS) & {t for pair in asked[n * m :] for t in pair}


# --- streams --------------------------------------------------------------------------------

MANY = [f"text number {i}" for i in range(200)] + ["", "ü", "a longer text with ünïcödé and\nnew lines"]


def test_the_text_digest_is_64_bits_of_the_sha256():
    digests = [text_digest(t) for t in MANY]
    assert all(isinstance(d, int) and 0 <= d < 2**64 for d in digests)
    assert max(digests) >= 2**63 and len(set(digests)) == len(MANY)
    assert [d >> 56 for d in digests] == [hashlib.sha256(t.encode("utf-8")).digest()[0] for t in MANY]


def test_first_sides_are_the_top_bit_of_the_digest_and_both_occur():
    sides = first_sides(MANY)
    assert sides.shape == (len(MANY),) and set(sides.tolist()) == {0, 1}
    assert sides.tolist() == [_top_bit(t) for t in MANY]


def test_each_purpose_draws_from_its_own_stream():
    for t in MANY[:5]:
        draws = {s: tuple(text_rng(4, t, s).integers(0, 2**62, size=4)) for s in (OPPONENTS, BOOTSTRAP, CALIBRATION)}
        assert len(set(draws.values())) == 3
        assert tuple(text_rng(4, t).integers(0, 2**62, size=4)) == draws[OPPONENTS]  # the default stream


def test_the_streams_keep_their_documented_numbers_so_a_seed_reproduces_across_versions():
    assert (OPPONENTS, BOOTSTRAP, CALIBRATION) == (0, 1, 2)
    for t in MANY[:5]:
        for stream in (OPPONENTS, BOOTSTRAP, CALIBRATION):
            expected = np.random.default_rng([stream, 4, text_digest(t)]).integers(0, 2**62, size=4)
            np.testing.assert_array_equal(text_rng(4, t, stream).integers(0, 2**62, size=4), expected)


@pytest.mark.parametrize("seed", [True, False, -1, 1.5, "3", None, np.float64(2.0)])
def test_a_seed_must_be_a_non_negative_integer(seed):
    with pytest.raises(ValueError, match="seed must be a non-negative integer, got "):
        check_seed(seed)


def test_integer_seeds_are_plain_ints():
    for seed in (0, 5, np.int64(7), np.uint8(3)):
        out = check_seed(seed)
        assert type(out) is int and out == int(seed)
