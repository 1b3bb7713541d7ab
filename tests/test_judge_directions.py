"""benchmarks/judge_directions.py: the reading rules, the weighted mean and the edit kinds."""

from __future__ import annotations

import numpy as np
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


def test_piece_summaries_are_the_top_three_mean_and_the_90th_percentile(bench):
    w = np.array([1.0, 0.0])
    pieces = [np.array([[1.0, 5.0], [4.0, 0.0], [2.0, 0.0], [3.0, 0.0]], dtype=np.float32), np.zeros((0, 2))]
    got = bench.piece_summaries(pieces, w, 10.0)
    # scores 11, 14, 12, 13: the three highest average 13; the 90th percentile interpolates 13.7
    assert got[0] == pytest.approx([13.0, 13.7])
    assert got[1].tolist() == [10.0, 10.0]  # no piece: the intercept


def test_the_piece_scorer_is_the_texts_fit_read_per_piece(bench):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 5))
    y = x @ np.array([3.0, -2.0, 0.0, 1.0, 0.5]) + 7.0
    x[:, 2] = 1.0  # a dead column is dropped, not divided by zero
    w, b = bench.piece_scorer(x, y, np.ones(200))
    assert w[2] == 0.0
    assert np.corrcoef(x @ w + b, y)[0, 1] > 0.99
    # a text's pieces average to its pooled state, so their scores average to its fit
    pieces = rng.normal(size=(4, 5))
    assert (pieces @ w + b).mean() == pytest.approx(pieces.mean(0) @ w + b)


def test_the_attention_head_ignores_masked_pieces(bench):
    import torch

    torch.manual_seed(0)
    head = bench.attention_head(4, 3, hidden=8).eval()
    states = torch.randn(1, 3, 4)
    features = torch.randn(1, 3)
    mask = torch.tensor([[1.0, 1.0, 0.0]])
    other = states.clone()
    other[0, 2] = 100.0  # what stands in a masked slot does not matter
    with torch.no_grad():
        assert head(states, mask, features).item() == pytest.approx(head(other, mask, features).item())
        assert head(states[:, :2], mask[:, :2], features).item() == pytest.approx(head(states, mask, features).item())


def test_the_report_marks_a_figure_that_is_not_out_of_sample(bench):
    row = {k: 0.5 for k in bench.FIT_COLUMNS}
    trained = {**row, "cochrane": float("nan")}
    text = bench.report(
        {"fit": {"a": row, "b": trained}, "fit_formulas": {k: (0.6, 0.9) for k in ("FKGL", "FRE", "Dale-Chall")}}, 60
    )
    assert "| a | 0.500 |" in text and "| b | 0.500 | 0.500 | — |" in text
    assert "Dale-Chall 0.600" in text and "as written Dale-Chall 0.900" in text


def test_edit_moves_are_changes_of_position_among_the_pool(bench):
    pool = np.arange(100.0)  # values 0..99: a value's position is the share of the pool below it
    # 100 edits: 99 move by 2 positions, one by 30; the 99th percentile interpolates between them
    pairs = [(10.5, 12.5)] * 99 + [(50.5, 20.5)]
    assert bench.edit_moves(pool, pairs) == pytest.approx(0.02 + 0.01 * (0.30 - 0.02), abs=1e-9)
    # the scale of the values does not matter, only their order
    assert bench.edit_moves(36 * pool, [(36 * a, 36 * b) for a, b in pairs]) == bench.edit_moves(pool, pairs)


def test_the_fit_rows_read_the_cochrane_split_s_sentences_not_its_reviews(bench):
    from arts_metric.data import split_cochrane_reviews

    reviews = [
        {"abstract": f"Abstract {i} one. Abstract {i} two.", "plain_language_summary": f"Summary {i}."}
        for i in range(4)
    ]
    halves = split_cochrane_reviews(reviews)
    got = bench.halves_sentences(halves)
    assert all(isinstance(x, str) for x in got)
    assert got[:3] == ["Abstract 0 one.", "Abstract 0 two.", "Abstract 2 one."]
    assert "Summary 1." in got and "Summary 3." in got
    assert len(got) == 4 * 3
