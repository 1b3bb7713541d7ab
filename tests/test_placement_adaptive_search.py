"""The ``adaptive`` placement's search and drivers (found by mutation testing, issue
15): the expected information gain, when a newcomer stops, its sides, the
calibration's pairs and log prior, the concurrent driver against the round
driver, the options' boundaries, the progress bar and the reported judge model.
A toy pool and deterministic judges: no ARTS data.
"""

from __future__ import annotations

import asyncio
import itertools
from contextlib import asynccontextmanager

import numpy as np
import pytest
from ladder import ladder_pool
from scipy.special import expit
from scipy.stats import entropy
from test_placement_adaptive import RecordingPairJudge
from test_placement_mle import DIFFICULTY, NEWCOMERS, POOL, KnownPairJudge
from tqdm.auto import tqdm

from arts_metric.judges.base import UNANSWERED
from arts_metric.placement import adaptive, place_adaptive
from arts_metric.placement.adaptive import _calibrate, _Search
from arts_metric.placement.opponents import calibration_schedule, calibration_texts
from arts_metric.placement.streams import first_sides
from arts_metric.pool import Pool

FIXED = dict(lapse=0.05, width=0.03)  # one judge model: no calibration calls


def _search(
    texts,
    pool=POOL,
    budget=8,
    min_calls=2,
    target_width=0.0,
    candidates=10,
    grid_size=50,
    lapses=(0.05,),
    widths=(0.03,),
) -> _Search:
    return _Search(
        texts,
        np.arange(len(texts)),
        pool,
        0,
        budget,
        min_calls,
        target_width,
        0.95,
        grid_size,
        candidates,
        lapses,
        widths,
    )


def _play(search: _Search) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The round driver's loop on ``search``, every answer a draw (0.5); the pairs of every round."""
    rounds = []
    while True:
        rows, opps, first = search.next_pairs(search.ready())
        rounds.append((rows, opps, first))
        if len(rows) == 0:
            return rounds
        search.record(rows, opps, np.full(len(rows), 0.5), np.zeros(len(rows), dtype=bool))


def _same(a, b) -> None:
    np.testing.assert_array_equal(a.ratings, b.ratings)
    np.testing.assert_array_equal(a.interval, b.interval)
    np.testing.assert_array_equal(a.calls_per_text, b.calls_per_text)
    assert a.matches == b.matches


# --- the search itself -------------------------------------------------------------------------


def test_the_gain_is_the_mutual_information_of_a_match_and_the_position():
    rng = np.random.default_rng(7)
    n, g = 70, 50  # more rows than one block of the computation
    lapses, widths = (0.05, 0.2), (0.03, 0.1)
    search = _search([f"row {i}" for i in range(n)], grid_size=g, lapses=lapses, widths=widths)
    post = rng.dirichlet(np.full(g, 0.5), size=n)
    m_best = rng.integers(0, 4, size=n)
    gain = search._gain(post, m_best)

    z = (np.arange(g) + 0.5) / g
    centres = np.array([search.pos[s].mean() for s in search.strata])
    models = list(itertools.product(lapses, widths))
    expected = np.empty_like(gain)
    for r in range(n):
        lapse, width = models[m_best[r]]
        p = lapse + (1 - 2 * lapse) * expit((z[None, :] - centres[:, None]) / width)  # (C, G)
        pred = p @ post[r]
        h_cond = entropy(np.stack([p, 1 - p]), axis=0) @ post[r]
        expected[r] = entropy(np.stack([pred, 1 - pred]), axis=0) - h_cond
    np.testing.assert_allclose(gain, expected, rtol=1e-9, atol=1e-12)
    assert np.all(gain >= -1e-12)


def test_a_spent_budget_stops_a_row_and_next_pairs_returns_nothing_for_it():
    texts = ["row a", "row b"]
    search = _search(texts, budget=3)
    rounds = _play(search)
    assert list(search.calls) == [3, 3] and len(rounds) == 4
    rows, opps, first = rounds[-1]
    assert len(rows) == len(opps) == len(first) == 0
    assert len(search.ready()) == 0 and not search.active.any()


