"""First contact with an endpoint: an endpoint that cannot be reached fails fast, in one line.

Until a judge's endpoint has replied to anything (an HTTP reply of any status, or
a request it accepted but was slow to answer), a session sends its requests one
at a time (a request still in flight after :data:`GRACE` seconds has most likely
connected: the others then go out too, so a slow first answer holds them up no
longer), and a request that cannot connect is not retried with the usual backoff:

- a refused or reset connection (the server may still be starting) is tried
  again after 0.25, 0.5, 1, 2, 2, 2 ... seconds, by whichever item's turn it is,
  at most ``max_retries`` times and for at most :data:`CONTACT_WINDOW` seconds
  after the first try (with the default ``max_retries=6``, the last try is
  7.75 s after the first): a server that comes up by then is used, otherwise
  :class:`EndpointError` names the URL (without credentials) and the cause;
- an unknown host name or a TLS failure will not mend by waiting:
  :class:`EndpointError` at the first try.

Once the endpoint has replied, every fault (connection errors included) is
retried by :mod:`arts_metric.llm.runner` with backoff, up to ``max_retries`` times.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import NamedTuple

from arts_metric.llm.endpoint import Endpoint
from arts_metric.llm.protocol import EndpointError, EndpointHealth
from arts_metric.scrub import scrub

CONTACT_WINDOW = 8.0  # seconds after the first try before an endpoint that never replied counts as down
FIRST_DELAY = 0.25  # seconds before the second try; doubles per try
MAX_DELAY = 2.0  # seconds between tries at most
GRACE = 1.0  # seconds a first request may take before the others go out too


class Cause(NamedTuple):
    """Why a request got no reply (see :func:`diagnose`)."""

    text: str  # in words, one line, no secrets
    transient: bool  # trying again soon may help (refused, reset, timed out)
    connected: bool  # the request reached the server, which was too slow to reply (a read timeout)


_TIMEOUTS_CONNECTED = {"ReadTimeout", "WriteTimeout"}


def diagnose(exc: BaseException, api_key: str | None = None) -> Cause:
    """Why the client's exception ``exc`` (a connection error or timeout) got no reply.

    Parameters
    ----------
    exc : the client's exception; its causes are read down to the socket or TLS error.
    api_key : a secret to mask in the text, besides those :mod:`arts_metric.scrub` knows.

    Returns
    -------
    Cause
        The cause in words; ``transient`` is True for a refused, reset or timed-out
        connection (a server that may be starting) and False for an unknown host or a
        TLS failure; ``connected`` is True when the server took the request but did not
        reply in time.
    """
    chain: list[BaseException] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        chain.append(current)
        current = current.__cause__ or current.__context__
    text, transient, connected = "", True, False
    for e in chain:
        name = type(e).__name__
        if isinstance(e, ssl.SSLCertVerificationError):
            text, transient = f"TLS certificate not accepted ({e.verify_message or e.reason})", False
        elif isinstance(e, ssl.SSLError):
            text, transient = f"TLS failure ({e.reason or e})", False
        elif isinstance(e, socket.gaierror):
            if e.errno == socket.EAI_AGAIN:
                text = "host name lookup failed (temporary failure in name resolution)"
            else:
                text, transient = f"unknown host ({e.strerror or e})", False
        elif isinstance(e, ConnectionRefusedError):
            text = "connection refused"
        elif isinstance(e, ConnectionResetError):
            text = "connection reset"
        elif name == "ConnectTimeout":
            text = "connection timed out"
        elif name in _TIMEOUTS_CONNECTED:
            text, connected = "no reply in time", True
        else:
            continue
        break
    if not text and any(type(e).__name__.endswith("Timeout") for e in chain):
        text, connected = "no reply in time", True  # as the client's timeouts are treated once the endpoint replied
    if not text:  # none of the above: the deepest error's own words
        deepest = chain[-1]
        text = f"{type(deepest).__name__}: {deepest}" if str(deepest) else type(deepest).__name__
    text = scrub(" ".join(text.split()), [api_key] if api_key else ())
    return Cause(text if len(text) <= 200 else text[:197] + "...", transient, connected)


class FirstContact:
    """One session's requests to an endpoint that has not replied yet (see the module docstring).

    Parameters
    ----------
    health : the judge's record of its endpoint; ``health.reached`` opens the way for good.
    endpoint : the endpoint, named in the error (its display URL: no credentials).
    max_retries : tries after the first failure at most (the judge's ``max_retries``).
    """

    def __init__(self, health: EndpointHealth, endpoint: Endpoint, max_retries: int) -> None:
        self.health = health
        self.endpoint = endpoint
        self.max_retries = max_retries
        self.tries = 0  # requests that could not connect
        self._lock = asyncio.Lock()  # held by the one request in flight while the gate is shut
        self._open = False  # a request outlived GRACE: all go out, until the next failure to connect
        self._start: float | None = None  # loop time the first request went out
        self._next_at = 0.0  # loop time before which no request goes out
        self._error: str | None = None  # set once the endpoint is given up: later turns raise it

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Wait for this request's turn: none once the endpoint has replied; otherwise one
        request at a time, each after the delay set by the last failure, until one is in
        flight for :data:`GRACE` seconds."""
        if self.health.reached:
            yield
            return
        if not self._open:
            await self._lock.acquire()
            if self._open or self.health.reached:  # opened while this request waited
                self._lock.release()
            else:
                async with self._shut_gate():
                    yield
                return
        if self._error is not None:
            raise EndpointError(self._error)
        self._started(asyncio.get_running_loop())
        yield

    def _started(self, loop: asyncio.AbstractEventLoop) -> None:
        """A request goes out: the window starts with the first one."""
        if self._start is None:
            self._start = loop.time()

    @asynccontextmanager
    async def _shut_gate(self) -> AsyncIterator[None]:
        """The body of a turn that holds the lock: it is let go when the request ends, or when
        it has been in flight for :data:`GRACE` seconds (then the gate opens)."""
        loop = asyncio.get_running_loop()
        held = True

        def let_go(opening: bool) -> None:
            nonlocal held
            if held:
                held = False
                self._open = self._open or opening
                self._lock.release()

        timer = None
        try:
            if self._error is not None:
                raise EndpointError(self._error)
            wait = self._next_at - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            timer = loop.call_later(GRACE, let_go, True)
            self._started(loop)
            yield
        finally:
            if timer is not None:
                timer.cancel()
            let_go(False)

    def replied(self) -> None:
        """The endpoint replied (any HTTP status) or accepted a request: it is reachable."""
        self.health.reached = True

    def failed(self, cause: Cause) -> None:
        """A request could not connect: set the next try's time, or raise :class:`EndpointError`
        once trying again makes no sense (the cause is not transient, or the retries or the window are over)."""
        now = asyncio.get_running_loop().time()
        self.tries += 1
        self._open = False  # one request at a time again
        if self._start is None:
            self._start = now
        waited = now - self._start
        if cause.transient and waited < CONTACT_WINDOW and self.tries <= self.max_retries:
            delay = min(MAX_DELAY, FIRST_DELAY * 2 ** (self.tries - 1))
            self._next_at = min(now + delay, self._start + CONTACT_WINDOW)
            return
        if self.tries > 1:
            tried = f"; {self.tries} tries in {waited:.1f} s"
        else:
            tried = f" after {waited:.0f} s" if waited >= 1 else ""
        ep = self.endpoint
        self._error = (
            f"cannot reach {ep.display_url} (model {ep.model!r}): {cause.text}{tried}; "
            "check that the server is running and that the base URL is right"
        )
        raise EndpointError(self._error)
