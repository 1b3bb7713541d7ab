"""The seeded match schedule: the paper's shape (4 * N matches, 8 appearances), balance, determinism."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from arts_metric.data import load_pairs
from arts_metric.ratings.schedule import (
    load_schedule,
    make_schedule,
    save_schedule,
    schedule_stats,
    validate_schedule,
)


def test_same_shape_as_the_published_arts94_schedule(data_dir):
    published = load_pairs("arts94", data_dir)
    n = 1 + max(max(p) for p in published)
    ours = make_schedule(n, matches_per_text=4, seed=0)
    pub, own = schedule_stats(published, n), schedule_stats(ours, n)
    # Same size and appearances per text as the authors' schedule (376 matches, 8 each) ...
    assert own["matches"] == pub["matches"] == 4 * n
    assert own["appearances_min"] == own["appearances_max"] == pub["appearances_max"] == 8
    assert own["self_matches"] == pub["self_matches"] == 0
    # ... but balanced left/right and without the published schedule's repeated pairs.
    assert pub["first_min"] < 4 < pub["first_max"] and pub["repeated_pairs"] > 0
    assert own["first_min"] == own["first_max"] == 4
    assert own["repeated_pairs"] == 0


def test_rounds_cover_every_text_once():
    n, m = 94, 4
    pairs = make_schedule(n, m, seed=3)
    half = n // 2
    for r in range(2 * m):
        texts = [t for p in pairs[r * half : (r + 1) * half] for t in p]
        assert sorted(texts) == list(range(n)), f"round {r}"


@pytest.mark.parametrize("m", [1, 2, 3, 4, 6])
def test_balance_holds_for_many_pool_sizes(m):
    for n in range(2, 40):
        for seed in (0, 7):
            pairs = make_schedule(n, m, seed)
            st = schedule_stats(pairs, n)
            assert st["matches"] == m * n
            assert st["appearances_min"] == st["appearances_max"] == 2 * m, (n, m, seed)
            assert st["first_min"] == st["first_max"] == m, (n, m, seed)
            assert st["self_matches"] == 0
            counts = Counter(tuple(sorted(p)) for p in pairs)
            if n > 2 * m:
                assert st["repeated_pairs"] == 0, (n, m, seed)
            else:  # repeats are forced; none beyond what the pool size forces
                assert max(counts.values()) <= math.ceil(m * n / (n * (n - 1) / 2)), (n, m, seed)


def test_deterministic_per_seed_and_different_across_seeds():
    assert make_schedule(50, 4, seed=1) == make_schedule(50, 4, seed=1)
    assert make_schedule(50, 4, seed=1) != make_schedule(50, 4, seed=2)
    # Different pool sizes with the same seed are unrelated schedules, not prefixes.
    assert make_schedule(51, 4, seed=1)[:5] != make_schedule(50, 4, seed=1)[:5]


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="at least 2 texts"):
        make_schedule(1)
    with pytest.raises(ValueError, match="matches_per_text"):
        make_schedule(10, 0)
    with pytest.raises(ValueError, match="match 1: text 2 is scheduled against itself"):
        validate_schedule([[0, 1], [2, 2]], 3)
    with pytest.raises(ValueError, match="match 0: text index out of range"):
        validate_schedule([[0, 5]], 3)


def test_round_trip_in_the_arts_pairs_format(tmp_path, data_dir):
    pairs = make_schedule(12, 4, seed=5)
    path = tmp_path / "pairs.json"
    save_schedule(path, pairs)
    assert load_schedule(path, 12) == pairs
    # The published files read the same way.
    published = load_schedule(data_dir / "pairs" / "arts94_pairs.json")
    assert published == load_pairs("arts94", data_dir)


def test_malformed_schedule_files_are_named(tmp_path):
    path = tmp_path / "bad.json"
    for content, where in (
        ("[5, [1, 2]]", "match 0"),
        ("[[0, 1], [1.5, 2]]", "match 1"),
        ('[[0, 1], "12"]', "match 1"),
    ):
        path.write_text(content)
        with pytest.raises(ValueError, match=f"bad.json: {where}: not a pair of text indices"):
            load_schedule(path)


def test_matches_per_text_beyond_the_texts_is_refused_with_the_maximum():
    from arts_metric.ratings.schedule import check_matches_per_text, max_matches_per_text

    assert [max_matches_per_text(n) for n in (2, 3, 5, 94)] == [1, 2, 4, 93]
    for n in (2, 3, 5, 12):
        check_matches_per_text(n, max_matches_per_text(n))  # the maximum itself is fine
        with pytest.raises(ValueError, match=rf"the maximum is {n - 1} for {n} texts \({(n - 1) // 2} without"):
            check_matches_per_text(n, n)
    with pytest.raises(ValueError, match="positive integer"):
        check_matches_per_text(5, 0)
