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


def test_norm_names_match_the_columns_lexical_norms_builds(bench):
    # the three tables lexical_norms reads, with its thresholds: one name per column
    row = bench.norm_row(["cat"], ({"cat": 3.0}.get,) * 3, bench.NORM_CUTS)
    assert len(row) == len(bench.NORM_NAMES)
    assert bench.NORM_NAMES[3] == "aoa_kuperman_coverage" and row[3] == 1.0


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


def test_fine_tune_oof_starts_from_the_frozen_ridge_moves_from_it_and_repeats_bit_for_bit(bench):
    texts = [
        "The cat sat.",
        "We eat apples.",
        "Photosynthesis converts light energy into chemical energy.",
        "The lessee shall indemnify the lessor against all claims.",
        "It is hot today.",
        "Allosteric modulators attenuate receptor signalling.",
        "I like my dog.",
        "The committee postponed its decision pending the audit.",
    ]
    feats = bench.text_features(texts).astype(np.float64)
    target = 1200.0 + 100.0 * feats[:, 0]  # longer = harder, in Elo points
    folds = [(np.arange(0, 8, 2), np.arange(1, 8, 2)), (np.arange(1, 8, 2), np.arange(0, 8, 2))]
    frozen, tuned = bench.fine_tune_oof(texts, feats, target, folds)
    assert frozen.shape == tuned.shape == (8,)
    assert np.all(np.isfinite(tuned)) and np.all(np.abs(frozen - 1200.0) < 1000.0)
    assert not np.allclose(frozen, tuned), "training moved the layers and the head"
    again = bench.fine_tune_oof(texts, feats, target, folds)
    np.testing.assert_array_equal(again[0], frozen)
    np.testing.assert_array_equal(again[1], tuned)


def test_syntax_row_counts_bands_subordinators_and_passives_per_sentence(bench):
    row = bench.syntax_row("The ball was quickly kicked by the boy, who laughed because it was fun. It was taken.")
    bands, subordinators, passives = row[:7], row[7], row[8]
    assert sum(bands) == pytest.approx(1.0)  # every word falls in one band
    assert subordinators == pytest.approx(2 / 2)  # "who", "because" over two sentences
    assert passives == pytest.approx(2 / 2)  # "was quickly kicked", "was taken"
    assert bench.syntax_row("") == [0.0] * 9
    assert bench.syntax_row("Xqzvw blorptik.")[0] == pytest.approx(1.0)  # unknown words: the lowest band


def test_bt_linear_oof_recovers_a_linear_latent_from_decisions_alone(bench):
    rng = np.random.default_rng(0)
    z = rng.normal(size=(200, 5))
    latent = z @ np.array([2.0, -1.0, 0.0, 0.5, 0.0])
    a, b = rng.integers(0, 200, 3000), rng.integers(0, 200, 3000)
    y = (rng.random(3000) < 1 / (1 + np.exp(-(latent[a] - latent[b])))).astype(float)
    folds = [(np.setdiff1d(np.arange(200), np.arange(k, 200, 4)), np.arange(k, 200, 4)) for k in range(4)]
    pred = bench.bt_linear_oof(z, a, b, y, folds, c=1.0)
    assert np.corrcoef(pred, latent)[0, 1] > 0.95
    flipped = bench.bt_linear_oof(z, a, b, 1.0 - y, folds, c=1.0)  # the loser called harder: the order reverses
    assert np.corrcoef(flipped, latent)[0, 1] < -0.95


def test_spearman_helper_equals_scipy_with_ties(bench):
    from scipy.stats import spearmanr

    rng = np.random.default_rng(3)
    x, y = rng.integers(0, 6, 40).astype(float), rng.normal(size=40)
    assert bench._spearman(x, y) == pytest.approx(spearmanr(x, y)[0], abs=1e-12)
    assert bench._spearman(y, -y) == pytest.approx(-1.0)