def test_a_narrow_enough_interval_stops_a_row_after_min_calls():
    texts = ["row a", "row b"]
    search = _search(texts, budget=8, min_calls=2, target_width=1.0)  # every interval is at most 1 wide
    rounds = _play(search)
    assert list(search.calls) == [2, 2]
    rows, opps, first = rounds[-1]
    assert len(rows) == len(opps) == len(first) == 0
    assert len(search.ready()) == 0 and not search.active.any()


def test_a_search_never_plays_a_pool_text_twice_and_stops_when_the_pool_is_played_out():
    tiny = Pool(
        name="tiny",
        ids=["0", "1", "2", "3", "4"],
        ratings=np.array([900.0, 950, 1000, 1100, 1200]),
        texts=[f"tiny {j}" for j in range(5)],
    )
    texts = ["row a", "row b", "row c"]
    search = _search(texts, pool=tiny, budget=12, candidates=2)  # strata of 3 and 2 texts, budget > pool
    _play(search)
    for i in range(len(texts)):
        opponents = [j for j, _ in search.matches[i]]
        assert sorted(opponents) == [0, 1, 2, 3, 4]
    assert list(search.calls) == [5, 5, 5]
    assert len(search.ready()) == 0 and not search.active.any()


# --- stopping, sides and lost pairs through place_adaptive ---------------------------------------


def test_a_newcomer_stops_when_its_interval_is_exactly_target_width_wide():
    class InvalidJudge(KnownPairJudge):  # every answer unusable: the posterior stays uniform
        def compare(self, pairs):
            return [None] * len(pairs)

    # On 2 cells a uniform posterior's 95% interval is exactly [0.025, 0.975].
    res = place_adaptive(
        InvalidJudge(), POOL, NEWCOMERS, target_width=0.975 - 0.025, min_calls=2, grid_size=2, **FIXED
    )
    assert list(res.calls_per_text) == [2, 2, 2]
    assert res.invalid == 6 and np.isnan(res.ratings).all()


def test_every_newcomer_stops_at_its_target_width_or_its_budget_and_alone_as_among_others():
    judge = KnownPairJudge()
    together = place_adaptive(judge, POOL, NEWCOMERS, target_width=0.15)
    budget = 11  # ceil(2 log2 40)
    widths = together.arts_interval[:, 1] - together.arts_interval[:, 0]
    assert np.all((widths <= 0.15) | (together.calls_per_text == budget))
    assert np.all(together.calls_per_text > 4)
    for i, text in enumerate(NEWCOMERS):
        alone = place_adaptive(judge, POOL, [text], target_width=0.15)
        assert alone.calls_per_text[0] == together.calls_per_text[i]
        assert alone.ratings[0] == together.ratings[i] and alone.matches[0] == together.matches[i]


def test_each_newcomer_starts_on_its_own_side_and_alternates():
    judge = RecordingPairJudge()
    place_adaptive(judge, POOL, NEWCOMERS, target_width=0.0, **FIXED)
    for text, side in zip(NEWCOMERS, first_sides(NEWCOMERS)):
        shown_first = [a == text for a, b in judge.asked if text in (a, b)]
        assert shown_first == [(side + k) % 2 == 0 for k in range(len(shown_first))]


def test_a_lost_pair_stops_its_newcomer_at_once_and_no_other():
    judge = RecordingPairJudge(fail_with={"newcomer b"})
    res = place_adaptive(judge, POOL, NEWCOMERS, **FIXED)
    assert sum("newcomer b" in pair for pair in judge.asked) == 1
    assert res.calls_per_text[1] == 1 and res.failed == 1 and res.incomplete[1]
    clean = place_adaptive(KnownPairJudge(), POOL, NEWCOMERS, **FIXED)
    np.testing.assert_array_equal(res.ratings[[0, 2]], clean.ratings[[0, 2]])
    assert list(res.calls_per_text[[0, 2]]) == list(clean.calls_per_text[[0, 2]])


# --- the calibration -------------------------------------------------------------------------------


