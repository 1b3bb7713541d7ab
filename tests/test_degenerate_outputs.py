"""Degenerate system outputs are scored, not fatal: texts without words (at the
hardest end, arts 1.0), empty texts on request (the same rule), invalid Unicode refused by index, non-English texts warned
about, and every result JSON-serialisable without NaN."""

from __future__ import annotations

import json
import math
import warnings

import evaluate
import pytest

from arts_metric.evaluate_module.registry import module_script_path
from arts_metric.scoring.api import score_texts

PLAIN = "The dog ran to the park."
HARD = "Notwithstanding any provision to the contrary, the lessee shall indemnify the lessor."
SOURCE = "The canine proceeded with considerable velocity towards the municipal recreation ground."
CHINESE = "\u8fd9\u662f\u4e00\u4e2a\u5f88\u957f\u7684\u4e2d\u6587\u53e5\u5b50\uff0c\u6ca1\u6709\u4efb\u4f55\u82f1\u6587\u5355\u8bcd\u3002"
NO_WORDS = ["!", "\U0001f600\U0001f44d", "...?!", "123 456"]


@pytest.fixture(scope="module")
def metric():
    return evaluate.load(str(module_script_path()))


def _strict_json(result: dict) -> dict:
    return json.loads(json.dumps(result, allow_nan=False))


def test_outputs_without_words_are_scored_with_formulas_none(metric):
    """One "!" among real sentences used to stop the run ("has no words"); now it gets
    arts 1.0 (the hardest end) without the judge, None formulas, warnings naming it and counts."""
    predictions = [PLAIN, *NO_WORDS, HARD]
    with pytest.warns(
        UserWarning, match=r"undefined on predictions\[1\], predictions\[2\], predictions\[3\], predictions\[4\]"
    ):
        out = metric.compute(predictions=predictions, sources=[SOURCE] * 6, human_scores=[1, 2, 2, 3, 3, 5])
    _strict_json(out)
    assert all(isinstance(a, float) and 0.0 <= a <= 1.0 for a in out["arts"])
    assert all(isinstance(a, float) for a in out["arts_elo"])
    assert out["arts"][1:5] == [1.0] * 4 and out["n_wordless"] == 4
    assert out["arts"][0] < out["arts"][5] < 1.0
    for name in ("fkgl", "fre", "dale_chall"):
        assert out[name][1:5] == [None] * 4, name
        assert all(isinstance(v, float) for v in (out[name][0], out[name][5]))
    assert out["n_formula_undefined"] == 4
    # correlations of a formula use the texts it is defined on
    assert out["correlation"]["fkgl"]["n"] == 2 and out["correlation"]["fkgl"]["spearman"] is None
    assert out["correlation"]["arts"]["n"] == 6 and isinstance(out["correlation"]["arts"]["spearman"], float)
    assert all(isinstance(d, float) for d in out["arts_delta"])


