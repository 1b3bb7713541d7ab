"""The body of ``score_texts`` (mutation testing): where the texts of
each group land (offsets, blank texts with ``empty="score"``), the intervals and
the mean interval, ``arts_delta``'s direction, ``p_output_easier``, the
references' means, the correlations' sign and the counters. Expected values come
from the metric card's promises, chiefly that a text's score depends on the text
alone (so a batch is checked against each text scored on its own)."""

from __future__ import annotations

import json
import re
import warnings

import pytest

from arts_metric.pool import load_pool
from arts_metric.scoring.api import score_texts
from arts_metric.text.wordless import top_rating

EASY = "The dog ran."
MID = "The cat sat on the mat and then it went to sleep in the sun."
HARD = "Notwithstanding any provision to the contrary, the lessee shall indemnify the lessor."
ADAPTIVE = {"placement": "adaptive", "placement_options": {"budget": 8}}
#: A text without a word (here: an empty one) scores at the hardest end of the scale.
RULE = r"scored as arts 1\.0 \(the hardest end of the scale\) without asking the judge"


@pytest.fixture(scope="module")
def alone():
    """``alone(text, **settings)``: the result of scoring ``text`` by itself (memoised)."""
    memo: dict = {}

    def score(text: str, **settings) -> dict:
        key = (text, json.dumps(settings, sort_keys=True))
        if key not in memo:
            memo[key] = score_texts([text], **settings)
        return memo[key]

    return score


def _strict_json(result: dict) -> dict:
    return json.loads(json.dumps(result, allow_nan=False))


def test_all_predictions_empty_cost_nothing_and_score_one():
    """Nothing to place: every prediction is 1.0 (the hardest end) with a point mean
    interval at 1 and no judge call; the placement method is still reported."""
    top = top_rating(load_pool("arts3000").ratings)
    for settings, method in (({}, "exhaustive"), (ADAPTIVE, "adaptive")):
        with pytest.warns(UserWarning, match=rf"empty texts {RULE}: predictions\[0\], predictions\[1\]$"):
            out = score_texts(["", " \n"], empty="score", **settings)
        _strict_json(out)
        assert out["arts"] == [1.0, 1.0]
        assert out["arts_elo"] == pytest.approx([top, top])
        assert out["arts_mean"] == 1.0
        assert out["arts_mean_interval"] == [1.0, 1.0]
        assert out["n_empty"] == 2
        assert out["units"] == [0, 0]
        assert (out["judge_calls"], out["invalid"], out["failed"]) == (0, 0, 0)
        assert out["placement"] == method
        assert out["fkgl"] == [None, None] and out["n_formula_undefined"] == 2