class CallsJudge(KnownPairJudge):
    """KnownPairJudge that keeps the pairs of each ``compare`` call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[tuple[str, str]]] = []

    def compare(self, pairs):
        self.calls.append(list(pairs))
        return super().compare(pairs)


def test_the_calibration_plays_its_schedule_on_alternating_sides_in_one_call():
    judge = CallsJudge()
    res = place_adaptive(judge, POOL, NEWCOMERS)
    own = calibration_texts(POOL, 16)
    opps = calibration_schedule(POOL, own, 11, 0)
    k, m = opps.shape
    texts = POOL.get_texts()
    pairs = judge.calls[0]
    assert len(pairs) == k * m == res.info["calibration"]["calls"]
    sides = first_sides([texts[j] for j in own])
    assert set(sides) == {0, 1}
    for i, j in enumerate(own):
        for c in range(m):
            a, b = pairs[i * m + c]
            expected = (texts[j], texts[opps[i, c]]) if (sides[i] + c) % 2 == 0 else (texts[opps[i, c]], texts[j])
            assert (a, b) == expected


def test_the_calibration_prior_is_the_log_likelihood_of_its_results_relative_to_the_best_model():
    lapses, widths = (0.01, 0.1, 0.3), (0.01, 0.05, 0.2)
    own = calibration_texts(POOL, 4)
    asker, lost, log_prior = _calibrate(KnownPairJudge(), POOL, own, 11, 0, lapses, widths, quiet=True)
    assert not lost and asker.calls == len(own) * 11

    pos = POOL.arts_of_rating(POOL.ratings)
    opps = calibration_schedule(POOL, own, 11, 0)
    texts = POOL.get_texts()
    ll = []
    for lapse, width in itertools.product(lapses, widths):
        total = 0.0
        for i, j in enumerate(own):
            s = expit(DIFFICULTY[texts[j]] - np.array([DIFFICULTY[texts[o]] for o in opps[i]]))
            p = lapse + (1 - 2 * lapse) * expit((pos[j] - pos[opps[i]]) / width)
            total += np.sum(s * np.log(p) + (1 - s) * np.log(1 - p))
        ll.append(total)
    ll = np.array(ll)
    np.testing.assert_allclose(log_prior, ll - ll.max(), rtol=1e-9, atol=1e-9)
    assert log_prior.max() == 0.0


# --- options, defaults --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(target_width=1.01), r"target_width must be in \[0, 1\] \(ARTS units\), got 1.01"),
        (dict(target_width=1.5), r"target_width must be in \[0, 1\]"),
        (dict(target_width=-0.01), r"target_width must be in \[0, 1\]"),
        (dict(min_calls=0), "min_calls must be a positive integer, got 0"),
        (dict(min_calls=True), "min_calls must be a positive integer, got True"),
        (dict(min_calls=2.5), "min_calls must be a positive integer, got 2.5"),
        (dict(calibration=-1), r"calibration must be a non-negative integer \(pool texts\), got -1"),
        (dict(calibration=True), "calibration must be a non-negative integer"),
        (dict(calibration=1.5), "calibration must be a non-negative integer"),
    ],
)
def test_bad_options_are_named(options, message):
    with pytest.raises(ValueError, match=message):
        place_adaptive(KnownPairJudge(), POOL, NEWCOMERS, **options)


def test_the_smallest_valid_options():
    judge = KnownPairJudge()
    one = place_adaptive(judge, POOL, NEWCOMERS, min_calls=1, target_width=1.0, **FIXED)
    assert list(one.calls_per_text) == [1, 1, 1]
    uniform = place_adaptive(judge, POOL, NEWCOMERS, calibration=0)
    assert uniform.info["calibration"]["calls"] == 0 and len(uniform.info["calibration"]["pool_texts"]) == 0
    assert uniform.judge_calls == int(uniform.calls_per_text.sum()) and np.isfinite(uniform.ratings).all()


def test_default_min_calls_is_4_and_seed_is_0():
    judge = KnownPairJudge()
    wide = place_adaptive(judge, POOL, NEWCOMERS, target_width=1.0)
    assert list(wide.calls_per_text) == [4, 4, 4]
    default = place_adaptive(judge, POOL, NEWCOMERS)
    _same(default, place_adaptive(judge, POOL, NEWCOMERS, seed=0))
    assert not np.array_equal(place_adaptive(judge, POOL, NEWCOMERS, seed=1).ratings, default.ratings)


def test_default_candidates_is_100():
    # 202 pool texts: 100 strata hold 3, 3, 2, 2, ... texts, 101 strata 2 each, so a newcomer
    # searching near the bottom of the pool meets other strata.
    big = ladder_pool(202, "big", step=2.0, text="big text {j}")
    difficulty = {**{f"big text {j}": float(j) for j in range(202)}, **dict(zip(NEWCOMERS, (1.5, 4.5, 150.5)))}

    class BigJudge(KnownPairJudge):
        def compare(self, pairs):
            return [float(expit(difficulty[a] - difficulty[b])) for a, b in pairs]

    judge = BigJudge()
    options = dict(target_width=0.0, progress=False, **FIXED)
    default = place_adaptive(judge, big, NEWCOMERS, **options)
    _same(default, place_adaptive(judge, big, NEWCOMERS, candidates=100, **options))
    assert place_adaptive(judge, big, NEWCOMERS, candidates=101, **options).matches != default.matches


# --- the reported judge model -------------------------------------------------------------------------


def test_the_reported_judge_model_is_a_weighted_mean_of_the_family():
    res = place_adaptive(KnownPairJudge(), POOL, NEWCOMERS, width=0.03)  # lapses averaged, one width
    np.testing.assert_allclose(res.info["judge_model"]["width"], 0.03, rtol=1e-14)
    lapse = res.info["judge_model"]["lapse"]
    assert np.all((lapse >= min(adaptive.LAPSES)) & (lapse <= max(adaptive.LAPSES)))
    res = place_adaptive(KnownPairJudge(), POOL, NEWCOMERS, lapse=0.1)  # widths averaged, one lapse
    np.testing.assert_allclose(res.info["judge_model"]["lapse"], 0.1, rtol=1e-14)
    width = res.info["judge_model"]["width"]
    assert np.all((width >= min(adaptive.WIDTHS)) & (width <= max(adaptive.WIDTHS)))


# --- the progress bar ---------------------------------------------------------------------------------


class LongIntervalBar(tqdm):
    """tqdm redrawing only when told to (or opened, closed): counts the placement's own redraws."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **{**kwargs, "mininterval": 3600.0})