def test_chinese_gets_no_formula_values_and_a_language_warning():
    with pytest.warns(UserWarning) as record:
        out = score_texts([CHINESE, CHINESE[:10] + "\u3002", PLAIN])
    messages = [str(w.message) for w in record]
    # one warning names both texts, what their scores mean and why the formulas are None
    assert len(messages) == 1, messages
    assert messages[0].startswith(
        "2 of 3 predictions are not written in Latin script (predictions[0], predictions[1]: a script ARTS has "
        'no language for) but language="en" (English) scores them against an English pool with an English judge, '
        "and the readability formulas, which read Latin-script words, are None on those without one; "
        "ARTS has no pool or judge in their script"
    ), messages
    assert out["fkgl"][:2] == [None, None] and out["fre"][:2] == [None, None]  # not -3.4 and 121
    assert isinstance(out["arts"][0], float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # English texts: no warning at all
        score_texts([PLAIN, HARD])


@pytest.mark.parametrize(
    "predictions, match",
    [
        ([PLAIN, "\ud800"], r"predictions\[1\] is not valid Unicode: '\\ud800'"),
        (["ok " + "\udfff" + " text", PLAIN], r"predictions\[0\] is not valid Unicode"),
        ([PLAIN, "   "], r"predictions\[1\] is empty or whitespace only \(pass empty='score'"),
        ([""], r"predictions\[0\] is empty"),
    ],
)
def test_invalid_unicode_and_empty_texts_name_the_index(metric, predictions, match):
    with pytest.raises(ValueError, match=match):
        metric.compute(predictions=predictions)
    with pytest.raises(ValueError, match=match):  # also when streamed
        metric.add_batch(predictions=predictions)
        metric.compute()


def test_invalid_unicode_in_sources_and_references(metric):
    with pytest.raises(ValueError, match=r"sources\[0\] is not valid Unicode"):
        metric.compute(predictions=[PLAIN], sources=["\ud83d"])
    with pytest.raises(ValueError, match=r"references\[0\]\[1\] is not valid Unicode"):
        metric.compute(predictions=[PLAIN], references=[[PLAIN, "x\ud800"]])


def test_empty_texts_are_scored_on_request(metric):
    with pytest.warns(
        UserWarning,
        match=r"empty texts scored as arts 1\.0 \(the hardest end of the scale\) without asking the judge: "
        r"predictions\[1\]$",
    ):
        out = metric.compute(predictions=[PLAIN, " ", HARD], sources=[SOURCE] * 3, empty="score")
    _strict_json(out)
    assert out["arts"][1] == 1.0 and out["arts_elo"][1] > max(out["arts_elo"][0], out["arts_elo"][2])
    assert out["units"][1] == 0
    assert out["fkgl"][1] is None and out["n_empty"] == 1 and out["n_formula_undefined"] == 1
    assert out["n_wordless"] == 0  # the empty text is counted as empty only
    assert out["arts_mean"] == pytest.approx(sum(out["arts"]) / 3)
    low, high = out["arts_mean_interval"]
    assert low <= out["arts_mean"] <= high
    assert out["arts_delta"][1] == pytest.approx(out["source_arts"][1] - 1.0)  # never easier than its source
    with pytest.raises(ValueError, match="empty must be one of 'error', 'score', got 'skip'"):
        metric.compute(predictions=[PLAIN], empty="skip")
    only_empty = score_texts(["", "  "], empty="score", formulas=[])
    assert (
        only_empty["arts"] == [1.0, 1.0] and only_empty["arts_mean"] == 1.0 and only_empty["judge_stats"]["calls"] == 0
    )


def test_results_are_strict_json_when_values_are_undefined():
    """NaN used to reach the result (``arts_mean: nan``); undefined values are None."""
    out = score_texts(
        ["!!", "?", "..."], sources=["!!", "?", "..."], human_scores=[1, 2, 3], formulas=["fkgl", "smog"]
    )
    strict = _strict_json(out)
    assert strict["fkgl"] == [None, None, None] and strict["source_smog"] == [None, None, None]
    smog = strict["correlation"]["smog"]
    assert smog.pop("n") == 0 and len(smog) == 6 and set(smog.values()) == {None}  # undefined: no text has a value
    for value in strict["correlation"]["arts"].values():
        assert value is None or math.isfinite(value)


def test_constant_human_scores_are_refused_before_scoring():
    with pytest.raises(ValueError, match="human_scores are all 3: a correlation with constant scores is undefined"):
        score_texts([PLAIN, HARD, SOURCE], human_scores=[3, 3, 3])
    with pytest.raises(ValueError, match="human_scores has 2 values; correlations need at least 3"):
        score_texts([PLAIN, HARD], human_scores=[1, 2])


def test_a_text_without_sentence_ends_is_warned_about_for_the_formulas():
    endless = " ".join(["the river runs past the old mill and the children play by the water"] * 40)  # 600 words
    with pytest.warns(UserWarning) as record:
        out = score_texts([PLAIN, endless], formulas=["fkgl", "fre"])
    messages = [str(w.message) for w in record]
    assert (
        "the readability formulas read predictions[1] as sentences of more than 100 words on average "
        "(little or no sentence-ending punctuation): fkgl, fre mean little there"
    ) in messages, messages
    assert out["fkgl"][1] > 100  # what the warning is about: a grade no reader has
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # punctuated text: no such warning
        score_texts([PLAIN, HARD], formulas=["fkgl"])
