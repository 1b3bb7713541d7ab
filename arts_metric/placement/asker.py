"""Asking the judge about (newcomer, pool text) pairs for the placement methods.

:class:`_Asker` sends pairs to any judge and returns each outcome from the
newcomer's side; :func:`pool_judge_scores` keeps a pointwise judge's scores of
the pool texts so that they are computed once.
"""

from __future__ import annotations

import contextlib
import math
from typing import Sequence

import numpy as np

from arts_metric.judges.base import Judge, PointwiseJudge
from arts_metric.pool import Pool


def pool_judge_scores(judge: PointwiseJudge, pool: Pool) -> np.ndarray:
    """The judge's latent scores of the pool texts: shipped ones when present,
    else computed from the texts once and kept on the pool object."""
    key = judge.score_key
    scores = pool.judge_scores.get(key)
    if scores is None:
        scores = np.asarray(judge.score(pool.get_texts()), dtype=float)
        pool.judge_scores[key] = scores
    return scores


class _Asker:
    """Sends (newcomer, pool text) pairs to the judge and returns each outcome from
    the newcomer's side (1 = newcomer judged harder, NaN = no usable answer).

    For a plain :class:`PointwiseJudge` (``compare`` not overridden) the pairwise
    decision is ``prob_harder`` of the two latent scores, exactly what its
    ``compare`` would return; scoring every text once instead of once per pair
    keeps embedding models from re-reading the pool for every match.
    """

    def __init__(self, judge: Judge, pool: Pool, texts: Sequence[str]) -> None:
        self.judge, self.pool, self.texts = judge, pool, texts
        self.pointwise = isinstance(judge, PointwiseJudge) and type(judge).compare is PointwiseJudge.compare
        self._scores: tuple[np.ndarray, np.ndarray] | None = None
        self.calls = 0
        self.invalid = 0
        self.quiet = False  # set by placements that show their own progress bar

    def ask(self, rows: np.ndarray, opps: np.ndarray, newcomer_first: np.ndarray) -> np.ndarray:
        rows, opps = np.asarray(rows, dtype=int), np.asarray(opps, dtype=int)
        if len(rows) == 0:
            return np.empty(0)
        if self.pointwise:
            if self._scores is None:
                self._scores = (
                    np.asarray(self.judge.score(list(self.texts)), dtype=float),
                    pool_judge_scores(self.judge, self.pool),
                )
            new, ref = self._scores
            out = np.asarray(self.judge.prob_harder(new[rows], ref[opps]), dtype=float)
        else:
            pool_texts = self.pool.get_texts()
            pairs = [
                (self.texts[i], pool_texts[j]) if first else (pool_texts[j], self.texts[i])
                for i, j, first in zip(rows, opps, newcomer_first)
            ]
            # One compare() per round: when the placement draws the progress bar, a
            # judge that draws its own (the LLM judges) stays quiet meanwhile.
            with self.judge.quiet() if self.quiet else contextlib.nullcontext():
                decisions = self.judge.compare(pairs)
            if len(decisions) != len(pairs):
                raise ValueError(f"judge {self.judge.name} returned {len(decisions)} decisions for {len(pairs)} pairs")
            out = np.empty(len(pairs))
            for k, (d, first) in enumerate(zip(decisions, newcomer_first)):
                if d is None or (isinstance(d, (float, np.floating)) and math.isnan(d)):
                    out[k] = np.nan
                    continue
                if not 0.0 <= float(d) <= 1.0:
                    raise ValueError(f"judge {self.judge.name} returned {d!r} for pair {k}; decisions must be in [0, 1]")
                out[k] = float(d) if first else 1.0 - float(d)
        self.calls += len(rows)
        self.invalid += int(np.isnan(out).sum())
        return out

    def ask_schedule(self, opps: np.ndarray) -> np.ndarray:
        """All matches of a fixed ``(n, m)`` schedule in one judge call; newcomers
        alternate sides from match to match to cancel a judge's position bias."""
        n, m = opps.shape
        rows = np.repeat(np.arange(n), m)
        cols = np.tile(np.arange(m), n)
        first = (rows + cols) % 2 == 0
        return self.ask(rows, opps.ravel(), first).reshape(n, m)
