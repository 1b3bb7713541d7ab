"""Asking the judge about (newcomer, pool text) pairs for the placement methods.

:class:`Asker` sends pairs to any judge and returns each outcome from the
newcomer's side together with a mask of the pairs that got no answer at all
(:data:`~arts_metric.judges.base.UNANSWERED`); it counts calls, invalid answers
and failures. :func:`pool_judge_scores_status` keeps a pointwise judge's scores
of the pool texts so that they are asked once.
"""

from __future__ import annotations

import contextlib
import math
from typing import Sequence

import numpy as np

from arts_metric.judges.base import Decision, Judge, PointwiseJudge, is_unanswered
from arts_metric.pool import Pool


def pool_judge_scores_status(judge: PointwiseJudge, pool: Pool) -> tuple[np.ndarray, np.ndarray, int]:
    """The judge's latent scores of the pool texts, the mask of pool texts that got
    no answer, and how many pool texts were scored now (0 when reused).

    Shipped scores, or scores computed earlier in this process, are reused; new
    ones are kept on the pool object only when every pool text got an answer, so
    that a later call asks the missing ones again (a judge with a judgment cache
    then sends only those)."""
    key = judge.score_key
    scores = pool.judge_scores.get(key)
    if scores is not None:
        return scores, np.zeros(len(scores), dtype=bool), 0
    texts = pool.get_texts()
    scores, lost = judge.score_status(texts)
    scores, lost = np.asarray(scores, dtype=float), np.asarray(lost, dtype=bool)
    if not lost.any():
        pool.judge_scores[key] = scores
    return scores, lost, len(texts)


def pool_judge_scores(judge: PointwiseJudge, pool: Pool) -> np.ndarray:
    """The judge's latent scores of the pool texts (NaN where none came): shipped ones
    when present, else computed from the texts and kept on the pool object."""
    return pool_judge_scores_status(judge, pool)[0]


def _is_missing(d: Decision) -> bool:
    return d is None or is_unanswered(d) or (isinstance(d, (float, np.floating)) and math.isnan(d))


class Asker:
    """Sends (newcomer, pool text) pairs to the judge and returns each outcome from
    the newcomer's side (1 = newcomer judged harder, NaN = no usable answer) and
    whether the pair got no answer at all (failed or not asked: not a judgment).

    For a plain :class:`PointwiseJudge` (``compare`` not overridden) the pairwise
    decision is ``prob_harder`` of the two latent scores, exactly what its
    ``compare`` would return; scoring every text once instead of once per pair
    keeps embedding models from re-reading the pool for every match.

    Counters: ``calls`` (pairs asked), ``invalid`` (answered unusably: judgments),
    ``failed`` (no answer obtained).
    """

    def __init__(self, judge: Judge, pool: Pool, texts: Sequence[str]) -> None:
        self.judge, self.pool, self.texts = judge, pool, texts
        self.pointwise = isinstance(judge, PointwiseJudge) and type(judge).compare is PointwiseJudge.compare
        self._scores: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self.calls = 0
        self.invalid = 0
        self.failed = 0
        self.quiet = False  # set by placements that show their own progress bar

    def _pairs(self, rows: np.ndarray, opps: np.ndarray, newcomer_first: np.ndarray) -> list[tuple[str, str]]:
        pool_texts = self.pool.get_texts()
        return [
            (self.texts[i], pool_texts[j]) if first else (pool_texts[j], self.texts[i])
            for i, j, first in zip(rows, opps, newcomer_first)
        ]

    def _outcomes(self, decisions: list[Decision], newcomer_first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if len(decisions) != len(newcomer_first):
            raise ValueError(
                f"judge {self.judge.name} returned {len(decisions)} decisions for {len(newcomer_first)} pairs"
            )
        out = np.empty(len(decisions))
        lost = np.zeros(len(decisions), dtype=bool)
        for k, (d, first) in enumerate(zip(decisions, newcomer_first)):
            if _is_missing(d):
                out[k] = np.nan
                lost[k] = is_unanswered(d)
                continue
            if not 0.0 <= float(d) <= 1.0:
                raise ValueError(f"judge {self.judge.name} returned {d!r} for pair {k}; decisions must be in [0, 1]")
            out[k] = float(d) if first else 1.0 - float(d)
        self._count(out, lost)
        return out, lost

    def _count(self, out: np.ndarray, lost: np.ndarray) -> None:
        self.calls += len(out)
        self.failed += int(lost.sum())
        self.invalid += int((np.isnan(out) & ~lost).sum())

    def ask(self, rows: np.ndarray, opps: np.ndarray, newcomer_first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows, opps = np.asarray(rows, dtype=int), np.asarray(opps, dtype=int)
        if len(rows) == 0:
            return np.empty(0), np.zeros(0, dtype=bool)
        if self.pointwise:
            if self._scores is None:
                new, lost_new = self.judge.score_status(list(self.texts))
                ref, lost_ref, _ = pool_judge_scores_status(self.judge, self.pool)
                self._scores = (np.asarray(new, dtype=float), np.asarray(lost_new, dtype=bool), ref, lost_ref)
            new, lost_new, ref, lost_ref = self._scores
            out = np.asarray(self.judge.prob_harder(new[rows], ref[opps]), dtype=float)
            lost = lost_new[rows] | lost_ref[opps]
            out[lost] = np.nan
            self._count(out, lost)
            return out, lost
        pairs = self._pairs(rows, opps, newcomer_first)
        # One compare() per round: when the placement draws the progress bar, a
        # judge that draws its own (the LLM judges) stays quiet meanwhile.
        with self.judge.quiet() if self.quiet else contextlib.nullcontext():
            decisions = self.judge.compare(pairs)
        return self._outcomes(decisions, newcomer_first)

    async def ask_async(
        self, rows: np.ndarray, opps: np.ndarray, newcomer_first: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`ask` through :meth:`Judge.compare_async` (inside the judge's session)."""
        rows, opps = np.asarray(rows, dtype=int), np.asarray(opps, dtype=int)
        decisions = await self.judge.compare_async(self._pairs(rows, opps, newcomer_first))
        return self._outcomes(decisions, newcomer_first)
