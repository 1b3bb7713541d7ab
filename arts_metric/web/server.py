"""The rating server: a small JSON API over a build's decision store, plus static pages.

Standard library only (``http.server``; a framework would add a dependency for
six routes). It binds to 127.0.0.1 by default: raters on the same machine, or
through an SSH tunnel. Every decision is committed to ``build.sqlite`` before
the next pair is sent, so a rater can close the page at any time and continue
later under the same name.

Routes (JSON in and out):

| route | what |
| --- | --- |
| ``GET /`` | the rating page |
| ``GET /api/config`` | instruction, guideline, mode, schedule length |
| ``POST /api/login {"name"}`` | start or resume rater ``human:<name>`` |
| ``GET /api/next?rater=`` | progress and the next pair (or batch in rank-and-rate mode) |
| ``POST /api/decide {"rater", "match", "clicked", "elapsed_ms"}`` | the rater clicked the *easier* text; the other one is stored as ``harder`` |
| ``POST /api/rank {"rater", "batch", "order", "cefr", "elapsed_ms"}`` | rank-and-rate: order easiest first, a CEFR level per text |
| ``GET /api/history?rater=`` | the rater's history in the ARTS format (JSON lines download) |
"""

from __future__ import annotations

import json
import os
import re
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from arts_metric.build.rankrate import RankRate
from arts_metric.build.specs import HUMAN_PREFIX, RaterConfig, rater_id
from arts_metric.build.store import DecisionStore, open_store
from arts_metric.cefr import CEFR_LEVELS
from arts_metric.web.guideline import INSTRUCTION, load_guideline

MODES = ("pairwise", "rank-rate")
_STATIC_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                 ".css": "text/css; charset=utf-8"}


class RatingApp:
    """The state behind the server: one store, one lock (SQLite writes are serialised)."""

    def __init__(self, out_dir: str | os.PathLike, mode: str = "pairwise",
                 guideline: str | os.PathLike | None = None, title: str | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.out_dir = Path(out_dir)
        self.guideline = load_guideline(guideline)  # before the store is opened: a bad file leaks nothing
        self.store: DecisionStore = open_store(out_dir)
        self.rank = RankRate(self.store) if mode == "rank-rate" else None
        self.mode = mode
        self.title = title or self.store.meta().get("name") or self.out_dir.name
        self.lock = threading.Lock()
        self.texts = self.store.texts()
        self.pairs = self.store.pairs()

    # -- API
    def config(self) -> dict:
        total = len(self.rank.batches) if self.rank else len(self.pairs)
        return {"title": self.title, "mode": self.mode, "instruction": INSTRUCTION,
                "guideline": self.guideline, "total": total, "cefr_levels": list(CEFR_LEVELS)}

    def login(self, body: dict) -> dict:
        rid = rater_id(str(body.get("name", "")))
        with self.lock:
            if rid not in self.store.human_raters():  # a returning rater keeps the group a build gave them
                self.store.add_rater(RaterConfig(rid, rid, HUMAN_PREFIX))
        return {"rater": rid, **self.next(rid)}

    def _known(self, rid: str) -> str:
        if rid not in self.store.human_raters():
            raise ValueError(f"unknown rater {rid!r}: log in first")
        return rid

    def next(self, rid: str) -> dict:
        with self.lock:
            self._known(rid)
            if self.rank:
                return self.rank.next(rid, self.texts)
            done, total = self.store.progress(rid)
            m = self.store.next_match(rid)
        if m is None:
            return {"done": done, "total": total, "finished": True, "match": None}
        a, b = self.pairs[m]
        return {"done": done, "total": total, "finished": False,
                "match": {"match": m, "a": {"index": a, "text": self.texts[a]},
                          "b": {"index": b, "text": self.texts[b]}}}

    def decide(self, body: dict) -> dict:
        rid = rater_id(str(body.get("rater", "")).removeprefix(f"{HUMAN_PREFIX}:"))
        try:
            m, clicked = int(body["match"]), int(body["clicked"])
        except (KeyError, TypeError, ValueError):
            raise ValueError("decide needs integer 'match' and 'clicked'") from None
        if not 0 <= m < len(self.pairs):
            raise ValueError(f"no match {m} in the schedule (0..{len(self.pairs) - 1})")
        a, b = self.pairs[m]
        if clicked not in (a, b):
            raise ValueError(f"match {m}: clicked text {clicked} is neither {a} nor {b}")
        harder = b if clicked == a else a  # the rater clicks the EASIER text; the winner is the other
        elapsed = body.get("elapsed_ms")
        elapsed_s = float(elapsed) / 1000.0 if isinstance(elapsed, (int, float)) and elapsed >= 0 else None
        with self.lock:
            self._known(rid)
            recorded = self.store.record(rid, m, harder, None, elapsed_s)
        return {"recorded": recorded, **self.next(rid)}

    def rank_submit(self, body: dict) -> dict:
        if not self.rank:
            raise ValueError("this server runs in pairwise mode; rank-and-rate needs --mode rank-rate")
        rid = rater_id(str(body.get("rater", "")).removeprefix(f"{HUMAN_PREFIX}:"))
        with self.lock:
            self._known(rid)
            recorded = self.rank.record(rid, body)
        return {"recorded": recorded, **self.next(rid)}

    def history(self, rid: str) -> str:
        with self.lock:
            self._known(rid)
            rows = self.rank.history(rid) if self.rank else self.store.history(rid)
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)

    def close(self) -> None:
        self.store.close()


