"""Placement of new texts in a frozen pool, with simulated judges of
known accuracy against a pool whose ratings come from the recorded ARTS300
GPT-4 run (read from the ARTS data at run time; texts stand in as ids)."""

from __future__ import annotations

import datasets
import numpy as np
import pytest
from scipy.stats import spearmanr

from arts_metric import data
from arts_metric.judges.simulated import SimulatedJudge, SimulatedPointwiseJudge
from arts_metric.placement import (
    QUANTILE_LEVELS,
    default_budget,
    method_options,
    place,
    place_pairwise,
    rating_of_arts,
    system_interval,
)
from arts_metric.pool import Pool
from arts_metric.ratings import elo
from arts_metric.ratings.elo import elo_sequences as _elo_sequences
from arts_metric.ratings.elo import pool_position
from arts_metric.scoring.api import score_texts
from arts_metric.scoring.bulk import score_dataset


@pytest.fixture(scope="module")
def pool300(data_dir) -> Pool:
    """ARTS300 ratings from the recorded GPT-4 history; texts are position ids."""
    n = len(data.load_pool_rows("arts300", data_dir))
    ratings = elo.ratings_from_history(
        n, data.load_history("arts300", "gpt-4-1106-preview", "pairwise-run1", data_dir)
    )
    return Pool(
        name="arts300-sim", ids=[str(j) for j in range(n)], ratings=ratings, texts=[f"pool:{j}" for j in range(n)]
    )


def newcomers(pool: Pool, n: int, seed: int = 1) -> tuple[list[str], np.ndarray]:
    """``n`` newcomer ids with true ratings spread over the pool's range."""
    rng = np.random.default_rng(seed)
    s = np.sort(pool.ratings)
    truth = np.interp(rng.random(n) * (len(s) - 1), np.arange(len(s)), s) + rng.normal(0, 0.01, n)
    return [f"new:{i}" for i in range(n)], truth


def judge_for(pool: Pool, texts: list[str], truth: np.ndarray, accuracy: float, **kw) -> SimulatedJudge:
    return SimulatedJudge(pool.get_texts() + texts, np.r_[pool.ratings, truth], accuracy=accuracy, **kw)


