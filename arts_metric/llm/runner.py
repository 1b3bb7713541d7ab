"""Running many chat requests: cached, concurrent, retried, budgeted, with a progress bar.

:func:`run_items` takes prepared :class:`Item` s (messages + a strict parser +
a cache key) and returns one :class:`Outcome` per item:

1. identical items (same key) are asked once;
2. answers already in the SQLite cache are used without a request;
3. the rest go out over the official ``openai`` async client with at most
   ``concurrency`` requests in flight;
4. 429, 408/409, 5xx, timeouts and connection errors are retried with
   exponential backoff and full jitter, waiting at least ``Retry-After``;
   401/403/404 stop the run (:class:`EndpointError`); other 4xx fail the item;
5. an unusable answer is asked again up to ``max_reasks`` times, then
   recorded as invalid (cached, so a rerun does not pay for it again);
6. each judgment is committed to the cache the moment it is parsed;
7. the budget refuses requests before a limit would be passed: items not
   asked are "skipped" (not cached; a rerun with a larger budget asks them).

:func:`run_sync` runs a coroutine from plain code *and* from inside a running
event loop (Jupyter), where it uses a private loop in a worker thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import email.utils
import random
import sqlite3
import sys
import time
import warnings
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Literal, Sequence, TypeVar

from arts_metric.llm.budget import Budget
from arts_metric.llm.cache import JudgmentCache
from arts_metric.llm.endpoint import Endpoint
from arts_metric.llm.options import LLMOptions
from arts_metric.llm.parsing import UnusableAnswer

T = TypeVar("T")

MAX_RETRY_AFTER = 120.0  # seconds; a longer Retry-After is capped (and the item retried later)
_FATAL_STATUS = {401: "authentication failed", 403: "permission denied", 404: "not found"}


class EndpointError(RuntimeError):
    """The endpoint cannot serve this job at all (bad key, unknown model, unreachable)."""


@dataclass
class Item:
    """One question for the model."""

    key: str
    messages: list[dict[str, str]]
    parse: Callable[[str], Any]
    texts: tuple[str, ...]
    max_tokens: int


Status = Literal["ok", "invalid", "failed", "skipped"]


@dataclass
class Outcome:
    """What became of an item: ``ok`` (``value`` is the parsed answer), ``invalid``
    (unusable after every re-ask), ``failed`` (transport errors), ``skipped`` (budget)."""

    status: Status
    value: Any = None
    answer: str | None = None
    cached: bool = False
    error: str | None = None


@dataclass
class RunSettings:
    """Everything :func:`run_items` needs besides the items. The transport options
    (concurrency, timeout, retries, re-asks, backoff, cache) are read from ``options``."""

    endpoint: Endpoint
    strategy: str
    prompt_version: str
    params: dict[str, Any]  # sampling parameters sent with every request (None values omitted)
    budget: Budget
    options: LLMOptions = field(default_factory=LLMOptions)
    progress: bool = True  # the options' progress bar, unless the judge is kept quiet
    desc: str = "judging"


@dataclass
class RunReport:
    """Counters of one run (unique items)."""

    items: int = 0  # items given, repeats included
    unique: int = 0  # distinct keys among them: what the counters below count
    cached: int = 0  # answered from the cache, no request
    requests: int = 0  # HTTP requests sent (retries and re-asks included)
    retried: int = 0  # transport retries (429, 5xx, timeouts, connection errors)
    reasked: int = 0  # extra asks after an unusable answer
    invalid: int = 0  # unusable after every re-ask (cached as such)
    failed: int = 0  # transport errors after every retry (not cached)
    skipped: int = 0  # not asked: the budget was reached (not cached)
    prompt_tokens: int = 0  # as the endpoint reported them
    completion_tokens: int = 0
    cost_usd: float = 0.0  # US dollars, when prices were given
    seconds: float = 0.0  # wall time of the run
    stopped: str | None = None  # the budget limit that stopped the run, if any
    errors: list[str] = field(default_factory=list)  # the first few transport errors


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or HTTP date)."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000.0)
        value = headers.get("retry-after")
    except (AttributeError, TypeError, ValueError):
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def backoff_delay(attempt: int, base: float, cap: float, retry_after: float | None, rng: random.Random) -> float:
    """Exponential backoff with full jitter; never shorter than ``Retry-After``
    (plus up to 25% jitter so that throttled requests do not return in a herd)."""
    delay = rng.uniform(0.0, min(cap, base * 2 ** (attempt - 1)))
    if retry_after is not None:
        ra = min(retry_after, MAX_RETRY_AFTER)
        delay = max(delay, ra * rng.uniform(1.0, 1.25))
    return delay


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
    """Synchronous facade of :func:`run_items_async`."""
    return run_sync(lambda: run_items_async(items, settings))


async def run_items_async(items: Sequence[Item], s: RunSettings) -> tuple[list[Outcome], RunReport]:
    """See the module docstring. Returns outcomes aligned with ``items`` and a report."""
    from tqdm.auto import tqdm

    t0 = time.perf_counter()
    report = RunReport(items=len(items))
    unique: dict[str, Item] = {}
    for item in items:
        unique.setdefault(item.key, item)
    report.unique = len(unique)
    results: dict[str, Outcome] = {}
    cache = None
    o = s.options
    if o.cache:
        try:
            cache = JudgmentCache.in_dir(o.cache_dir)
        except (OSError, sqlite3.Error, RuntimeError) as exc:  # e.g. a read-only home directory
            warnings.warn(
                f"judgment cache unavailable ({exc}); judging without it (set ARTS_CACHE_DIR "
                "or cache_dir= to a writable folder)",
                RuntimeWarning,
                stacklevel=2,
            )
    bar = tqdm(
        total=len(unique),
        desc=s.desc,
        unit="judgment",
        file=sys.stderr,
        disable=not s.progress or not unique,
        dynamic_ncols=True,
        mininterval=0.2,
    )
    spent_before = s.budget.spent
    try:
        if cache is not None and unique:
            for key, hit in cache.get_many(unique).items():
                if hit.valid or not o.retry_invalid:
                    results[key] = Outcome("ok" if hit.valid else "invalid", hit.value, hit.answer, cached=True)
            report.cached = len(results)
            report.invalid = sum(o.status == "invalid" for o in results.values())
            bar.update(len(results))
        todo = deque(item for key, item in unique.items() if key not in results)
        if todo:
            await _ask_all(todo, results, s, report, cache, bar)
    finally:
        bar.close()
        if cache is not None:
            cache.close()
    report.cost_usd = s.budget.spent - spent_before
    report.stopped = s.budget.stopped
    report.seconds = time.perf_counter() - t0
    return [results[item.key] for item in items], report


def _postfix(report: RunReport) -> dict[str, Any]:
    return {
        "cached": report.cached,
        "retried": report.retried,
        "reasked": report.reasked,
        "invalid": report.invalid,
        "failed": report.failed,
        "tokens": report.prompt_tokens + report.completion_tokens,
    }


async def _ask_all(todo: deque, results: dict, s: RunSettings, report: RunReport, cache, bar) -> None:
    from openai import AsyncOpenAI

    ep, o = s.endpoint, s.options
    n_workers = max(1, min(o.concurrency, len(todo)))
    # Retries are ours (counted, budgeted, Retry-After honoured), so the client's are off.
    client = AsyncOpenAI(api_key=ep.api_key, base_url=ep.base_url, max_retries=0, timeout=o.timeout)
    rng = random.Random()
    params = {k: v for k, v in s.params.items() if v is not None}
    n_todo = len(todo)

    async def request(item: Item, used: list[int]) -> tuple[str, Any]:
        """One answer text, with transport retries: ("ok", text) | ("failed", msg) | ("skipped", None).
        Adds this item's requests and tokens to ``used`` ([requests, prompt, completion])."""
        import openai

        prompt_bytes = sum(len(m["content"].encode("utf-8")) for m in item.messages)
        attempt = 0
        while True:
            res = s.budget.try_reserve(prompt_bytes, len(item.messages), item.max_tokens)
            if res is None:
                return "skipped", None
            report.requests += 1
            used[0] += 1
            retry_after = None
            sent_params = dict(params)  # what this request carries (another may rename max_tokens meanwhile)
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
            except openai.APITimeoutError:
                s.budget.settle(res, None, None)  # the server may have done (and billed) the work
                error = f"timeout after {o.timeout:g} s"
            except openai.APIConnectionError as exc:
                s.budget.release(res)
                error = f"connection error: {type(exc).__name__}"
            except openai.APIStatusError as exc:
                s.budget.release(res)
                status = exc.status_code
                if status in _FATAL_STATUS:
                    hint = " (does the base URL end in /v1, and does the server serve this model?)" if status == 404 else ""
                    raise EndpointError(
                        f"{ep.display_url} answered HTTP {status} ({_FATAL_STATUS[status]}) "
                        f"for model {ep.model!r}{hint}: {_short_error(exc, ep.api_key)}"
                    ) from None
                error = f"HTTP {status}: {_short_error(exc, ep.api_key)}"
                if status == 400 and "max_completion_tokens" in error and "max_tokens" in sent_params:
                    # Newer OpenAI models take the same cap under another name: rename (once, for
                    # every later request too), ask again.
                    if "max_tokens" in params:
                        params["max_completion_tokens"] = params.pop("max_tokens")
                    continue
                if not (status in (408, 409, 429) or status >= 500):
                    return "failed", error  # a 400/422 will not get better by asking again
                retry_after = retry_after_seconds(getattr(exc.response, "headers", None))
            else:
                pt, ct, text = _read_completion(completion)
                s.budget.settle(res, pt, ct)
                report.prompt_tokens += int(pt or 0)
                report.completion_tokens += int(ct or 0)
                used[1] += int(pt or 0)
                used[2] += int(ct or 0)
                return "ok", text
            attempt += 1
            if attempt > o.max_retries:
                return "failed", error
            report.retried += 1
            bar.set_postfix(_postfix(report), refresh=False)
            await asyncio.sleep(backoff_delay(attempt, o.backoff_base, o.backoff_max, retry_after, rng))

    async def judge(item: Item) -> Outcome:
        reasks = 0
        # This item's own counts (the report's totals also move with the other workers' requests).
        used = [0, 0, 0]
        while True:
            status, text = await request(item, used)
            if status != "ok":
                return Outcome(status, error=text)
            try:
                value = item.parse(text)
            except UnusableAnswer:
                if reasks < o.max_reasks:
                    reasks += 1
                    report.reasked += 1
                    continue
                outcome = Outcome("invalid", answer=text)
            else:
                outcome = Outcome("ok", value, text)
            if cache is not None:
                cache.put(
                    item.key,
                    model=ep.model,
                    strategy=s.strategy,
                    prompt_version=s.prompt_version,
                    params=s.params,
                    texts=item.texts,
                    endpoint=ep.display_url,
                    answer=text,
                    value=outcome.value,
                    valid=outcome.status == "ok",
                    requests=used[0],
                    prompt_tokens=used[1],
                    completion_tokens=used[2],
                )
            return outcome

    async def worker() -> None:
        while todo:
            item = todo.popleft()
            outcome = await judge(item)
            results[item.key] = outcome
            if outcome.status == "invalid":
                report.invalid += 1
            elif outcome.status == "failed":
                report.failed += 1
                if len(report.errors) < 5:
                    report.errors.append(outcome.error or "")
            elif outcome.status == "skipped":
                report.skipped += 1
            bar.set_postfix(_postfix(report), refresh=False)
            bar.update(1)

    workers = [asyncio.create_task(worker()) for _ in range(n_workers)]
    try:
        await asyncio.gather(*workers)
    except BaseException:
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        raise
    finally:
        await client.close()
    if report.failed and report.failed == n_todo - report.skipped:
        raise EndpointError(
            f"no request to {ep.display_url} (model {ep.model!r}) succeeded; "
            f"{report.failed} failed, e.g.: {report.errors[0] if report.errors else 'unknown error'}"
        )
    if report.failed:
        warnings.warn(
            f"{report.failed} of {n_todo} judgments failed at {ep.display_url} after retries "
            f"(e.g. {report.errors[0]}); they are recorded as missing and will be asked again on a rerun",
            RuntimeWarning,
            stacklevel=2,
        )
    if report.skipped:
        warnings.warn(
            f"budget reached ({s.budget.stopped}): {report.skipped} judgments were not asked; "
            "a rerun with a larger budget resumes from the cache",
            RuntimeWarning,
            stacklevel=2,
        )


def _read_completion(data: Any) -> tuple[int | None, int | None, str]:
    """``(prompt_tokens, completion_tokens, text)`` from a chat-completion JSON body;
    missing parts come back as None / "" (an empty text is then an unusable answer)."""
    if not isinstance(data, dict):
        return None, None, ""
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    pt, ct = usage.get("prompt_tokens"), usage.get("completion_tokens")
    pt = pt if isinstance(pt, int) else None
    ct = ct if isinstance(ct, int) else None
    text = ""
    choices = data.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            text = message["content"]
    return pt, ct, text


def _short_error(exc: Exception, api_key: str | None = None) -> str:
    msg = getattr(exc, "message", None) or str(exc)
    if api_key:  # some servers echo the key they were sent; it must not reach errors or logs
        msg = str(msg).replace(api_key, "<api key>")
    msg = " ".join(str(msg).split())
    return msg if len(msg) <= 200 else msg[:197] + "..."
