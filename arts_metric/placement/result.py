"""What every placement method returns, and the argument checks they share.

:class:`PlacementResult` holds newcomers' ratings on the pool's Elo scale and
their ARTS-scale quantiles; :func:`finish_result` assembles one; the ``_check_*``
functions turn bad arguments into a ``ValueError`` that names them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from arts_metric.placement.asker import Asker
from arts_metric.pool import Pool
from arts_metric.ratings.elo import rating_of_pool_position
from arts_metric.text.checks import check_text_list

DEFAULT_LEVEL = 0.95
#: probability levels at which every result stores each text's ARTS-scale quantiles
QUANTILE_LEVELS = (np.arange(40) + 0.5) / 40


@dataclass
class PlacementResult:
    """Ratings of newcomers on the pool's Elo scale (higher = harder).

    ``se`` is a standard error of each rating in Elo points; ``interval`` the
    ``(n, 2)`` interval at ``level`` on the Elo scale; ``arts`` the ARTS score
    and ``arts_quantiles`` ``(n, len(QUANTILE_LEVELS))`` quantiles of each
    text's ARTS score (its posterior, bootstrap or likelihood distribution).
    ``judge_calls`` counts the decisions asked of the judge (a pointwise judge
    that is asked per text counts each text it scored, pool texts included),
    also per text in ``calls_per_text``. ``invalid`` counts answers that stayed
    unusable (judgments: a text without a single usable decision gets NaN);
    ``failed`` counts decisions for which no answer was obtained (a transport
    fault after retries, a budget that did not allow the request). A text whose
    placement met a failed decision stops there: it is ``incomplete`` and gets
    NaN, never a score from fewer answers than a complete run would use, and a
    rerun completes it (the answers it had come from the judge's cache).
    """

    ratings: np.ndarray
    se: np.ndarray
    judge_calls: int = 0
    invalid: int = 0
    failed: int = 0
    #: ``(n,)`` True for texts left without a score for lack of an answer
    incomplete: np.ndarray | None = None
    matches: list[list[tuple[int, float]]] = field(default_factory=list)
    #: ``(n, 2)`` interval of each rating on the Elo scale at ``level``
    interval: np.ndarray | None = None
    #: judge calls spent on each text, ``(n,)``
    calls_per_text: np.ndarray | None = None
    method: str = ""
    level: float = DEFAULT_LEVEL
    arts: np.ndarray | None = None
    arts_quantiles: np.ndarray | None = None
    #: ``(n, 2)`` interval of each text on the ARTS scale at ``level``
    arts_interval: np.ndarray | None = None
    #: False where no judge decision was sampled (a pointwise judge against every pool
    #: text): the values are exact given the judge, with no per-text sampling interval
    sampled: bool = True
    #: method details, e.g. the calibrated judge model of ``adaptive``
    info: dict = field(default_factory=dict)


def rating_of_arts(pool: Pool, arts: np.ndarray | Sequence[float]) -> np.ndarray:
    """The rating at ARTS position ``arts`` on the pool's own Elo scale: the pool's
    rating quantile, continued a few points beyond its easiest and hardest text
    (:func:`arts_metric.ratings.elo.rating_of_pool_position`). Strictly increasing; NaN stays NaN."""
    return rating_of_pool_position(pool.ratings, arts)


def default_budget(pool_size: int) -> int:
    """Default judge calls per text: ``ceil(2 log2 N)`` (24 for ARTS3000, 17 for ARTS300)."""
    return max(1, math.ceil(2.0 * math.log2(max(pool_size, 2))))


def check_level(level: float) -> float:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    return float(level)


def check_budget(budget: int | None, pool: Pool) -> int:
    if budget is None:
        return min(default_budget(len(pool)), len(pool))  # ceil(2 log2 3) = 4 > 3
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise ValueError(f"budget must be a positive integer (judge calls per text), got {budget!r}")
    return int(min(budget, len(pool)))  # a pool text is never played twice by one newcomer


def check_newcomers(texts: Sequence[str]) -> list[str]:
    """The texts to place: non-blank strings (:func:`arts_metric.text.checks.check_text_list`)."""
    return check_text_list(texts, "texts")


def interval_bounds(level: float) -> tuple[float, float]:
    """Lower and upper probability of the central interval at ``level``."""
    return (1.0 - level) / 2.0, (1.0 + level) / 2.0


def finish_result(
    pool: Pool,
    ratings: np.ndarray,
    arts_q: np.ndarray,
    interval_arts: np.ndarray,
    interval: np.ndarray,
    se: np.ndarray,
    asker: Asker,
    calls_per_text: np.ndarray,
    matches: list,
    method: str,
    level: float,
    arts: np.ndarray | None = None,
    info: dict | None = None,
    incomplete: np.ndarray | None = None,
    judge_calls: int | None = None,
    sampled: bool = True,
) -> PlacementResult:
    """Assemble a method's result; the judge's call, invalid and failed counts come
    from ``asker`` (``judge_calls`` overrides the call count)."""
    n = len(ratings)
    return PlacementResult(
        ratings=ratings,
        se=se,
        judge_calls=int(asker.calls if judge_calls is None else judge_calls),
        invalid=int(asker.invalid),
        failed=int(asker.failed),
        incomplete=np.zeros(n, dtype=bool) if incomplete is None else np.asarray(incomplete, dtype=bool),
        matches=matches,
        interval=interval,
        calls_per_text=np.asarray(calls_per_text, dtype=int),
        method=method,
        level=level,
        arts=pool.arts_of_rating(ratings) if arts is None else arts,
        arts_quantiles=arts_q,
        arts_interval=interval_arts,
        sampled=sampled,
        info=dict(info or {}),
    )


def empty_result(method: str) -> PlacementResult:
    """The result of placing no texts at all."""
    empty = np.empty(0)
    return PlacementResult(
        ratings=empty,
        se=empty,
        interval=np.empty((0, 2)),
        calls_per_text=np.empty(0, dtype=int),
        incomplete=np.empty(0, dtype=bool),
        method=method,
        arts=empty,
        arts_quantiles=np.empty((0, len(QUANTILE_LEVELS))),
        arts_interval=np.empty((0, 2)),
    )