class CountingJudge(SimulatedJudge):
    """A simulated judge that records the size of every compare() batch."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.batches: list[int] = []

    def compare(self, pairs):
        self.batches.append(len(pairs))
        return super().compare(pairs)


def test_elo_is_the_paper_update_with_the_pool_frozen(pool300):
    texts, truth = newcomers(pool300, 3)
    judge = judge_for(pool300, texts, truth, accuracy=1.0)
    schedule = np.array([[5, 80, 150, 299, 12, 42], [1, 2, 3, 4, 5, 6], [299, 0, 150, 151, 152, 7]])
    before = pool300.ratings.copy()
    res = place(judge, pool300, texts, method="elo", opponents=schedule, bootstrap=50)
    assert np.array_equal(pool300.ratings, before)
    for i in range(3):
        r = 1200.0
        for j, (opp, s) in enumerate(res.matches[i]):
            assert opp == schedule[i, j]
            assert s == float(truth[i] > pool300.ratings[opp])  # the oracle is always right
            r, _ = elo.update(r, pool300.ratings[opp], s, k=16)
        assert res.ratings[i] == pytest.approx(r, abs=1e-9)
    assert res.judge_calls == 18 and list(res.calls_per_text) == [6, 6, 6]
    # The vectorised replay used for the bootstrap is the same recursion.
    outcomes = np.array([[s for _, s in m] for m in res.matches])
    assert np.allclose(_elo_sequences(1200.0, pool300.ratings[schedule], outcomes, 16.0), res.ratings)
    assert res.interval.shape == (3, 2) and np.all(res.interval[:, 0] <= res.interval[:, 1])


def test_elo_is_order_dependent_and_mle_is_not(pool300):
    texts, truth = newcomers(pool300, 40, seed=2)
    judge = judge_for(pool300, texts, truth, accuracy=0.75, seed=5)
    base = place(judge, pool300, texts, method="mle", budget=12, opponents="random", seed=3, calibration=0)
    schedule = np.array([[j for j, _ in m] for m in base.matches])
    outcomes = {(i, j): s for i, m in enumerate(base.matches) for j, s in m}

    class Replay(SimulatedJudge):
        """Answers every pair as recorded in ``base`` (a deterministic judge)."""

        def compare(self, pairs):
            out = []
            for a, b in pairs:
                new, opp = (a, b) if a.startswith("new:") else (b, a)
                s = outcomes[(int(new[4:]), int(opp[5:]))]
                out.append(s if a == new else 1.0 - s)
            return out

    replay = Replay(pool300.get_texts() + texts, np.r_[pool300.ratings, truth])
    reversed_schedule = schedule[:, ::-1].copy()
    fwd = place(replay, pool300, texts, method="mle", opponents=schedule, calibration=0)
    rev = place(replay, pool300, texts, method="mle", opponents=reversed_schedule, calibration=0)
    assert np.allclose(fwd.ratings, rev.ratings) and np.allclose(fwd.ratings, base.ratings)
    elo_fwd = place(replay, pool300, texts, method="elo", opponents=schedule, bootstrap=0)
    elo_rev = place(replay, pool300, texts, method="elo", opponents=reversed_schedule, bootstrap=0)
    assert not np.allclose(elo_fwd.ratings, elo_rev.ratings)


def test_mle_fits_the_slope_of_a_compressed_pool(pool300):
    texts, truth = newcomers(pool300, 60, seed=4)
    res = place(judge_for(pool300, texts, truth, accuracy=1.0), pool300, texts, method="mle")
    # ARTS300's Elo spread is far narrower than the outcomes say: the slope calibrated
    # on 16 pool texts (one judge call with the newcomers) is steep, and every newcomer uses it.
    cal = res.info["calibration"]
    assert cal["slope"] > 4 and len(cal["pool_texts"]) == 16 and np.all(res.info["slope"] == cal["slope"])
    assert res.judge_calls == res.calls_per_text.sum() + cal["calls"] and cal["calls"] == 16 * 17
    assert spearmanr(res.ratings, truth)[0] > 0.95
    nominal = place(judge_for(pool300, texts, truth, accuracy=1.0), pool300, texts, method="mle", slope="elo")
    assert np.all(nominal.info["slope"] == 1.0) and "calibration" not in nominal.info
    # Without calibration each newcomer's own results give its slope (no extra calls).
    own = place(judge_for(pool300, texts, truth, accuracy=1.0), pool300, texts, method="mle", calibration=0)
    assert own.judge_calls == own.calls_per_text.sum() and np.median(own.info["slope"]) > 4
    # Wald interval on the Elo scale, and its ARTS image, both ordered.
    assert np.all(res.interval[:, 0] < res.ratings) and np.all(res.ratings < res.interval[:, 1])


def test_adaptive_reaches_the_goal_at_90_percent_with_batched_calls(pool300):
    texts, truth = newcomers(pool300, 150, seed=6)
    judge = CountingJudge(pool300.get_texts() + texts, np.r_[pool300.ratings, truth], accuracy=0.9, seed=7)
    budget = default_budget(len(pool300))
    assert budget == 17  # ceil(2 log2 300)
    res = place(judge, pool300, texts, target_width=0.0)  # default method for a pairwise judge
    assert res.method == "adaptive"
    assert spearmanr(res.arts, pool300.arts_of_rating(truth))[0] >= 0.95
    cal = res.info["calibration"]
    assert len(cal["pool_texts"]) == 16 and cal["calls"] == 16 * budget
    assert res.calls_per_text.max() <= budget and res.judge_calls == res.calls_per_text.sum() + cal["calls"]
    # One compare() call for the calibration (16 pool texts x budget spread opponents),
    # then one per round with one pair per still-active newcomer.
    assert len(judge.batches) == 1 + budget and judge.batches[0] == 16 * budget and judge.batches[1] == 150
    assert sum(judge.batches) == res.judge_calls
    for m in res.matches:  # never the same pool text twice
        opps = [j for j, _ in m]
        assert len(opps) == len(set(opps))
    lapse = np.median(res.info["judge_model"]["lapse"])
    assert 0.05 <= lapse <= 0.15  # the calibrated judge model finds the 10% error rate
    # The truth's ARTS position lies in the 95% interval for most texts.
    pos = pool300.arts_of_rating(truth)
    iv = res.arts_interval
    assert np.mean((iv[:, 0] <= pos) & (pos <= iv[:, 1])) >= 0.85


def test_adaptive_stops_when_the_interval_is_narrow(pool300):
    texts, truth = newcomers(pool300, 80, seed=8)
    res = place(judge_for(pool300, texts, truth, accuracy=1.0), pool300, texts, method="adaptive", target_width=0.1)
    assert res.calls_per_text.mean() < 0.6 * default_budget(len(pool300))
    assert res.calls_per_text.min() >= 4  # min_calls
    widths = np.diff(res.arts_interval, axis=1)[:, 0]
    stopped = res.calls_per_text < default_budget(len(pool300))
    assert stopped.any() and np.all(widths[stopped] <= 0.1 + 1e-9)
    assert spearmanr(res.arts, truth)[0] > 0.97


def test_unusable_answers_are_counted_never_guessed(pool300):
    texts, truth = newcomers(pool300, 20, seed=9)
    for method in ("elo", "mle", "adaptive"):
        silent = judge_for(pool300, texts, truth, accuracy=1.0, invalid_rate=1.0)
        res = place(silent, pool300, texts, method=method, budget=5)
        assert np.isnan(res.ratings).all() and res.invalid == res.judge_calls and res.calls_per_text.sum() == 100
        assert res.failed == 0 and not res.incomplete.any()  # unusable answers are judgments, not failures
        assert np.isnan(res.arts_quantiles).all()
        flaky = judge_for(pool300, texts, truth, accuracy=1.0, invalid_rate=0.3, seed=2)
        res = place(flaky, pool300, texts, method=method, budget=10)
        assert 0 < res.invalid < res.judge_calls and np.isfinite(res.ratings).all()


def test_pointwise_judges_default_to_free_exhaustive_placement(pool300):
    texts, truth = newcomers(pool300, 30, seed=10)
    judge = SimulatedPointwiseJudge(pool300.get_texts() + texts, np.r_[pool300.ratings, truth], noise=5.0, scale=10.0)
    res = place(judge, pool300, texts)
    assert res.method == "exhaustive" and res.judge_calls == 0 and not res.calls_per_text.any()
    assert spearmanr(res.ratings, truth)[0] > 0.9
    iv = res.arts_interval
    assert np.all(iv[:, 0] <= res.arts + 1.0 / len(pool300)) and np.all(res.arts - 1.0 / len(pool300) <= iv[:, 1])
    assert np.all(np.diff(res.arts_quantiles, axis=1) >= 0)
    # The same judge through pairwise placement: decisions are its prob_harder.
    adaptive = place(judge, pool300, texts, method="adaptive", budget=8)
    assert adaptive.calls_per_text.sum() == 240 and spearmanr(adaptive.arts, truth)[0] > 0.8


def test_exhaustive_pairwise_plays_every_pool_text():
    ratings = np.linspace(1100, 1300, 30)
    pool = Pool("tiny", [str(j) for j in range(30)], ratings, texts=[f"p{j}" for j in range(30)])
    texts = ["a", "b", "c"]
    judge = SimulatedJudge(pool.get_texts() + texts, np.r_[ratings, [1150.5, 1200.5, 1290.5]], accuracy=1.0)
    res = place(judge, pool, texts, method="exhaustive")
    assert res.judge_calls == 90 and sorted(j for j, _ in res.matches[0]) == list(range(30))
    assert np.all(np.diff(res.ratings) > 0)
    # Budgets larger than the pool are capped: a newcomer never meets a pool text twice.
    capped = place(judge, pool, texts, method="mle", budget=100, opponents="random")
    assert list(capped.calls_per_text) == [30, 30, 30]


def test_bad_options_and_texts_are_named(pool300):
    texts, truth = newcomers(pool300, 2)
    judge = judge_for(pool300, texts, truth, accuracy=1.0)
    with pytest.raises(ValueError, match="'budgte'"):
        place(judge, pool300, texts, method="adaptive", budgte=5)
    with pytest.raises(ValueError, match="unknown placement method 'bisect'"):
        place(judge, pool300, texts, method="bisect")
    with pytest.raises(ValueError, match="budget must be a positive integer"):
        place(judge, pool300, texts, method="elo", budget=0)
    with pytest.raises(ValueError, match=r"texts\[1\] is empty"):
        place(judge, pool300, [texts[0], "  "], method="mle")
    with pytest.raises(ValueError, match=r"opponents\[0\]\[1\] = 300"):
        place(judge, pool300, texts, method="elo", opponents=[1, 300])
    with pytest.raises(ValueError, match="does not know text 'stranger'"):
        place(judge, pool300, ["stranger"], method="mle", budget=3)
    assert "target_width" in method_options("adaptive") and "k" in method_options("elo")
    assert place(judge, pool300, [], method="elo").ratings.shape == (0,)


def test_rating_of_arts_reads_a_position_on_the_pools_own_scale(pool300):
    z = np.linspace(0, 1, 101)
    r = rating_of_arts(pool300, z)
    assert np.all(np.diff(r) > 0)  # strictly: texts beyond the pool stay apart
    np.testing.assert_allclose(pool_position(pool300.ratings, r[1:-1]), z[1:-1], rtol=0, atol=1e-9)
    # the rating at a position has about that share of the pool's ratings below it
    assert np.max(np.abs(pool300.arts_of_rating(r) - z)) < 0.05
    low, high = pool300.ratings.min(), pool300.ratings.max()
    assert low - 150 < r[0] < low and high < r[-1] < high + 150


def test_system_interval_counts_text_sampling_and_measurement(pool300):
    texts, truth = newcomers(pool300, 60, seed=11)
    res = place(judge_for(pool300, texts, truth, accuracy=0.9, seed=1), pool300, texts, method="adaptive")
    mean = float(np.mean(res.arts))
    lo, hi = system_interval(res, pool300)
    assert lo < mean < hi and hi - lo < 0.3
    m_lo, m_hi = system_interval(res, pool300, resample_texts=False)
    assert m_lo < mean < m_hi and (m_hi - m_lo) < (hi - lo)
    # Weights: all weight on one text gives (about) that text's own interval.
    w = np.zeros(60)
    w[7] = 1.0
    one = system_interval(res, pool300, weights=w, resample_texts=False, draws=4000)
    assert one[0] == pytest.approx(res.arts_interval[7, 0], abs=0.03)
    assert one[1] == pytest.approx(res.arts_interval[7, 1], abs=0.03)
    with pytest.raises(ValueError, match=r"weights\[2\]"):
        system_interval(res, pool300, weights=[1, 1, -1] + [1] * 57)
    # Every method's result supports it.
    for method in ("elo", "mle"):
        r = place(judge_for(pool300, texts, truth, accuracy=0.9), pool300, texts, method=method)
        a, b = system_interval(r, pool300)
        assert a < np.nanmean(r.arts) < b
    assert res.arts_quantiles.shape == (60, len(QUANTILE_LEVELS))


def test_place_pairwise_stays_backward_compatible(pool300):
    texts, truth = newcomers(pool300, 5)
    res = place_pairwise(judge_for(pool300, texts, truth, accuracy=1.0), pool300, texts, matches_per_text=6)
    assert res.judge_calls == 30 and np.all(res.info["slope"] == 1.0)


def test_score_dataset_adds_score_columns(pool300):
    texts, truth = newcomers(pool300, 12, seed=12)
    judge = judge_for(pool300, texts, truth, accuracy=0.9)
    ds = datasets.Dataset.from_dict({"sentence": texts, "label": list(range(12))})
    out = score_dataset(
        ds, "sentence", judge=judge, pool=pool300, placement="adaptive", placement_options={"budget": 10}, batch_size=6
    )
    assert out.column_names == ["sentence", "label", "arts", "arts_elo", "interval", "judge_calls"]
    assert out["label"] == list(range(12))
    arts = np.array(out["arts"])
    assert np.all((arts >= 0) & (arts <= 1)) and spearmanr(arts, truth)[0] > 0.85
    assert all(lo <= a <= hi for a, (lo, hi) in zip(arts, out["interval"]))
    assert 4 <= min(out["judge_calls"]) and max(out["judge_calls"]) <= 10
    with pytest.raises(ValueError, match="no column 'text'"):
        score_dataset(ds, judge=judge, pool=pool300)
    with pytest.raises(ValueError, match="already has column"):
        score_dataset(out, "sentence", judge=judge, pool=pool300)
    bad = datasets.Dataset.from_dict({"sentence": [texts[0], ""]})
    with pytest.raises(ValueError, match="row 1"):
        score_dataset(bad, "sentence", judge=judge, pool=pool300)


def test_system_interval_for_texts_cut_into_units(pool300):
    texts, truth = newcomers(pool300, 30, seed=13)
    res = place(judge_for(pool300, texts, truth, accuracy=0.9), pool300, texts, method="adaptive")
    # 10 "texts" of 3 units each (unit 0 also shared by text 1), weighted by length.
    units = [[3 * t, 3 * t + 1, 3 * t + 2] for t in range(10)]
    units[1].append(0)
    lengths = [[100.0, 50.0, 50.0] for _ in range(10)]
    lengths[1].append(10.0)
    lo, hi = system_interval(res, pool300, units=units, unit_weights=lengths, resample_texts=False)
    text_means = [np.average(res.arts[u], weights=w) for u, w in zip(units, lengths)]
    assert lo < np.mean(text_means) < hi
    # One unit per text is the default layout: same draws, same interval.
    default = system_interval(res, pool300, seed=4)
    assert system_interval(res, pool300, units=[[i] for i in range(30)], seed=4) == pytest.approx(default)
    with pytest.raises(ValueError, match="text 2: unit 99"):
        system_interval(res, pool300, units=[[0], [1], [99]])


def test_score_dataset_with_the_learned_judge_cuts_long_texts():
    long_doc = "\n\n".join(["The cat sat on the mat. It was warm. The sun was out."] * 12)
    ds = datasets.Dataset.from_dict(
        {"text": ["The dog ran.", long_doc, "Notwithstanding the foregoing, the lessee shall indemnify the lessor."]}
    )
    out = score_dataset(ds, "text")
    assert out.column_names == ["text", "arts", "arts_elo", "interval", "judge_calls"]
    assert out["judge_calls"] == [0, 0, 0] and out["interval"] == [None, None, None]
    direct = score_texts(list(ds["text"]), formulas=[])
    assert out["arts"] == pytest.approx(direct["arts"])  # same treatment as compute(), long texts cut alike
    assert direct["units"] == [1, 36, 1]
    # 36 easy sentences (three written twelve times) rate as the three do together: the
    # mean of their ratings weighted by their words
    three = score_texts(["The cat sat on the mat.", "It was warm.", "The sun was out."], formulas=[])["arts_elo"]
    assert out["arts_elo"][1] == pytest.approx(float(np.dot(three, [6, 3, 4]) / 13), abs=1e-6)


def test_default_budget_never_exceeds_a_tiny_pool():
    """ceil(2 log2 3) = 4 > 3 texts: the default must be capped like an explicit budget
    (elo's random opponents used to fail drawing 4 of 3 without replacement)."""
    pool = Pool("three", ["0", "1", "2"], np.array([1150.0, 1200.0, 1250.0]), texts=["p0", "p1", "p2"])
    judge = SimulatedJudge(pool.get_texts() + ["a"], [1150.0, 1200.0, 1250.0, 1225.0], accuracy=1.0)
    for method in ("elo", "mle", "adaptive"):
        res = place(judge, pool, ["a"], method=method)
        assert list(res.calls_per_text) == [3], method


def test_adaptive_target_width_one_stops_after_min_calls(pool300):
    # Any interval is at most 1 wide, so every newcomer stops as soon as min_calls are spent.
    texts, truth = newcomers(pool300, 10, seed=14)
    res = place(
        judge_for(pool300, texts, truth, accuracy=0.9),
        pool300,
        texts,
        method="adaptive",
        target_width=1.0,
        min_calls=3,
    )
    assert list(res.calls_per_text) == [3] * 10


def test_numpy_nan_decisions_count_as_unusable(pool300):
    texts, truth = newcomers(pool300, 6, seed=15)

    class Float32Judge(SimulatedJudge):
        """Answers in numpy float32, NaN for no answer (allowed: decisions are probabilities or missing)."""

        def compare(self, pairs):
            return [np.float32("nan") if d is None else np.float32(d) for d in super().compare(pairs)]

    judge = Float32Judge(
        pool300.get_texts() + texts, np.r_[pool300.ratings, truth], accuracy=1.0, invalid_rate=0.3, seed=3
    )
    res = place(judge, pool300, texts, method="mle", budget=8)
    assert 0 < res.invalid < res.judge_calls and res.calls_per_text.sum() == 48 and np.isfinite(res.ratings).all()


def test_score_dataset_fingerprint_covers_every_setting(pool300):
    """Two runs that differ in a scoring setting must not share a fingerprint, or
    datasets would reuse one run's cache files for the other's later maps."""
    texts, truth = newcomers(pool300, 4, seed=16)
    judge = judge_for(pool300, texts, truth, accuracy=1.0)
    ds = datasets.Dataset.from_dict({"text": texts})
    kw = dict(judge=judge, pool=pool300, placement="mle", placement_options={"budget": 3})
    a = score_dataset(ds, **kw)
    assert score_dataset(ds, **kw)._fingerprint == a._fingerprint  # deterministic
    team = score_dataset(ds, long_texts="team", **kw)
    assert team._fingerprint != a._fingerprint
    assert score_dataset(ds, split_above=5000, long_texts="team", **kw)._fingerprint != team._fingerprint
    assert score_dataset(ds, long_texts="whole", **kw)._fingerprint != a._fingerprint
