"""How a leaderboard reads: ranks that share a place when the tests cannot tell systems
apart, and the head-to-head rating turned so that higher = simpler.

Ranks follow Chatbot Arena's rule: a system's rank is one plus the number of
systems that are *significantly* simpler than it (pairwise p-value below
``alpha``), so systems that the tests cannot separate share a place
(1, 2, 2, 4, ...).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from arts_metric.ratings.elo import START_RATING

#: Significance level at which two systems get different ranks.
ALPHA = 0.05

#: The one sentence that defines the simplicity rating, shown wherever it is.
SIMPLICITY_NOTE = (
    f"simplicity rating: head-to-head Elo points, {START_RATING:g} = the average of the systems compared, "
    "**higher = simpler**; mean P(judged simpler): the probability that a system's output is judged the simpler "
    "one, averaged over its head-to-head matches (the share of matches it won when the judge decides each outright)"
)


def simplicity_columns(rating: np.ndarray, low: np.ndarray, high: np.ndarray, win_rate: np.ndarray) -> dict:
    """The head-to-head rating mirrored around its mean, :data:`START_RATING` (Elo points,
    higher = simpler), its interval, and the mean probability of being judged simpler (1 - ``win_rate``)."""
    mirror = 2.0 * START_RATING
    return {
        "simplicity_rating": mirror - np.asarray(rating, float),
        "simplicity_rating_low": mirror - np.asarray(high, float),
        "simplicity_rating_high": mirror - np.asarray(low, float),
        "judged_simpler": 1.0 - np.asarray(win_rate, float),
    }


def shared_ranks(order: list[str], pairwise: pd.DataFrame, alpha: float = ALPHA) -> list[int]:
    """Rank of each system of ``order`` (simplest first): 1 + the number of systems before it
    whose difference to it is significant (``p_value``, the pool view's test, or when that view
    was not run ``win_rate_p_value``, the head-to-head one, below ``alpha``)."""
    column = "p_value" if pairwise["p_value"].notna().any() else "win_rate_p_value"
    p = {(a, b): v for a, b, v in zip(pairwise["system_a"], pairwise["system_b"], pairwise[column])}
    ranks = []
    for y, name in enumerate(order):
        ahead = sum(1 for x in range(y) if p.get((order[x], name), np.nan) < alpha)
        ranks.append(1 + ahead)
    return ranks