def _static(name: str) -> bytes:
    return resources.files("arts_metric.web").joinpath("static", name).read_bytes()


def _handler(app: RatingApp) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "arts-rate"

        def log_message(self, fmt: str, *args: Any) -> None:  # quiet: the CLI prints the URL once
            pass

        def _send(self, status: int, body: bytes, ctype: str, extra: dict | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def _json(self, obj: Any, status: int = 200) -> None:
            self._send(status, json.dumps(obj, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8")

        def _guard(self, fn: Any) -> None:
            try:
                fn()
            except ValueError as exc:
                self._json({"error": str(exc)}, HTTPStatus.BAD_REQUEST)

        def do_GET(self) -> None:
            url = urlparse(self.path)
            q = {k: v[0] for k, v in parse_qs(url.query).items()}
            if url.path in ("/", "/index.html"):
                return self._send(200, _static("index.html"), _STATIC_TYPES[".html"])
            if url.path.startswith("/static/"):
                name = url.path[len("/static/"):]
                if name in ("app.js", "style.css"):
                    return self._send(200, _static(name), _STATIC_TYPES[Path(name).suffix])
            if url.path == "/favicon.ico":
                return self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
            if url.path == "/api/config":
                return self._json(app.config())
            if url.path == "/api/next":
                return self._guard(lambda: self._json(app.next(q.get("rater", ""))))
            if url.path == "/api/history":
                def send_history() -> None:
                    rid = q.get("rater", "")
                    fname = re.sub(r"[^\w.-]+", "_", rid.removeprefix(f"{HUMAN_PREFIX}:")) + ".jsonl"
                    self._send(200, app.history(rid).encode("utf-8"), "application/x-ndjson; charset=utf-8",
                               {"Content-Disposition": f'attachment; filename="{fname}"'})
                return self._guard(send_history)
            self._json({"error": f"not found: {url.path}"}, HTTPStatus.NOT_FOUND)

        def do_POST(self) -> None:
            url = urlparse(self.path)
            try:
                length = int(self.headers.get("Content-Length") or 0)
                # a negative length would make read() wait for the client to close the connection
                body = json.loads(self.rfile.read(length) or b"{}") if 0 <= length <= 1 << 20 else None
            except (ValueError, json.JSONDecodeError):
                body = None
            if not isinstance(body, dict):
                return self._json({"error": "expected a JSON object body"}, HTTPStatus.BAD_REQUEST)
            routes = {"/api/login": app.login, "/api/decide": app.decide, "/api/rank": app.rank_submit}
            fn = routes.get(url.path)
            if fn is None:
                return self._json({"error": f"not found: {url.path}"}, HTTPStatus.NOT_FOUND)
            self._guard(lambda: self._json(fn(body)))

    return Handler


def make_server(out_dir: str | os.PathLike, host: str = "127.0.0.1", port: int = 8765, mode: str = "pairwise",
                guideline: str | os.PathLike | None = None, title: str | None = None) -> ThreadingHTTPServer:
    """A ready (not yet serving) HTTP server for a build folder; ``port=0`` picks a free port.

    Call ``serve_forever()`` on it (or in a thread); ``server.app`` is the
    :class:`RatingApp`, ``server.url`` the address to open.
    """
    app = RatingApp(out_dir, mode=mode, guideline=guideline, title=title)
    try:
        server = ThreadingHTTPServer((host, port), _handler(app))
    except OSError:
        app.close()
        raise
    server.daemon_threads = True
    server.app = app  # type: ignore[attr-defined]
    h, p = server.server_address[:2]
    server.url = f"http://{h}:{p}/"  # type: ignore[attr-defined]
    return server
