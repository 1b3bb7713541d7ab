"""Resampling over inputs: the paired bootstrap behind every interval of a system
comparison and the paired approximate-randomization test behind every p-value.

Inputs are the unit of resampling: a bootstrap resample draws inputs with
replacement and keeps all systems' outputs of an input together (paired), so
one table of resample counts serves every system, every measure and the
head-to-head ratings. Hand-written rather than ``scipy.stats.bootstrap``
because that draws new resamples for each statistic, while here the
intervals of means, differences and Bradley-Terry ratings must come from the
same resampled input sets (and ratings need the counts as match weights).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

DEFAULT_RESAMPLES = 1000
DEFAULT_PERMUTATIONS = 10000
DEFAULT_LEVEL = 0.95


def bootstrap_counts(
    n_inputs: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int | Sequence[int] | None = 0
) -> np.ndarray:
    """``(n_resamples, n_inputs)`` integer counts: how often each input is drawn in each
    resample (each row sums to ``n_inputs``)."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    if n_inputs < 1:
        raise ValueError(f"need at least one input to resample, got {n_inputs}")
    rng = np.random.default_rng(seed)
    return rng.multinomial(n_inputs, np.full(n_inputs, 1.0 / n_inputs), size=int(n_resamples))


def resampled_means(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Means of ``values`` ``(n_inputs, ...)`` in every resample, NaN ignored:
    ``(n_resamples, ...)`` (NaN where a resample drew no usable value)."""
    v = np.asarray(values, dtype=float)
    ok = ~np.isnan(v)
    flat_v = np.where(ok, v, 0.0).reshape(len(v), -1)
    flat_ok = ok.reshape(len(v), -1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (counts @ flat_v) / (counts @ flat_ok)
    return out.reshape((len(counts),) + v.shape[1:])


def percentile_interval(samples: np.ndarray, level: float = DEFAULT_LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of bootstrap ``samples`` along axis 0 (NaN ignored): ``(low, high)``."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    s = np.asarray(samples, dtype=float)
    alpha = (1.0 - level) / 2.0
    with np.errstate(invalid="ignore"):
        lows = np.full(s.shape[1:], np.nan)
        highs = np.full(s.shape[1:], np.nan)
        usable = (~np.isnan(s)).any(axis=0)
        if usable.any():
            q = np.nanquantile(s[:, usable], [alpha, 1.0 - alpha], axis=0)
            lows[usable], highs[usable] = q[0], q[1]
    return lows, highs


def paired_randomization_test(
    differences: np.ndarray, n_permutations: int = DEFAULT_PERMUTATIONS, seed: int | Sequence[int] | None = 0
) -> float:
    """Two-sided p-value that the mean of paired ``differences`` (one per input, NaN
    dropped) is 0: approximate randomization, each input's two outputs swapped with
    probability 1/2 (the sign of its difference flipped).

    Exact (every sign pattern) when ``2 ** n <= n_permutations``; otherwise
    ``(1 + #{|mean*| >= |mean|}) / (1 + n_permutations)`` over random flips, as
    ``scipy.stats.permutation_test(permutation_type="samples")`` computes it for
    one sample. Hand-written because here a resample is one row of a sign matrix and
    all of them are one matrix product, while scipy's generic resampler builds
    each resample by indexing (the power benchmark runs thousands of tests); the
    tests check that both give the same p-value. NaN if no difference is usable;
    1.0 when every difference is 0 (e.g. a system against its own copy).
    """
    d = np.asarray(differences, dtype=float)
    d = d[~np.isnan(d)]
    n = len(d)
    if n == 0:
        return float("nan")
    if isinstance(n_permutations, bool) or not isinstance(n_permutations, (int, np.integer)) or n_permutations < 1:
        raise ValueError(f"n_permutations must be a positive integer, got {n_permutations!r}")
    observed = abs(d.sum())
    tol = 1e-12 * max(observed, np.abs(d).sum(), 1e-300)  # float noise must not break ties
    if 2**n <= n_permutations:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
        null = np.abs(signs @ d)
        return float(np.mean(null >= observed - tol))
    rng = np.random.default_rng(seed)
    hits = 0
    done = 0
    while done < n_permutations:  # in blocks, so that memory stays small for many inputs
        size = min(n_permutations - done, max(1, 2_000_000 // n))
        signs = rng.integers(0, 2, size=(size, n), dtype=np.int8) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ d) >= observed - tol))
        done += size
    return float((hits + 1) / (n_permutations + 1))
