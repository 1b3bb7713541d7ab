"""Agreement of every measure with human scores of the systems' outputs, at the
system level (one value per system: Spearman and Kendall over systems, the
meta-evaluation of LENS and SLE) and the segment level (one value per output,
pooled over systems).

Signs follow :func:`arts_metric.ratings.stats.correlations`: positive = the measure
agrees with the humans, whatever each side's direction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arts_metric.ratings.directions import check_direction
from arts_metric.ratings.stats import correlations

_KEYS = ("pearson", "pearson_p", "spearman", "spearman_p", "kendall", "kendall_p")


def _row(level: str, measure: str, metric: np.ndarray, human: np.ndarray, harder: bool, human_higher_is: str) -> dict:
    ok = ~(np.isnan(metric) | np.isnan(human))
    row: dict[str, Any] = {"level": level, "measure": measure, "n": int(ok.sum())}
    try:
        row.update(
            correlations(
                metric[ok],
                human[ok],
                metric_higher_is="harder" if harder else "simpler",
                human_higher_is=human_higher_is,
            )
        )
        row["note"] = ""
    except ValueError as exc:  # too few values or a constant side: undefined, said so
        row.update({key: float("nan") for key in _KEYS})
        row["note"] = str(exc)
    return row


def correlation_rows(
    human: Sequence[np.ndarray | None],
    segment_values: Mapping[str, np.ndarray],
    system_values: Mapping[str, np.ndarray],
    harder: Mapping[str, bool],
    human_higher_is: str = "harder",
) -> list[dict[str, Any]]:
    """One row per level and measure: ``level`` (``system`` / ``segment``), ``measure``,
    ``n`` (systems or outputs used), Pearson, Spearman, Kendall and their p-values,
    ``note`` (why a correlation is undefined, else empty).

    ``human[k]`` are entry ``k``'s human scores ``(n_inputs,)`` or None (left out);
    ``segment_values[m]`` is ``(n_inputs, n_entries)``; ``system_values[m]`` is
    ``(n_entries,)``; ``harder[m]`` says whether a higher value of ``m`` means harder.
    """
    check_direction(human_higher_is, "human_higher_is")
    have = [k for k, h in enumerate(human) if h is not None]
    if not have:
        return []
    per_output = np.stack([human[k] for k in have], axis=1)  # (n_inputs, entries with scores)
    system_human = np.array([np.mean(human[k]) for k in have])
    rows = []
    for name, values in system_values.items():
        rows.append(_row("system", name, np.asarray(values, float)[have], system_human, harder[name], human_higher_is))
    for name, values in segment_values.items():
        seg = np.asarray(values, float)[:, have].ravel()
        rows.append(_row("segment", name, seg, per_output.ravel(), harder[name], human_higher_is))
    return rows
