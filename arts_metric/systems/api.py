"""The entry point :func:`compare_systems`: it checks the inputs, runs the pool view
and the head-to-head view with one judge, resamples inputs for intervals and
tests, and assembles a :class:`~arts_metric.systems.result.SystemComparison`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from arts_metric.judges import Judge
from arts_metric.ratings.bradley_terry import DEFAULT_PRIOR_SD
from arts_metric.ratings.directions import check_direction
from arts_metric.ratings.elo import START_RATING
from arts_metric.scoring.config import ScoringConfig
from arts_metric.scoring.scorer import split_settings
from arts_metric.systems import head_to_head, pool_view
from arts_metric.systems.head_to_head import Matches
from arts_metric.systems.human import correlation_rows
from arts_metric.systems.inputs import Entries, check_entries
from arts_metric.systems.pool_view import PoolScores
from arts_metric.systems.ranks import ALPHA, shared_ranks, simplicity_columns
from arts_metric.systems.resampling import (
    DEFAULT_LEVEL,
    DEFAULT_PERMUTATIONS,
    DEFAULT_RESAMPLES,
    bootstrap_counts,
    paired_randomization_test,
    percentile_interval,
    resampled_means,
)
from arts_metric.systems.result import SystemComparison
from arts_metric.text.wordless import wordless_indices

VIEWS = ("pool", "head_to_head")
PAIRWISE_COLUMNS = (
    "system_a",
    "system_b",
    "n",
    "arts_mean_diff",
    "arts_mean_diff_low",
    "arts_mean_diff_high",
    "p_value",
    "matches",
    "win_rate_a",
    "win_rate_a_low",
    "win_rate_a_high",
    "win_rate_p_value",
)


def _check_views(views: Any) -> tuple[str, ...]:
    if isinstance(views, str):
        views = [v.strip() for v in views.split(",") if v.strip()]
    views = tuple(dict.fromkeys(views or ()))
    bad = [v for v in views if v not in VIEWS]
    if bad or not views:
        raise ValueError(f"views must be a non-empty subset of {', '.join(VIEWS)}, got {list(views) or views!r}")
    return views


def _requests(judge: Judge) -> tuple[int, int]:
    return int(judge.stats.requests), int(judge.stats.cached)


def compare_systems(
    outputs: Mapping[str, Sequence[str]],
    sources: Sequence[str] | None = None,
    references: Any = None,
    human_scores: Mapping[str, Sequence[float]] | None = None,
    judge: str | Judge | None = None,
    pool: Any = None,
    *,
    human_higher_is: str = "harder",
    views: Sequence[str] | str = VIEWS,
    n_resamples: int = DEFAULT_RESAMPLES,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
    prior_sd: float = DEFAULT_PRIOR_SD,
    meaning: bool = True,
    config: ScoringConfig | None = None,
    **settings: Any,
) -> SystemComparison:
    """Rank simplification systems by the difficulty of their outputs, with 95%
    intervals and paired significance tests over the inputs.

    Parameters
    ----------
    outputs : system name -> its outputs, aligned over the same inputs (same length;
        an output may equal its source, e.g. a copy baseline).
    sources : the inputs before simplification; adds ``arts_delta`` (source ARTS -
        output ARTS, positive = output easier).
    references : reference simplifications, compared like systems but marked
        ``kind="reference"``: one list of texts (``reference``), a list of lists
        (``reference-1``, ...) or a dict of them by name.
    human_scores : name -> one human score per output (every system needs them;
        reference sets may lack them). Adds system- and segment-level correlations
        of every measure with the humans.
    judge : the judge (a spec such as ``"learned"``, the default, or a built
        :class:`~arts_metric.judges.Judge`); one judge serves both views.
    pool : the reference pool (a name such as ``"arts3000"``, the default, a file,
        rows or a built :class:`~arts_metric.pool.Pool`).
    human_higher_is : what a larger human score means, ``"harder"`` (the default)
        or ``"simpler"``, as in ``compute``.
    views : ``"pool"`` (every output placed in the pool as ``compute`` does) and/or
        ``"head_to_head"`` (for each input, every two systems' outputs play a match;
        an LLM judge sends inputs x pairs requests, x2 with ``both_orders``,
        cached and bounded by its ``max_requests``).
    n_resamples : bootstrap resamples of the inputs (percentile intervals at ``level``).
    n_permutations : random sign flips of the paired randomization tests.
    level : the intervals' confidence level (0.95).
    seed : seeds the resampling (results are reproducible).
    prior_sd : sd in Elo points of the weak Gaussian prior of the head-to-head ratings.
    meaning : with ``sources``, add what each output keeps of its source
        (:mod:`~arts_metric.systems.meaning`: ``meaning_kept``, the mean recall of each
        source's worse-kept end (its first or last 40%), each end counting what the rest of the
        source does not already say, in [0, 1],
        higher = more kept, and ``meaning_flagged``, the outputs that may
        have dropped content) to the leaderboard and ``meaning_kept`` / ``recall`` /
        ``meaning_flagged`` to ``per_output``. Computed offline by the bundled MiniLM encoder, whatever the
        judge; ``False`` leaves it out.
    config : the scoring settings to start from (default: every default).
    **settings : other fields of :class:`~arts_metric.scoring.config.ScoringConfig`
        (``placement=``, ``long_texts=``, ``judge_options=``, ...), applied over ``config``.

    Returns
    -------
    SystemComparison
        ``leaderboard`` (simplest first; ``n_wordless`` counts each system's outputs
        without a word, which both views put at the hardest end without asking the
        judge), ``pairwise``, ``win_rates``, ``per_output``,
        ``correlations``, ``info``; ``to_dir(path)`` writes them, ``figure()`` draws them.

    Notes
    -----
    Units and directions: ``arts`` in [0, 1] and ``rating`` (Elo points, mean 1200)
    are higher = harder; ``win_rate`` is the share of matches in which a system's
    output was judged **harder** (the ARTS convention), so simpler = lower. The
    pool view's p-value tests the difference in mean ``arts`` by approximate
    randomization (each input's two outputs swapped at random); the head-to-head
    p-value tests the same way whether a's outputs are judged harder than b's
    more often than not. P-values are not corrected for multiple comparisons.
    """
    views = _check_views(views)
    given = {k: v for k, v in (("judge", judge), ("pool", pool)) if v is not None}
    config, built = split_settings({**given, **settings}, base=config)
    check_direction(human_higher_is, "human_higher_is")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    entries = check_entries(outputs, sources, references, human_scores)
    names, k, n = list(entries.names), len(entries.names), entries.n_inputs
    counts = bootstrap_counts(n, n_resamples, seed)  # checks n_resamples before any judge call
    if isinstance(n_permutations, bool) or not isinstance(n_permutations, (int, np.integer)) or n_permutations < 1:
        raise ValueError(f"n_permutations must be a positive integer, got {n_permutations!r}")
    if not (isinstance(prior_sd, (int, float)) and np.isfinite(prior_sd) and prior_sd > 0):
        raise ValueError(f"prior_sd must be a positive number of Elo points, got {prior_sd!r}")

    own_judge = "judge" not in built
    judge_obj = built["judge"] if "judge" in built else config.make_judge()
    try:
        pool_obj = built["pool"] if "pool" in built else config.make_pool(judge_obj)
        info: dict[str, Any] = {
            "n_inputs": n,
            "systems": names,
            "kinds": list(entries.kinds),
            "views": list(views),
            "level": level,
            "n_resamples": int(n_resamples),
            "n_permutations": int(n_permutations),
            "seed": seed,
            "prior_sd": prior_sd,
            "human_higher_is": human_higher_is if entries.has_human else None,
            "pool": pool_obj.name,
            "formulas": list(config.formulas),
        }
        scores = None
        if "pool" in views:
            before = _requests(judge_obj)
            scores = pool_view.score_entries(entries, config, judge_obj, pool_obj)
            after = _requests(judge_obj)
            info["pool_view"] = {**scores.info, "requests": after[0] - before[0], "cached": after[1] - before[1]}
        matches = None
        if "head_to_head" in views and k >= 2:
            before = _requests(judge_obj)
            matches = head_to_head.play_matches(entries, judge_obj)
            after = _requests(judge_obj)
            info["head_to_head"] = {
                **matches.info,
                "requests": after[0] - before[0],
                "cached": after[1] - before[1],
                "rating": f"Bradley-Terry MAP, Elo scale, mean {START_RATING:g}, prior sd {prior_sd:g}",
            }
        info["judge"] = judge_obj.describe()
    finally:
        if own_judge:
            judge_obj.close()
    info["requests"] = sum(info.get(v, {}).get("requests", 0) for v in ("pool_view", "head_to_head"))
    info["tests"] = {
        "intervals": f"percentile bootstrap over inputs ({n_resamples} resamples, paired: one set of resampled "
        "inputs for every system and measure)",
        "p_value": f"paired approximate randomization over inputs ({n_permutations} sign flips, exact when "
        "2^n is smaller), two-sided, on the difference in mean arts",
        "win_rate_p_value": "the same test on P(a judged harder) - 0.5 per input",
        "rank": f"1 + the systems significantly simpler (p < {ALPHA:g}); systems the tests cannot separate share "
        "a rank",
    }

    leaderboard = _leaderboard(entries, scores, matches, counts, level, prior_sd)
    order = list(leaderboard["system"])
    pairwise = _pairwise(order, names, scores, matches, counts, level, n_permutations, seed)
    leaderboard["rank"] = shared_ranks(order, pairwise)
    win = matches.win_rates() if matches is not None else np.full((k, k), np.nan)
    win_rates = pd.DataFrame(win, index=names, columns=names).loc[order, order]
    per_output = _per_output(entries, scores)
    if meaning and entries.sources is not None:
        _add_meaning(entries, leaderboard, per_output)
    corr = _correlations(entries, scores, matches, leaderboard, human_higher_is)
    return SystemComparison(
        leaderboard=leaderboard,
        pairwise=pairwise,
        win_rates=win_rates,
        per_output=per_output,
        correlations=corr,
        info=info,
    )


def _mean(values: np.ndarray) -> np.ndarray:
    """Column means ignoring NaN (NaN for a column without values, silently)."""
    ok = ~np.isnan(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok, values, 0.0).sum(axis=0) / ok.sum(axis=0)


def _leaderboard(
    entries: Entries,
    scores: PoolScores | None,
    matches: Matches | None,
    counts: np.ndarray,
    level: float,
    prior_sd: float,
) -> pd.DataFrame:
    k, n = len(entries.names), entries.n_inputs
    nan = np.full(k, np.nan)
    table: dict[str, Any] = {"system": list(entries.names), "kind": list(entries.kinds)}
    table["n"] = (~np.isnan(scores.values["arts"])).sum(axis=0) if scores is not None else np.full(k, n)
    table["n_wordless"] = np.array([len(wordless_indices(texts)) for texts in entries.outputs])
    measures = ["arts", "arts_delta", "p_output_easier"]
    if scores is not None:
        measures += [m for m in scores.values if m not in ("arts", "arts_elo", *measures)]
    for m in measures:
        values = scores.values.get(m) if scores is not None else None
        if values is None:
            table[f"{m}_mean"] = table[f"{m}_mean_low"] = table[f"{m}_mean_high"] = nan
            continue
        table[f"{m}_mean"] = _mean(values)
        table[f"{m}_mean_low"], table[f"{m}_mean_high"] = percentile_interval(resampled_means(values, counts), level)
    table["rating"] = table["rating_low"] = table["rating_high"] = table["win_rate"] = nan
    if matches is not None:
        table["rating"] = head_to_head.rate(matches, prior_sd=prior_sd)
        table["rating_low"], table["rating_high"] = percentile_interval(
            head_to_head.rate(matches, counts, prior_sd=prior_sd), level
        )
        table["win_rate"] = matches.overall_win_rate()
    table.update(simplicity_columns(table["rating"], table["rating_low"], table["rating_high"], table["win_rate"]))
    if entries.has_human:
        table["human_mean"] = np.array([np.nan if h is None else float(np.mean(h)) for h in entries.human])
    df = pd.DataFrame(table)
    # column order: identity, ARTS, head-to-head, then formulas and humans
    first = [
        "system",
        "kind",
        "n",
        "n_wordless",
        "arts_mean",
        "arts_mean_low",
        "arts_mean_high",
        "arts_delta_mean",
        "arts_delta_mean_low",
        "arts_delta_mean_high",
        "p_output_easier_mean",
        "p_output_easier_mean_low",
        "p_output_easier_mean_high",
        "rating",
        "rating_low",
        "rating_high",
        "win_rate",
        "simplicity_rating",
        "simplicity_rating_low",
        "simplicity_rating_high",
        "judged_simpler",
    ]
    df = df[first + [c for c in df.columns if c not in first]]
    key = "arts_mean" if df["arts_mean"].notna().any() else "rating"
    df = df.sort_values(key, kind="stable", na_position="last").reset_index(drop=True)
    df.insert(0, "rank", np.arange(1, k + 1))
    return df


def _pairwise(
    order: list[str],
    names: list[str],
    scores: PoolScores | None,
    matches: Matches | None,
    counts: np.ndarray,
    level: float,
    n_permutations: int,
    seed: int,
) -> pd.DataFrame:
    rows = []
    pos = {name: i for i, name in enumerate(names)}
    j = 0
    for x in range(len(order)):
        for y in range(x + 1, len(order)):
            a, b = pos[order[x]], pos[order[y]]
            row: dict[str, Any] = {"system_a": order[x], "system_b": order[y]}
            if scores is not None:
                d = scores.values["arts"][:, a] - scores.values["arts"][:, b]
                ok = ~np.isnan(d)
                row["n"] = int(ok.sum())
                row["arts_mean_diff"] = float(d[ok].mean()) if ok.any() else np.nan
                low, high = percentile_interval(resampled_means(d, counts)[:, None], level)
                row["arts_mean_diff_low"], row["arts_mean_diff_high"] = float(low[0]), float(high[0])
                row["p_value"] = paired_randomization_test(d, n_permutations, [seed, j, 0])
            else:
                row.update(
                    n=counts.shape[1],
                    arts_mean_diff=np.nan,
                    arts_mean_diff_low=np.nan,
                    arts_mean_diff_high=np.nan,
                    p_value=np.nan,
                )
            if matches is not None:
                p = matches.prob[:, a, b]
                ok = ~np.isnan(p)
                row["matches"] = int(ok.sum())
                row["win_rate_a"] = float(p[ok].mean()) if ok.any() else np.nan
                low, high = percentile_interval(resampled_means(p, counts)[:, None], level)
                row["win_rate_a_low"], row["win_rate_a_high"] = float(low[0]), float(high[0])
                row["win_rate_p_value"] = paired_randomization_test(p - 0.5, n_permutations, [seed, j, 1])
            else:
                row.update(
                    matches=0,
                    win_rate_a=np.nan,
                    win_rate_a_low=np.nan,
                    win_rate_a_high=np.nan,
                    win_rate_p_value=np.nan,
                )
            rows.append(row)
            j += 1
    return pd.DataFrame(rows, columns=list(PAIRWISE_COLUMNS))


def _add_meaning(entries: Entries, leaderboard: pd.DataFrame, per_output: pd.DataFrame) -> None:
    """The meaning-kept columns, in place: per entry on the leaderboard, per output in ``per_output``."""
    from arts_metric.systems.meaning import system_checks

    checks = system_checks(dict(zip(entries.names, entries.outputs)), list(entries.sources or ()))
    kept = {name: float(c["meaning_kept"].mean()) for name, c in checks.items()}
    flagged = {name: int(c["flagged"].sum()) for name, c in checks.items()}
    leaderboard["meaning_kept"] = leaderboard["system"].map(kept)
    leaderboard["meaning_flagged"] = leaderboard["system"].map(flagged)
    per_output["meaning_kept"] = np.concatenate([checks[name]["meaning_kept"].to_numpy() for name in entries.names])
    per_output["recall"] = np.concatenate([checks[name]["recall"].to_numpy() for name in entries.names])
    per_output["meaning_flagged"] = np.concatenate([checks[name]["flagged"].to_numpy() for name in entries.names])


def _per_output(entries: Entries, scores: PoolScores | None) -> pd.DataFrame:
    n = entries.n_inputs
    frames = []
    for k, name in enumerate(entries.names):
        part: dict[str, Any] = {
            "system": name,
            "kind": entries.kinds[k],
            "input": np.arange(n),
            "text": list(entries.outputs[k]),
        }
        if scores is not None:
            for m, values in scores.values.items():
                part[m] = values[:, k]
        if entries.human[k] is not None:
            part["human"] = entries.human[k]
        frames.append(pd.DataFrame(part))
    return pd.concat(frames, ignore_index=True)


def _correlations(
    entries: Entries,
    scores: PoolScores | None,
    matches: Matches | None,
    leaderboard: pd.DataFrame,
    human_higher_is: str,
) -> pd.DataFrame:
    """Every measure against the human scores, per system and per output (empty without them)."""
    if not entries.has_human:
        return pd.DataFrame()
    segment = dict(scores.values) if scores is not None else {}
    harder = dict(scores.harder) if scores is not None else {}
    by_name = leaderboard.set_index("system").loc[list(entries.names)]
    system: dict[str, np.ndarray] = {}
    for m in segment:
        if m != "arts_elo":  # the leaderboard reports arts on one scale only (arts_mean)
            system[f"{m}_mean"] = by_name[f"{m}_mean"].to_numpy(float)
            harder[f"{m}_mean"] = harder[m]
    if matches is not None:
        for m in ("rating", "win_rate"):
            system[m], harder[m] = by_name[m].to_numpy(float), True
    return pd.DataFrame(correlation_rows(entries.human, segment, system, harder, human_higher_is))
