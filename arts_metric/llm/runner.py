"""Running many chat requests: cached, concurrent, retried, budgeted, with a progress bar.

A :class:`Session` (one ``openai`` async client, one cache connection, one
progress bar, one :class:`RunReport`) answers :meth:`Session.run` calls of
prepared :class:`Item` s (messages + a strict parser + a cache key) with one
:class:`Outcome` per item; many calls may be in flight at once on its loop:

1. identical items (same key) are asked once per session;
2. answers already in the SQLite cache are used without a request;
3. the rest go out with at most ``concurrency`` items in progress;
4. 429, 408/409, 5xx, timeouts, connection errors and HTTP 200 replies that
   carry no answer (no ``choices``, ``content: null``) are retried with
   exponential backoff and full jitter, waiting at least ``Retry-After``;
   401/403/404 stop the run (:class:`EndpointError`); other 4xx fail the item;
   until the endpoint first replies, requests go out one at a time and one that
   cannot connect fails the run fast instead (:mod:`arts_metric.llm.contact`);
5. only when the user asks for them (``hedges`` > 0, off by default), a request
   far slower than the judge's answered ones gets duplicates
   (:mod:`arts_metric.llm.hedging`); each is counted and budgeted;
6. an unusable answer is asked again up to ``max_reasks`` times, then
   recorded as invalid (cached: it is the model's own judgment);
7. each judgment is committed to the cache the moment it is parsed;
8. the budget refuses requests before a limit would be passed: items not
   asked are ``skipped``, items whose every try failed are ``failed``; neither
   is a judgment, neither is cached, and a rerun asks them again.

The :class:`RunReport` counts every request as exactly one of: an item's first
ask, a transport retry, a re-ask or a duplicate.

When a session closes, failures are reported in one warning, except when the
judge never got any answer at all (from its endpoint or from the cache) and
every request failed: then the endpoint is unusable and :class:`EndpointError`
says why (refusing every request; an unreachable one fails before that, see
:mod:`arts_metric.llm.contact`).

:func:`run_items` runs one session over one list of items from plain code;
:func:`run_sync` runs a coroutine from plain code *and* from inside a running
event loop (Jupyter), where it uses a private loop in a worker thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import random
import sqlite3
import sys
import time
import warnings
from functools import partial
from typing import Any, Awaitable, Callable, Sequence, TypeVar

from arts_metric.llm.cache import JudgmentCache
from arts_metric.llm.contact import FirstContact, diagnose
from arts_metric.llm.endpoint import client_options
from arts_metric.llm.hedging import Latencies, first_answer, mark_retrieved
from arts_metric.llm.parsing import UnusableAnswer
from arts_metric.llm.protocol import (  # noqa: F401 (EndpointError, retry_after_seconds: re-exported)
    FATAL_STATUS,
    EndpointError,
    EndpointHealth,
    Item,
    Outcome,
    RunReport,
    RunSettings,
    backoff_delay,
    read_completion,
    retry_after_seconds,
    short_error,
)

T = TypeVar("T")


def run_sync(make_coro: Callable[[], Awaitable[T]]) -> T:
    """Run ``make_coro()`` to completion from synchronous code.

    Without a running loop in this thread: ``asyncio.run``. With one (Jupyter,
    an async web app): a private loop in a worker thread, so the caller's loop
    is neither blocked re-entrantly nor required to be patched.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make_coro())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="arts-llm") as pool:
        return pool.submit(lambda: asyncio.run(make_coro())).result()


def run_items(items: Sequence[Item], settings: RunSettings) -> tuple[list[Outcome], RunReport]:
    """One session over ``items``, from synchronous code: outcomes aligned with ``items`` and the report."""
    return run_sync(lambda: run_items_async(items, settings))


async def run_items_async(items: Sequence[Item], s: RunSettings) -> tuple[list[Outcome], RunReport]:
    """One session over ``items``: outcomes aligned with ``items`` and the report."""
    session = Session(s)
    async with session:
        outcomes = await session.run(items)
    return outcomes, session.report


