"""The placement entry point :func:`place` and its registry of methods."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Mapping, Sequence

from arts_metric.judges.base import Judge, PointwiseJudge
from arts_metric.placement.adaptive import place_adaptive
from arts_metric.placement.elo_method import place_elo
from arts_metric.placement.exhaustive import place_exhaustive
from arts_metric.placement.mle import place_mle
from arts_metric.placement.result import PlacementResult, check_newcomers, empty_result
from arts_metric.pool import Pool

METHODS = ("exhaustive", "elo", "mle", "adaptive")

_PLACERS = {
    "exhaustive": place_exhaustive,
    "elo": place_elo,
    "mle": place_mle,
    "adaptive": place_adaptive,
}


def method_defaults(method: str) -> dict[str, Any]:
    """The options ``place(method=method, ...)`` accepts, with their default values."""
    if method not in _PLACERS:
        raise ValueError(f"unknown placement method {method!r}; choose one of {', '.join(METHODS)}")
    params = list(inspect.signature(_PLACERS[method]).parameters.values())[3:]  # after judge, pool, texts
    return {p.name: p.default for p in params}


def method_options(method: str) -> list[str]:
    """Option names that ``place(method=method, ...)`` accepts."""
    return list(method_defaults(method))


#: A placement method's function: ``(judge, pool, texts, **options) -> PlacementResult``.
Placer = Callable[..., PlacementResult]


def placer(method: str, options: Mapping[str, Any]) -> Placer:
    """The function of placement ``method``, once ``options`` are checked to be among the
    ones it takes (``ValueError`` naming those it does not)."""
    known = method_options(method)
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ValueError(
            f"unknown placement option(s) {', '.join(map(repr, unknown))} for method {method!r}; "
            f"it takes: {', '.join(known)}"
        )
    return _PLACERS[method]


def place(
    judge: Judge, pool: Pool, texts: Sequence[str], method: str | None = None, **options: Any
) -> PlacementResult:
    """Place ``texts`` in the frozen ``pool`` with ``judge``.

    ``method``: ``"exhaustive"``, ``"elo"``, ``"mle"`` or ``"adaptive"``; ``None``
    picks ``"exhaustive"`` for a :class:`PointwiseJudge` (free) and
    ``"adaptive"`` for any other judge. ``options`` go to the method's function
    (``place_exhaustive``, ``place_elo``, ``place_mle``, ``place_adaptive``);
    an option the method does not take raises ``ValueError``.
    """
    method = method or default_method(judge)
    run = placer(method, options)
    texts = check_newcomers(texts)
    if not texts:
        return empty_result(method)
    return run(judge, pool, texts, **options)


def default_method(judge: Judge) -> str:
    """``"exhaustive"`` for a :class:`PointwiseJudge` (no pairwise calls), ``"adaptive"`` for
    any other judge."""
    return "exhaustive" if isinstance(judge, PointwiseJudge) else "adaptive"
