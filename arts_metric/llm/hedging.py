"""Duplicates of slow requests ("hedges"): off unless the user asks for them.

Every duplicate is a request the user may pay for, so none is sent by default
(``hedges=0``). With ``hedges=N``, a request still unanswered long after what
this judge's answered requests took gets up to ``N`` duplicates, and the first
answer wins:

- the delay is ``hedge_after`` seconds when given; otherwise
  :data:`HEDGE_FACTOR` times the ``hedge_percentile``-th percentile of the
  judge's answered requests (kept across its sessions), at least
  :data:`HEDGE_FLOOR` seconds, and no duplicate at all before
  :data:`HEDGE_SAMPLES` requests have answered;
- each duplicate reserves its share of ``max_requests`` / ``max_cost`` like any
  request; one the budget cannot afford is simply not sent (the original keeps
  going, and the run is not stopped for it);
- the requests that lose the race are left to finish (their tokens are
  counted) but try no more; the session cancels those still running when it
  closes.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from functools import partial
from typing import Any, Awaitable, Callable

HEDGE_FACTOR = 3.0  # a duplicate only for a request slower than this times the chosen percentile
HEDGE_FLOOR = 1.0  # seconds: never duplicate a request sooner
HEDGE_SAMPLES = 20  # answered requests needed before the automatic delay is trusted
POLL = 0.25  # seconds between looks while no delay is known yet

#: ``send(sent_at, kind, won)``: one try of the request with its transport retries. It sets
#: ``sent_at[0]`` to the loop time its current attempt went out (None between attempts),
#: counts its first attempt as ``kind`` (``"hedged"`` for a duplicate), and makes no new
#: attempt once ``won[0]`` is set.
Send = Callable[[list, str, list], Awaitable[tuple[str, Any]]]


class Latencies:
    """Seconds the answered requests of one judge took, and the delay after which a
    request still in flight gets a duplicate.

    Parameters
    ----------
    percentile : percentile (0-100] of the answered requests' seconds that a request
        must exceed :data:`HEDGE_FACTOR` times before it is duplicated.
    fixed : seconds; when given, the delay regardless of what was observed.
    """

    def __init__(self, percentile: float = 99.0, fixed: float | None = None, keep: int = 512) -> None:
        self.percentile = percentile
        self.fixed = fixed
        self._seconds: deque[float] = deque(maxlen=keep)
        self._added = 0
        self._delay: float | None = None
        self._delay_at = 0

    def add(self, seconds: float) -> None:
        """Record how long one answered request took."""
        self._seconds.append(seconds)
        self._added += 1

    def delay(self) -> float | None:
        """Seconds after which a request in flight gets a duplicate; None = not (yet) known."""
        if self.fixed is not None:
            return float(self.fixed)
        if self._added < HEDGE_SAMPLES:
            return None
        if self._delay is None or self._added - self._delay_at >= HEDGE_SAMPLES:
            ordered = sorted(self._seconds)
            rank = max(1, math.ceil(self.percentile / 100.0 * len(ordered)))  # nearest-rank percentile
            self._delay = max(HEDGE_FLOOR, HEDGE_FACTOR * ordered[rank - 1])
            self._delay_at = self._added
        return self._delay


async def first_answer(send: Send, kind: str, hedges: int, latencies: Latencies, losers: set) -> tuple[str, Any]:
    """``send`` once (counted as ``kind``), plus up to ``hedges`` duplicates while no answer
    comes (see the module docstring): ``("ok", text)`` from the first try that answers,
    otherwise the first failure (a skip only if nothing failed). Tries still running at the
    end go to ``losers`` (a set the session cancels when it closes) and leave it when they
    finish."""
    loop = asyncio.get_running_loop()
    won = [False]
    starts: list[list[float | None]] = []
    tries: list[asyncio.Future] = []

    def launch(kind: str) -> None:
        sent_at: list[float | None] = [None]
        starts.append(sent_at)
        tries.append(asyncio.ensure_future(send(sent_at, kind, won)))

    def due() -> float | None:
        """Loop time at which the next duplicate is due; None = look again in :data:`POLL`."""
        delay = latencies.delay()
        sent = [st[0] for st, t in zip(starts, tries) if st[0] is not None and not t.done()]
        return None if delay is None or not sent else max(sent) + delay

    launch(kind)
    lost: list[tuple[str, Any]] = []
    try:
        while True:
            timeout = None
            if len(tries) <= hedges:
                when = due()
                timeout = POLL if when is None else max(0.0, when - loop.time())
            running = [t for t in tries if not t.done()]
            done, _ = await asyncio.wait(running, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            for t in done:
                status, text = t.result()
                if status == "ok":
                    return status, text
                lost.append((status, text))
            if all(t.done() for t in tries):
                return next((x for x in lost if x[0] == "failed"), lost[0])
            if not done and len(tries) <= hedges:
                when = due()
                if when is not None and loop.time() >= when:
                    launch("hedged")
    finally:
        won[0] = True
        for t in tries:
            if t.done():
                mark_retrieved(t)  # a second failure next to the one returned is not reported by asyncio
            else:
                losers.add(t)
                t.add_done_callback(partial(_forget, losers))


def mark_retrieved(task: asyncio.Future) -> None:
    """Mark a finished task's exception as retrieved, so that asyncio does not print it again
    ("Task exception was never retrieved") when the same error already reached the caller."""
    if not task.cancelled():
        task.exception()


def _forget(losers: set, task: asyncio.Future) -> None:
    losers.discard(task)
    mark_retrieved(task)  # a loser's error (even a fatal one) does not matter any more
