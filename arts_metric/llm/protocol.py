"""One request and its answer in the OpenAI chat-completions protocol: the item
asked (:class:`Item`), what became of it (:class:`Outcome`), a run's settings
and counters (:class:`RunSettings`, :class:`RunReport`), reading a completion
body (:func:`read_completion`), when to ask again (``Retry-After``, backoff) and
the error for an endpoint that cannot serve a job at all (:class:`EndpointError`).
:mod:`arts_metric.llm.runner` sends the requests."""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from arts_metric.llm.budget import Budget
from arts_metric.llm.endpoint import Endpoint
from arts_metric.llm.hedging import Latencies
from arts_metric.llm.options import LLMOptions
from arts_metric.scrub import scrub

MAX_RETRY_AFTER = 120.0  # seconds; a longer Retry-After is capped (and the item retried later)
FATAL_STATUS = {401: "authentication failed", 403: "permission denied", 404: "not found"}


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
    health: "EndpointHealth | None" = None  # shared by a judge's sessions; None = this run's own
    latencies: Latencies | None = None  # answer times, shared by a judge's sessions; None = this run's own


@dataclass
class EndpointHealth:
    """Whether a judge ever got an answer, from its endpoint or from the cache
    (kept across its sessions: a late failure is then a failure, not a dead endpoint),
    and whether its endpoint ever replied at all (any HTTP status: it can be reached,
    so connection errors are retried like other faults, see :mod:`arts_metric.llm.contact`)."""

    answered: bool = False
    reached: bool = False


@dataclass
class RunReport:
    """Counters of one run (unique items). Every request sent is exactly one of: an item's
    first ask, a transport retry, a re-ask or a duplicate, so
    ``requests == asked + retried + reasked + hedged``."""

    items: int = 0  # items given, repeats included
    unique: int = 0  # distinct keys among them: what the counters below count
    cached: int = 0  # answered from the cache, no request
    asked: int = 0  # items for which a request was sent (each item's first ask)
    answered: int = 0  # items the model answered in this run (usable or not): the judgments paid for
    requests: int = 0  # HTTP requests sent (first asks, retries, re-asks and duplicates)
    retried: int = 0  # transport retries (429, 5xx, timeouts, connection errors, replies without an answer)
    hedged: int = 0  # duplicates sent for slow requests (only with hedges > 0)
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
    unusable: list[str] = field(default_factory=list)  # the first few answers unusable after every re-ask


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


def read_completion(data: Any) -> tuple[int | None, int | None, str | None, str]:
    """``(prompt_tokens, completion_tokens, text, why)`` from a chat-completion JSON body.

    ``text`` is the model's answer (an empty string is an answer, if an unusable
    one; a refusal is the model's answer too), or None when the reply carries
    none (no ``choices``, ``content: null``): a server fault, described by ``why``.
    """
    if not isinstance(data, dict):
        return None, None, None, "not a JSON object"
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    pt, ct = usage.get("prompt_tokens"), usage.get("completion_tokens")
    pt = pt if isinstance(pt, int) else None
    ct = ct if isinstance(ct, int) else None
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return pt, ct, None, "no choices"
    message = choices[0].get("message")
    if not isinstance(message, dict):
        return pt, ct, None, "no message"
    if isinstance(message.get("content"), str):
        return pt, ct, message["content"], ""
    if isinstance(message.get("refusal"), str):
        return pt, ct, message["refusal"], ""
    finish = choices[0].get("finish_reason")
    return pt, ct, None, "content: null" + (f", finish_reason {finish!r}" if finish else "")


def short_error(exc: Exception, api_key: str | None = None) -> str:
    msg = getattr(exc, "message", None) or str(exc)
    # Some servers echo the key or the Basic credential they were sent; neither may reach errors or logs.
    msg = scrub(" ".join(str(msg).split()), [api_key] if api_key else ())
    return msg if len(msg) <= 200 else msg[:197] + "..."