@pytest.fixture(scope="module")
def mixed():
    """Blank texts first in each group (index 0 is where offsets go wrong), scored with the learned judge."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        out = score_texts(
            ["", HARD, EASY],
            sources=["  ", MID, HARD],
            references=[[EASY, ""], MID, [""]],
            empty="score",
        )
    return out, record


def test_blank_texts_are_counted_and_named_per_group(mixed):
    out, record = mixed
    messages = [str(w.message) for w in record if "empty texts" in str(w.message)]
    assert len(messages) == 1
    assert re.fullmatch(
        rf"empty texts {RULE}: predictions\[0\]; sources\[0\]; references\[1\], references\[3\]", messages[0]
    )
    # the warning points at the caller of score_texts
    assert [w.filename for w in record if "empty texts" in str(w.message)] == [__file__]
    assert out["n_empty"] == 1  # only the predictions' blanks are counted
    assert out["n_formula_undefined"] == 1
    assert out["fkgl"][0] is None and out["source_fkgl"][0] is None
    assert all(isinstance(v, float) for v in out["fkgl"][1:] + out["source_fkgl"][1:])


def test_each_group_gets_its_own_texts_scores(mixed, alone):
    out, _ = mixed
    _strict_json(out)
    a = {t: alone(t)["arts"][0] for t in (EASY, MID, HARD)}
    e = {t: alone(t)["arts_elo"][0] for t in (EASY, MID, HARD)}
    top = top_rating(load_pool("arts3000").ratings)
    assert out["arts"] == pytest.approx([1.0, a[HARD], a[EASY]], abs=1e-6)
    assert out["arts_elo"] == pytest.approx([top, e[HARD], e[EASY]], abs=1e-3)
    assert out["source_arts"] == pytest.approx([1.0, a[MID], a[HARD]], abs=1e-6)
    assert out["source_arts_elo"] == pytest.approx([top, e[MID], e[HARD]], abs=1e-3)
    assert out["units"] == [0, 1, 1]
    assert out["arts_mean"] == pytest.approx((1.0 + a[HARD] + a[EASY]) / 3, abs=1e-6)
    # references: each prediction's mean over its own references, a blank one counting 1.0
    assert out["reference_arts"] == pytest.approx([(a[EASY] + 1.0) / 2, a[MID], 1.0], abs=1e-6)
    assert out["reference_arts_mean"] == pytest.approx(((a[EASY] + 1.0) / 2 + a[MID] + 1.0) / 3, abs=1e-6)


def test_arts_delta_is_positive_when_the_output_is_easier(mixed, alone):
    out, _ = mixed
    a = {t: alone(t)["arts"][0] for t in (EASY, MID, HARD)}
    assert a[EASY] < a[MID] < a[HARD]  # the premise of the directions below
    assert out["arts_delta"] == pytest.approx([0.0, a[MID] - a[HARD], a[HARD] - a[EASY]], abs=1e-6)
    assert out["arts_delta"][2] > 0 > out["arts_delta"][1]
    assert out["arts_delta_mean"] == pytest.approx((a[MID] - a[HARD] + a[HARD] - a[EASY]) / 3, abs=1e-6)


def test_p_output_easier_of_a_pair_with_a_blank_text_follows_the_rule(mixed):
    out, _ = mixed
    p = out["p_output_easier"]
    assert p[0] == 0.5  # both texts blank: a tie, without the judge
    assert 0.0 < p[1] < 0.5 < p[2] < 1.0  # MID -> HARD is harder, HARD -> EASY easier
    assert out["p_output_easier_mean"] == pytest.approx((p[0] + p[1] + p[2]) / 3)
    with pytest.warns(UserWarning, match=r"predictions\[0\]; sources\[1\]"):
        one_blank_each = score_texts(["", EASY], sources=[HARD, ""], empty="score")
    # no pair to judge: a blank output is never easier than its source, anything is easier than a blank source
    assert one_blank_each["p_output_easier"] == [0.0, 1.0]
    assert one_blank_each["p_output_easier_mean"] == 0.5


def test_mean_interval_is_the_scored_predictions_interval_times_their_share(mixed):
    out, _ = mixed
    scored_only = score_texts([HARD, EASY])
    lo, hi = scored_only["arts_mean_interval"]
    assert lo < hi
    assert out["arts_mean_interval"] == pytest.approx([(lo * 2 + 1) / 3, (hi * 2 + 1) / 3], abs=1e-6)


def test_intervals_of_a_placement_that_gives_them(alone):
    """Adaptive placement: a blank prediction's interval is [1, 1]; the others are
    their own texts' intervals, and the mean interval is the scored share's plus the blank's."""
    with pytest.warns(UserWarning, match=r"predictions\[1\]$"):
        out = score_texts([EASY, "", HARD], empty="score", **ADAPTIVE)
    _strict_json(out)
    assert out["placement"] == "adaptive" and out["judge_calls"] > 0
    assert out["arts_interval"][1] == [1.0, 1.0]
    assert out["arts_interval"][0] == pytest.approx(alone(EASY, **ADAPTIVE)["arts_interval"][0], abs=1e-6)
    assert out["arts_interval"][2] == pytest.approx(alone(HARD, **ADAPTIVE)["arts_interval"][0], abs=1e-6)
    for i in (0, 2):
        lo, hi = out["arts_interval"][i]
        assert lo <= out["arts"][i] <= hi
    whole = score_texts([EASY, HARD], **ADAPTIVE)
    assert out["arts_mean_interval"] == pytest.approx([(v * 2 + 1) / 3 for v in whole["arts_mean_interval"]], abs=1e-6)


