"""benchmarks/judge_directions.py: the reading rules, the weighted mean and the edit kinds."""

from __future__ import annotations

import pytest
from repo_scripts import load_script


@pytest.fixture(scope="module")
def bench():
    return load_script("benchmarks/judge_directions.py")


FOUR = "The cat sat. It was warm. The dog came. They slept."


def units(bench, text, *cut):
    return [u for u, _ in bench.reading_units(text, *cut)]


def test_windows_are_runs_of_consecutive_sentences_weighing_their_words(bench):
    assert bench.reading_units(FOUR, "windows", 2) == [
        ("The cat sat. It was warm.", 6.0),
        ("It was warm. The dog came.", 6.0),
        ("The dog came. They slept.", 5.0),
    ]
    assert units(bench, FOUR, "windows", 3) == [
        "The cat sat. It was warm. The dog came.",
        "It was warm. The dog came. They slept.",
    ]


def test_mean_reads_sentences_whole_reads_the_text_and_short_texts_are_one_window(bench):
    assert bench.reading_units(FOUR, "mean") == [
        ("The cat sat.", 3.0),
        ("It was warm.", 3.0),
        ("The dog came.", 3.0),
        ("They slept.", 2.0),
    ]
    assert units(bench, FOUR, "whole") == [FOUR]
    assert units(bench, "The cat sat. It was warm.", "windows", 3) == ["The cat sat. It was warm."]
    for cut in bench.READING_RULES.values():
        assert units(bench, "One sentence only.", *cut) == ["One sentence only."]


def test_short_pairs_fade_out_as_they_grow(bench):
    got = bench.reading_units(FOUR, "pairs", 10)
    # the sentences as in the mean, then each adjacent pair weighing w * (1 - w / 10)
    assert got[:4] == bench.reading_units(FOUR, "mean")
    assert got[4:] == [
        ("The cat sat. It was warm.", pytest.approx(6 * 0.4)),
        ("It was warm. The dog came.", pytest.approx(6 * 0.4)),
        ("The dog came. They slept.", pytest.approx(5 * 0.5)),
    ]
    # a pair of N words or more is not read together: the rule is then the mean
    assert bench.reading_units(FOUR, "pairs", 5) == bench.reading_units(FOUR, "mean")


def test_an_unknown_cut_is_an_error(bench):
    with pytest.raises(ValueError, match="unknown cut 'window'"):
        bench.reading_units(FOUR, "window", 2)


def test_weighted_mean_uses_the_units_weights(bench):
    scores = {"a b c": 1300.0, "d": 1100.0}
    assert bench.weighted_mean([("a b c", 3.0), ("d", 1.0)], scores.__getitem__) == pytest.approx(
        (3 * 1300 + 1100) / 4
    )


def test_edit_kind_tells_a_doubled_word_from_a_familiar_or_other_word_removed(bench):
    familiar = {"the", "cat", "sat", "on", "mat"}
    assert bench.edit_kind("The cat sat on the mat.", "The cat sat sat on the mat.", familiar) == "written twice"
    assert bench.edit_kind("The cat sat on the mat.", "The cat on the mat.", familiar) == "familiar word removed"
    assert bench.edit_kind("The feline sat on the mat.", "The sat on the mat.", familiar) == "other word removed"
    # a word removed that appears twice still counts once, and case does not matter
    assert bench.edit_kind("The cat saw the cat.", "The cat saw the.", familiar) == "familiar word removed"


def test_familiar_words_is_the_dale_chall_list(bench):
    words = bench.familiar_words()
    assert {"cat", "mother", "school"} <= words
    assert "asymptomatic" not in words and 2900 < len(words) < 3100
