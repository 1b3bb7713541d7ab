"""Scoring texts: the one function behind ``evaluate.load("arts").compute``, the
CLI and the app. Its settings are a :class:`arts_metric.config.ScoringConfig`.

Conventions: ``arts`` is in [0, 1] and **higher = harder** (the share of the
reference pool's texts rated easier than the text); ``arts_elo`` is the same
judgment on the pool's unbounded Elo scale (1200 = the pool's starting rating;
+400 means 10:1 odds of being judged harder). ``arts_delta`` is
``source_arts - arts``: **positive = the output is easier than its source**.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from arts_metric.config import ScoringConfig
from arts_metric.readability import HIGHER_IS_HARDER, compute_formulas
from arts_metric.units import place_texts

HumanDirection = Literal["harder", "simpler"]


def validate_texts(texts: Any, name: str = "predictions") -> list[str]:
    """Check a list of texts; raise ``ValueError`` naming the first bad index."""
    if isinstance(texts, str) or not isinstance(texts, Sequence) and not hasattr(texts, "__iter__"):
        raise ValueError(f"{name} must be a list of strings, got {type(texts).__name__}")
    texts = list(texts)
    if not texts:
        raise ValueError(f"{name} is empty: give at least one text")
    for i, t in enumerate(texts):
        if t is None:
            raise ValueError(f"{name}[{i}] is None; every item must be a non-empty string")
        if not isinstance(t, str):
            raise ValueError(f"{name}[{i}] is a {type(t).__name__}, not a string: {t!r:.60}")
        if not t.strip():
            raise ValueError(f"{name}[{i}] is empty or whitespace only")
    return texts


def _validate_human(human_scores: Any, n: int) -> np.ndarray:
    values = list(human_scores)
    if len(values) != n:
        raise ValueError(f"human_scores has {len(values)} items but predictions has {n}")
    out = np.empty(n)
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(float(v)):
            raise ValueError(f"human_scores[{i}] is not a finite number: {v!r}")
        out[i] = float(v)
    return out


def _tolist(a: np.ndarray) -> list:
    return [None if (isinstance(x, float) and math.isnan(x)) else x for x in np.asarray(a, dtype=float).tolist()]


def score_texts(
    predictions: Sequence[str],
    *,
    sources: Sequence[str] | None = None,
    human_scores: Sequence[float] | None = None,
    human_higher_is: HumanDirection = "harder",
    config: ScoringConfig | None = None,
    **settings: Any,
) -> dict[str, Any]:
    """Score ``predictions`` (and optionally their ``sources``) with ARTS and formulas.

    ``settings`` (``pool=``, ``judge=``, ``formulas=``, ``placement=``, ...) are
    the fields of :class:`~arts_metric.config.ScoringConfig`, applied over
    ``config`` (default: every default); see there for each one. The result
    keys are documented in the metric card.
    """
    config = ScoringConfig.from_settings(settings, base=config)
    predictions = validate_texts(predictions, "predictions")
    n = len(predictions)
    if sources is not None:
        sources = validate_texts(sources, "sources")
        if len(sources) != n:
            raise ValueError(f"sources has {len(sources)} items but predictions has {n}")
    human = None
    if human_scores is not None:
        if human_higher_is not in ("harder", "simpler"):
            raise ValueError(f"human_higher_is must be 'harder' or 'simpler', got {human_higher_is!r}")
        human = _validate_human(human_scores, n)
    formula_names = list(config.formulas)

    judge_obj = config.make_judge()
    pool_obj = config.make_pool(judge_obj)
    all_texts = predictions + (sources or [])
    placed = place_texts(all_texts, judge_obj, pool_obj, config, n_mean=n)
    result: dict[str, Any] = {
        "arts": _tolist(placed["arts"][:n]),
        "arts_elo": _tolist(placed["arts_elo"][:n]),
    }
    if placed["arts_interval"] is not None:
        result["arts_interval"] = [_tolist(row) for row in placed["arts_interval"][:n]]
    arts_arr = placed["arts"][:n]
    result["arts_mean"] = float(np.nanmean(arts_arr)) if np.any(~np.isnan(arts_arr)) else float("nan")
    if placed["mean_interval"] is not None:
        result["arts_mean_interval"] = list(placed["mean_interval"])
    formula_values = compute_formulas(all_texts, formula_names) if formula_names else {}
    for name in formula_names:
        result[name] = _tolist(formula_values[name][:n])
    if sources is not None:
        src_arts = placed["arts"][n:]
        result["source_arts"] = _tolist(src_arts)
        result["source_arts_elo"] = _tolist(placed["arts_elo"][n:])
        for name in formula_names:
            result[f"source_{name}"] = _tolist(formula_values[name][n:])
        delta = src_arts - arts_arr
        result["arts_delta"] = _tolist(delta)
        result["arts_delta_mean"] = float(np.nanmean(delta)) if np.any(~np.isnan(delta)) else float("nan")
    if human is not None:
        from arts_metric.stats import correlations

        metrics: dict[str, tuple[np.ndarray, bool]] = {
            "arts": (arts_arr, True),
            "arts_elo": (placed["arts_elo"][:n], True),
        }
        for name in formula_names:
            metrics[name] = (formula_values[name][:n], HIGHER_IS_HARDER[name])
        result["correlation"] = {
            name: correlations(
                values,
                human,
                metric_higher_is="harder" if harder else "simpler",
                human_higher_is=human_higher_is,
            )
            for name, (values, harder) in metrics.items()
        }
    result["units"] = placed["units"][:n]
    result["placement"] = placed["method"]
    result["judge_calls"] = placed["judge_calls"]
    result["invalid"] = placed["invalid"]
    result["judge"] = judge_obj.name
    result["pool"] = pool_obj.name
    result["judge_stats"] = judge_obj.stats.as_dict()
    return result