@pytest.mark.parametrize("direction, human", [("harder", [1.0, 2.0, 3.0]), ("simpler", [3.0, 2.0, 1.0])])
def test_correlations_are_positive_when_the_metric_agrees_with_humans(alone, direction, human):
    a = [alone(t)["arts"][0] for t in (EASY, MID, HARD)]
    assert a[0] < a[1] < a[2]  # the humans' order is the judge's
    out = score_texts([EASY, MID, HARD], human_scores=human, human_higher_is=direction)
    _strict_json(out)
    assert set(out["correlation"]) == {"arts", "arts_elo", "fkgl", "fre", "dale_chall"}
    for name in ("arts", "arts_elo"):
        c = out["correlation"][name]
        assert c["n"] == 3 and c["spearman"] == pytest.approx(1.0) and c["kendall"] == pytest.approx(1.0)
        assert c["pearson"] > 0
    fkgl = [alone(t)["fkgl"][0] for t in (EASY, MID, HARD)]
    fre = [alone(t)["fre"][0] for t in (EASY, MID, HARD)]
    assert fkgl[0] < fkgl[1] < fkgl[2] and fre[0] > fre[1] > fre[2]  # both formulas agree with the humans
    assert out["correlation"]["fkgl"]["spearman"] == pytest.approx(1.0)
    assert out["correlation"]["fre"]["spearman"] == pytest.approx(1.0)  # FRE: higher = easier, sign turned


def test_counters_and_names(alone):
    out = alone(EASY)
    assert out["placement"] == "exhaustive" and out["judge"] == "learned" and out["pool"] == "arts3000"
    assert (out["judge_calls"], out["invalid"], out["failed"]) == (0, 0, 0)  # the learned judge scores, never asks
    assert out["units"] == [1]
    assert "n_empty" not in out and "source_arts" not in out and "correlation" not in out


def test_predictions_by_keyword_the_rest_keyword_only(alone):
    """``predictions`` may be passed by name (as ``compute`` does); the other inputs
    only by name, so a source list is never taken for something else."""
    out = score_texts(predictions=[EASY])
    assert out["arts"] == pytest.approx(alone(EASY)["arts"], abs=1e-6)
    with pytest.raises(TypeError):
        score_texts([EASY], [HARD])


def test_only_the_chosen_formulas_are_reported(alone):
    with pytest.warns(UserWarning, match=r"undefined on predictions\[1\] .*: fre are None"):
        out = score_texts([EASY, "!"], sources=[HARD, MID], formulas=["fre"])
    assert out["fre"] == [pytest.approx(alone(EASY)["fre"][0]), None]
    assert out["source_fre"] == pytest.approx([alone(HARD)["fre"][0], alone(MID)["fre"][0]])
    assert out["n_formula_undefined"] == 1
    assert not {"fkgl", "dale_chall", "source_fkgl"} & set(out)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        bare = score_texts([EASY, "!"], formulas=[])
    assert not any("undefined" in str(w.message) for w in record)  # no formula: nothing undefined to warn about
    assert not {"fkgl", "fre", "dale_chall", "n_formula_undefined"} & set(bare)
    assert bare["arts"][0] == pytest.approx(alone(EASY)["arts"][0], abs=1e-6)


@pytest.mark.slow
def test_mean_interval_is_over_the_predictions_only(alone):
    """Sources are scored in the same placement, but the mean interval is the
    predictions' (here one scored text of two and a blank one at 1.0, so half its own interval plus 0.5)."""
    with pytest.warns(UserWarning, match=r"predictions\[0\]$"):
        out = score_texts(["", HARD], sources=[EASY, MID], empty="score", **ADAPTIVE)
    own = alone(HARD, **ADAPTIVE)["arts_mean_interval"]
    # the interval's resampling draws depend on what else was placed: equal to ~0.01
    assert out["arts_mean_interval"] == pytest.approx([(v + 1) / 2 for v in own], abs=0.02)
    lo, hi = out["arts_mean_interval"]
    assert lo <= out["arts_mean"] <= hi
    assert out["arts_mean"] == pytest.approx((alone(HARD, **ADAPTIVE)["arts"][0] + 1) / 2, abs=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("settings", [{}, ADAPTIVE], ids=["learned", "adaptive"])
def test_mean_interval_does_not_depend_on_the_sources_scored_alongside(settings):
    """The predictions' mean interval is theirs alone: scoring sources and
    references in the same call (more placed rows) leaves it unchanged, bit for bit."""
    predictions = [EASY, MID, HARD, MID + " " + EASY]
    alone_ = score_texts(predictions, **settings)
    others = ["A second source sentence, which is new.", "Another one.", HARD + " " + MID, "Yet another text here."]
    with_sources = score_texts(
        predictions, sources=others, references=[[HARD], others[:2], [EASY], ["A reference."]], **settings
    )
    lo, hi = alone_["arts_mean_interval"]
    assert lo < hi
    assert with_sources["arts_mean_interval"] == [lo, hi]
