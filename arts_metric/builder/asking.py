"""Asking a machine rater a batch of matches, each answer handed on the moment it arrives.

A concurrent judge (``openai:``) answers the pairs of a batch one by one as
its requests come back; :func:`ask` passes every answer to ``record`` right
then, so the build commits it to ``build.sqlite`` before the next one arrives
and a killed build loses only the requests still in flight (a request slot is
freed only once its answer is recorded), even with the judge's own cache off. Other judges answer a batch at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Callable, Sequence

from arts_metric.judges.base import Decision, Judge
from arts_metric.llm.runner import run_sync

#: ``record(match, decision, seconds)``: seconds is the time this answer took, shared out over the batch.
Recorder = Callable[[int, Decision, float], None]


def ask(judge: Judge, questions: Sequence[tuple[int, tuple[str, str]]], record: Recorder) -> None:
    """Ask ``judge`` every ``(match, (text_a, text_b))`` and call ``record`` once per match."""
    if not questions:
        return
    if getattr(judge, "concurrent", False):
        run_sync(lambda: _ask_each(judge, questions, record))
        return
    t0 = time.perf_counter()
    answers = judge.compare([pair for _, pair in questions])
    if len(answers) != len(questions):
        raise RuntimeError(f"judge {judge.name} returned {len(answers)} answers for {len(questions)} pairs")
    per = (time.perf_counter() - t0) / len(questions)
    for (match, _), decision in zip(questions, answers):
        record(match, decision, per)


async def _ask_each(judge: Judge, questions: Sequence[tuple[int, tuple[str, str]]], record: Recorder) -> None:
    last = time.perf_counter()
    # A question holds one of the judge's request slots until its answer is recorded: the judge
    # frees its own slot when the response arrives, and a waiting question could otherwise send
    # its request before that answer is committed (a kill then loses one answer more than the
    # requests in flight).
    limit = getattr(getattr(judge, "options", None), "concurrency", None)
    slots = asyncio.Semaphore(limit) if isinstance(limit, int) and limit > 0 else contextlib.nullcontext()

    async def one(match: int, pair: tuple[str, str]) -> None:
        nonlocal last
        async with slots:
            (decision,) = await judge.compare_async([pair])
            # recorded in the step that receives the answer: no queue between the answer and its commit
            now = time.perf_counter()
            record(match, decision, now - last)
            last = now

    async with judge.session():
        tasks = [asyncio.ensure_future(one(m, pair)) for m, pair in questions]
        try:
            for done in asyncio.as_completed(tasks):
                await done  # the first error stops the batch
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
