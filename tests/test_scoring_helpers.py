"""Promises of scoring.py's helpers that the other tests left unchecked (surviving
mutants): the dry run draws no progress bar, ``p_output_easier`` appears
exactly when the judge reads close pairs, a judge's counters are per call,
correlations over exactly 3 texts are defined and over constant values are None,
and the formula and language warnings point at the caller and count only texts
with letters."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.stats as sps

from arts_metric.judges.simulated import SimulatedJudge, SimulatedPointwiseJudge
from arts_metric.llm.report import stats_since
from arts_metric.scoring.api import score_texts
from arts_metric.scoring.assemble import _correlation, _p_output_easier
from arts_metric.scoring.config import ScoringConfig
from arts_metric.scoring.scorer import checked_placer, resolve_placement

EASY = "The dog ran."
MID = "The dog ran to the park with the boy and his big red ball."
HARD = "Notwithstanding any provision to the contrary, the lessee shall indemnify the lessor."
HUMAN = [1.0, 1.5, 2.0]  # a range of exactly 1 is not constant
#: A correlation that is undefined: every coefficient and p-value None (beside its ``n``).
UNDEFINED = dict.fromkeys(("pearson", "pearson_p", "spearman", "spearman_p", "kendall", "kendall_p"))
CHINESE = "\u8fd9\u662f\u4e00\u4e2a\u5f88\u957f\u7684\u4e2d\u6587\u53e5\u5b50\u3002"
CHINESE_2 = "\u4eca\u5929\u5929\u6c14\u5f88\u597d\uff0c\u6211\u4eec\u53bb\u516c\u56ed\u3002"


@pytest.fixture(scope="module")
def three_texts() -> dict:
    """The learned judge's scores of three texts of rising difficulty, with human scores 1, 1.5, 2."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return score_texts([EASY, MID, HARD], human_scores=HUMAN)


def test_dry_run_draws_no_progress_bar(capsys):
    judge = SimulatedJudge(["a", "b"], [0.0, 1.0])  # pairwise: the dry run uses adaptive placement
    checked_placer(*resolve_placement(judge, ScoringConfig(placement="adaptive")))
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_p_output_easier_only_from_a_close_pair_judge():
    judge = SimulatedJudge(["a", "b"], [0.0, 1.0])
    assert not hasattr(judge, "compare_close")
    assert (
        _p_output_easier(judge, ["b"], ["a"], np.array([1.0]), np.array([0.0]), np.array([False])) is None
    )  # LLM and simulated judges: no such value


def test_p_output_easier_says_a_simplified_output_is_easier():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = score_texts([EASY, HARD], sources=[HARD, EASY])
    p = out["p_output_easier"]
    assert len(p) == 2 and all(isinstance(v, float) and 0.0 <= v <= 1.0 for v in p)
    assert p[0] > 0.5 > p[1]  # HARD -> EASY is a simplification, EASY -> HARD is not
    assert out["p_output_easier_mean"] == pytest.approx((p[0] + p[1]) / 2)


def test_judge_stats_are_this_calls_counters():
    before = {"calls": 2, "seconds": 1.25, "model": "m", "cached": True}
    after = {"calls": 5, "seconds": 4.0, "model": "m", "cached": False, "retries": 3}
    assert stats_since(before, after) == {"calls": 3, "seconds": 2.75, "model": "m", "cached": False, "retries": 3}
    assert stats_since({"seconds": 0.1}, {"seconds": 0.3}) == {"seconds": 0.2}  # no float noise (0.19999999999999998)
    # The metric card: a float counter (cost in USD, seconds) is this call's difference to 1e-6.
    assert stats_since({"cost": 0.0}, {"cost": 0.12345678}) == {"cost": 0.123457}


def test_correlation_over_exactly_three_texts_is_defined(three_texts):
    arts = three_texts["arts"]
    assert len(set(arts)) == 3  # three distinct scores: the correlation is defined
    corr = three_texts["correlation"]["arts"]
    assert corr["n"] == 3
    expected = sps.pearsonr(arts, HUMAN)
    assert corr["pearson"] == pytest.approx(expected.statistic)
    assert corr["pearson_p"] == pytest.approx(expected.pvalue)
    assert corr["kendall"] == pytest.approx(sps.kendalltau(arts, HUMAN).statistic)


