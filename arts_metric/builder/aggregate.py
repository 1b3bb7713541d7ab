"""From a build's stored decisions to scores: majority vote, Elo, rank scaling, and the agreement report.

Majority of the raters per match, ties broken with a seeded coin
(:func:`arts_metric.ratings.agreement.majority_vote`); Elo over the majority in
schedule order (winner = harder text, K=16, start 1200); scores
``(rank - 1) / (N - 1)`` in [0, 1], higher = harder
(:func:`arts_metric.ratings.elo.rank_scale`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from arts_metric.builder.specs import HUMAN_PREFIX, public_spec
from arts_metric.builder.store import DecisionStore
from arts_metric.data import Match
from arts_metric.ratings.elo import K_FACTOR, START_RATING, rank_scale, run_elo


class IncompleteRatingsError(ValueError):
    """Raised when raters have not answered every match: a human still rating in the web interface,
    or a machine rater whose requests failed or were not sent (``max_requests``).

    ``missing`` maps each such rater to its number of matches without an answer; ``humans`` names
    the human raters among them.
    """

    def __init__(self, message: str, missing: dict[str, int] | None = None, humans: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.missing = dict(missing or {})
        self.humans = list(humans)


@dataclass
class BuildResult:
    """What a build produced. ``scores`` are ARTS scores in [0, 1] (higher = harder)."""

    out_dir: Path
    rows: list[dict]
    pairs: list[tuple[int, int]]
    raters: list[dict]
    majority: list[Match]
    elo: np.ndarray
    scores: np.ndarray
    report: dict


def _matrix(store: DecisionStore, names: Sequence[str], n_matches: int) -> np.ndarray:
    """raters x matches: 1.0 = a harder, 0.0 = b harder, NaN = no usable answer (invalid or missing)."""
    out = np.full((len(names), n_matches), np.nan)
    for i, name in enumerate(names):
        for r in store.history(name):
            if r["harder"] is not None:
                out[i, r["match"]] = 1.0 if r["harder"] == r["a"] else 0.0
    return out


def aggregate(
    store: DecisionStore, names: Sequence[str], seed: int = 0, k: float = K_FACTOR, allow_incomplete: bool = False
) -> BuildResult:
    """Majority vote (seeded tie-breaks) -> Elo in schedule order -> rank-scaled scores, plus the report.

    Every rater must have answered every match (an invalid answer counts as
    answered), else :class:`IncompleteRatingsError`; with ``allow_incomplete``
    the missing matches are left out of that rater's votes, and the report
    counts them (``missing`` per rater and in total, ``complete: false``).
    """
    from scipy.stats import kendalltau, spearmanr

    from arts_metric.ratings import agreement

    pairs = store.pairs()
    rows = store.rows()
    n, n_matches = len(rows), len(pairs)
    if not names:
        raise ValueError("no raters to aggregate")
    info = {r["name"]: r for r in store.raters()}
    missing = {nm: n_matches - store.progress(nm)[0] for nm in names}
    unfinished = {nm: n for nm, n in missing.items() if n}
    if unfinished and not allow_incomplete:
        humans = [nm for nm in unfinished if info[nm]["spec"].split(":", 1)[0] == HUMAN_PREFIX]
        parts = ", ".join(
            f"{nm} {n_matches - n}/{n_matches}" + ("" if nm in humans else f" ({n} unanswered)")
            for nm, n in unfinished.items()
        )
        raise IncompleteRatingsError(f"raters have not answered every match: {parts}", unfinished, humans)
    mat = _matrix(store, names, n_matches)
    maj = agreement.majority_vote(mat, seed=seed)
    maj = np.asarray(maj, dtype=float)
    majority = [
        Match(m, a, b, None if np.isnan(maj[m]) else (a if maj[m] == 1.0 else b)) for m, (a, b) in enumerate(pairs)
    ]
    elo = run_elo(n, ((m.a, m.b, m.outcome_a) for m in majority), k=k, start=START_RATING)
    scores = rank_scale(elo)

    def elo_of(row: np.ndarray) -> np.ndarray:
        return run_elo(n, ((a, b, None if np.isnan(s) else s) for (a, b), s in zip(pairs, row)), k=k)

    per_rater = []
    for i, name in enumerate(names):
        row = mat[i]
        r_scores = rank_scale(elo_of(row))
        rho = spearmanr(r_scores, scores).statistic
        tau = kendalltau(r_scores, scores).statistic
        times = store.elapsed(name)
        stored_nulls = n_matches - missing[name] - int(np.sum(~np.isnan(row)))
        per_rater.append(
            {
                "name": name,
                "spec": public_spec(info[name]["spec"]),
                "group": info[name]["group"],
                "kwargs": info[name]["kwargs"],
                "decided": int(np.sum(~np.isnan(row))),
                "invalid": stored_nulls,
                "missing": missing[name],
                "agreement": _safe(agreement.percent_agreement, np.vstack([row, maj])),
                "kappa": _safe(agreement.cohen_kappa, row, maj),
                "spearman": _f(rho),
                "kendall": _f(tau),
                "median_seconds": _f(np.median(times)) if times else None,
                "info": info[name]["info"],
            }
        )
    groups: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        groups.setdefault(info[name]["group"], []).append(i)
    group_report = {
        g: {
            "raters": [names[i] for i in idx],
            "alpha": _safe(agreement.krippendorff_alpha, mat[idx]) if len(idx) > 1 else None,
            "mean_agreement": _f(
                np.mean([per_rater[i]["agreement"] for i in idx if per_rater[i]["agreement"] is not None] or [np.nan])
            ),
        }
        for g, idx in groups.items()
    }
    n_votes = np.sum(~np.isnan(mat), axis=0)
    a_votes = np.nansum(mat, axis=0)
    ties = int(np.sum((n_votes > 0) & (2 * a_votes == n_votes)))
    meta = store.meta()
    report = {
        "texts": n,
        "matches": n_matches,
        "schedule": meta.get("schedule"),
        "schedule_stats": meta.get("schedule_stats"),
        "seed": seed,
        "elo": {"k": k, "start": START_RATING, "winner": "harder text"},
        "majority": {"raters": len(names), "ties_broken": ties, "undecided": int(np.sum(np.isnan(maj)))},
        "complete": not unfinished,
        "missing": unfinished,
        "alpha": _safe(agreement.krippendorff_alpha, mat) if len(names) > 1 else None,
        "raters": per_rater,
        "groups": group_report,
    }
    return BuildResult(Path(store.path).parent, rows, pairs, [info[nm] for nm in names], majority, elo, scores, report)


def _safe(fn: Any, *args: Any) -> float | None:
    """An agreement figure, or None where it is undefined (e.g. kappa when one label is used throughout)."""
    try:
        return _f(fn(*args))
    except ValueError:
        return None


def _f(x: Any) -> float | None:
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else round(x, 6)
