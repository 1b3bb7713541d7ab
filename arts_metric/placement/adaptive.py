"""The ``adaptive`` placement method: a noisy binary search for each newcomer's
position in the pool, by expected information gain under a grid posterior
(:class:`RankPosterior`), each newcomer on its own (:class:`_Search`).

Two drivers run the same per-text search: local judges get one ``compare``
call per round with a pair for every newcomer still searching; a remote judge
(:attr:`~arts_metric.judges.base.Judge.concurrent`) gets one
``compare_async`` call per pair, and each newcomer goes on as soon as its own
answer arrives, so a slow request delays only its own text.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import Sequence

import numpy as np
from scipy.stats import norm
from tqdm.auto import tqdm

from arts_metric.judges.base import Judge
from arts_metric.placement.asker import Asker
from arts_metric.placement.opponents import calibration_schedule, calibration_texts
from arts_metric.placement.rank_posterior import LAPSES, ROW_BLOCK, WIDTHS, RankPosterior, binary_entropy
from arts_metric.placement.result import (
    DEFAULT_LEVEL,
    QUANTILE_LEVELS,
    PlacementResult,
    check_budget,
    check_level,
    finish_result,
    interval_bounds,
    rating_of_arts,
)
from arts_metric.placement.streams import check_seed, first_sides, text_rng
from arts_metric.pool import Pool


class _Search:
    """The adaptive search of a block of newcomers, each on its own: its posterior,
    its random stream (:func:`text_rng`), its sides, its played opponents, its calls.

    :meth:`next_pairs` decides, for newcomers ready for their next match,
    which stop and which pool text each of the others plays; :meth:`record`
    adds the answers. Nothing a newcomer does depends on another newcomer.
    """

    def __init__(
        self,
        texts: Sequence[str],
        rows_all: np.ndarray,
        pool: Pool,
        seed: int,
        budget: int,
        min_calls: int,
        target_width: float,
        level: float,
        grid_size: int,
        candidates: int,
        lapses: Sequence[float],
        widths: Sequence[float],
    ) -> None:
        nc = len(rows_all)
        self.rows_all = rows_all
        self.budget, self.min_calls, self.target_width = budget, min_calls, float(target_width)
        self.bounds = interval_bounds(level)
        self.pos = pool.arts_of_rating(pool.ratings)  # each pool text's own ARTS position
        size = len(pool)
        self.strata = [s for s in np.array_split(np.argsort(self.pos, kind="stable"), min(candidates, size)) if len(s)]
        centres = np.array([self.pos[s].mean() for s in self.strata])
        self.stratum_size = np.array([len(s) for s in self.strata])
        self.post = RankPosterior(nc, grid_size, lapses, widths)
        self.like = self.post.curve(centres)  # (M, C, G)
        self.like_h = binary_entropy(self.like)
        block = [texts[r] for r in rows_all]
        self.rngs = [text_rng(seed, t) for t in block]
        self.sides = first_sides(block)
        self.played: list[set[int]] = [set() for _ in range(nc)]
        self.played_stratum = np.zeros((nc, len(self.strata)), dtype=int)
        self.calls = np.zeros(nc, dtype=int)
        self.active = np.ones(nc, dtype=bool)
        self.incomplete = np.zeros(nc, dtype=bool)
        self.matches: list[list[tuple[int, float]]] = [[] for _ in range(nc)]

    def _gain(self, post: np.ndarray, m_best: np.ndarray) -> np.ndarray:
        """Expected information gain ``(rows, C)`` of a match in each stratum, under each
        row's leading judge model (row by row: the same value whatever the other rows)."""
        gain = np.empty((len(post), len(self.strata)))
        for m in np.unique(m_best):
            rows = np.flatnonzero(m_best == m)
            for b0 in range(0, len(rows), ROW_BLOCK):
                r = rows[b0 : b0 + ROW_BLOCK]
                pred = (post[r, None, :] * self.like[m][None, :, :]).sum(axis=2)
                cond = (post[r, None, :] * self.like_h[m][None, :, :]).sum(axis=2)
                gain[r] = binary_entropy(pred) - cond
        return gain

    def next_pairs(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For the ready rows ``idx``: stop those that are done, and return ``(rows,
        opponents, newcomer_first)`` for the others' next match."""
        idx = np.asarray(idx, dtype=int)
        spent = self.calls[idx] >= self.budget
        self.active[idx[spent]] = False
        idx = idx[~spent]
        if len(idx) == 0:
            return idx, idx, np.zeros(0, dtype=bool)
        w = self.post.model_weights(idx)
        post = self.post.posterior(idx, w)
        if self.target_width > 0.0:  # 0: never stop early
            check = self.calls[idx] >= self.min_calls
            if check.any():
                lo_hi = self.post.quantiles(post[check], self.bounds)
                done = np.zeros(len(idx), dtype=bool)
                done[check] = lo_hi[:, 1] - lo_hi[:, 0] <= self.target_width
                self.active[idx[done]] = False
                idx, post, w = idx[~done], post[~done], w[~done]
                if len(idx) == 0:
                    return idx, idx, np.zeros(0, dtype=bool)
        gain = self._gain(post, np.argmax(w, axis=1))
        gain[self.played_stratum[idx] >= self.stratum_size[None, :]] = -np.inf
        choice = np.argmax(gain, axis=1)
        exhausted = ~np.isfinite(gain[np.arange(len(idx)), choice])
        self.active[idx[exhausted]] = False
        idx, choice = idx[~exhausted], choice[~exhausted]
        opps = np.empty(len(idx), dtype=int)
        for a, (i, k) in enumerate(zip(idx, choice)):
            members = self.strata[k]
            rng = self.rngs[i]
            j = int(members[rng.integers(len(members))])
            if j in self.played[i]:
                free = [int(x) for x in members if int(x) not in self.played[i]]
                j = free[rng.integers(len(free))]
            self.played[i].add(j)
            self.played_stratum[i, k] += 1
            opps[a] = j
        first = (self.sides[idx] + self.calls[idx]) % 2 == 0
        return idx, opps, first

    def record(self, idx: np.ndarray, opps: np.ndarray, s: np.ndarray, lost: np.ndarray) -> None:
        """Add each row's answer (one per row). A row whose pair got no answer stops:
        it is incomplete (a rerun completes it from the judge's cache)."""
        idx, opps, s, lost = (np.asarray(x) for x in (idx, opps, s, lost))
        self.calls[idx] += 1
        self.active[idx[lost]] = False
        self.incomplete[idx[lost]] = True
        ok = ~np.isnan(s) & ~lost
        if ok.any():
            self.post.update(idx[ok], self.pos[opps[ok]], s[ok])
        for i, j, v in zip(idx[ok], opps[ok], s[ok]):
            self.matches[i].append((int(j), float(v)))

    def ready(self) -> np.ndarray:
        return np.flatnonzero(self.active)


def _run_rounds(search: _Search, asker: Asker, bar) -> None:
    """Local judges: one ``compare`` call per round, one pair per searching newcomer."""
    while True:
        rows, opps, first = search.next_pairs(search.ready())
        if len(rows) == 0:
            return
        s, lost = asker.ask(search.rows_all[rows], opps, first)
        search.record(rows, opps, s, lost)
        bar.set_postfix(active=int(search.active.sum()), calls=asker.calls, refresh=False)
        bar.update(len(rows))


async def _run_per_text(searches: list[_Search], asker: Asker, judge: Judge, bar) -> None:
    """Remote judges: one ``compare_async`` per pair, all in flight at once within the
    judge's session; each newcomer goes on as soon as its own answer arrives."""
    async with judge.session():
        for search in searches:
            tasks: dict[asyncio.Future, tuple[int, int]] = {}

            def launch(ready: np.ndarray) -> None:
                rows, opps, first = search.next_pairs(ready)
                for r, j, f in zip(rows, opps, first):
                    call = asker.ask_async(search.rows_all[[r]], np.array([j]), np.array([f]))
                    tasks[asyncio.ensure_future(call)] = (int(r), int(j))

            try:
                launch(search.ready())
                while tasks:
                    done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                    rows, opps, s, lost = [], [], [], []
                    for t in done:
                        r, j = tasks.pop(t)
                        out, gone = t.result()
                        rows.append(r)
                        opps.append(j)
                        s.append(out[0])
                        lost.append(gone[0])
                    search.record(np.array(rows), np.array(opps), np.array(s), np.array(lost, dtype=bool))
                    bar.set_postfix(active=int(search.active.sum()), calls=asker.calls, refresh=False)
                    bar.update(len(rows))
                    launch(np.array([r for r in rows if search.active[r]], dtype=int))
            finally:
                for t in tasks:
                    t.cancel()
                if tasks:
                    await asyncio.gather(*tasks, return_exceptions=True)


def _calibrate(
    judge: Judge,
    pool: Pool,
    own: np.ndarray,
    budget: int,
    seed: int,
    lapses: Sequence[float],
    widths: Sequence[float],
    quiet: bool,
) -> tuple[Asker, bool, np.ndarray]:
    """The judge model's prior: the calibration pool texts ``own`` play ``budget``
    opponents spread over the pool (:func:`calibration_schedule`, one judge call);
    each model's log-likelihood of their results at their known positions, summed.
    Spread opponents show both how often the judge errs far from a text (the
    lapse) and how blurred it is near it (the width). Returns the asker that
    counted the calls, whether any pair got no answer, and ``(M,)`` log prior weights."""
    pool_texts = pool.get_texts()
    texts = [pool_texts[j] for j in own]
    asker = Asker(judge, pool, texts)
    asker.quiet = quiet
    opps = calibration_schedule(pool, own, budget, seed)
    k, m = opps.shape
    rows = np.repeat(np.arange(k), m)
    first = (first_sides(texts)[rows] + np.tile(np.arange(m), k)) % 2 == 0
    out, lost = asker.ask(rows, opps.ravel(), first)
    pos = pool.arts_of_rating(pool.ratings)
    family = RankPosterior(1, 2, lapses, widths)
    ll = np.zeros(len(family.models))
    for i in range(k):
        s = out[i * m : (i + 1) * m]
        ok = ~np.isnan(s)
        ll += family.loglik_at(float(pos[own[i]]), pos[opps[i]][ok], s[ok])
    return asker, bool(lost.any()), ll - ll.max()


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
    calibration: int = 16,
    seed: int = 0,
    progress: bool | None = None,
) -> PlacementResult:
    """Adaptive placement: a noisy binary search by expected information gain.

    Each newcomer keeps a posterior over its position in the pool (its ARTS
    score) on a grid of ``grid_size`` cells. At each step a newcomer plays one
    pool text from the rating stratum (one of ``candidates`` equal-size
    strata) where the result is most informative (largest mutual information
    between the outcome and the position), never the same pool text twice.
    A newcomer stops when its ``level`` credible interval on the ARTS scale is
    at most ``target_width`` wide (after ``min_calls``; ``0`` never stops
    early) or after ``budget`` calls (default ``ceil(2 log2 N)``). ``lapse``
    and ``width`` fix the judge model (see :class:`RankPosterior`); ``None``
    averages a family of models, each newcomer by its own evidence times a
    prior calibrated on the judge: ``calibration`` pool texts
    (:func:`~arts_metric.placement.opponents.calibration_texts`, default 16)
    first play ``budget`` opponents spread over the pool (never themselves;
    one judge call), and the likelihood of their results at their known
    positions weighs the models. So the judge model comes from the judge, the
    pool, the settings and the seed, never from the batch. The calibration
    costs ``calibration * budget`` calls per placement (counted in
    ``judge_calls`` and ``info["calibration"]``; a judge with a cache answers
    them from it the next time); ``calibration=0`` uses a uniform prior (no
    extra calls, but each text's own few answers leave the judge's blur open,
    so its interval is wider and the stopping rule needs more calls).

    Every newcomer's search depends on its own text, ``seed`` and the judge's
    answers only: it gets the same opponents, calls and score alone or among
    any other texts. Local judges get one ``compare`` call per round; a
    concurrent (remote) judge gets every pair as it is chosen, so a newcomer
    whose answer is slow holds up no other. A pair that gets no answer stops
    its newcomer (incomplete, NaN; a rerun completes it). Newcomers are
    processed in chunks of ``chunk_size`` (memory bound).

    The reported rating is the posterior mean position mapped to the pool's
    Elo scale (:func:`rating_of_arts`); the interval is the credible interval.
    """
    level = check_level(level)
    budget = check_budget(budget, pool)
    seed = check_seed(seed)
    if not 0.0 <= float(target_width) <= 1.0:
        raise ValueError(f"target_width must be in [0, 1] (ARTS units), got {target_width!r}")
    if isinstance(min_calls, bool) or not isinstance(min_calls, (int, np.integer)) or min_calls < 1:
        raise ValueError(f"min_calls must be a positive integer, got {min_calls!r}")
    for name, value in (("grid_size", grid_size), ("candidates", candidates), ("chunk_size", chunk_size)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 2:
            raise ValueError(f"{name} must be an integer >= 2, got {value!r}")
    if isinstance(calibration, bool) or not isinstance(calibration, (int, np.integer)) or calibration < 0:
        raise ValueError(f"calibration must be a non-negative integer (pool texts), got {calibration!r}")
    if lapse is not None and not 0.0 <= lapse < 0.5:
        raise ValueError(f"lapse must be in [0, 0.5), got {lapse!r}")
    if width is not None and not width > 0:
        raise ValueError(f"width must be > 0 (ARTS units), got {width!r}")
    lapses = LAPSES if lapse is None else (float(lapse),)
    widths = WIDTHS if width is None else (float(width),)

    n = len(texts)
    asker = Asker(judge, pool, texts)
    lo_u, hi_u = interval_bounds(level)
    show = bool(judge.progress) if progress is None else progress
    asker.quiet = show
    common = (pool, seed, budget, min_calls)
    model = (level, grid_size, candidates, lapses, widths)
    searches = [
        _Search(texts, np.arange(c0, min(n, c0 + chunk_size)), *common, target_width, *model)
        for c0 in range(0, n, chunk_size)
    ]
    calib_idx = calibration_texts(pool, calibration) if lapse is None or width is None else np.empty(0, dtype=int)
    cal_asker, cal_calls = None, 0
    if len(calib_idx):
        cal_asker, lost, log_prior = _calibrate(judge, pool, calib_idx, budget, seed, lapses, widths, show)
        cal_calls = cal_asker.calls
        for search in searches:
            if lost:  # newcomers placed under another judge model than a complete run's: none
                search.active[:] = False
                search.incomplete[:] = True
            search.post.log_prior = log_prior

    bar = tqdm(
        total=n * budget, desc="adaptive placement", unit="call", disable=not show, leave=False, file=sys.stderr
    )
    try:
        if judge.concurrent and not asker.pointwise:
            from arts_metric.llm.runner import run_sync

            with judge.quiet() if show else contextlib.nullcontext():
                run_sync(lambda: _run_per_text(searches, asker, judge, bar))
        else:
            for search in searches:
                _run_rounds(search, asker, bar)
    finally:
        bar.close()
    if cal_asker is not None:  # the calibration's calls, unusable answers and failures count too
        asker.calls += cal_asker.calls
        asker.invalid += cal_asker.invalid
        asker.failed += cal_asker.failed

    mean_z = np.full(n, np.nan)
    arts_q = np.full((n, len(QUANTILE_LEVELS)), np.nan)
    interval_arts = np.full((n, 2), np.nan)
    calls = np.zeros(n, dtype=int)
    incomplete = np.zeros(n, dtype=bool)
    lapse_of, width_of = np.full(n, np.nan), np.full(n, np.nan)
    matches: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    for search in searches:
        rows, local = search.rows_all, np.arange(len(search.rows_all))
        w = search.post.model_weights(local)
        post = search.post.posterior(local, w)
        mean_z[rows] = (post * search.post.z[None, :]).sum(axis=1)
        arts_q[rows] = search.post.quantiles(post, QUANTILE_LEVELS)
        interval_arts[rows] = search.post.quantiles(post, (lo_u, hi_u))
        w = w / w.sum(axis=1, keepdims=True)
        lapse_of[rows] = (w * np.array([m[0] for m in search.post.models])[None, :]).sum(axis=1)
        width_of[rows] = (w * np.array([m[1] for m in search.post.models])[None, :]).sum(axis=1)
        calls[rows] = search.calls
        incomplete[rows] = search.incomplete
        for i, r in enumerate(rows):
            matches[r] = search.matches[i]

    none = np.array([len(m) == 0 for m in matches], dtype=bool) | incomplete
    mean_z[none], arts_q[none], interval_arts[none] = np.nan, np.nan, np.nan
    ratings = rating_of_arts(pool, mean_z)
    interval = rating_of_arts(pool, interval_arts)
    se = (interval[:, 1] - interval[:, 0]) / (2.0 * norm.ppf(hi_u))
    return finish_result(
        pool,
        ratings,
        arts_q,
        interval_arts,
        interval,
        se,
        asker,
        calls,
        matches,
        "adaptive",
        level,
        arts=mean_z,
        incomplete=incomplete,
        info={
            "judge_model": {"lapse": lapse_of, "width": width_of},
            "target_width": target_width,
            "calibration": {"pool_texts": calib_idx, "calls": cal_calls},
        },
    )