@pytest.mark.parametrize("concurrent", [False, True])
def test_the_progress_bar_counts_every_call_and_leaves_nothing_behind(capsys, monkeypatch, concurrent):
    monkeypatch.setattr(adaptive, "tqdm", LongIntervalBar)
    judge = AsyncJudge() if concurrent else KnownPairJudge()
    res = place_adaptive(judge, POOL, NEWCOMERS, target_width=0.0, progress=True, **FIXED)
    err = capsys.readouterr().err
    assert "adaptive placement" in err and "/33 " in err  # 3 newcomers x budget 11
    assert "\n" not in err  # leave=False: the bar is cleared when done
    assert err.count("\r") <= 3  # opened and closed only: the per-round postfix forces no redraw
    assert list(res.calls_per_text) == [11, 11, 11]


def test_progress_none_follows_the_judge_and_false_shows_nothing(capsys):
    judge = KnownPairJudge()
    place_adaptive(judge, POOL, NEWCOMERS, progress=False, **FIXED)
    assert capsys.readouterr().err == ""
    judge.progress = True
    place_adaptive(judge, POOL, NEWCOMERS, progress=None, **FIXED)
    assert "adaptive placement" in capsys.readouterr().err
    judge.progress = False
    place_adaptive(judge, POOL, NEWCOMERS, progress=None, **FIXED)
    assert capsys.readouterr().err == ""


# --- the concurrent driver ------------------------------------------------------------------------------


