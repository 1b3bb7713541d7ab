"""The posterior over a newcomer's rank position in the pool that the ``adaptive``
placement keeps (:mod:`arts_metric.placement.adaptive`): a grid of positions, the
judge models it averages, and the expected information of the next match."""

from __future__ import annotations

import itertools
import math
from typing import Sequence

import numpy as np

# The judge models: the judge names the truly harder text except for a lapse
# rate, with a logistic blur of this width (in ARTS units) around the
# newcomer's position among the pool texts. Each newcomer averages them by
# its own evidence times the calibration's (see place_adaptive).
LAPSES = (0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4)
WIDTHS = (0.003, 0.01, 0.03, 0.08, 0.2)
ROW_BLOCK = 32  # rows per block when the expected information gain is computed


def binary_entropy(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return -(p * np.log(p) + (1 - p) * np.log1p(-p))


class RankPosterior:
    """Grid posterior over each newcomer's position ``z`` in the pool (its ARTS
    score), for a family of judge models, each newcomer averaging the models
    by its own evidence (Bayesian model averaging) under the prior
    :attr:`log_prior` (uniform unless a calibration set it).

    Model ``(lapse, width)``: ``P(newcomer judged harder than a pool text at
    position q) = lapse + (1 - 2 lapse) * logistic((z - q) / width)``. Working on
    the pool's rank scale (not its Elo scale) makes the model independent of
    how compressed the pool's Elo ratings are.

    Every computation is row by row (elementwise, or reductions along a row),
    never across newcomers, so a newcomer's posterior is bit for bit the same
    whatever other rows share the arrays.
    """

    _SUB = 8  # pool positions are rounded to 1/8 of a grid cell (< 0.001 ARTS)

    def __init__(self, n: int, grid_size: int, lapses: Sequence[float], widths: Sequence[float]) -> None:
        self.z = (np.arange(grid_size) + 0.5) / grid_size  # cell centres of [0, 1]
        self.models = list(itertools.product(lapses, widths))
        self.lapse = np.array([m[0] for m in self.models])[:, None, None]
        self.width = np.array([m[1] for m in self.models])[:, None, None]
        self.ll = np.zeros((len(self.models), n, grid_size), dtype=np.float32)
        self.lm = np.full((n, len(self.models)), math.log(grid_size))  # log evidence x G, per row and model
        self.log_prior = np.zeros(len(self.models))  # log prior weight of each model (0: uniform)
        # log P(win) and log P(loss) by offset (z - q), tabulated once: the updates
        # then gather instead of evaluating logistic curves for every cell.
        sub = self._SUB
        span = grid_size * sub
        offsets = np.arange(-span, span + 1) / span
        from scipy.special import expit

        p = self.lapse[:, 0, :] + (1 - 2 * self.lapse[:, 0, :]) * expit(offsets[None, :] / self.width[:, 0, :])
        p = np.clip(p, 1e-9, 1 - 1e-9)  # lapse=0 must not make a single error impossible
        self._log_win = np.log(p).astype(np.float32)
        self._log_loss = np.log1p(-p).astype(np.float32)
        self._cell = np.arange(grid_size) * sub + sub // 2 + span

    def loglik_at(self, z: float, q: np.ndarray, s: np.ndarray) -> np.ndarray:
        """``(M,)`` log-likelihood of results ``s`` against pool positions ``q`` for a
        text whose position ``z`` is known (a pool text), under each model."""
        from scipy.special import expit

        lapse, width = self.lapse[:, 0, 0][:, None], self.width[:, 0, 0][:, None]
        p = np.clip(lapse + (1 - 2 * lapse) * expit((z - np.asarray(q)[None, :]) / width), 1e-9, 1 - 1e-9)
        s = np.asarray(s, dtype=float)[None, :]
        return (s * np.log(p) + (1 - s) * np.log1p(-p)).sum(axis=1)

    def curve(self, q: np.ndarray) -> np.ndarray:
        """``(M, len(q), G)`` probability that a newcomer at each grid cell beats pool position ``q``."""
        from scipy.special import expit

        p = self.lapse + (1 - 2 * self.lapse) * expit((self.z[None, None, :] - q[None, :, None]) / self.width)
        return np.clip(p, 1e-9, 1 - 1e-9)

    def update(self, rows: np.ndarray, q: np.ndarray, s: np.ndarray) -> None:
        """Add the results ``s`` (newcomer's side, may be fractional) against pool positions
        ``q``, one result per row (rows distinct)."""
        q_idx = np.rint(np.asarray(q) * len(self.z) * self._SUB).astype(int)
        d = self._cell[None, :] - q_idx[:, None]  # (rows, G) offsets into the tables
        s32 = np.asarray(s, dtype=np.float32)[None, :, None]
        ll = s32 * self._log_win[:, d] + (1 - s32) * self._log_loss[:, d]
        self.ll[:, rows, :] += ll
        block = np.ascontiguousarray(self.ll[:, rows, :])
        top = block.max(axis=2, keepdims=True)
        self.lm[rows, :] = (np.log(np.exp(block - top).sum(axis=2)) + top[..., 0]).astype(float).T

    def model_weights(self, rows: np.ndarray) -> np.ndarray:
        """``(len(rows), M)`` weight of each judge model for each newcomer: the prior
        (:attr:`log_prior`, the calibration) times its own evidence; weights below
        1e-8 are exactly 0 (those models are skipped)."""
        lw = self.lm[rows, :] + self.log_prior[None, :]
        w = np.exp(lw - lw.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        w[w < 1e-8] = 0.0
        return w

    def posterior(self, rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Model-averaged posterior ``(len(rows), G)``, each row summing to 1. A model
        with weight 0 for a row adds exactly 0 to it."""
        out = np.zeros((len(rows), len(self.z)))
        for m in np.flatnonzero((weights > 0).any(axis=0)):
            ll = self.ll[m, rows, :].astype(float)
            out += weights[:, m : m + 1] * np.exp(ll - self.lm[rows, m][:, None])
        return out / out.sum(axis=1, keepdims=True)

    def quantiles(self, post: np.ndarray, levels: Sequence[float]) -> np.ndarray:
        """``(rows, len(levels))`` quantiles, mass spread uniformly over each cell: the
        level-``u`` quantile lies in the cell ``k`` whose CDF bounds hold it
        (``cdf[k] < u <= cdf[k + 1]``), cells without mass never."""
        g = post.shape[1]
        cdf = np.concatenate([np.zeros((len(post), 1)), np.cumsum(post, axis=1)], axis=1)
        cdf /= cdf[:, -1:]
        u = np.asarray(levels, dtype=float)
        out = np.empty((len(post), len(u)))
        for i in range(len(post)):
            k = np.clip(np.searchsorted(cdf[i], u, side="left") - 1, 0, g - 1)
            out[i] = (k + (u - cdf[i, k]) / (cdf[i, k + 1] - cdf[i, k])) / g
        return out