def _postfix(report: RunReport) -> dict[str, Any]:
    return {
        "cached": report.cached,
        "retried": report.retried,
        "reasked": report.reasked,
        "invalid": report.invalid,
        "failed": report.failed,
        "tokens": report.prompt_tokens + report.completion_tokens,
    }


class Session:
    """Answers :meth:`run` calls on one event loop with one client, cache, progress
    bar and :class:`RunReport` (see the module docstring). Use as
    ``async with Session(settings) as session: outcomes = await session.run(items)``."""

    def __init__(self, settings: RunSettings) -> None:
        self.s = settings
        self.health = settings.health if settings.health is not None else EndpointHealth()
        self._contact = FirstContact(self.health, settings.endpoint, settings.options.max_retries)
        self.report = RunReport()
        self._results: dict[str, Outcome] = {}
        self._inflight: dict[str, asyncio.Future] = {}
        self._losers: set[asyncio.Future] = set()  # duplicates that lost the race, left to finish (tokens counted)
        o = settings.options
        self.latencies = settings.latencies or Latencies(o.hedge_percentile, o.hedge_after)
        self._params = {k: v for k, v in settings.params.items() if v is not None}
        self._rng = random.Random()
        self._client: Any = None
        self._cache: JudgmentCache | None = None
        self._bar: Any = None
        self._sem: asyncio.Semaphore | None = None
        self._t0 = 0.0
        self._spent_before = 0.0

    async def __aenter__(self) -> "Session":
        from tqdm.auto import tqdm

        self._t0 = time.perf_counter()
        self._spent_before = self.s.budget.spent
        o = self.s.options
        if o.cache:
            try:
                self._cache = JudgmentCache.in_dir(o.cache_dir)
            except (OSError, sqlite3.Error, RuntimeError) as exc:  # e.g. a read-only home directory
                warnings.warn(
                    f"judgment cache unavailable ({exc}); judging without it (set ARTS_CACHE_DIR "
                    "or cache_dir= to a writable folder)",
                    RuntimeWarning,
                    stacklevel=3,
                )
        self._sem = asyncio.Semaphore(o.concurrency)
        self._bar = tqdm(
            total=0,
            desc=self.s.desc,
            unit="judgment",
            file=sys.stderr,
            disable=not self.s.progress,
            dynamic_ncols=True,
            mininterval=0.2,
        )
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        for group in (self._inflight.values, lambda: self._losers):  # losers appear as items are cancelled
            pending = [f for f in list(group()) if not f.done()]
            for f in pending:
                f.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)
        if self._client is not None:
            await self._client.close()
        self._bar.close()
        if self._cache is not None:
            self._cache.close()
        r = self.report
        r.cost_usd = self.s.budget.spent - self._spent_before
        r.stopped = self.s.budget.stopped
        r.seconds = time.perf_counter() - self._t0
        if exc_type is None:
            self._conclude()

    def _conclude(self) -> None:
        """Raise for an endpoint that never answered; warn once about failed and skipped items."""
        r, ep = self.report, self.s.endpoint
        asked = r.unique - r.cached
        if r.failed and not self.health.answered:
            raise EndpointError(
                f"no request to {ep.display_url} (model {ep.model!r}) succeeded; "
                f"{r.failed} failed, e.g.: {r.errors[0] if r.errors else 'unknown error'}"
            )
        if r.failed:
            warnings.warn(
                f"{r.failed} of {asked} judgments failed at {ep.display_url} after retries "
                f"(e.g. {r.errors[0]}); they are not judgments: reported as failed, never cached, "
                "and asked again on a rerun",
                RuntimeWarning,
                stacklevel=4,
            )
        if r.skipped:
            warnings.warn(
                f"budget reached ({self.s.budget.stopped}): {r.skipped} judgments were not asked; "
                "a rerun with a larger budget resumes from the cache",
                RuntimeWarning,
                stacklevel=4,
            )

    async def run(self, items: Sequence[Item]) -> list[Outcome]:
        """One :class:`Outcome` per item, aligned with ``items`` (items asked before in
        this session, or now in flight for another caller, are not asked again)."""
        r, o = self.report, self.s.options
        r.items += len(items)
        new: dict[str, Item] = {}
        for item in items:
            if item.key not in self._results and item.key not in self._inflight:
                new.setdefault(item.key, item)
        if new:
            r.unique += len(new)
            self._bar.total += len(new)
            if self._cache is not None:
                hits = 0
                for key, hit in self._cache.get_many(new).items():
                    if hit.valid or not o.retry_invalid:
                        self._results[key] = Outcome(
                            "ok" if hit.valid else "invalid", hit.value, hit.answer, cached=True
                        )
                        r.invalid += not hit.valid
                        del new[key]
                        hits += 1
                if hits:
                    r.cached += hits
                    self.health.answered = True
                    self._bar.update(hits)
            for key, item in new.items():
                self._inflight[key] = asyncio.ensure_future(self._judge(item))
                self._inflight[key].add_done_callback(mark_retrieved)
        waiting = list({item.key: self._inflight[item.key] for item in items if item.key in self._inflight}.values())
        if waiting:
            await asyncio.gather(*waiting)
        return [self._results[item.key] for item in items]

    # -- one item ----------------------------------------------------------
    async def _judge(self, item: Item) -> Outcome:
        r, o, ep = self.report, self.s.options, self.s.endpoint
        reasks = 0
        used = [0, 0, 0]  # this item's own requests and tokens (the totals move with other items too)
        send = partial(self._request, item, used)
        try:
            async with self._sem:
                while True:
                    kind = "reasked" if reasks else "asked"
                    if o.hedges:
                        status, text = await first_answer(send, kind, o.hedges, self.latencies, self._losers)
                    else:
                        status, text = await send([None], kind)
                    if status != "ok":
                        outcome = Outcome(status, error=text)
                        break
                    try:
                        value = item.parse(text)
                    except UnusableAnswer:
                        if reasks < o.max_reasks:
                            reasks += 1
                            continue
                        outcome = Outcome("invalid", answer=text)
                    else:
                        outcome = Outcome("ok", value, text)
                    if self._cache is not None:
                        self._cache.put(
                            item.key,
                            model=ep.model,
                            strategy=self.s.strategy,
                            prompt_version=self.s.prompt_version,
                            params=self.s.params,
                            texts=item.texts,
                            endpoint=ep.display_url,
                            answer=text,
                            value=outcome.value,
                            valid=outcome.status == "ok",
                            requests=used[0],
                            prompt_tokens=used[1],
                            completion_tokens=used[2],
                        )
                    break
        finally:
            self._inflight.pop(item.key, None)
        self._results[item.key] = outcome
        r.answered += outcome.status in ("ok", "invalid")
        if outcome.status == "invalid":
            r.invalid += 1
            if len(r.unusable) < 3:
                r.unusable.append(outcome.answer or "")
        elif outcome.status == "failed":
            r.failed += 1
            if len(r.errors) < 5:
                r.errors.append(outcome.error or "")
        elif outcome.status == "skipped":
            r.skipped += 1
        self._bar.set_postfix(_postfix(r), refresh=False)
        self._bar.update(1)
        return outcome

    def _client_for(self) -> Any:
        if self._client is None:
            from openai import AsyncOpenAI

            ep, o = self.s.endpoint, self.s.options
            # Retries are ours (counted, budgeted, Retry-After honoured), so the client's are off.
            self._client = AsyncOpenAI(**client_options(ep), max_retries=0, timeout=o.timeout)
        return self._client

    async def _request(
        self,
        item: Item,
        used: list[int],
        sent_at: list[float | None],
        kind: str,
        won: list[bool] | None = None,
    ) -> tuple[str, Any]:
        """One answer text, with transport retries: ("ok", text) | ("failed", msg) | ("skipped", None).
        Adds this item's requests and tokens to ``used`` ([requests, prompt, completion]);
        ``sent_at[0]`` holds the loop time the current try was sent (None between tries).
        ``kind`` is the :class:`RunReport` counter of the first request (``"asked"``,
        ``"reasked"`` or ``"hedged"``; later ones are ``"retried"``), counted when it is sent.
        A duplicate (``"hedged"``) and its retries are sent only if the budget affords them
        without stopping the run; once ``won[0]`` is set (another try answered) no further
        try is made."""
        import openai

        s, r, o, ep = self.s, self.report, self.s.options, self.s.endpoint
        client = self._client_for()
        loop = asyncio.get_running_loop()
        prompt_bytes = sum(len(m["content"].encode("utf-8")) for m in item.messages)
        attempt = 0
        optional = kind == "hedged"
        while True:
            async with self._contact.turn():  # one request at a time until the endpoint first replies
                if won is not None and won[0]:
                    return "skipped", None  # a duplicate already answered
                res = s.budget.try_reserve(prompt_bytes, len(item.messages), item.max_tokens, optional=optional)
                if res is None:
                    return "skipped", None
                r.requests += 1
                setattr(r, kind, getattr(r, kind) + 1)
                kind = "retried"
                used[0] += 1
                retry_after = None
                sent_params = dict(self._params)  # what this request carries (another may rename max_tokens meanwhile)
                sent_at[0] = t_sent = loop.time()
                try:
                    # The client's generic ``post`` (its documented way to send a raw body) with
                    # ``cast_to=object`` returns the JSON as is: it skips the per-request TypedDict
                    # transform and pydantic model building of ``chat.completions.create``, which
                    # cost more CPU than everything else here together (see benchmarks/).
                    completion = await client.post(
                        "/chat/completions",
                        cast_to=object,
                        body={"model": ep.model, "messages": item.messages, **sent_params},
                        options={"timeout": o.timeout},
                    )
                except asyncio.CancelledError:
                    s.budget.settle(res, None, None)  # cut off at the session's end; it may still be billed
                    raise
                except openai.APIConnectionError as exc:  # timeouts included
                    cause = diagnose(exc, ep.api_key)
                    if cause.connected:
                        s.budget.settle(res, None, None)  # the server may have done (and billed) the work
                        self._contact.replied()
                        error = f"timeout after {o.timeout:g} s"
                    else:
                        s.budget.release(res)
                        error = f"connection error: {cause.text}"
                        if not self.health.reached:
                            self._contact.failed(cause)  # raises EndpointError once the endpoint is given up
                            continue  # tried again on the endpoint's schedule, not counted against max_retries
                except openai.APIStatusError as exc:
                    s.budget.release(res)
                    self._contact.replied()
                    status = exc.status_code
                    if status in FATAL_STATUS:
                        hint = (
                            " (does the base URL end in /v1, and does the server serve this model?)"
                            if status == 404
                            else ""
                        )
                        raise EndpointError(
                            f"{ep.display_url} answered HTTP {status} ({FATAL_STATUS[status]}) "
                            f"for model {ep.model!r}{hint}: {short_error(exc, ep.api_key)}"
                        ) from None
                    error = f"HTTP {status}: {short_error(exc, ep.api_key)}"
                    if status == 400 and "max_completion_tokens" in error and "max_tokens" in sent_params:
                        # Newer OpenAI models take the same cap under another name: rename (once, for
                        # every later request too), ask again.
                        if "max_tokens" in self._params:
                            self._params["max_completion_tokens"] = self._params.pop("max_tokens")
                        continue
                    if not (status in (408, 409, 429) or status >= 500):
                        return "failed", error  # a 400/422 will not get better by asking again
                    retry_after = retry_after_seconds(getattr(exc.response, "headers", None))
                else:
                    self._contact.replied()
                    pt, ct, text, missing = read_completion(completion)
                    s.budget.settle(res, pt, ct)
                    r.prompt_tokens += int(pt or 0)
                    r.completion_tokens += int(ct or 0)
                    used[1] += int(pt or 0)
                    used[2] += int(ct or 0)
                    if text is not None:
                        self.latencies.add(loop.time() - t_sent)
                        self.health.answered = True
                        return "ok", text
                    error = f"HTTP 200 without an answer ({missing})"  # a server fault, not the model's answer
                finally:
                    sent_at[0] = None
            attempt += 1
            if attempt > o.max_retries:
                return "failed", error
            self._bar.set_postfix(_postfix(r), refresh=False)
            await asyncio.sleep(backoff_delay(attempt, o.backoff_base, o.backoff_max, retry_after, self._rng))