class AsyncJudge(KnownPairJudge):
    """A concurrent judge answering like KnownPairJudge after a delay that reorders the answers;
    pairs with a text in ``fail_with`` get no answer, pairs with a text in ``bad`` get 1.5 at once
    (an error), pairs with a text in ``slow`` take 0.3 s."""

    concurrent = True

    def __init__(self, fail_with=(), bad=(), slow=()) -> None:
        super().__init__()
        self.fail_with, self.bad, self.slow = set(fail_with), set(bad), set(slow)
        self.async_pairs: list[list[tuple[str, str]]] = []
        self.sync_pairs: list[tuple[str, str]] = []
        self.progress_seen: list[bool | None] = []
        self.in_flight = 0
        self.in_flight_at_close: list[int] = []
        self.cancelled = 0
        self.finished = 0

    def compare(self, pairs):
        self.sync_pairs.extend(pairs)
        return super().compare(pairs)

    async def compare_async(self, pairs):
        self.async_pairs.append(list(pairs))
        self.progress_seen.append(self.progress)
        ((a, b),) = pairs
        self.in_flight += 1
        try:
            if self.bad & {a, b}:
                return [1.5]
            delay = 0.3 if self.slow & {a, b} else (len(a) * 7 + len(b) * 3) % 5 * 0.002
            await asyncio.sleep(delay)
            self.finished += 1
            return [UNANSWERED] if self.fail_with & {a, b} else KnownPairJudge.compare(self, pairs)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        finally:
            self.in_flight -= 1

    @asynccontextmanager
    async def session(self):
        try:
            yield self
        finally:
            self.in_flight_at_close.append(self.in_flight)


@pytest.mark.timeout(60)
def test_a_concurrent_judge_gets_one_pair_per_call_and_the_same_search_as_a_local_one():
    judge = AsyncJudge()
    remote = place_adaptive(judge, POOL, NEWCOMERS, target_width=0.15, **FIXED)
    assert judge.sync_pairs == [] and all(len(p) == 1 for p in judge.async_pairs)
    assert len(judge.async_pairs) == remote.judge_calls == int(remote.calls_per_text.sum())
    assert judge.in_flight_at_close == [0]
    _same(remote, place_adaptive(KnownPairJudge(), POOL, NEWCOMERS, target_width=0.15, **FIXED))
    calibrated = place_adaptive(AsyncJudge(), POOL, NEWCOMERS, chunk_size=2)  # two chunks, calibration
    _same(calibrated, place_adaptive(KnownPairJudge(), POOL, NEWCOMERS))


@pytest.mark.timeout(60)
def test_a_lost_pair_stops_only_its_text_under_a_concurrent_judge():
    res = place_adaptive(AsyncJudge(fail_with={"newcomer a"}), POOL, NEWCOMERS, **FIXED)
    clean = place_adaptive(KnownPairJudge(), POOL, NEWCOMERS, **FIXED)
    assert list(res.incomplete) == [True, False, False] and res.calls_per_text[0] == 1 and res.failed == 1
    np.testing.assert_array_equal(res.ratings[1:], clean.ratings[1:])
    assert res.matches[1:] == clean.matches[1:]


@pytest.mark.timeout(60)
def test_an_error_from_one_pair_cancels_the_calls_in_flight_before_the_session_closes():
    judge = AsyncJudge(bad={"newcomer a"}, slow={"newcomer b", "newcomer c"})
    with pytest.raises(ValueError, match=r"judge known-pair returned 1.5 for pair 0; decisions must be in \[0, 1\]"):
        place_adaptive(judge, POOL, NEWCOMERS, **FIXED)
    assert judge.cancelled == 2 and judge.finished == 0
    assert judge.in_flight_at_close == [0]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("progress", [True, False])
def test_a_concurrent_judge_is_quiet_only_while_the_placement_draws_its_bar(progress):
    judge = AsyncJudge()
    place_adaptive(judge, POOL, NEWCOMERS, progress=progress, **FIXED)
    assert judge.progress_seen and set(judge.progress_seen) == {not progress}
    assert judge.progress is True
