"""benchmarks/learned_judge_ablations.py: the lexical-norm features and the group bootstrap."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from repo_scripts import load_script


@pytest.fixture(scope="module")
def bench():
    return load_script("benchmarks/learned_judge_ablations.py")


def test_norm_row_takes_mean_max_shares_of_all_tokens_and_coverage(bench):
    aoa = {"cat": 3.0, "sat": 4.0, "photosynthesis": 12.0}
    cefr = {"cat": 1.0, "photosynthesis": 6.0, "ubiquitous": 5.0}
    tokens = ["the", "cat", "sat", "photosynthesis", "ubiquitous"]
    row = bench.norm_row(tokens, (aoa.get, cefr.get), ((10.0,), (4.0, 5.0)))
    # aoa: rated cat, sat, photosynthesis (3 of 5 tokens); one at >= 10
    assert row[:4] == pytest.approx([19.0 / 3, 12.0, 1 / 5, 3 / 5])
    # cefr: rated cat, photosynthesis, ubiquitous; two at >= 4 and two at >= 5
    assert row[4:] == pytest.approx([4.0, 6.0, 2 / 5, 2 / 5, 3 / 5])


def test_norm_row_of_unrated_or_empty_text_is_all_zero(bench):
    assert bench.norm_row(["zzz"], ({}.get,), ((10.0,),)) == [0.0, 0.0, 0.0, 0.0]
    assert bench.norm_row([], ({}.get,), ((10.0,),)) == [0.0, 0.0, 0.0, 0.0]


def test_norm_names_match_the_tables_lexical_norms_builds(bench):
    # two age-of-acquisition tables with one threshold (4 columns each), CEFR with two (5 columns)
    assert len(bench.NORM_NAMES) == 4 + 4 + 5


def test_group_bootstrap_draws_whole_groups_and_is_seeded(bench):
    groups = np.array([0, 0, 1, 2, 2, 2, 3])
    boots = bench.group_bootstrap(groups, 50, seed=1)
    assert len(boots) == 50
    sizes = Counter(groups.tolist())
    for idx in boots:
        counts = Counter(idx.tolist())
        for g, size in sizes.items():
            members = np.flatnonzero(groups == g)
            drawn = {counts.get(int(i), 0) for i in members}
            assert len(drawn) == 1, "a group's members are drawn together, the same number of times"
        assert sum(counts[int(i)] for i in range(len(groups))) == len(idx)
    assert any(len(idx) != len(groups) for idx in boots)  # groups of unequal size: resample sizes vary
    again = bench.group_bootstrap(groups, 50, seed=1)
    assert all(np.array_equal(x, y) for x, y in zip(boots, again))
    assert not all(np.array_equal(x, y) for x, y in zip(boots, bench.group_bootstrap(groups, 50, seed=2)))
