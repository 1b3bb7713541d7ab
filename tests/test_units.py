"""Whole texts placed in a frozen pool (:mod:`arts_metric.scoring.units`), on a small pool of
its own (no ARTS data needed) with judges of known per-unit difficulty.

- ``long_texts="chunks"``: long texts score the length-weighted mean of their units
  (found by a planted bug: units weighted equally passed the whole suite): a
  document cut into units of clearly different lengths (one long hard sentence,
  short easy ones); ``arts``, ``arts_elo``, the per-text interval and the mean's
  interval must be the length-weighted values.
- ``long_texts="mean"`` (the default): every text's rating is the mean of its
  sentences' ratings weighted by their words, checked against the sentences
  placed on their own; a text written twice scores as the text, two texts joined
  score between them, and no length makes the rule change.
- ``long_texts="team"`` (release 0.2): a long text's rating is the Bradley-Terry
  team rating of its sentences'.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pytest
from ladder import ladder_pool

from arts_metric.judges.base import Judge, PointwiseJudge
from arts_metric.placement import place, system_interval
from arts_metric.pool import Pool
from arts_metric.ratings.elo import (
    expected_score,
    mean_expected_score,
    pool_position,
    position_width,
    rating_of_expected_score,
    rating_of_pool_position,
    team_rating,
)
from arts_metric.scoring.api import score_texts
from arts_metric.scoring.config import ScoringConfig
from arts_metric.scoring.scorer import Scorer
from arts_metric.scoring.units import mean_rating, place_texts
from arts_metric.text.features import words
from arts_metric.text.sentences import chunk_text, sentence_units, team_units

HARD = (
    "Notwithstanding the aforementioned jurisprudential considerations, the tribunal's "
    "interlocutory determination regarding proportionality remained fundamentally contestable."
)
EASY = ["The dog ran.", "It was fun.", "We sat down.", "The sun set.", "I ate soup.", "He slept."]
DOC = " ".join([HARD, *EASY])
CHUNKS = dict(chunk_chars=30, split_above=100)  # the easy sentences pack two by two; HARD stays alone
POOL_SIZE = 20


def _units() -> list[str]:
    return chunk_text(DOC, **CHUNKS)


def _difficulty() -> dict[str, float]:
    """Known latent difficulty of every text the judges see (pool text j: j; units: chosen)."""
    units = _units()
    known = {f"pool text {j}": float(j) for j in range(POOL_SIZE)}
    known.update(zip(units, (17.5, 1.5, 6.5, 3.5)))  # the long unit is hard, the short ones easy
    known[EASY[0]] = 2.0  # a second, short text (left out of the mean by n_mean=1)
    return known


class KnownScoreJudge(PointwiseJudge):
    """Pointwise: a text's score is its known difficulty; P(harder) is 1, 0 or 1/2 (a tie)."""

    name = "known-score"

    def __init__(self, difficulty: dict[str, float]) -> None:
        super().__init__()
        self.difficulty = difficulty

    def score(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([self.difficulty[t] for t in texts])

    def prob_harder(self, score_a, score_b):
        return np.where(score_a > score_b, 1.0, np.where(score_a < score_b, 0.0, 0.5))


class KnownPairJudge(Judge):
    """Pairwise and deterministic: P(a harder) = logistic(difficulty(a) - difficulty(b)),
    the same answer for the same pair whenever and with whatever else it is asked."""

    name = "known-pair"
    preferred_batch = None

    def __init__(self, difficulty: dict[str, float]) -> None:
        super().__init__()
        self.difficulty = difficulty
        self.asked: list[tuple[str, str]] = []

    def compare(self, pairs):
        self.asked.extend(pairs)
        d = self.difficulty
        return [float(1.0 / (1.0 + np.exp(d[b] - d[a]))) for a, b in pairs]


@pytest.fixture(scope="module")
def pool() -> Pool:
    return ladder_pool(POOL_SIZE, step=25.0)


def _weights() -> np.ndarray:
    return np.array([len(u) for u in _units()], dtype=float)


def test_the_document_is_cut_into_units_of_clearly_different_lengths():
    units = _units()
    assert units[0] == HARD and len(units) == 4
    assert len(units[0]) > 4 * max(len(u) for u in units[1:])


def test_pointwise_scores_are_the_length_weighted_means_of_the_units(pool):
    judge = KnownScoreJudge(_difficulty())
    config = ScoringConfig(long_texts="chunks", **CHUNKS)
    placed = place_texts([DOC], Scorer.prepare(config, judge, pool))
    assert placed.units == [4]
    # A unit of difficulty s beats the pool texts below s: its ARTS score is their share.
    unit_arts = np.array([17.5 + 0.5, 1.5 + 0.5, 6.5 + 0.5, 3.5 + 0.5]) / POOL_SIZE
    w = _weights()
    expected = np.average(unit_arts, weights=w)
    assert expected == pytest.approx(0.70, abs=0.01) and unit_arts.mean() == pytest.approx(0.3875)  # equal weights
    assert placed.arts[0] == pytest.approx(expected, abs=1e-12)
    unit_elo = rating_of_pool_position(pool.ratings, unit_arts)
    assert placed.arts_elo[0] == pytest.approx(np.average(unit_elo, weights=w), abs=1e-9)
    # One document, no sampling (a pointwise judge against every pool text): the mean's
    # interval is the document's own weighted score.
    assert placed.mean_interval == pytest.approx((expected, expected), abs=1e-9)
    # Each unit placed alone scores what the weights were applied to.
    alone = [place_texts([u], Scorer.prepare(config, judge, pool)).arts[0] for u in _units()]
    assert alone == pytest.approx(list(unit_arts), abs=1e-12)


def test_sampled_placement_weights_scores_and_intervals_by_unit_length(pool):
    """A pairwise judge placed by MLE: every unit gets an interval; the document's
    ``arts``, ``arts_elo``, interval and mean interval are the length-weighted ones."""
    difficulty = _difficulty()
    config = ScoringConfig(long_texts="chunks", **CHUNKS, placement="mle", placement_options={"budget": 12})
    placed = place_texts([DOC, EASY[0]], Scorer.prepare(config, KnownPairJudge(difficulty), pool), n_mean=1)
    units = _units()
    w = _weights()
    # A unit's placement depends on the unit alone: place each by itself.
    alone = [place_texts([u], Scorer.prepare(config, KnownPairJudge(difficulty), pool)) for u in units]
    unit_arts = np.array([a.arts[0] for a in alone])
    unit_elo = np.array([a.arts_elo[0] for a in alone])
    unit_iv = np.array([a.arts_interval[0] for a in alone])
    assert unit_arts[0] > 0.7 > 0.5 > unit_arts[1:].max()  # the long unit is the hard one
    assert placed.arts[0] == pytest.approx(np.average(unit_arts, weights=w), abs=1e-9)
    assert placed.arts_elo[0] == pytest.approx(np.average(unit_elo, weights=w), abs=1e-6)
    assert placed.arts_interval[0] == pytest.approx(np.average(unit_iv, axis=0, weights=w), abs=1e-9)
    assert abs(placed.arts[0] - unit_arts.mean()) > 0.1  # equal weights would be far off

    # The mean's interval (n_mean=1: the document only) draws each unit from its own
    # distribution and weights the draws by length.
    result = place(KnownPairJudge(difficulty), pool, [*units, EASY[0]], method="mle", budget=12)
    by_length = system_interval(result, pool, units=[[0, 1, 2, 3]], unit_weights=[list(w)])
    equal = system_interval(result, pool, units=[[0, 1, 2, 3]], unit_weights=[[1.0] * 4])
    assert placed.mean_interval == pytest.approx(by_length, abs=1e-9)
    assert abs(by_length[0] - equal[0]) > 0.05 and abs(by_length[1] - equal[1]) > 0.05


class LosingJudge(KnownScoreJudge):
    """:class:`KnownScoreJudge` asked once per text (``calls_per_score = 1``) that gets no
    answer at all for the texts in ``lost`` and an unusable one (NaN) for those in ``invalid``."""

    name = "losing"
    calls_per_score = 1

    def __init__(self, difficulty, lost=(), invalid=()) -> None:
        super().__init__(difficulty)
        self.lost, self.invalid = set(lost), set(invalid)
        self.scored: list[str] = []

    def score_status(self, texts):
        self.scored.extend(texts)
        scores = np.array([np.nan if t in self.invalid or t in self.lost else self.difficulty[t] for t in texts])
        return scores, np.array([t in self.lost for t in texts], dtype=bool)


def _share_below(s: float) -> float:
    return (np.floor(s) + 1) / POOL_SIZE  # pool scores 0..19; s is never an integer here


def test_units_without_a_usable_answer_leave_the_others_and_lost_ones_leave_the_text_unscored(pool):
    units = _units()
    other = "A plain short text."
    difficulty = {**_difficulty(), other: 9.5}
    config = ScoringConfig(long_texts="chunks", **CHUNKS)
    # One unusable unit (an answer, but none usable): the text scores from the other three.
    judge = LosingJudge(difficulty, invalid={units[2]})
    placed = place_texts([DOC, other], Scorer.prepare(config, judge, pool))
    keep = [0, 1, 3]
    want = np.average([_share_below(difficulty[units[i]]) for i in keep], weights=_weights()[keep])
    assert placed.arts == pytest.approx([want, 0.5], abs=1e-12)
    assert not placed.incomplete.any() and placed.invalid == 1 and placed.failed == 0
    # One unit with no answer at all: that text gets no score and is incomplete; the other
    # keeps its own, and the mean's interval is the other text's alone.
    judge = LosingJudge(difficulty, lost={units[1]})
    placed = place_texts([DOC, other], Scorer.prepare(config, judge, pool))
    assert np.isnan(placed.arts[0]) and np.isnan(placed.arts_elo[0])
    assert placed.incomplete.tolist() == [True, False] and placed.failed == 1
    assert placed.arts[1] == pytest.approx(0.5) and placed.mean_interval == pytest.approx((0.5, 0.5))


def test_identical_units_are_judged_once_and_calls_count_for_every_text_that_has_them(pool):
    units = _units()
    judge = LosingJudge(_difficulty())
    placed = place_texts(
        [DOC, DOC, units[0]], Scorer.prepare(ScoringConfig(long_texts="chunks", **CHUNKS), judge, pool)
    )
    assert sorted(t for t in judge.scored if not t.startswith("pool text")) == sorted(units)
    assert placed.calls_per_text == [4, 4, 1] and placed.units == [4, 4, 1]
    assert placed.arts[0] == placed.arts[1] and placed.arts[2] == pytest.approx(_share_below(17.5))
    assert placed.method == "exhaustive"


def test_whole_texts_and_short_texts_are_one_unit(pool):
    difficulty = {**_difficulty(), DOC: 12.5}
    whole = place_texts(
        [DOC],
        Scorer.prepare(
            ScoringConfig(chunk_chars=30, split_above=100, long_texts="whole"), KnownScoreJudge(difficulty), pool
        ),
    )
    assert whole.units == [1] and whole.arts[0] == pytest.approx(_share_below(12.5))
    short = ScoringConfig(
        long_texts="chunks", chunk_chars=30, split_above=len(DOC)
    )  # not longer than split_above: whole
    assert place_texts([DOC], Scorer.prepare(short, KnownScoreJudge(difficulty), pool)).units == [1]


def test_a_unit_longer_than_the_judge_reads_is_cut_with_a_warning(pool):
    units = _units()
    judge = KnownScoreJudge({**_difficulty(), units[0][:100]: 17.5})
    judge.max_chars = 100
    with pytest.warns(UserWarning, match=r"texts\[0\]: a unit of 171 characters was cut to 100"):
        placed = place_texts(
            [DOC], Scorer.prepare(ScoringConfig(long_texts="chunks", **CHUNKS), judge, pool), label="texts"
        )
    # the cut unit weighs what the judge read
    w = np.array([100.0, *[len(u) for u in units[1:]]])
    unit_arts = [_share_below(s) for s in (17.5, 1.5, 6.5, 3.5)]
    assert placed.arts[0] == pytest.approx(np.average(unit_arts, weights=w), abs=1e-12)


def test_mean_interval_of_the_first_n_mean_texts(pool):
    other = "A plain short text."
    judge = KnownScoreJudge({**_difficulty(), other: 9.5})
    placed = place_texts(
        [other, DOC], Scorer.prepare(ScoringConfig(long_texts="chunks", **CHUNKS), judge, pool), n_mean=1
    )
    assert placed.mean_interval == pytest.approx((0.5, 0.5))
    both = place_texts(
        [other, DOC], Scorer.prepare(ScoringConfig(long_texts="chunks", **CHUNKS), judge, pool)
    ).mean_interval
    assert both[0] == pytest.approx(placed.arts.min()) and both[1] == pytest.approx(placed.arts.max())


def test_a_pool_without_its_texts_fails_before_any_judge_call():
    texts_missing = Pool(name="not-a-pool", ids=["a", "b"], ratings=[1000.0, 1100.0])
    judge = KnownPairJudge(_difficulty())
    with pytest.raises(ValueError, match="unknown pool 'not-a-pool'"):
        place_texts(
            [DOC], Scorer.prepare(ScoringConfig(long_texts="chunks", **CHUNKS, placement="mle"), judge, texts_missing)
        )
    assert judge.asked == []


class SoftScoreJudge(KnownScoreJudge):
    """Pointwise with a soft ``prob_harder`` (logistic in the score difference)."""

    name = "soft-score"

    def prob_harder(self, score_a, score_b):
        return 1.0 / (1.0 + np.exp(-(np.asarray(score_a) - np.asarray(score_b))))


def test_a_pointwise_judge_against_every_pool_text_samples_nothing_so_reports_no_interval(pool):
    """Placed against every pool text, a unit's score is exact (not sampled): no per-text
    interval, and the mean's interval of one text is its score, however unsure the judge."""
    placed = place_texts(
        [DOC], Scorer.prepare(ScoringConfig(long_texts="chunks", **CHUNKS), SoftScoreJudge(_difficulty()), pool)
    )
    assert placed.arts_interval is None
    assert placed.mean_interval == pytest.approx((placed.arts[0],) * 2, abs=1e-12)


def test_shipped_pool_scores_need_no_pool_texts():
    """A pool that ships the judge's scores of its texts (as the built-in pools do for the
    learned judge) places texts without reading the pool's texts."""
    judge = KnownScoreJudge(_difficulty())
    shipped = ladder_pool(
        POOL_SIZE,
        "not-a-pool",
        step=25.0,
        text=None,
        judge_scores={judge.score_key: np.arange(POOL_SIZE, dtype=float)},
    )
    placed = place_texts([DOC], Scorer.prepare(ScoringConfig(long_texts="chunks", **CHUNKS), judge, shipped))
    assert placed.arts[0] == pytest.approx(np.average([0.9, 0.1, 0.35, 0.2], weights=_weights()))
    assert shipped.texts is None


def test_a_unit_exactly_as_long_as_the_judge_reads_is_not_cut(pool):
    import warnings

    judge = KnownScoreJudge(_difficulty())
    judge.max_chars = len(_units()[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        place_texts([DOC], Scorer.prepare(ScoringConfig(long_texts="chunks", **CHUNKS), judge, pool))


def test_the_cut_warning_points_at_the_caller(pool):
    judge = KnownScoreJudge({**_difficulty(), _units()[0][:100]: 17.5})
    judge.max_chars = 100
    with pytest.warns(UserWarning, match="was cut to 100") as caught:
        place_texts([DOC], Scorer.prepare(ScoringConfig(long_texts="chunks", **CHUNKS), judge, pool))
    assert caught[0].filename == __file__


def test_a_pointwise_judge_without_shipped_pool_scores_fails_before_scoring_when_pool_texts_are_missing():
    """Its pool texts must be scored too: a pool without its texts fails before any unit is scored."""
    scored: list[str] = []

    class CountingScoreJudge(KnownScoreJudge):
        def score(self, texts):
            scored.extend(texts)
            return super().score(texts)

    texts_missing = Pool(name="not-a-pool", ids=["a", "b"], ratings=[1000.0, 1100.0])
    with pytest.raises(ValueError, match="unknown pool 'not-a-pool'"):
        place_texts(
            [DOC],
            Scorer.prepare(
                ScoringConfig(long_texts="chunks", **CHUNKS, placement="mle"),
                CountingScoreJudge(_difficulty()),
                texts_missing,
            ),
        )
    assert scored == []


# -- long_texts="sentences": the team rule --

SPLIT = 60  # texts longer than this are cut into sentences


def _sentence_difficulty() -> dict[str, float]:
    known = {f"pool text {j}": float(j) for j in range(POOL_SIZE)}
    known[HARD] = 17.5
    known.update({s: 1.5 + 0.5 * k for k, s in enumerate(EASY)})
    return known


class SentenceScoreJudge(PointwiseJudge):
    """Pointwise, calibrated: P(a harder) = logistic(difficulty(a) - difficulty(b))."""

    name = "known-score"

    def __init__(self) -> None:
        super().__init__()
        self.difficulty = _sentence_difficulty()

    def score(self, texts: Sequence[str]) -> np.ndarray:
        # a text of several sentences (a chunk) not listed: by its length
        return np.array([self.difficulty.get(t, len(t) / 10.0) for t in texts])

    def prob_harder(self, score_a, score_b):
        return 1.0 / (1.0 + np.exp(np.asarray(score_b, float) - np.asarray(score_a, float)))


class SentencePairJudge(Judge):
    """Pairwise and deterministic: the same answer for the same pair, whatever else is asked."""

    name = "known-pair"
    preferred_batch = None

    def __init__(self) -> None:
        super().__init__()
        self.difficulty = _sentence_difficulty()

    def compare(self, pairs):
        def d(t: str) -> float:
            return self.difficulty.get(t, len(t) / 10.0)

        return [float(1.0 / (1.0 + np.exp(d(b) - d(a)))) for a, b in pairs]


def _config(**kw) -> ScoringConfig:
    return ScoringConfig(split_above=SPLIT, **kw)


def test_the_default_cuts_every_text_into_sentences_never_merged():
    doc = " ".join(EASY)
    assert ScoringConfig().long_texts == "mean"
    assert sentence_units(doc) == EASY  # short sentences stay apart, however short the text
    assert sentence_units(EASY[0]) == [EASY[0]]  # one sentence is judged as written
    assert team_units(doc, SPLIT) == EASY and team_units(EASY[0] + " " + EASY[1], SPLIT) == [EASY[0] + " " + EASY[1]]


def test_curly_quotes_end_a_sentence_under_the_default_only():
    text = "\u201cIt is late,\u201d she said. \u201cWe go now.\u201d He nodded."
    assert sentence_units(text) == ["\u201cIt is late,\u201d she said.", "\u201cWe go now.\u201d", "He nodded."]
    assert sentence_units('He said "Go." Then he left.') == ['He said "Go."', "Then he left."]
    # release 0.2's splitter (team, chunks) knew ASCII quotes only and dropped a closing quote
    # with the space after it: its scores stay reproducible
    assert team_units(text, split_above=10) == [text]
    assert team_units('He said "Go." Then he left.', split_above=10) == ['He said "Go.', "Then he left."]


@pytest.mark.parametrize("judge_cls, placement", [(SentenceScoreJudge, None), (SentencePairJudge, "mle")])
def test_a_text_rates_as_the_word_weighted_mean_of_its_sentences(pool, judge_cls, placement):
    sentences = [HARD, *EASY]
    doc = " ".join(sentences)
    config = ScoringConfig(placement=placement)
    judge = judge_cls()
    alone = place_texts(sentences, Scorer.prepare(config, judge, pool))  # each sentence as a text of its own
    out = place_texts([doc], Scorer.prepare(config, judge, pool))
    assert out.units == [7]
    w = np.array([len(words(s)) for s in sentences], dtype=float)
    want = float(np.dot(alone.arts_elo, w) / w.sum())
    assert out.arts_elo[0] == pytest.approx(want, abs=1e-9)
    assert out.arts[0] == pytest.approx(float(pool_position(pool.ratings, want)), abs=1e-12)
    # between its easiest and its hardest sentence; the long hard sentence weighs more than
    # a plain mean of the seven would give it
    assert min(alone.arts_elo) < out.arts_elo[0] < max(alone.arts_elo)
    assert out.arts_elo[0] > np.mean(alone.arts_elo)
    assert out.unit_texts[0] == sentences and list(out.unit_weights[0]) == list(w)
    assert list(out.unit_elo[0]) == pytest.approx(list(alone.arts_elo), abs=1e-9)
    if out.arts_interval is not None:
        lo, hi = out.arts_interval[0]
        assert lo <= out.arts[0] <= hi
        # the interval is the same weighted mean of the sentences' bounds, on the pool's scale
        bounds = rating_of_pool_position(pool.ratings, np.asarray(alone.arts_interval))
        want_iv = pool_position(pool.ratings, (bounds * w[:, None]).sum(0) / w.sum())
        assert [lo, hi] == pytest.approx(list(want_iv), abs=1e-9)


def test_a_text_written_twice_scores_as_the_text_and_two_texts_joined_score_between(pool):
    judge = SentenceScoreJudge()
    easy, hard = " ".join(EASY[:3]), " ".join([HARD, EASY[4]])
    texts = [easy, f"{easy} {easy}", f"{easy} {easy} {easy}", hard, f"{easy} {hard}", EASY[0], f"{EASY[0]} {EASY[0]}"]
    out = place_texts(texts, Scorer.prepare(ScoringConfig(), judge, pool))
    assert out.arts_elo[1] == pytest.approx(out.arts_elo[0], abs=1e-9)
    assert out.arts_elo[2] == pytest.approx(out.arts_elo[0], abs=1e-9)
    assert out.arts_elo[6] == pytest.approx(out.arts_elo[5], abs=1e-9)
    assert out.arts_elo[0] < out.arts_elo[4] < out.arts_elo[3]
    # under release 0.2's team rule the same text written three times rated 400 log10(3) higher
    team = place_texts(texts[:3], Scorer.prepare(_config(long_texts="team"), judge, pool))
    assert team.arts_elo[2] > team.arts_elo[0] + 100


def test_no_length_threshold_changes_the_rule(pool):
    """The default has no threshold: a text just below and just above ``split_above``
    characters is cut the same way, into its sentences."""
    judge = SentenceScoreJudge()
    below = " ".join(EASY[:4])
    above = below + " " + "X" * (SPLIT - len(below) + 5) + "."
    assert len(below) <= SPLIT < len(above)
    config = ScoringConfig(split_above=SPLIT)
    out = place_texts([below, above], Scorer.prepare(config, judge, pool))
    assert out.units == [4, 5]


def test_mean_rating_checks_its_inputs():
    assert mean_rating([1000.0, 1400.0], [3, 1]) == 1100.0
    with pytest.raises(ValueError, match="one weight per rating"):
        mean_rating([1000.0], [1, 2])
    assert np.isnan(mean_rating([1000.0, np.nan], [1, 1]))


def test_the_former_name_sentences_warns_and_keeps_the_team_rule():
    with pytest.warns(FutureWarning, match='now called "team"'):
        config = ScoringConfig(long_texts="sentences")
    assert config.long_texts == "team"


@pytest.mark.parametrize("judge_cls, placement", [(SentenceScoreJudge, None), (SentencePairJudge, "mle")])
def test_team_rates_a_document_as_the_team_of_its_sentences(pool, judge_cls, placement):
    doc = " ".join([HARD, *EASY])
    config = _config(placement=placement, long_texts="team")
    judge = judge_cls()
    alone = place_texts([HARD, *EASY], Scorer.prepare(config, judge, pool))  # each sentence as a text of its own
    out = place_texts([doc], Scorer.prepare(config, judge, pool))
    assert out.units == [7]
    # the team rule adds strengths on the Elo expected-score scale of the sentences' arts
    stretched = rating_of_expected_score(pool.ratings, alone.arts)
    want = team_rating(stretched)
    assert out.arts[0] == pytest.approx(float(mean_expected_score(pool.ratings, want)), abs=1e-12)
    assert out.arts_elo[0] == pytest.approx(float(rating_of_pool_position(pool.ratings, out.arts[0])), abs=1e-9)
    # the hardest sentence weighs most: the document is rated above its hardest sentence,
    # by less than the 400 log10(7) of seven equally hard ones
    assert max(stretched) < want < max(stretched) + 400 * np.log10(7)
    assert out.arts[0] > max(alone.arts) and out.arts_elo[0] > max(alone.arts_elo)
    if out.arts_interval is not None:
        lo, hi = out.arts_interval[0]
        assert lo <= out.arts[0] <= hi


def test_team_rates_more_to_read_harder_and_one_sentence_keeps_its_score(pool):
    judge = SentenceScoreJudge()
    config = _config(long_texts="team")
    short, longer = " ".join(EASY[:5]), " ".join(EASY)
    out = place_texts([short, longer, EASY[0]], Scorer.prepare(config, judge, pool))
    assert out.arts[0] < out.arts[1]  # the same sentences plus one more
    single = place_texts([EASY[0]], Scorer.prepare(config, judge, pool))
    assert out.arts[2] == single.arts[0] and out.arts_elo[2] == single.arts_elo[0]


def test_a_documents_score_does_not_depend_on_its_batch(pool):
    judge = SentenceScoreJudge()
    doc = " ".join([HARD, *EASY])
    for config in (ScoringConfig(), _config(long_texts="team")):
        alone = place_texts([doc], Scorer.prepare(config, judge, pool))
        batch = place_texts([" ".join(EASY), doc, HARD], Scorer.prepare(config, judge, pool))
        assert batch.arts[1] == alone.arts[0] and batch.arts_elo[1] == alone.arts_elo[0]


def test_chunks_keep_the_length_weighted_mean(pool):
    judge = SentenceScoreJudge()
    doc = " ".join([HARD, *EASY])
    config = _config(long_texts="chunks", chunk_chars=30)
    out = place_texts([doc], Scorer.prepare(config, judge, pool))
    units = chunk_text(doc, 30, SPLIT)
    alone = place_texts(units, Scorer.prepare(config, judge, pool))
    w = [len(u) for u in units]
    assert out.arts[0] == pytest.approx(np.average(alone.arts, weights=w), abs=1e-12)


def test_the_mean_interval_of_documents_covers_their_mean(pool):
    judge = SentencePairJudge()
    docs = [" ".join([HARD, *EASY]), " ".join(EASY), " ".join(EASY[:4])]
    for config in (ScoringConfig(placement="mle"), _config(placement="mle", long_texts="team")):
        out = place_texts(docs, Scorer.prepare(config, judge, pool))
        lo, hi = out.mean_interval
        assert lo <= float(np.mean(out.arts)) <= hi and hi > lo


def test_p_output_easier_of_long_pairs_is_the_expected_score_of_their_ratings(pool):
    judge = SentenceScoreJudge()
    judge.compare_close = lambda pairs: [0.123 for _ in pairs]  # what single-unit pairs get
    doc = " ".join([HARD, *EASY])
    for long_texts in ("mean", "team"):
        out = score_texts(
            [" ".join(EASY), EASY[1]],
            sources=[doc, EASY[0]],
            judge=judge,
            pool=pool,
            split_above=SPLIT,
            long_texts=long_texts,
            formulas=[],
        )
        # eq. 1 between the two texts' arts read as Elo ratings against the pool
        source, output = rating_of_expected_score(pool.ratings, [out["source_arts"][0], out["arts"][0]])
        want = expected_score(source, output)
        assert out["p_output_easier"][0] == pytest.approx(float(want), abs=1e-12)
        assert out["p_output_easier"][1] == 0.123


def test_return_sentences_gives_each_texts_sentences_in_reading_order(pool):
    judge = SentenceScoreJudge()
    doc = " ".join([HARD, *EASY[:2]])
    out = score_texts(
        ["", doc], sources=[EASY[3], HARD], judge=judge, pool=pool, formulas=[], empty="score", return_sentences=True
    )
    assert out["sentences"][0] == []  # an empty text has no sentence
    rows = out["sentences"][1]
    assert [r["text"] for r in rows] == [HARD, *EASY[:2]]
    assert [r["words"] for r in rows] == [len(words(s)) for s in [HARD, *EASY[:2]]]
    alone = score_texts([HARD, *EASY[:2]], judge=judge, pool=pool, formulas=[])
    assert [r["arts"] for r in rows] == pytest.approx(alone["arts"], abs=1e-12)
    w = np.array([r["words"] for r in rows], dtype=float)
    assert out["arts_elo"][1] == pytest.approx(float(np.dot([r["arts_elo"] for r in rows], w) / w.sum()), abs=1e-9)
    assert [r["text"] for r in out["source_sentences"][1]] == [HARD]
    assert "sentences" not in score_texts([doc], judge=judge, pool=pool, formulas=[])


def test_return_sentences_needs_the_mean_rule(pool):
    with pytest.raises(ValueError, match='return_sentences=True needs long_texts="mean"'):
        score_texts(["A text."], judge=SentenceScoreJudge(), pool=pool, long_texts="team", return_sentences=True)
    with pytest.raises(ValueError, match="return_sentences must be True or False"):
        score_texts(["A text."], judge=SentenceScoreJudge(), pool=pool, return_sentences="yes")


class LogisticJudge(KnownScoreJudge):
    """Pointwise, calibrated: a text's score is its listed difficulty, P(a harder) = logistic(a - b)."""

    name = "logistic"

    def prob_harder(self, score_a, score_b):
        return 1.0 / (1.0 + np.exp(np.asarray(score_b, float) - np.asarray(score_a, float)))


def test_arts_elo_is_arts_on_the_pools_own_scale():
    """A pool's own texts scored as new texts land near their own ratings, inside the pool's
    range; texts far easier or harder than every pool text get distinct, ordered values a
    little beyond it, not hundreds of points out."""
    n = 20
    pool = ladder_pool(n, step=10.0)  # ratings 1000 .. 1190
    outside = {"far easier": -40.0, "easier": -8.0, "harder": 27.0, "far harder": 60.0}
    judge = LogisticJudge({**{f"pool text {j}": float(j) for j in range(n)}, **outside})
    scorer = Scorer.prepare(ScoringConfig(), judge, pool)
    own = place_texts([f"pool text {j}" for j in range(n)], scorer)
    assert np.all(np.diff(own.arts_elo) > 0)
    assert np.median(np.abs(own.arts_elo - pool.ratings)) < pool.ratings.std()
    assert own.arts_elo.std() == pytest.approx(pool.ratings.std(), rel=0.25)
    np.testing.assert_allclose(pool_position(pool.ratings, own.arts_elo), own.arts, rtol=0, atol=1e-9)
    beyond = place_texts(list(outside), scorer)
    assert beyond.arts_elo[0] < beyond.arts_elo[1] < pool.ratings.min()
    assert pool.ratings.max() < beyond.arts_elo[2] < beyond.arts_elo[3]
    # at most where arts reaches 1e-9 of either end, within logit(1e-9) < 21 widths of the pool
    # (here about 300 points; for ARTS3000 64), however far out the judge puts the text
    reach = 21 * position_width(pool.ratings)
    assert pool.ratings.min() - reach < beyond.arts_elo[0] and beyond.arts_elo[3] < pool.ratings.max() + reach
