"""The rating server: a small JSON API over a build's decision store, plus static pages.

Standard library only (``http.server``; a framework would add a dependency for
a few routes). It binds to 127.0.0.1 by default: raters on the same machine,
or through an SSH tunnel. Every decision is committed to ``build.sqlite``
before the next pair is sent, so a rater can close the page at any time and
continue later with the same link.

Who may do what (tokens: :mod:`arts_metric.builder.access`; checks:
:mod:`arts_metric.web.guard`): every ``/api/`` request carries
``Authorization: Bearer TOKEN`` and must come from the page's own origin
(``Host``, ``Origin``, ``Sec-Fetch-Site``); writes must be
``application/json``. The page reads the token from its link
(``http://HOST:PORT/#token=TOKEN``: a fragment never reaches a server or a log).
Every refusal or bad body gets a JSON ``{"error"}`` with a 4xx status, never a
dropped connection: a body over :data:`~arts_metric.web.guard.MAX_BODY` is
answered 413 unread, then the connection is drained and closed.

| route | who | what |
| --- | --- | --- |
| ``GET /`` | anyone | the rating page (no data in it) |
| ``GET /api/config`` | any token | instruction, guideline, mode, schedule length, the token's role |
| ``POST /api/login {"name"}`` | sign-up token | start as a *new* rater ``human:<name>``; answers a personal token |
| ``GET /api/next`` | rater (own), coordinator (``?rater=``) | progress and the next pair (or batch in rank-and-rate mode) |
| ``POST /api/decide {"match", "clicked", "elapsed_ms"}`` | rater | the rater clicked the *easier* text; the other one is stored as ``harder`` |
| ``POST /api/rank {"batch", "order", "cefr", "elapsed_ms"}`` | rater | rank-and-rate: order easiest first, a CEFR level per text |
| ``POST /api/undo {}`` | rater | take back the last decision (a pair, or a ranked batch); answers the next item (the same one again) |
| ``GET /api/history`` | rater (own), coordinator (``?rater=``) | the history in the ARTS format (JSON lines download) |
| ``GET /api/progress`` | coordinator | every human rater's progress and number of valid links |
| ``POST /api/links {"name"}`` / ``/api/revoke {"name"}`` | coordinator | a new personal link for a rater / end all of theirs |
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
import traceback
from collections.abc import Callable, Collection
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from arts_metric.builder.access import COORDINATOR, RATER, SIGNUP, Grant
from arts_metric.builder.specs import HUMAN_PREFIX, rater_id
from arts_metric.web import guard
from arts_metric.web.guard import Refused
from arts_metric.web.rating_app import RatingApp

_STATIC = {
    "/": "index.html",
    "/index.html": "index.html",
    "/static/app.js": "app.js",
    "/static/style.css": "style.css",
}
_STATIC_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
#: Sent with every answer: no framing (click-jacking), no sniffing, no referrer, scripts from this origin only.
_SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
}
#: After refusing an unread body: read and drop at most this much (bytes, seconds), so the client sees the answer.
_DRAIN_BYTES, _DRAIN_SECONDS = 64 << 20, 5.0


def _static(name: str) -> bytes:
    return resources.files("arts_metric.web").joinpath("static", name).read_bytes()


def _acting_rater(grant: Grant, given: Any) -> str:
    """The rater a request acts for: a rater token's own (naming another is refused), any for the coordinator."""
    if given is None or given == "":
        if grant.role == RATER:
            return grant.rater
        raise ValueError("name the rater (?rater=NAME)")
    if not isinstance(given, str):
        raise ValueError(f"'rater' must be a string, got {given!r}"[:200])
    rid = rater_id(given.removeprefix(f"{HUMAN_PREFIX}:"))
    if grant.role == RATER and rid != grant.rater:
        raise Refused(HTTPStatus.FORBIDDEN, f"this link belongs to {grant.rater}: it cannot act for {rid}")
    return rid


