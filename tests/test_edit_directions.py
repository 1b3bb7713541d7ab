"""benchmarks/edit_directions.py: the edited copies, and how learned-4's construction joins them."""

from __future__ import annotations

import numpy as np
import pytest
from repo_scripts import load_script

from arts_metric.text.features import words


@pytest.fixture(scope="module")
def bench():
    return load_script("benchmarks/edit_directions.py")


def test_each_copy_is_its_source_with_one_word_removed_or_written_twice(bench):
    texts = [
        "The cat sat on the mat today.",
        "A very long sentence " + "with many words " * 10 + "ends here.",
        "Skipped because it is probed.",
        "Dogs bark loudly at night. Cats do not.",
        "Hi.",
    ]
    copies, sources = bench.edited_copies(texts, {texts[2]}, 20, np.random.default_rng(0))
    # the long text, the probed one and the one without an inner word have no copy
    assert list(sources) == [0, 3]
    for copy, k in zip(copies, sources):
        before, after = words(texts[k]), words(copy)
        assert abs(len(after) - len(before)) == 1
        shorter, longer = sorted((before, after), key=len)
        assert any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer)))
    # seeded: the same draw gives the same copies
    again, _ = bench.edited_copies(texts, {texts[2]}, 20, np.random.default_rng(0))
    assert again == copies


def test_learned_4_s_construction_targets_each_copy_as_its_source_in_both_fits(bench):
    directions = bench.directions
    fb = directions.FitBench.__new__(directions.FitBench)
    fb.x = np.zeros((8, 2))
    fb.train_rows, fb.crows, fb.side = [0, 1, 2], [3, 4], np.array([1.0, -1.0])
    calls = []

    def kernel(x, rows, y, weight, **kw):
        calls.append((list(rows), np.asarray(y, float), np.asarray(weight, float), kw))
        return np.arange(8, dtype=float) * 100.0  # the first fit's value of row r: 100 r

    fb.kernel = kernel
    y, w = np.array([10.0, 20.0, 30.0]), np.array([1.0, 2.0, 1.0])
    # rows 5, 6, 7 copy training row 1, the first Cochrane sentence (source 3) and training row 0
    copies = (np.array([5, 6, 7]), np.array([1, 3, 0]), 4.0)
    fb.with_cochrane(None, y, w, 20.0, copies=copies, alpha=3.0)
    (rows1, y1, w1, kw1), (rows2, y2, w2, kw2) = calls
    # the first fit reads the training rows and the copies of training rows only
    assert rows1 == [0, 1, 2, 5, 7]
    assert y1 == pytest.approx([10, 20, 30, 20, 10])
    assert w1 == pytest.approx([1, 2, 1, 8, 4])
    # the second adds the Cochrane sentences at the first fit's value +- the nudge, and every copy
    assert rows2 == [0, 1, 2, 3, 4, 5, 6, 7]
    assert y2 == pytest.approx([10, 20, 30, 320, 380, 20, 320, 10])
    assert w2 == pytest.approx([1, 2, 1, 1, 1, 8, 4, 4])
    assert kw1 == kw2 == {"alpha": 3.0}