def test_correlation_over_constant_scores_is_none():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = score_texts([MID, MID, MID], human_scores=[1, 2, 3])
    assert out["arts"][0] == out["arts"][1] == out["arts"][2]
    assert out["correlation"]["arts"] == {**UNDEFINED, "n": 3}


def test_correlation_where_human_scores_are_constant_on_the_defined_texts_is_none():
    values = np.array([1.0, 2.0, np.nan, 3.0])  # e.g. a formula undefined on text 2
    human = np.array([1.0, 1.0, 5.0, 1.0])
    out = _correlation(values, human, harder=True, human_higher_is="harder")
    assert out == {**UNDEFINED, "n": 3}


def test_formula_warning_points_at_the_caller():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        score_texts([MID, "123 456"])
    hits = [w for w in record if "undefined on predictions[1]" in str(w.message)]
    assert len(hits) == 1
    assert hits[0].filename == __file__


def test_language_warning_points_at_the_caller():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        score_texts([CHINESE, CHINESE_2, MID])
    hits = [w for w in record if "2 of 3 predictions are not written in Latin script" in str(w.message)]
    assert len(hits) == 1 and len(record) == 1  # one warning: the formulas' None is said in it
    assert hits[0].filename == __file__
    german = ["Die Katze sitzt auf der Matte und schläft.", "Der Hund läuft schnell über die Straße.", MID]
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        score_texts(german)  # Latin script, not English: the formulas' warning
    hits = [w for w in record if "2 of 3 texts do not look English" in str(w.message)]
    assert len(hits) == 1 and hits[0].filename == __file__


def test_texts_without_letters_do_not_count_as_foreign():
    """Digits and punctuation say nothing about the language: one English text
    among them is not "mostly foreign"."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        score_texts([MID, "123 456", "...?!"])
    messages = [str(w.message) for w in record]
    assert any("undefined on predictions[1], predictions[2]" in m for m in messages), messages
    assert not any("do not look English" in m for m in messages), messages


def test_half_foreign_texts_are_not_most():
    """The language warning needs most texts (more than half) to look foreign: 1 of 2 is not."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        score_texts([CHINESE, MID])
    messages = [str(w.message) for w in record]
    assert any("(predictions[0]: a script ARTS has no language for)" in m for m in messages), messages  # seen
    assert not any("do not look English" in m for m in messages), messages


def test_default_placement_is_exhaustive_for_pointwise_and_adaptive_for_pairwise_judges():
    config = ScoringConfig()
    assert resolve_placement(SimulatedPointwiseJudge(["a", "b"], [0.0, 1.0]), config)[0] == "exhaustive"
    assert resolve_placement(SimulatedJudge(["a", "b"], [0.0, 1.0]), config)[0] == "adaptive"


def test_placement_is_reported_even_when_every_text_is_empty():
    """The learned judge is pointwise: its default placement is exhaustive, scored texts or not."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        empty = score_texts(["", "  "], empty="score")
        some = score_texts(["", MID], empty="score")
    assert empty["arts"] == [1.0, 1.0] and empty["judge_calls"] == 0
    assert empty["placement"] == some["placement"] == "exhaustive"


@pytest.mark.parametrize(("n_empty", "tail"), [(10, "predictions[9]"), (12, "predictions[9] and 2 more")])
def test_warnings_name_at_most_ten_indices(n_empty, tail):
    with pytest.warns(UserWarning, match="empty texts scored") as record:
        score_texts([""] * n_empty + [MID], empty="score")
    message = next(str(w.message) for w in record if "empty texts scored" in str(w.message))
    named = ", ".join(f"predictions[{i}]" for i in range(9))
    rule = "scored as arts 1.0 (the hardest end of the scale) without asking the judge"
    assert message == f"empty texts {rule}: {named}, {tail}"


def test_correlation_of_values_spanning_exactly_one_is_defined():
    values, human = np.array([0.0, 0.25, 1.0]), np.array([1.0, 3.0, 2.0])
    out = _correlation(values, human, harder=True, human_higher_is="harder")
    assert out["n"] == 3
    assert out["pearson"] == pytest.approx(sps.pearsonr(values, human).statistic)
    assert out["spearman"] == pytest.approx(0.5)  # ranks (1, 2, 3) vs (1, 3, 2)
