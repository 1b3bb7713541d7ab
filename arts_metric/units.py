"""Whole texts in a frozen pool: each text is cut into judge units, the units are
placed, and every text gets the length-weighted mean of its units.

A text longer than ``split_above`` characters is cut at sentence boundaries
into units of at most ``chunk_chars`` characters (:mod:`arts_metric.segment`;
``long_texts="whole"`` keeps every text whole); a unit longer than the judge
reads is cut with a warning. Identical units are placed once. A text's
``arts`` and ``arts_elo`` are the means of its units' values weighted by their
lengths in characters; its interval the same mean of the units' bounds.

A unit's placement depends on the unit, the pool, the judge and the placement
settings only (see :mod:`arts_metric.placement.streams`), so a text scores the
same alone, among other texts or in any batch. A text with a unit that got no
judge answer at all (a failure, not an unusable answer) gets NaN and is
counted as incomplete; a rerun completes it.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from arts_metric import placement as placement_mod
from arts_metric.config import ScoringConfig
from arts_metric.judges import Judge, PointwiseJudge
from arts_metric.pool import Pool
from arts_metric.segment import chunk_text


def _units(texts: Sequence[str], config: ScoringConfig, max_chars: int, label: str) -> list[list[str]]:
    out = []
    for i, text in enumerate(texts):
        units = chunk_text(text, config.chunk_chars, config.split_above) if config.long_texts == "chunks" else [text]
        cut = []
        for u in units:
            if len(u) > max_chars:
                warnings.warn(
                    f"{label}[{i}]: a unit of {len(u)} characters was cut to {max_chars} for the judge "
                    "(the formulas still see the whole text)",
                    stacklevel=3,
                )
                u = u[:max_chars]
            cut.append(u)
        out.append(cut)
    return out


def place_texts(
    texts: Sequence[str],
    judge: Judge,
    pool: Pool,
    config: ScoringConfig | None = None,
    *,
    label: str = "predictions",
    n_mean: int | None = None,
) -> dict[str, Any]:
    """Rate texts against the frozen ``pool`` with ``judge``, cutting long texts into
    units and placing them as ``config`` says (default settings when None).

    Returns ``arts`` (n,), ``arts_elo`` (n,), ``arts_interval`` ((n, 2) or None),
    ``mean_interval`` (interval of the mean ``arts`` of the first ``n_mean``
    texts, default all), ``judge_calls`` (pool texts a pointwise judge scored
    included), ``calls_per_text`` (the text's own; a unit shared by two texts
    counts for both), ``invalid`` (answers that stayed unusable), ``failed``
    (decisions for which no answer was obtained), ``incomplete`` ((n,) True for
    texts left without a score by a failed decision), ``units`` (how many
    pieces each text was cut into) and ``method`` (the placement used).
    """
    config = config or ScoringConfig()
    if not isinstance(judge, PointwiseJudge) or judge.score_key not in pool.judge_scores:
        pool.get_texts()  # fail before any judge call when the pool's texts are unavailable
    unit_lists = _units(texts, config, judge.max_chars, label)
    unique: dict[str, int] = {}
    for units in unit_lists:
        for u in units:
            unique.setdefault(u, len(unique))
    unit_texts = list(unique)
    options = dict(config.placement_options)
    if config.placement is not None:
        options["method"] = config.placement
    result = placement_mod.place(judge, pool, unit_texts, **options)
    unit_arts = np.asarray(result.arts if result.arts is not None else pool.arts_of_rating(result.ratings), dtype=float)
    unit_ratings = np.asarray(result.ratings, dtype=float)
    unit_iv = result.arts_interval
    exact = result.info.get("sampled") is False
    if exact:
        # A pointwise judge placed against every pool text (the learned judge):
        # no judge decisions were sampled, so there is no per-text sampling
        # interval to report (the judge's error is its disagreement with humans,
        # measured in benchmarks/). The mean's interval then resamples texts only.
        unit_iv = None
        q = np.repeat(unit_arts[:, None], len(placement_mod.QUANTILE_LEVELS), axis=1)
        result = dataclasses.replace(result, arts_quantiles=q)
    n = len(texts)
    arts = np.full(n, np.nan)
    ratings = np.full(n, np.nan)
    bounds = np.full((n, 2), np.nan) if unit_iv is not None else None
    unit_lost = np.asarray(result.incomplete if result.incomplete is not None else np.zeros(len(unit_texts)), dtype=bool)
    incomplete = np.zeros(n, dtype=bool)
    unit_idx = [[unique[u] for u in units] for units in unit_lists]
    unit_w = [[float(len(u)) for u in units] for units in unit_lists]
    # A chunked text scores the length-weighted mean of its chunks, on both
    # scales; its interval is the same mean of the chunks' bounds (conservative:
    # it ignores that chunk errors partly cancel).
    for i, (idx_list, w_list) in enumerate(zip(unit_idx, unit_w)):
        idx, w = np.array(idx_list), np.array(w_list)
        ok = ~np.isnan(unit_arts[idx])
        if unit_lost[idx].any():  # a score from fewer units than a complete run would use: none
            incomplete[i] = True
            continue
        if ok.any():
            arts[i] = np.average(unit_arts[idx][ok], weights=w[ok])
            ratings[i] = np.average(unit_ratings[idx][ok], weights=w[ok])
            if bounds is not None:
                bounds[i] = np.average(np.asarray(unit_iv)[idx][ok], axis=0, weights=w[ok])
    unit_calls = np.asarray(result.calls_per_text if result.calls_per_text is not None else np.zeros(len(unit_texts)))
    calls_per_text = [int(unit_calls[idx].sum()) for idx in unit_idx]
    mean_interval = None
    if np.any(~np.isnan(arts)):
        k = n if n_mean is None else n_mean
        kept = [[] if incomplete[i] else unit_idx[i] for i in range(k)]  # an incomplete text has no score
        weights = [[] if incomplete[i] else unit_w[i] for i in range(k)]
        mean_interval = placement_mod.system_interval(result, pool, units=kept, unit_weights=weights)
    return {
        "arts": arts,
        "arts_elo": ratings,
        "arts_interval": bounds,
        "mean_interval": mean_interval,
        "judge_calls": int(result.judge_calls),
        "calls_per_text": calls_per_text,
        "invalid": int(result.invalid),
        "failed": int(result.failed),
        "incomplete": incomplete,
        "units": [len(u) for u in unit_lists],
        "method": result.method,
    }
