"""The ``adaptive`` placement method: a noisy binary search for each newcomer's
position in the pool, by expected information gain under a grid posterior
(:class:`_RankPosterior`)."""

from __future__ import annotations

import itertools
import math
import sys
from typing import Sequence

import numpy as np
from scipy.special import expit, logsumexp
from scipy.stats import norm
from tqdm.auto import tqdm

from arts_metric.judges.base import Judge
from arts_metric.placement.asker import _Asker
from arts_metric.placement.result import (
    DEFAULT_LEVEL,
    QUANTILE_LEVELS,
    PlacementResult,
    _bounds,
    _check_budget,
    _check_level,
    _finish,
    rating_of_arts,
)
from arts_metric.pool import Pool

# The judge model, calibrated per batch: the judge names the truly harder text
# except for a lapse rate, with a logistic blur of this width (in ARTS units)
# around the newcomer's position among the pool texts.
_LAPSES = (0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4)
_WIDTHS = (0.003, 0.01, 0.03, 0.08, 0.2)


def _entropy(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return -(p * np.log(p) + (1 - p) * np.log1p(-p))


class _RankPosterior:
    """Grid posterior over each newcomer's position ``z`` in the pool (its ARTS
    score), for a family of judge models averaged by their pooled evidence.

    Model ``(lapse, width)``: ``P(newcomer judged harder than a pool text at
    position q) = lapse + (1 - 2 lapse) * logistic((z - q) / width)``. Working on
    the pool's rank scale (not its Elo scale) makes the model independent of
    how compressed the pool's Elo ratings are. The model weights use the
    evidence of all newcomers of the batch (empirical Bayes): one judge, one
    curve; with few newcomers the weights stay spread and the intervals wide.
    """

    _SUB = 8  # pool positions are rounded to 1/8 of a grid cell (< 0.001 ARTS)

    def __init__(self, n: int, grid_size: int, lapses: Sequence[float], widths: Sequence[float]) -> None:
        self.z = (np.arange(grid_size) + 0.5) / grid_size  # cell centres of [0, 1]
        self.models = list(itertools.product(lapses, widths))
        self.lapse = np.array([m[0] for m in self.models])[:, None, None]
        self.width = np.array([m[1] for m in self.models])[:, None, None]
        self.ll = np.zeros((len(self.models), n, grid_size), dtype=np.float32)
        self.lm = np.full((len(self.models), n), math.log(grid_size))  # log evidence x G
        # log P(win) and log P(loss) by offset (z - q), tabulated once: the updates
        # then gather instead of evaluating logistic curves for every cell.
        sub = self._SUB
        span = grid_size * sub
        offsets = np.arange(-span, span + 1) / span
        p = self.lapse[:, 0, :] + (1 - 2 * self.lapse[:, 0, :]) * expit(offsets[None, :] / self.width[:, 0, :])
        p = np.clip(p, 1e-9, 1 - 1e-9)  # lapse=0 must not make a single error impossible
        self._log_win = np.log(p).astype(np.float32)
        self._log_loss = np.log1p(-p).astype(np.float32)
        self._cell = np.arange(grid_size) * sub + sub // 2 + span

    def curve(self, q: np.ndarray) -> np.ndarray:
        """``(M, len(q), G)`` probability that a newcomer at each grid cell beats pool position ``q``."""
        p = self.lapse + (1 - 2 * self.lapse) * expit((self.z[None, None, :] - q[None, :, None]) / self.width)
        return np.clip(p, 1e-9, 1 - 1e-9)

    def update(self, rows: np.ndarray, q: np.ndarray, s: np.ndarray) -> None:
        """Add the results ``s`` (newcomer's side, may be fractional) against pool positions ``q``."""
        q_idx = np.rint(np.asarray(q) * len(self.z) * self._SUB).astype(int)
        d = self._cell[None, :] - q_idx[:, None]  # (rows, G) offsets into the tables
        s32 = np.asarray(s, dtype=np.float32)[None, :, None]
        ll = s32 * self._log_win[:, d] + (1 - s32) * self._log_loss[:, d]
        self.ll[:, rows, :] += ll
        block = self.ll[:, rows, :]
        top = block.max(axis=2, keepdims=True)
        self.lm[:, rows] = (np.log(np.exp(block - top).sum(axis=2)) + top[..., 0]).astype(float)

    def model_weights(self) -> np.ndarray:
        lw = self.lm.sum(axis=1)  # pooled log evidence of each model
        return np.exp(lw - logsumexp(lw))

    def posterior(self, rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Model-averaged posterior ``(len(rows), G)``, each row summing to 1."""
        out = np.zeros((len(rows), len(self.z)))
        for m in np.flatnonzero(weights > 1e-8):
            ll = self.ll[m, rows, :].astype(float)
            out += weights[m] * np.exp(ll - self.lm[m, rows][:, None])
        return out / out.sum(axis=1, keepdims=True)

    def quantiles(self, post: np.ndarray, levels: Sequence[float]) -> np.ndarray:
        """``(rows, len(levels))`` quantiles, mass spread uniformly over each cell."""
        g = post.shape[1]
        edges = np.arange(g + 1) / g
        cdf = np.concatenate([np.zeros((len(post), 1)), np.cumsum(post, axis=1)], axis=1)
        cdf /= cdf[:, -1:]
        out = np.empty((len(post), len(levels)))
        for i in range(len(post)):
            # A flat CDF stretch has no mass: interpolate on its strictly increasing part.
            keep = np.concatenate([[True], np.diff(cdf[i]) > 0])
            out[i] = np.interp(levels, cdf[i][keep], edges[keep])
        return out


def place_adaptive(
    judge: Judge,
    pool: Pool,
    texts: Sequence[str],
    budget: int | None = None,
    target_width: float = 0.1,
    min_calls: int = 4,
    level: float = DEFAULT_LEVEL,
    lapse: float | None = None,
    width: float | None = None,
    grid_size: int = 200,
    candidates: int = 100,
    chunk_size: int = 1024,
    seed: int = 0,
    progress: bool | None = None,
) -> PlacementResult:
    """Adaptive placement: a noisy binary search by expected information gain.

    Each newcomer keeps a posterior over its position in the pool (its ARTS
    score) on a grid of ``grid_size`` cells. In every round, each active
    newcomer plays one pool text from the rating stratum (one of ``candidates``
    equal-size strata) where the result is most informative (largest mutual
    information between the outcome and the position), never the same pool
    text twice; all those pairs go to the judge in one ``compare`` call.
    A newcomer stops when its ``level`` credible interval on the ARTS scale is
    at most ``target_width`` wide (after ``min_calls``; ``0`` never stops
    early) or after ``budget`` calls (default ``ceil(2 log2 N)``). ``lapse``
    and ``width`` fix the judge model (see :class:`_RankPosterior`); ``None``
    calibrates them on the batch.
    Newcomers are processed in chunks of ``chunk_size`` (memory bound).

    The reported rating is the posterior mean position mapped to the pool's
    Elo scale (:func:`rating_of_arts`); the interval is the credible interval.
    """
    level = _check_level(level)
    budget = _check_budget(budget, pool)
    if not 0.0 <= float(target_width) <= 1.0:
        raise ValueError(f"target_width must be in [0, 1] (ARTS units), got {target_width!r}")
    if isinstance(min_calls, bool) or not isinstance(min_calls, (int, np.integer)) or min_calls < 1:
        raise ValueError(f"min_calls must be a positive integer, got {min_calls!r}")
    for name, value in (("grid_size", grid_size), ("candidates", candidates), ("chunk_size", chunk_size)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 2:
            raise ValueError(f"{name} must be an integer >= 2, got {value!r}")
    if lapse is not None and not 0.0 <= lapse < 0.5:
        raise ValueError(f"lapse must be in [0, 0.5), got {lapse!r}")
    if width is not None and not width > 0:
        raise ValueError(f"width must be > 0 (ARTS units), got {width!r}")
    lapses = _LAPSES if lapse is None else (float(lapse),)
    widths = _WIDTHS if width is None else (float(width),)

    n, size = len(texts), len(pool)
    rng = np.random.default_rng(seed)
    asker = _Asker(judge, pool, texts)
    pos = pool.arts_of_rating(pool.ratings)  # each pool text's own ARTS position
    strata = [s for s in np.array_split(np.argsort(pos, kind="stable"), min(candidates, size)) if len(s)]
    centres = np.array([pos[s].mean() for s in strata])
    stratum_size = np.array([len(s) for s in strata])

    mean_z = np.full(n, np.nan)
    arts_q = np.full((n, len(QUANTILE_LEVELS)), np.nan)
    interval_arts = np.full((n, 2), np.nan)
    calls = np.zeros(n, dtype=int)
    matches: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    model_info: list[dict] = []
    lo_u, hi_u = _bounds(level)

    for c0 in range(0, n, chunk_size):
        rows_all = np.arange(c0, min(n, c0 + chunk_size))
        nc = len(rows_all)
        post_model = _RankPosterior(nc, grid_size, lapses, widths)
        like = post_model.curve(centres)  # (M, C, G)
        info_gain_h = _entropy(like)
        played: list[set[int]] = [set() for _ in range(nc)]
        played_stratum = np.zeros((nc, len(strata)), dtype=int)
        active = np.ones(nc, dtype=bool)
        show = bool(judge.progress) if progress is None else progress
        asker.quiet = show
        bar = tqdm(
            total=budget, desc="adaptive placement", unit="round", disable=not show, leave=False, file=sys.stderr,
            postfix={"active": nc, "calls": asker.calls},
        )
        for rnd in range(budget):
            idx = np.flatnonzero(active)
            if len(idx) == 0:
                break
            w = post_model.model_weights()
            post = post_model.posterior(idx, w)
            if rnd >= min_calls and target_width > 0.0:  # 0: never stop early
                lo_hi = post_model.quantiles(post, (lo_u, hi_u))
                done = (lo_hi[:, 1] - lo_hi[:, 0] <= target_width) & (calls[rows_all[idx]] >= min_calls)
                active[idx[done]] = False
                idx, post = idx[~done], post[~done]
                if len(idx) == 0:
                    break
            # Expected information gain of each stratum under the leading model.
            m_best = int(np.argmax(w))
            pred = post @ like[m_best].T
            gain = _entropy(pred) - post @ info_gain_h[m_best].T
            gain[played_stratum[idx] >= stratum_size[None, :]] = -np.inf
            choice = np.argmax(gain, axis=1)
            exhausted = ~np.isfinite(gain[np.arange(len(idx)), choice])
            active[idx[exhausted]] = False
            idx, choice = idx[~exhausted], choice[~exhausted]
            if len(idx) == 0:
                break
            opps = np.empty(len(idx), dtype=int)
            for a, (i, k) in enumerate(zip(idx, choice)):
                members = strata[k]
                j = int(members[rng.integers(len(members))])
                if j in played[i]:
                    free = [int(x) for x in members if int(x) not in played[i]]
                    j = free[rng.integers(len(free))]
                played[i].add(j)
                played_stratum[i, k] += 1
                opps[a] = j
            first = (rows_all[idx] + rnd) % 2 == 0
            s = asker.ask(rows_all[idx], opps, first)
            calls[rows_all[idx]] += 1
            ok = ~np.isnan(s)
            if ok.any():
                post_model.update(idx[ok], pos[opps[ok]], s[ok])
            for i, j, v in zip(idx[ok], opps[ok], s[ok]):
                matches[rows_all[i]].append((int(j), float(v)))
            bar.set_postfix(active=int(active.sum()), calls=asker.calls)
            bar.update(1)
        bar.close()

        w = post_model.model_weights()
        post = post_model.posterior(np.arange(nc), w)
        mean_z[rows_all] = post @ post_model.z
        arts_q[rows_all] = post_model.quantiles(post, QUANTILE_LEVELS)
        interval_arts[rows_all] = post_model.quantiles(post, (lo_u, hi_u))
        model_info.append(
            {
                "texts": nc,
                "lapse": float(w @ np.array([m[0] for m in post_model.models])),
                "width": float(w @ np.array([m[1] for m in post_model.models])),
            }
        )

    none = np.array([len(m) == 0 for m in matches], dtype=bool)
    mean_z[none], arts_q[none], interval_arts[none] = np.nan, np.nan, np.nan
    ratings = rating_of_arts(pool, mean_z)
    interval = rating_of_arts(pool, interval_arts)
    se = (interval[:, 1] - interval[:, 0]) / (2.0 * norm.ppf(hi_u))
    return _finish(
        pool, ratings, arts_q, interval_arts, interval, se, asker, calls, matches, "adaptive", level,
        arts=mean_z, info={"judge_model": model_info, "target_width": target_width},
    )
