"""Correlation of a metric with human judgments, bootstrap intervals, Williams' test, and the
partial Spearman correlation with a covariate (such as length) held fixed.

Direction convention: ARTS scores and most formulas are higher = harder, FRE
is higher = easier. :func:`correlations` flips whichever side is "easier" so
that a **positive** correlation always means the metric agrees with humans.
"""

from __future__ import annotations

import inspect
import math
from typing import Callable, Literal, NamedTuple, Sequence

import numpy as np
from scipy import stats as sps

from arts_metric.ratings.directions import Direction, sign

_STATS = ("pearson", "spearman", "kendall")
# scipy >= 1.15 names the generator `rng` (and deprecates `random_state`).
_RNG_KW = "rng" if "rng" in inspect.signature(sps.bootstrap).parameters else "random_state"


def _vector(values: Sequence[float], name: str) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numbers: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr))
    if len(bad):
        raise ValueError(f"{name}[{bad[0]}] is {arr[bad[0]]} (NaN/inf not allowed; {len(bad)} such values)")
    return arr


def _pair(metric: Sequence[float], human: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    x, y = _vector(metric, "metric"), _vector(human, "human")
    if len(x) != len(y):
        raise ValueError(f"metric has {len(x)} values but human has {len(y)}")
    if len(x) < 3:
        raise ValueError(f"need at least 3 paired values, got {len(x)}")
    for arr, name in ((x, "metric"), (y, "human")):
        if np.all(arr == arr[0]):
            raise ValueError(f"{name} is constant ({arr[0]}); correlation is undefined")
    return x, y


def correlations(
    metric: Sequence[float],
    human: Sequence[float],
    metric_higher_is: Direction = "harder",
    human_higher_is: Direction = "harder",
) -> dict[str, float]:
    """Pearson, Spearman and Kendall (tau-b) correlations with two-sided p-values.

    Keys: ``pearson, pearson_p, spearman, spearman_p, kendall, kendall_p``.
    ``*_higher_is`` says what a larger value means for each input (e.g. FRE:
    ``metric_higher_is="easier"``); values are signed so that positive =
    the metric agrees with the humans.
    """
    x, y = _pair(metric, human)
    x = x * sign(metric_higher_is, "metric_higher_is") * sign(human_higher_is, "human_higher_is")
    pr = sps.pearsonr(x, y)
    sr = sps.spearmanr(x, y)
    kt = sps.kendalltau(x, y)
    return {
        "pearson": float(pr.statistic),
        "pearson_p": float(pr.pvalue),
        "spearman": float(sr.statistic),
        "spearman_p": float(sr.pvalue),
        "kendall": float(kt.statistic),
        "kendall_p": float(kt.pvalue),
    }


def _pearson_along(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Vectorised Pearson r along ``axis`` (for scipy.stats.bootstrap's batches)."""
    xm = x - x.mean(axis=axis, keepdims=True)
    ym = y - y.mean(axis=axis, keepdims=True)
    denom = np.sqrt((xm * xm).sum(axis=axis) * (ym * ym).sum(axis=axis))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (xm * ym).sum(axis=axis) / denom


def _spearman_along(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Vectorised Spearman rho: Pearson of average ranks (what scipy.stats.spearmanr does)."""
    return _pearson_along(sps.rankdata(x, axis=axis), sps.rankdata(y, axis=axis), axis=axis)


def bootstrap_ci(
    metric: Sequence[float],
    human: Sequence[float],
    stat: str | Callable[[np.ndarray, np.ndarray], float] = "spearman",
    n_resamples: int = 1000,
    seed: int | None = 0,
    confidence_level: float = 0.95,
    method: Literal["percentile", "basic", "BCa"] = "BCa",
) -> tuple[float, float]:
    """Paired bootstrap confidence interval (default 95 %, BCa) of a correlation.

    Texts are resampled with replacement, keeping each (metric, human) pair
    together (``scipy.stats.bootstrap(..., paired=True)``). ``stat`` is
    ``"pearson"``, ``"spearman"``, ``"kendall"`` or a function ``f(x, y) -> float``.
    Directions are not flipped here: pass already-signed values (or use the
    signs from :func:`correlations`). Returns ``(low, high)``.
    """
    x, y = _pair(metric, human)
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    vectorized = False
    if callable(stat):
        fn = stat
    elif stat == "pearson":
        fn, vectorized = _pearson_along, True
    elif stat == "spearman":
        fn, vectorized = _spearman_along, True
    elif stat == "kendall":
        fn = lambda a, b: sps.kendalltau(a, b).statistic  # noqa: E731  (no batched tau in scipy)
    else:
        raise ValueError(f"stat must be one of {', '.join(_STATS)} or a callable, got {stat!r}")
    res = sps.bootstrap(
        (x, y),
        fn,
        paired=True,
        vectorized=vectorized,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        **{_RNG_KW: np.random.default_rng(seed)},
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


class WilliamsResult(NamedTuple):
    """Williams' t statistic, its p-value and degrees of freedom (n - 3)."""

    statistic: float
    pvalue: float
    df: int


def williams_test(
    r12: float,
    r13: float,
    r23: float,
    n: int,
    alternative: Literal["greater", "less", "two-sided"] = "greater",
) -> WilliamsResult:
    """Williams' (1959) test for two dependent correlations sharing variable 1.

    Variable 1 is the human judgment, 2 and 3 two metrics; ``r12``/``r13`` are
    their correlations with humans and ``r23`` the correlation between the
    metrics, all over the same ``n`` texts. As in Graham & Baldwin (2014) and
    "Evaluating the Evaluators" (appendix C):

        K = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23
        t = (r12 - r13) sqrt((n - 1)(1 + r23))
            / sqrt(2 K (n - 1)/(n - 3) + ((r12 + r13)^2 / 4) (1 - r23)^3)

    with ``n - 3`` degrees of freedom. ``alternative="greater"`` (default,
    the one-sided test of those papers) tests r12 > r13; ``"less"`` r12 < r13;
    ``"two-sided"`` any difference.
    """
    for name, r in (("r12", r12), ("r13", r13), ("r23", r23)):
        if not (isinstance(r, (int, float, np.floating)) and math.isfinite(r) and -1.0 <= r <= 1.0):
            raise ValueError(f"{name} must be a correlation in [-1, 1], got {r!r}")
    if not isinstance(n, (int, np.integer)) or n < 4:
        raise ValueError(f"n must be an integer >= 4, got {n!r}")
    k = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    if k < 0:
        raise ValueError(f"r12={r12}, r13={r13}, r23={r23} cannot come from one data set (determinant {k:.4g} < 0)")
    denom = math.sqrt(2 * k * (n - 1) / (n - 3) + ((r12 + r13) ** 2 / 4) * (1 - r23) ** 3)
    if denom == 0:
        raise ValueError("Williams' test is undefined here (zero variance: r23 = 1 or perfectly collinear inputs)")
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / denom
    df = int(n) - 3
    if alternative == "greater":
        p = sps.t.sf(t, df)
    elif alternative == "less":
        p = sps.t.cdf(t, df)
    elif alternative == "two-sided":
        p = 2 * sps.t.sf(abs(t), df)
    else:
        raise ValueError(f"alternative must be 'greater', 'less' or 'two-sided', got {alternative!r}")
    return WilliamsResult(float(t), float(p), df)


def partial_spearman(x: Sequence[float], y: Sequence[float], covariate: Sequence[float]) -> float:
    """Spearman correlation of ``x`` and ``y`` with ``covariate`` held fixed: the Pearson
    correlation of the residuals of ``x``'s and ``y``'s ranks after a least-squares line on
    ``covariate``'s ranks (ties get mean ranks). What a measure knows beyond the covariate,
    e.g. beyond a text's length with ``covariate`` = log word count. In [-1, 1]; NaN when a
    residual has no variance.

    Written out here because scipy has no partial correlation and the formula is three lines.
    """
    rx, ry, rz = (sps.rankdata(_vector(v, name)) for v, name in ((x, "x"), (y, "y"), (covariate, "covariate")))
    if not (len(rx) == len(ry) == len(rz)) or len(rx) < 3:
        raise ValueError(
            f"partial_spearman needs three sequences of one length >= 3, got {len(rx)}, {len(ry)}, {len(rz)}"
        )
    design = np.column_stack([np.ones_like(rz), rz])

    def residual(r: np.ndarray) -> np.ndarray:
        return r - design @ np.linalg.lstsq(design, r, rcond=None)[0]

    ex, ey = residual(rx), residual(ry)
    denom = math.sqrt(float(ex @ ex) * float(ey @ ey))
    return float(ex @ ey / denom) if denom > 0 else math.nan
