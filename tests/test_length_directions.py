"""benchmarks/length_directions.py: the length slope and a window's length beyond its sentences'."""

from __future__ import annotations

import numpy as np
import pytest
from repo_scripts import load_script


@pytest.fixture(scope="module")
def bench():
    return load_script("benchmarks/length_directions.py")


def test_length_slope_is_elo_per_unit_of_log_words(bench):
    texts = ["word " * n for n in (2, 4, 8, 16)]
    values = 1000 + 30 * np.log([2, 4, 8, 16])
    assert bench.length_slope(values, texts) == pytest.approx(30.0)
    # the weights reach the fit: a row weighing nothing does not pull the line
    bent = values.copy()
    bent[-1] += 500
    assert bench.length_slope(bent, texts, weight=np.array([1.0, 1.0, 1.0, 0.0])) == pytest.approx(30.0)
    assert bench.length_slope(bent, texts) > 60


def test_a_window_is_longer_than_its_sentences_by_the_log_of_their_count(bench):
    assert bench.window_length_excess("The cat sat on the mat.") == pytest.approx(0.0, abs=1e-12)
    assert bench.window_length_excess("The cat sat here. The dog sat there.") == pytest.approx(np.log(2))
    three = "The cat sat here. The dog sat there. The bird flew away."
    assert bench.window_length_excess(three) == pytest.approx(np.log(3))
    # sentences of other lengths: log(total) less the word-weighted mean of their logs
    uneven = "Go. The big dog ran all the way home."
    assert bench.window_length_excess(uneven) == pytest.approx(np.log(9) - (np.log(1) * 1 + np.log(8) * 8) / 9)


def test_log_words_counts_a_wordless_text_as_one(bench):
    assert bench.log_words(["", "one two three"]) == pytest.approx([0.0, np.log(3)])
