"""A long text's rating is the Bradley-Terry team rating of its sentences'
(``long_texts="sentences"``, the default): checked against the ratings of the
sentences placed on their own, with a pointwise and a pairwise judge of known
difficulty on a small pool of its own (no ARTS data needed)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pytest

from arts_metric.config import ScoringConfig
from arts_metric.elo import expected_score, mean_expected_score, team_rating
from arts_metric.judges.base import Judge, PointwiseJudge
from arts_metric.pool import Pool
from arts_metric.scorer import Scorer
from arts_metric.scoring import score_texts
from arts_metric.segment import sentence_units
from arts_metric.units import place_texts

HARD = (
    "Notwithstanding the aforementioned jurisprudential considerations, the tribunal's "
    "interlocutory determination regarding proportionality remained fundamentally contestable."
)
EASY = ["The dog ran.", "It was fun.", "We sat down.", "The sun set.", "I ate soup.", "He slept."]
SPLIT = 60  # texts longer than this are cut into sentences
POOL_SIZE = 20


def _difficulty() -> dict[str, float]:
    known = {f"pool text {j}": float(j) for j in range(POOL_SIZE)}
    known[HARD] = 17.5
    known.update({s: 1.5 + 0.5 * k for k, s in enumerate(EASY)})
    return known


class KnownScoreJudge(PointwiseJudge):
    """Pointwise, calibrated: P(a harder) = logistic(difficulty(a) - difficulty(b))."""

    name = "known-score"

    def __init__(self) -> None:
        super().__init__()
        self.difficulty = _difficulty()

    def score(self, texts: Sequence[str]) -> np.ndarray:
        # a text of several sentences (a chunk) not listed: by its length
        return np.array([self.difficulty.get(t, len(t) / 10.0) for t in texts])

    def prob_harder(self, score_a, score_b):
        return 1.0 / (1.0 + np.exp(np.asarray(score_b, float) - np.asarray(score_a, float)))


class KnownPairJudge(Judge):
    """Pairwise and deterministic: the same answer for the same pair, whatever else is asked."""

    name = "known-pair"
    preferred_batch = None

    def __init__(self) -> None:
        super().__init__()
        self.difficulty = _difficulty()

    def compare(self, pairs):
        def d(t: str) -> float:
            return self.difficulty.get(t, len(t) / 10.0)

        return [float(1.0 / (1.0 + np.exp(d(b) - d(a)))) for a, b in pairs]


@pytest.fixture(scope="module")
def pool() -> Pool:
    ids = [str(j) for j in range(POOL_SIZE)]
    return Pool(
        name="toy",
        ids=ids,
        ratings=1000.0 + 25.0 * np.arange(POOL_SIZE),
        texts=[f"pool text {j}" for j in range(POOL_SIZE)],
    )


def _config(**kw) -> ScoringConfig:
    return ScoringConfig(split_above=SPLIT, **kw)


def test_the_default_cuts_long_texts_into_sentences_never_merged():
    doc = " ".join(EASY)
    assert ScoringConfig().long_texts == "sentences"
    assert sentence_units(doc, SPLIT) == EASY  # short sentences stay apart
    assert sentence_units(EASY[0], SPLIT) == [EASY[0]]  # a short text is judged whole


@pytest.mark.parametrize("judge_cls, placement", [(KnownScoreJudge, None), (KnownPairJudge, "mle")])
def test_a_document_rates_as_the_team_of_its_sentences(pool, judge_cls, placement):
    doc = " ".join([HARD, *EASY])
    config = _config(placement=placement)
    judge = judge_cls()
    alone = place_texts([HARD, *EASY], Scorer.prepare(config, judge, pool))  # each sentence as a text of its own
    out = place_texts([doc], Scorer.prepare(config, judge, pool))
    assert out.units == [7]
    want = team_rating(alone.arts_elo)
    assert out.arts_elo[0] == pytest.approx(want, abs=1e-9)
    assert out.arts[0] == pytest.approx(float(mean_expected_score(pool.ratings, want)), abs=1e-12)
    # the hardest sentence weighs most: the document is rated above its hardest sentence,
    # by less than the 400 log10(7) of seven equally hard ones
    assert max(alone.arts_elo) < out.arts_elo[0] < max(alone.arts_elo) + 400 * np.log10(7)
    if out.arts_interval is not None:
        lo, hi = out.arts_interval[0]
        assert lo <= out.arts[0] <= hi


def test_more_to_read_is_harder_and_one_sentence_keeps_its_score(pool):
    judge = KnownScoreJudge()
    short, longer = " ".join(EASY[:5]), " ".join(EASY)
    out = place_texts([short, longer, EASY[0]], Scorer.prepare(_config(), judge, pool))
    assert out.arts[0] < out.arts[1]  # the same sentences plus one more
    single = place_texts([EASY[0]], Scorer.prepare(_config(), judge, pool))
    assert out.arts[2] == single.arts[0] and out.arts_elo[2] == single.arts_elo[0]


def test_a_documents_score_does_not_depend_on_its_batch(pool):
    judge = KnownScoreJudge()
    doc = " ".join([HARD, *EASY])
    alone = place_texts([doc], Scorer.prepare(_config(), judge, pool))
    batch = place_texts([" ".join(EASY), doc, HARD], Scorer.prepare(_config(), judge, pool))
    assert batch.arts[1] == alone.arts[0] and batch.arts_elo[1] == alone.arts_elo[0]


def test_chunks_keep_the_length_weighted_mean(pool):
    judge = KnownScoreJudge()
    doc = " ".join([HARD, *EASY])
    config = _config(long_texts="chunks", chunk_chars=30)
    out = place_texts([doc], Scorer.prepare(config, judge, pool))
    from arts_metric.segment import chunk_text

    units = chunk_text(doc, 30, SPLIT)
    alone = place_texts(units, Scorer.prepare(config, judge, pool))
    w = [len(u) for u in units]
    assert out.arts[0] == pytest.approx(np.average(alone.arts, weights=w), abs=1e-12)


def test_the_mean_interval_of_documents_covers_their_mean(pool):
    judge = KnownPairJudge()
    docs = [" ".join([HARD, *EASY]), " ".join(EASY), " ".join(EASY[:4])]
    out = place_texts(docs, Scorer.prepare(_config(placement="mle"), judge, pool))
    lo, hi = out.mean_interval
    assert lo <= float(np.mean(out.arts)) <= hi and hi > lo


def test_p_output_easier_of_long_pairs_is_the_expected_score_of_their_ratings(pool):
    judge = KnownScoreJudge()
    judge.compare_close = lambda pairs: [0.123 for _ in pairs]  # what single-unit pairs get
    doc = " ".join([HARD, *EASY])
    out = score_texts(
        [" ".join(EASY), EASY[1]], sources=[doc, EASY[0]], judge=judge, pool=pool, split_above=SPLIT, formulas=[]
    )
    want = expected_score(out["source_arts_elo"][0], out["arts_elo"][0])
    assert out["p_output_easier"][0] == pytest.approx(float(want), abs=1e-12)
    assert out["p_output_easier"][1] == 0.123
