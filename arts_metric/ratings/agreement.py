"""Agreement between raters of pairwise "which text is harder?" decisions.

Several raters (humans, or repeated runs of an LLM judge) decide the same
match schedule. A decision is coded as a number:

    1.0  text ``a`` judged harder,  0.0  text ``b`` judged harder,  NaN  no answer

(:func:`code_decisions`). This coding, with NaN as missing, reproduces the
Krippendorff alphas of the ARTS paper (section 5.4) on the released ARTS160
persona runs. Every function accepts either histories (lists of
:class:`arts_metric.data.Match` over the same schedule, in the same order) or
plain arrays of coded decisions (``None`` is read as NaN), one row per rater.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Sequence, overload

import krippendorff
import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score

from arts_metric.data import Match

RaterInput = Sequence[Sequence[Match]] | Sequence[Sequence[float | None]] | np.ndarray


def code_decisions(history: Sequence[Match]) -> np.ndarray:
    """Code one history as float64: 1.0 if ``a`` was judged harder, 0.0 if ``b``, NaN if no answer."""
    return np.array([np.nan if m.harder is None else float(m.harder == m.a) for m in history], dtype=np.float64)


def _is_history(rater: object) -> bool:
    return isinstance(rater, (list, tuple)) and len(rater) > 0 and isinstance(rater[0], Match)


def _schedule_check(histories: Sequence[Sequence[Match]]) -> None:
    ref = [(m.a, m.b) for m in histories[0]]
    for r, hist in enumerate(histories[1:], start=1):
        if len(hist) != len(ref):
            raise ValueError(f"rater {r} has {len(hist)} decisions, rater 0 has {len(ref)}")
        for j, m in enumerate(hist):
            if (m.a, m.b) != ref[j]:
                raise ValueError(
                    f"rater {r}, match {j}: pair ({m.a}, {m.b}) differs from rater 0's {ref[j]}; "
                    "all raters must decide the same schedule in the same order"
                )


def decision_matrix(raters: RaterInput) -> np.ndarray:
    """Raters x matches float64 matrix of coded decisions (see module docstring).

    Histories must share one schedule (same pairs, same order). Plain values
    must be 0, 1, NaN or None.
    """
    if isinstance(raters, np.ndarray):
        rows = list(raters) if raters.ndim == 2 else None
        if rows is None:
            raise ValueError(f"expected a 2-D raters x matches array, got shape {raters.shape}")
    else:
        rows = list(raters)
    if len(rows) == 0:
        raise ValueError("no raters given")
    if all(_is_history(r) for r in rows):
        _schedule_check(rows)
        return np.vstack([code_decisions(h) for h in rows])
    coded = []
    for r, row in enumerate(rows):
        if _is_history(row):
            raise ValueError(f"rater {r} is a history but others are plain arrays; do not mix")
        vals = np.array([np.nan if v is None else v for v in row], dtype=np.float64)
        bad = ~np.isnan(vals) & (vals != 0.0) & (vals != 1.0)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise ValueError(f"rater {r}, match {j}: decision {row[j]!r} is not 0, 1, None or NaN")
        coded.append(vals)
    lengths = {len(v) for v in coded}
    if len(lengths) != 1:
        raise ValueError(f"raters have different numbers of decisions: {[len(v) for v in coded]}")
    return np.vstack(coded)


@overload
def majority_vote(raters: Sequence[Sequence[Match]], seed: int | None = 0) -> list[Match]: ...
@overload
def majority_vote(raters: Sequence[Sequence[float | None]] | np.ndarray, seed: int | None = 0) -> np.ndarray: ...
def majority_vote(raters, seed=0):
    """Per-match majority of several raters; ties broken at random with ``seed``.

    Missing answers are ignored; a match nobody answered stays missing. Ties
    (equal votes for both texts) are settled by one draw per tied match from
    ``numpy.random.default_rng(seed)``, in match order, so a seed gives the
    same majority every time. Given histories, returns a history (list of
    Match, ``harder`` = majority winner or None); given arrays, a float64
    array of 1.0/0.0/NaN.
    """
    matrix = decision_matrix(raters)
    votes_a = np.nansum(matrix, axis=0)
    answered = np.sum(~np.isnan(matrix), axis=0)
    votes_b = answered - votes_a
    out = np.where(votes_a > votes_b, 1.0, 0.0)
    out[answered == 0] = np.nan
    ties = np.flatnonzero((votes_a == votes_b) & (answered > 0))
    out[ties] = np.random.default_rng(seed).integers(0, 2, size=len(ties)).astype(np.float64)
    first = list(raters)[0]
    if not _is_history(first):
        return out
    return [Match(m.match, m.a, m.b, None if np.isnan(v) else (m.a if v == 1.0 else m.b)) for m, v in zip(first, out)]


def percent_agreement(raters: RaterInput) -> float:
    """Share of agreeing decisions, in [0, 1], averaged over all rater pairs.

    For each pair of raters only matches both answered count; the result is
    the total number of agreeing pairs over the total number of comparable
    pairs (so pairs with more common answers weigh more).
    """
    matrix = decision_matrix(raters)
    if matrix.shape[0] < 2:
        raise ValueError("percent agreement needs at least two raters")
    agree = total = 0
    for x, y in itertools.combinations(matrix, 2):
        both = ~np.isnan(x) & ~np.isnan(y)
        agree += int(np.sum(x[both] == y[both]))
        total += int(both.sum())
    if total == 0:
        raise ValueError("no match was answered by two raters")
    return agree / total


def cohen_kappa(
    rater1: Sequence[Match] | Sequence[float | None], rater2: Sequence[Match] | Sequence[float | None]
) -> float:
    """Cohen's kappa of two raters (matches either left unanswered are dropped).

    Uses :func:`sklearn.metrics.cohen_kappa_score`. NaN when both raters give
    one and the same label everywhere (agreement by chance cannot be told apart).
    """
    matrix = decision_matrix([rater1, rater2])
    both = ~np.isnan(matrix).any(axis=0)
    if not both.any():
        raise ValueError("the two raters have no answered match in common")
    with warnings.catch_warnings():  # the NaN case is documented above
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return float(cohen_kappa_score(matrix[0, both], matrix[1, both], labels=[0.0, 1.0]))


def krippendorff_alpha(raters: RaterInput, level_of_measurement: str = "nominal") -> float:
    """Krippendorff's alpha over raters x matches (missing answers allowed).

    Nominal by default, as in the ARTS paper; computed by the ``krippendorff``
    package. For binary codes nominal and interval alpha coincide.
    """
    matrix = decision_matrix(raters)
    if matrix.shape[0] < 2:
        raise ValueError("Krippendorff's alpha needs at least two raters")
    values = np.unique(matrix[~np.isnan(matrix)])
    if len(values) < 2:
        raise ValueError("Krippendorff's alpha is undefined when every decision has the same code")
    return float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level_of_measurement))