class _Handler(BaseHTTPRequestHandler):
    server: RatingServer
    server_version = "arts-rate"
    sys_version = ""
    timeout = 30  # seconds a client may take to send its request

    def log_message(self, fmt: str, *args: Any) -> None:  # never log: the CLI prints the links once
        pass

    # -- answers
    def _send(self, status: int, body: bytes, ctype: str, extra: dict | None = None, close: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in {**_SECURITY_HEADERS, **(extra or {})}.items():
            self.send_header(k, v)
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def _json(self, obj: Any, status: int = 200, close: bool = False) -> None:
        self._send(
            status, json.dumps(obj, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8", close=close
        )

    def _drain(self) -> None:
        """After answering without reading the body: stop sending, then read and drop what the client still
        sends (bounded), so that it reads the answer instead of a reset connection."""
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
            self.connection.settimeout(1.0)
            deadline, got = time.monotonic() + _DRAIN_SECONDS, 0
            while got < _DRAIN_BYTES and time.monotonic() < deadline:
                chunk = self.connection.recv(1 << 16)
                if not chunk:
                    break
                got += len(chunk)
        except OSError:
            pass

    # -- dispatch
    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_OPTIONS(self) -> None:  # a CORS preflight: never granted
        self._handle("OPTIONS")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def _handle(self, method: str) -> None:
        try:
            length = guard.body_length(self.headers)
            raw = self.rfile.read(length) if length else b""
            if len(raw) < length:
                raise Refused(HTTPStatus.BAD_REQUEST, f"the body ended after {len(raw)} of {length} bytes")
            if not guard.host_allowed(self.headers.get("Host"), self.server.bound_host, self.server.host_names):
                raise Refused(
                    HTTPStatus.FORBIDDEN,
                    f"Host {(self.headers.get('Host') or '')[:100]!r} is not "
                    "this server (DNS rebinding guard); see --allow-host",
                )
            url = urlparse(self.path)
            if url.path.startswith("/api/"):
                self._api(method, url.path, {k: v[0] for k, v in parse_qs(url.query).items()}, raw)
            elif method != "GET":
                raise Refused(HTTPStatus.METHOD_NOT_ALLOWED, f"{method} is not allowed on {url.path}")
            elif url.path in _STATIC:
                name = _STATIC[url.path]
                self._send(200, _static(name), _STATIC_TYPES[Path(name).suffix])
            elif url.path == "/favicon.ico":
                self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
            else:
                self._json({"error": f"not found: {url.path}"}, HTTPStatus.NOT_FOUND)
        except Refused as exc:
            self._json({"error": exc.message}, exc.status, close=exc.unread_body)
            if exc.unread_body:
                self._drain()
        except ValueError as exc:
            self._json({"error": str(exc)}, HTTPStatus.BAD_REQUEST)
        except TimeoutError:
            self._json(
                {"error": f"the request was not complete after {self.timeout} s"},
                HTTPStatus.REQUEST_TIMEOUT,
                close=True,
            )
        except Exception as exc:  # an answer rather than a dropped connection
            traceback.print_exc()
            self._json({"error": f"internal error ({type(exc).__name__})"}, HTTPStatus.INTERNAL_SERVER_ERROR)

    def _api(self, method: str, path: str, query: dict, raw: bytes) -> None:
        guard.check_same_origin(self.headers)
        if method == "OPTIONS":
            raise Refused(HTTPStatus.FORBIDDEN, "cross-origin requests are refused")
        grant = self.server.app.grant(guard.bearer_token(self.headers))
        if grant is None:
            raise Refused(HTTPStatus.FORBIDDEN, "this needs a valid token: open your personal link")
        routes = _GET_ROUTES if method == "GET" else _POST_ROUTES if method == "POST" else {}
        if path not in routes:
            known = path in _GET_ROUTES or path in _POST_ROUTES
            raise Refused(
                HTTPStatus.METHOD_NOT_ALLOWED if known else HTTPStatus.NOT_FOUND,
                f"{method} {path} is not allowed" if known else f"not found: {path}",
            )
        roles, fn = routes[path]
        if grant.role not in roles:
            raise Refused(HTTPStatus.FORBIDDEN, f"a {grant.role} link cannot use {path}")
        if method == "POST":
            guard.check_json_type(self.headers)
            fn(self, grant, guard.parse_object(raw))
        else:
            fn(self, grant, query)

    # -- routes: (handler, grant, query or body)
    def _config(self, grant: Grant, _q: dict) -> None:
        name = grant.rater.removeprefix(f"{HUMAN_PREFIX}:") if grant.rater else None
        self._json({**self.server.app.config(), "access": {"role": grant.role, "rater": grant.rater, "name": name}})

    def _next(self, grant: Grant, q: dict) -> None:
        self._json(self.server.app.next(_acting_rater(grant, q.get("rater"))))

    def _history(self, grant: Grant, q: dict) -> None:
        rid = _acting_rater(grant, q.get("rater"))
        fname = re.sub(r"[^\w.-]+", "_", rid.removeprefix(f"{HUMAN_PREFIX}:")) + ".jsonl"
        self._send(
            200,
            self.server.app.history(rid).encode("utf-8"),
            "application/x-ndjson; charset=utf-8",
            {"Content-Disposition": f'attachment; filename="{fname}"'},
        )

    def _progress(self, grant: Grant, _q: dict) -> None:
        self._json(self.server.app.progress())

    def _login(self, grant: Grant, body: dict) -> None:
        if grant.role == SIGNUP:
            return self._json(self.server.app.signup(guard.str_field(body, "name")))
        rid = _acting_rater(grant, guard.str_field(body, "name", required=False))
        self._json({"rater": rid, **self.server.app.next(rid)})

    def _decide(self, grant: Grant, body: dict) -> None:
        rid = _acting_rater(grant, body.get("rater"))
        self._json(self.server.app.decide({**body, "rater": rid}))

    def _undo(self, grant: Grant, body: dict) -> None:
        rid = _acting_rater(grant, body.get("rater"))
        self._json(self.server.app.undo({**body, "rater": rid}))

    def _rank(self, grant: Grant, body: dict) -> None:
        rid = _acting_rater(grant, body.get("rater"))
        self._json(self.server.app.rank_submit({**body, "rater": rid}))

    def _links(self, grant: Grant, body: dict) -> None:
        name = guard.str_field(body, "name")
        token = self.server.app.new_link(name)
        self._json({"rater": rater_id(name.removeprefix(f"{HUMAN_PREFIX}:")), "token": token})

    def _revoke(self, grant: Grant, body: dict) -> None:
        name = guard.str_field(body, "name")
        n = self.server.app.revoke(name)
        self._json({"rater": rater_id(name.removeprefix(f"{HUMAN_PREFIX}:")), "revoked": n})


_Route = tuple[tuple[str, ...], Callable[[_Handler, Grant, dict], None]]
_GET_ROUTES: dict[str, _Route] = {
    "/api/config": ((COORDINATOR, SIGNUP, RATER), _Handler._config),
    "/api/next": ((COORDINATOR, RATER), _Handler._next),
    "/api/history": ((COORDINATOR, RATER), _Handler._history),
    "/api/progress": ((COORDINATOR,), _Handler._progress),
}
_POST_ROUTES: dict[str, _Route] = {
    "/api/login": ((SIGNUP, RATER), _Handler._login),
    "/api/decide": ((RATER,), _Handler._decide),
    "/api/rank": ((RATER,), _Handler._rank),
    "/api/undo": ((RATER,), _Handler._undo),
    "/api/links": ((COORDINATOR,), _Handler._links),
    "/api/revoke": ((COORDINATOR,), _Handler._revoke),
}


class RatingServer(ThreadingHTTPServer):
    """The HTTP server of one :class:`RatingApp`: ``app``, ``url`` (the address to open) and :meth:`link`."""

    daemon_threads = True

    def __init__(self, app: RatingApp, host: str, port: int, allowed_hosts: Collection[str] = ()) -> None:
        super().__init__((host, port), _Handler)
        self.app = app
        self.bound_host = host
        self.host_names = guard.allowed_host_names(host, allowed_hosts)
        h, p = self.server_address[:2]
        self.url = f"http://{'127.0.0.1' if h in ('0.0.0.0', '') else h}:{p}/"

    def link(self, token: str) -> str:
        """The page address that carries ``token`` (in the fragment, which browsers never send to a server)."""
        return f"{self.url}#token={token}"


def make_server(
    out_dir: str | os.PathLike,
    host: str = "127.0.0.1",
    port: int = 8765,
    mode: str = "pairwise",
    guideline: str | os.PathLike | None = None,
    title: str | None = None,
    signup: bool = False,
    allowed_hosts: Collection[str] = (),
) -> RatingServer:
    """A ready (not yet serving) HTTP server for a build folder; ``port=0`` picks a free port.

    Call ``serve_forever()`` on it (or in a thread). ``server.link(server.app.coordinator_token)``
    is the coordinator's link; ``server.link(server.app.new_link("alice"))`` a new personal link
    for alice; with ``signup=True``, ``server.link(server.app.signup_token)`` lets new raters
    start by name. ``allowed_hosts``: host names besides IP literals and ``localhost`` that
    requests may name in their ``Host`` header.
    """
    app = RatingApp(out_dir, mode=mode, guideline=guideline, title=title, signup=signup)
    try:
        return RatingServer(app, host, port, allowed_hosts)
    except OSError:
        app.close()
        raise
