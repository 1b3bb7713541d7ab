"""The web rating interface: real headless Chromium (Debian's package, driven by Playwright) and plain HTTP.

In the browser: a rater opens their personal link, clicks through part of the
schedule, leaves (a fresh browser context: no local storage), comes back with
the link, finishes and saves the history; the stored and downloaded histories
must match the clicks, with the *unclicked* text recorded as the harder one.
A page from another origin must not be able to write.

Over HTTP: no token, no access; a rater's token acts for that rater only; the
coordinator sees everyone; cross-origin and rebinding requests are refused;
malformed bodies get a 4xx JSON answer, never a dropped connection.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import socket
import sqlite3
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from browser import chromium

from arts_metric.builder import build, open_store, prepare
from arts_metric.data import parse_history
from arts_metric.web import make_server

REPO = Path(__file__).resolve().parent.parent

# Self-written texts of clearly different difficulty.
TEXTS = [
    "The cat sat on the mat.",
    "We went to the shop and bought some bread.",
    "The committee postponed its decision until the auditors had reviewed the accounts.",
    "Dogs like to play outside.",
    "Notwithstanding the foregoing, the lessee shall indemnify the lessor against all claims.",
    "Mitochondrial dysfunction attenuates oxidative phosphorylation in hepatocytes.",
    "It is raining today.",
    "The parliamentary rapporteur submitted an amendment concerning subsidiarity.",
    "Birds sing in the morning.",
    "Quantum decoherence suppresses interference between macroscopically distinct states.",
]


@pytest.fixture
def browser():
    with chromium() as b:
        yield b


def _serve(folder: Path, mode: str = "pairwise", signup: bool = False):
    server = make_server(folder, port=0, mode=mode, signup=signup)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


def _stop(server) -> None:
    server.shutdown()
    server.server_close()
    server.app.close()


def _snapshot(folder: Path) -> dict:
    """Every row of every table of the build's store (read with plain sqlite3)."""
    conn = sqlite3.connect(folder / "build.sqlite")
    try:
        tables = [t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in tables}
    finally:
        conn.close()


def _call(
    server,
    method: str,
    path: str,
    body=None,
    token: str | None = None,
    headers: dict | None = None,
    ctype: str | None = "application/json",
):
    """One request on a fresh connection; returns (status, decoded JSON or text, response headers)."""
    conn = http.client.HTTPConnection(*server.server_address[:2], timeout=30)
    h = {}
    if body is not None and ctype:
        h["Content-Type"] = ctype
    if token:
        h["Authorization"] = f"Bearer {token}"
    h.update(headers or {})
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    try:
        conn.request(method, path, body=data, headers=h)
        r = conn.getresponse()
        raw = r.read()
        ctype_out = r.getheader("Content-Type") or ""
        out = json.loads(raw) if ctype_out.startswith("application/json") else raw.decode()
        return r.status, out, r
    finally:
        conn.close()


def _easier(page) -> tuple[int, int, int, str]:
    """Decide like a rater would here: the shorter text is easier. Returns (match, a, b, side clicked)."""
    a, b = page.locator("#text-a"), page.locator("#text-b")
    ia, ib = int(a.get_attribute("data-index")), int(b.get_attribute("data-index"))
    match = int(a.get_attribute("data-match"))
    side = "a" if len(TEXTS[ia]) <= len(TEXTS[ib]) else "b"
    return match, ia, ib, side


def _click_pairs(page, k: int, clicks: dict) -> None:
    for _ in range(k):
        done = int(page.locator("#stats").get_attribute("data-done"))
        match, ia, ib, side = _easier(page)
        assert match not in clicks, f"match {match} was shown again after it was decided"
        page.click(f"#text-{side}")
        clicks[match] = (ia, ib, ia if side == "a" else ib)
        page.wait_for_selector(f"#stats[data-done='{done + 1}']")  # the page's CSP forbids eval'd waits


def _open(page, link: str) -> None:
    page.goto(link)
    page.wait_for_selector("#stats[data-done]")


def test_rater_flow_with_personal_and_sign_up_links(tmp_path, browser):
    folder = tmp_path / "build"
    prepare(folder, [{"id": f"t{i}", "text": t} for i, t in enumerate(TEXTS)], matches_per_text=2, seed=4).close()
    server = _serve(folder, signup=True)
    alice_link = server.link(server.app.new_link("alice"))
    total = 2 * len(TEXTS)
    clicks: dict[int, tuple[int, int, int]] = {}
    try:
        # Without a token the page shows nothing but the request for a link.
        ctx = browser.new_context()
        page = ctx.new_page()
        page.goto(server.url)
        page.wait_for_selector("#noaccess-view:not([hidden])")
        assert page.locator("#text-a").inner_text() == ""
        ctx.close()

        # Session 1: alice opens her personal link: the paper's interface; she does 7 of 20 and leaves.
        ctx = browser.new_context()
        page = ctx.new_page()
        _open(page, alice_link)
        assert page.inner_text("#rater-name") == "alice"
        assert page.inner_text("#instruction") == "Click on the text which is easier to understand"
        questions = page.locator("#guideline-questions li").all_inner_texts()
        assert len(questions) == 4 and "cognitive load" in questions[0]
        assert page.inner_text("#stats") == f"(0/{total})"
        _click_pairs(page, 7, clicks)
        assert page.inner_text("#stats") == f"(7/{total})"
        ctx.close()

        # bob starts by name with the sign-up link and is shown his own personal link.
        ctx = browser.new_context()
        page = ctx.new_page()
        page.goto(server.link(server.app.signup_token))
        page.wait_for_selector("#login-view:not([hidden])")
        page.fill("#login-name", "bob")
        page.click("#login-btn")
        page.wait_for_selector("#stats[data-done]")
        assert page.inner_text("#stats") == f"(0/{total})"
        bob_link = page.input_value("#my-link")
        assert bob_link.startswith(server.url + "#token=") and bob_link != alice_link
        _click_pairs(page, 2, {})
        # The sign-up link cannot take a name that exists.
        page.goto(server.link(server.app.signup_token))
        page.wait_for_selector("#login-view:not([hidden])")
        page.fill("#login-name", "alice")
        page.click("#login-btn")
        page.wait_for_selector("#login-error:has-text('already exists')")
        ctx.close()
        ctx = browser.new_context()
        page = ctx.new_page()
        _open(page, bob_link)
        assert page.inner_text("#rater-name") == "bob" and page.inner_text("#stats") == f"(2/{total})"
        ctx.close()

        # Session 2: a fresh browser (no local storage); alice's link continues at 7; she finishes.
        ctx = browser.new_context(accept_downloads=True)
        page = ctx.new_page()
        _open(page, alice_link)
        assert page.inner_text("#stats") == f"(7/{total})"
        _click_pairs(page, total - 7, clicks)
        page.wait_for_selector("#done-view:not([hidden])")
        assert page.inner_text("#stats") == f"({total}/{total})"

        # Reloading, even at the bare address (the token is kept in local storage), keeps the finished state.
        page.goto(server.url)
        page.wait_for_selector("#done-view:not([hidden])")

        # The export button downloads the history in the ARTS format.
        with page.expect_download() as dl:
            page.click("#save-history")
        assert dl.value.suggested_filename == "alice.jsonl"
        downloaded = Path(dl.value.path()).read_text(encoding="utf-8")
        ctx.close()
    finally:
        _stop(server)

    rows = [json.loads(line) for line in downloaded.splitlines()]
    history = parse_history(rows, "download")
    assert [m.match for m in history] == list(range(total))
    for m in history:
        a, b, clicked = clicks[m.match]
        assert (m.a, m.b) == (a, b)
        assert m.harder == (b if clicked == a else a), f"match {m.match}: the unclicked text must win"
    with open_store(folder) as store:
        assert store.history("human:alice") == rows
        assert store.progress("human:bob") == (2, total)
        assert all(t is not None and t > 0 for t in store.elapsed("human:alice"))

    # The build combines the human with the stored decisions (no one is asked again) and exports.
    result = build(
        [{"id": f"t{i}", "text": t} for i, t in enumerate(TEXTS)],
        ["human:alice"],
        folder,
        matches_per_text=2,
        seed=4,
        progress=False,
    )
    assert [m.harder for m in result.majority] == [m.harder for m in history]
    # Our "shorter is easier" rater gives the longest text the top score.
    longest = max(range(len(TEXTS)), key=lambda i: len(TEXTS[i]))
    assert result.scores[longest] >= 0.8


def test_coordinator_page_shows_progress_downloads_and_makes_links(tmp_path, browser):
    folder = tmp_path / "coord"
    prepare(folder, [{"text": t} for t in TEXTS[:4]], matches_per_text=1, seed=2).close()
    server = _serve(folder)
    try:
        alice = server.app.new_link("alice")
        for _ in range(3):
            p = server.app.next("human:alice")
            server.app.decide({"rater": "alice", "match": p["match"]["match"], "clicked": p["match"]["b"]["index"]})
        expected = server.app.history("human:alice")
        ctx = browser.new_context(accept_downloads=True)
        page = ctx.new_page()
        page.goto(server.link(server.app.coordinator_token))
        page.wait_for_selector("#coord-view:not([hidden])")
        assert page.locator("#coord-rows tr[data-rater='alice'] td").all_inner_texts()[:3] == ["alice", "3/4", "1"]
        with page.expect_download() as dl:
            page.click("#coord-rows tr[data-rater='alice'] button.download")
        assert Path(dl.value.path()).read_text(encoding="utf-8") == expected

        # A new rater's link, made on the page, opens that rater's page.
        page.fill("#link-name", "carol")
        page.click("#link-btn")
        page.wait_for_selector("#coord-rows tr[data-rater='carol']")
        carol_link = page.input_value("#new-link")
        other = ctx.new_page()
        _open(other, carol_link)
        assert other.inner_text("#rater-name") == "carol" and other.inner_text("#stats") == "(0/4)"
        other.close()

        # Revoking ends it at once.
        page.click("#coord-rows tr[data-rater='carol'] button.revoke")
        page.wait_for_selector("#coord-rows tr[data-rater='carol'] td:nth-child(3):text-is('0')")
        other = browser.new_context().new_page()
        other.goto(carol_link)
        other.wait_for_selector("#noaccess-view:not([hidden])")
        assert "valid token" in other.inner_text("#noaccess-error")
        other.context.close()
        ctx.close()
        assert _call(server, "GET", "/api/config", token=alice)[0] == 200
    finally:
        _stop(server)


def test_rank_and_rate_mode(tmp_path, browser):
    folder = tmp_path / "rr"
    prepare(folder, [{"text": t} for t in TEXTS], matches_per_text=1, seed=0).close()
    server = _serve(folder, mode="rank-rate")
    levels = ["A1", "A2", "B1", "B2", "C1", "C2"]
    try:
        ctx = browser.new_context()
        page = ctx.new_page()
        _open(page, server.link(server.app.new_link("carol")))
        assert page.inner_text("#stats") == "(0/2)"
        submitted = []
        for _ in range(2):
            idx = _shown_batch(page)
            assert len(idx) == 5
            order = sorted(idx, key=lambda i: len(TEXTS[i]))  # shortest = easiest first
            assert page.locator("#rank-submit").is_disabled()
            _rank_batch(page, order, levels)
            submitted.append(order)
        page.wait_for_selector("#done-view:not([hidden])")
        ctx.close()
        hist = server.app.history("human:carol")
    finally:
        _stop(server)
    rows = [json.loads(x) for x in hist.splitlines()]
    assert [r["ranking"] for r in rows] == submitted
    assert [sorted(r["cefr"].values()) for r in rows] == [levels[:5], levels[:5]]
    assert rows[0]["cefr_numeric"][str(submitted[0][0])] == 1
    # A build of the folder publishes the rank-and-rate answers beside the pairwise data.
    with open_store(folder) as store:
        for m, (a, b) in enumerate(store.pairs()):
            store.record("human:carol", m, a)
    build([{"text": t} for t in TEXTS], ["human:carol"], folder, matches_per_text=1, progress=False)
    exported = (folder / "arts" / "rank_rate" / "human-carol.jsonl").read_text()
    assert [json.loads(x) for x in exported.splitlines()] == rows


_ATTACK = """<!doctype html><html><body>
<iframe name="sink" id="sink"></iframe>
<form id="form" method="POST" action="{target}api/decide" enctype="text/plain" target="sink">
<input name='{{"rater": "alice", "match": {match}, "clicked": {clicked}, "x": "' value='"}}'></form>
<iframe id="framed" src="{alice_link}"></iframe>
<script>
(async () => {{
  const out = [];
  async function attempt(label, path, opts) {{
    try {{ const r = await fetch("{target}" + path, opts); out.push([label, r.type, r.status]); }}
    catch (e) {{ out.push([label, "blocked", String(e)]); }}
  }}
  const plain = (o) => ({{ method: "POST", mode: "no-cors", headers: {{ "Content-Type": "text/plain" }},
                           body: JSON.stringify(o) }});
  await attempt("login", "api/login", plain({{ name: "mallory" }}));
  await attempt("decide", "api/decide", plain({{ rater: "alice", match: {match}, clicked: {clicked} }}));
  // Even knowing a token, a script of another origin gets no answer and writes nothing.
  await attempt("decide-token", "api/decide", {{ method: "POST",
    headers: {{ "Content-Type": "application/json", Authorization: "Bearer {token}" }},
    body: JSON.stringify({{ match: {match}, clicked: {clicked} }}) }});
  await attempt("history", "api/history?rater=alice", {{ headers: {{ Authorization: "Bearer {token}" }} }});
  await attempt("links", "api/links", plain({{ name: "mallory" }}));
  document.getElementById("form").submit();
  window.results = out;
}})();
</script></body></html>"""


def test_a_page_from_another_origin_cannot_write(tmp_path, browser):
    """The rater has her page open; a page of another origin (another local port) fetches, form-POSTs and frames."""
    folder = tmp_path / "xo"
    prepare(folder, [{"text": t} for t in TEXTS[:4]], matches_per_text=1, seed=3).close()
    server = _serve(folder, signup=True)
    token = server.app.new_link("alice")
    alice_link = server.link(token)
    a, _ = server.app.pairs[0]
    html = _ATTACK.format(target=server.url, alice_link=alice_link, token=token, match=0, clicked=a).encode()

    class Attacker(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(html)))
            self.end_headers()
            self.wfile.write(html)

        def log_message(self, *args):
            pass

    evil = ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        ctx = browser.new_context()
        page = ctx.new_page()
        _open(page, alice_link)  # the victim's browser holds her token (local storage of the rating origin)
        before = _snapshot(folder)
        seen = []
        attack = ctx.new_page()
        attack.on(
            "response",
            lambda r: (
                seen.append((r.request.method, r.url, r.status)) if r.url.startswith(server.url + "api/") else None
            ),
        )
        failed = []
        attack.on("requestfailed", lambda r: failed.append((r.method, r.url, r.failure)))
        with attack.expect_response(
            lambda r: (
                r.url == server.url + "api/decide"
                and r.request.method == "POST"
                and "text/plain" in (r.request.headers.get("content-type") or "")
                and r.request.resource_type == "document"
            )
        ) as form_answer:
            attack.goto(f"http://127.0.0.1:{evil.server_address[1]}/")
        attack.wait_for_function("window.results !== undefined && window.results.length === 5")
        results = {label: (kind, status) for label, kind, status in attack.evaluate("window.results")}
        # The framed rating page never loads (no click-jacking): it shows no texts.
        framed = attack.query_selector("#framed").content_frame()
        assert framed.url != alice_link and framed.locator("#text-a").count() == 0, "the rating page was framed"
        ctx.close()
        after = _snapshot(folder)
    finally:
        evil.shutdown()
        evil.server_close()
        _stop(server)
    assert form_answer.value.status == 403  # the cross-site form POST reached the server and was refused
    assert all(kind == "blocked" for kind, _ in results.values()), results  # no script got an answer
    # The plain (no-cors) POSTs reached the server too: the browser withheld its answer (CORP: same-origin).
    answered = {u for m, u, why in failed if m == "POST" and why.startswith("net::ERR_BLOCKED_BY_RESPONSE")}
    answered |= {u for m, u, _ in seen if m == "POST"}
    assert answered >= {server.url + "api/login", server.url + "api/decide", server.url + "api/links"}, failed
    assert all(status in (403, 415) for _, _, status in seen), seen
    assert after == before, "a page of another origin changed the store"


def test_every_api_route_needs_a_valid_token(tmp_path):
    folder = tmp_path / "tok"
    prepare(folder, [{"text": t} for t in TEXTS[:4]], matches_per_text=2, seed=1).close()
    server = _serve(folder, signup=True)
    try:
        revoked = server.app.new_link("alice")
        server.app.revoke("alice")
        before = _snapshot(folder)
        routes = [
            ("GET", "/api/config", None),
            ("GET", "/api/next?rater=alice", None),
            ("GET", "/api/history?rater=alice", None),
            ("GET", "/api/progress", None),
            ("POST", "/api/login", {"name": "zed"}),
            ("POST", "/api/decide", {"rater": "alice", "match": 0, "clicked": 0}),
            ("POST", "/api/rank", {"rater": "alice", "batch": 0}),
            ("POST", "/api/links", {"name": "zed"}),
            ("POST", "/api/revoke", {"name": "alice"}),
            ("GET", "/api/nothing-here", None),
        ]
        for method, path, body in routes:
            for headers in (
                {},
                {"Authorization": "Bearer not-a-token"},
                {"Authorization": f"Bearer {revoked}"},
                {"Authorization": f"Basic {server.app.coordinator_token}"},
                {"Authorization": "Bearer"},
            ):
                status, out, _ = _call(server, method, path, body, headers=headers)
                assert status == 403 and "valid token" in out["error"], (method, path, headers, status, out)
        # The page itself is public but holds no data.
        status, page, r = _call(server, "GET", "/")
        assert (
            status == 200
            and TEXTS[0] not in page
            and "frame-ancestors 'none'" in r.getheader("Content-Security-Policy")
        )
        assert _snapshot(folder) == before
    finally:
        _stop(server)


def test_a_rater_token_acts_only_for_its_rater_and_the_coordinator_sees_all(tmp_path):
    folder = tmp_path / "who"
    prepare(folder, [{"text": t} for t in TEXTS[:4]], matches_per_text=2, seed=1).close()
    server = _serve(folder, signup=True)
    app = server.app
    try:
        alice, bob = app.new_link("alice"), app.new_link("bob")
        status, p, _ = _call(server, "GET", "/api/next", token=bob)
        m = p["match"]
        status, p, _ = _call(
            server, "POST", "/api/decide", {"match": m["match"], "clicked": m["a"]["index"]}, token=bob
        )
        assert status == 200 and p["recorded"]
        bob_before = app.history("human:bob")

        # alice's token cannot write, read or resume as bob.
        for method, path, body in (
            ("POST", "/api/decide", {"rater": "bob", "match": 1, "clicked": 0}),
            ("POST", "/api/decide", {"rater": "human:bob", "match": 1, "clicked": 0}),
            ("POST", "/api/login", {"name": "bob"}),
            ("GET", "/api/next?rater=bob", None),
            ("GET", "/api/history?rater=human:bob", None),
            ("GET", "/api/progress", None),
            ("POST", "/api/links", {"name": "bob"}),
            ("POST", "/api/revoke", {"name": "bob"}),
        ):
            status, out, _ = _call(server, method, path, body, token=alice)
            assert status == 403, (method, path, status, out)
        assert app.history("human:bob") == bob_before and app.access.link_counts()["human:bob"] == 1
        # Her own decision goes to her.
        status, p, _ = _call(server, "GET", "/api/next", token=alice)
        m = p["match"]
        status, p, _ = _call(
            server, "POST", "/api/decide", {"match": m["match"], "clicked": m["b"]["index"]}, token=alice
        )
        assert status == 200 and p["done"] == 1
        status, hist, r = _call(server, "GET", "/api/history", token=alice)
        assert status == 200 and "attachment" in r.getheader("Content-Disposition")
        assert [json.loads(x)["harder"] for x in hist.splitlines()] == [m["a"]["index"]]

        # The coordinator sees everyone's progress and history, but does not rate.
        coord = app.coordinator_token
        status, prog, _ = _call(server, "GET", "/api/progress", token=coord)
        assert status == 200 and {(r["name"], r["done"], r["links"]) for r in prog["raters"]} == {
            ("alice", 1, 1),
            ("bob", 1, 1),
        }
        for name in ("alice", "bob"):
            status, hist, _ = _call(server, "GET", f"/api/history?rater={name}", token=coord)
            assert status == 200 and hist == app.history(f"human:{name}")
        status, out, _ = _call(
            server, "POST", "/api/decide", {"rater": "alice", "match": 2, "clicked": 0}, token=coord
        )
        assert status == 403 and "coordinator link cannot" in out["error"]

        # The sign-up token starts new raters only, and does nothing else.
        signup = app.signup_token
        for name in ("alice", "bob"):
            status, out, _ = _call(server, "POST", "/api/login", {"name": name}, token=signup)
            assert status == 409 and "already exists" in out["error"]
        for method, path, body in (
            ("POST", "/api/decide", {"rater": "alice", "match": 2, "clicked": 0}),
            ("GET", "/api/next?rater=alice", None),
            ("GET", "/api/history?rater=alice", None),
            ("GET", "/api/progress", None),
            ("POST", "/api/links", {"name": "x"}),
        ):
            assert _call(server, method, path, body, token=signup)[0] == 403, (method, path)
        status, p, _ = _call(server, "POST", "/api/login", {"name": "carol"}, token=signup)
        assert status == 200 and p["rater"] == "human:carol" and p["done"] == 0
        status, cfg, _ = _call(server, "GET", "/api/config", token=p["token"])
        assert cfg["access"] == {"role": "rater", "rater": "human:carol", "name": "carol"}

        # A new link leaves the old one valid; revoking ends both; the decisions stay.
        status, made, _ = _call(server, "POST", "/api/links", {"name": "alice"}, token=coord)
        assert status == 200 and made["rater"] == "human:alice"
        assert _call(server, "GET", "/api/next", token=made["token"])[1]["done"] == 1
        assert _call(server, "GET", "/api/next", token=alice)[0] == 200
        status, out, _ = _call(server, "POST", "/api/revoke", {"name": "alice"}, token=coord)
        assert status == 200 and out["revoked"] == 2
        assert _call(server, "GET", "/api/next", token=alice)[0] == 403
        assert _call(server, "GET", "/api/next", token=made["token"])[0] == 403
        assert app.store.progress("human:alice")[0] == 1
        tokens = [bob, p["token"]]
    finally:
        _stop(server)
    # Only digests are kept: no token is in the build's file.
    raw = b"".join(f.read_bytes() for f in folder.glob("build.sqlite*"))
    assert not any(t.encode() in raw for t in tokens + [alice])
    assert len(_snapshot(folder)["rater_tokens"]) == 2


def test_sign_up_refuses_a_name_that_differs_only_in_case_or_width(tmp_path):
    folder = tmp_path / "names"
    prepare(folder, [{"text": t} for t in TEXTS[:4]], matches_per_text=2, seed=1).close()
    server = _serve(folder, signup=True)
    try:
        status, out, _ = _call(server, "POST", "/api/login", {"name": "alice"}, token=server.app.signup_token)
        assert status == 200 and out["rater"] == "human:alice"
        for twin in ("Alice", "ALICE", "\uff41\uff4c\uff49\uff43\uff45", "\uff21lice"):  # full-width look-alikes
            status, out, _ = _call(server, "POST", "/api/login", {"name": twin}, token=server.app.signup_token)
            assert status == 409 and "already exists (as 'alice')" in out["error"], twin
        status, out, _ = _call(server, "POST", "/api/login", {"name": "Bob"}, token=server.app.signup_token)
        assert status == 200 and out["rater"] == "human:Bob"
        assert server.app.store.human_raters() == ["human:Bob", "human:alice"]
    finally:
        _stop(server)


def test_cross_origin_and_rebinding_requests_are_refused(tmp_path):
    folder = tmp_path / "origin"
    prepare(folder, [{"text": t} for t in TEXTS[:4]], matches_per_text=2, seed=1).close()
    server = _serve(folder)
    try:
        tok = server.app.new_link("alice")
        host = f"127.0.0.1:{server.server_address[1]}"
        decide = {"match": 0, "clicked": server.app.pairs[0][0]}
        before = _snapshot(folder)
        for headers, what in (
            ({"Origin": "http://127.0.0.1:1"}, "cross-origin"),
            ({"Origin": "null"}, "cross-origin"),
            ({"Origin": f"http://{host}.evil.example"}, "cross-origin"),
            ({"Sec-Fetch-Site": "same-site"}, "cross-origin"),
            ({"Sec-Fetch-Site": "cross-site"}, "cross-origin"),
            ({"Host": f"rebind.example:{server.server_address[1]}"}, "DNS rebinding"),
            ({"Host": f"10.0.0.8:{server.server_address[1]}"}, "DNS rebinding"),
            ({"Host": ""}, "DNS rebinding"),
        ):
            for method, path, body in (("POST", "/api/decide", decide), ("GET", "/api/next", None)):
                status, out, r = _call(server, method, path, body, token=tok, headers=headers)
                assert status == 403 and what in out["error"], (headers, status, out)
                assert r.getheader("Access-Control-Allow-Origin") is None
        status, out, _ = _call(server, "GET", "/", headers={"Host": "rebind.example"})
        assert status == 403 and "DNS rebinding" in out["error"]
        # A write must be JSON: what a cross-site form can send is refused.
        for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None):
            status, out, _ = _call(server, "POST", "/api/decide", decide, token=tok, ctype=ctype)
            assert status == 415 and "application/json" in out["error"], (ctype, status)
        # A CORS preflight is never granted.
        status, out, r = _call(
            server,
            "OPTIONS",
            "/api/decide",
            headers={"Origin": "http://127.0.0.1:1", "Access-Control-Request-Method": "POST"},
        )
        assert status == 403 and r.getheader("Access-Control-Allow-Origin") is None
        assert _snapshot(folder) == before
        # The page's own requests pass: same origin, by address or as localhost.
        for h in (
            {"Origin": f"http://{host}", "Sec-Fetch-Site": "same-origin"},
            {
                "Host": f"localhost:{server.server_address[1]}",
                "Origin": f"http://localhost:{server.server_address[1]}",
            },
        ):
            status, out, _ = _call(server, "GET", "/api/next", token=tok, headers=h)
            assert status == 200, (h, out)
        status, out, _ = _call(
            server,
            "POST",
            "/api/decide",
            decide,
            token=tok,
            headers={"Origin": f"http://{host}", "Sec-Fetch-Site": "same-origin"},
        )
        assert status == 200 and out["recorded"]
    finally:
        _stop(server)


def test_malformed_bodies_get_a_4xx_json_answer(tmp_path):
    folder = tmp_path / "bad"
    prepare(folder, [{"text": t} for t in TEXTS[:4]], matches_per_text=2, seed=1).close()
    server = _serve(folder, signup=True)
    try:
        tok, signup = server.app.new_link("dave"), server.app.signup_token
        a, b = server.app.pairs[0]
        before = _snapshot(folder)
        cases = [
            ("/api/login", signup, {"name": None}, "'name' must be a string"),
            ("/api/login", signup, {"name": ["x"]}, "'name' must be a string"),
            ("/api/login", signup, {}, "'name' must be a string"),
            ("/api/login", signup, {"name": "../etc"}, "not allowed"),
            ("/api/decide", tok, {"match": 0.5, "clicked": a}, "'match' must be an integer"),
            ("/api/decide", tok, {"match": 0.0, "clicked": a}, "'match' must be an integer"),
            ("/api/decide", tok, {"match": "0", "clicked": a}, "'match' must be an integer"),
            ("/api/decide", tok, {"match": True, "clicked": a}, "'match' must be an integer"),
            ("/api/decide", tok, {"match": 0, "clicked": a + 0.5}, "'clicked' must be an integer"),
            ("/api/decide", tok, {"match": 0}, "missing integer 'clicked'"),
            ("/api/decide", tok, {"match": 0, "clicked": 99}, "clicked text 99"),
            ("/api/decide", tok, {"match": 10**6, "clicked": a}, "no match 1000000"),
            ("/api/decide", tok, {"match": 0, "clicked": a, "elapsed_ms": -1}, "'elapsed_ms'"),
            ("/api/decide", tok, {"match": 0, "clicked": a, "elapsed_ms": "5"}, "'elapsed_ms'"),
            ("/api/decide", tok, {"match": 0, "clicked": a, "rater": 7}, "'rater' must be a string"),
            ("/api/decide", tok, b'{"match": 0, "clicked": %d, "elapsed_ms": NaN}' % a, "not a JSON number"),
            ("/api/decide", tok, b"[" * 200_000 + b"]" * 200_000, "nested too deeply"),
            ("/api/decide", tok, b'{"match": ' + b"9" * 5000 + b"}", "integer"),
            ("/api/decide", tok, b"\xff\xfe{}", "not UTF-8"),
            ("/api/decide", tok, b'{"match": 0,', "not JSON"),
            ("/api/decide", tok, b"[0, 1]", "expected a JSON object"),
            ("/api/decide", tok, b"", "not JSON"),
        ]
        for path, token, body, msg in cases:
            status, out, _ = _call(server, "POST", path, body, token=token)
            assert status == 400 and msg in out["error"], (path, body if len(repr(body)) < 200 else "...", out)
        assert _snapshot(folder) == before

        # 10 MB: refused with 413 before reading, the answer arrives and the connection is closed.
        status, out, r = _call(server, "POST", "/api/decide", b"x" * (10 << 20), token=tok)
        assert status == 413 and "over the limit" in out["error"] and r.getheader("Connection") == "close"
        # A negative or malformed length and a chunked body: answered at once, not waited for.
        for headers, code in (
            ({"Content-Length": "-1"}, 400),
            ({"Content-Length": "12abc"}, 400),
            ({"Transfer-Encoding": "chunked"}, 411),
        ):
            conn = http.client.HTTPConnection(*server.server_address[:2], timeout=10)
            conn.putrequest("POST", "/api/decide")
            conn.putheader("Authorization", f"Bearer {tok}")
            conn.putheader("Content-Type", "application/json")
            for k, v in headers.items():
                conn.putheader(k, v)
            conn.endheaders(b'{"match": 0}')
            resp = conn.getresponse()
            assert resp.status == code and "error" in json.loads(resp.read()), headers
            conn.close()
        # A body shorter than its Content-Length (the client stops sending): 400, not a hang or a drop.
        with socket.create_connection(server.server_address[:2], timeout=10) as sock:
            sock.sendall(
                f"POST /api/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {tok}\r\n"
                'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"match": 0}'.encode()
            )
            sock.shutdown(socket.SHUT_WR)
            answer = b"".join(iter(lambda: sock.recv(65536), b""))
        assert answer.startswith(b"HTTP/1.0 400") and b"ended after 12 of 100 bytes" in answer
        assert _snapshot(folder) == before
        # The server still works.
        status, out, _ = _call(
            server, "POST", "/api/decide", {"match": 0, "clicked": a, "elapsed_ms": 1500}, token=tok
        )
        assert status == 200 and out["recorded"] and out["done"] == 1
        status, again, _ = _call(server, "POST", "/api/decide", {"match": 0, "clicked": b}, token=tok)
        assert status == 200 and not again["recorded"] and again["done"] == 1  # a double click changes nothing
        assert server.app.store.history("human:dave")[0]["harder"] == b
    finally:
        _stop(server)


def test_rank_rate_api_rejects_malformed_bodies(tmp_path):
    folder = tmp_path / "rr-api"
    prepare(folder, [{"text": t} for t in TEXTS], matches_per_text=1, seed=0).close()
    server = _serve(folder, mode="rank-rate")
    try:
        tok = server.app.new_link("fay")
        status, p, _ = _call(server, "GET", "/api/next", token=tok)
        assert status == 200
        batch = p["batch"]["batch"]
        idx = [t["index"] for t in p["batch"]["texts"]]
        good = {str(i): "A1" for i in idx}
        for body, msg in (
            ({"batch": batch, "order": [None] + idx[1:], "cefr": good}, f"batch {batch}"),
            ({"batch": batch, "order": idx, "cefr": {"x": "A1"}}, f"batch {batch}"),
            ({"batch": batch, "order": idx, "cefr": {str(i): "Z9" for i in idx}}, f"batch {batch}"),
            ({"batch": batch + 0.5, "order": idx, "cefr": good}, "'batch' must be an integer"),
            ({"batch": str(batch), "order": idx, "cefr": good}, "'batch' must be an integer"),
            ({"batch": batch, "order": idx, "cefr": good, "elapsed_ms": True}, "'elapsed_ms'"),
            ({"batch": batch, "order": [i + 0.5 for i in idx], "cefr": good}, f"batch {batch}"),
        ):
            status, out, _ = _call(server, "POST", "/api/rank", body, token=tok)
            assert status == 400 and msg in out["error"], (body, out)
        assert server.app.store.ranked_batches("human:fay") == set()
        status, p, _ = _call(
            server, "POST", "/api/rank", {"batch": batch, "order": idx, "cefr": {str(i): "B1" for i in idx}}, token=tok
        )
        assert status == 200 and p["recorded"] and p["done"] == 1
    finally:
        _stop(server)


def _start_cli(args: list[str]) -> tuple[subprocess.Popen, dict[str, str]]:
    """Start `arts rate ...`; returns the process and its printed links by label."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "arts_metric.cli", "rate", *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    lines: queue.Queue = queue.Queue()

    def pump() -> None:  # a reader thread, so that a silent server fails the test instead of hanging it
        for x in proc.stdout:
            lines.put(x)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    links, label, out = {}, None, []
    while not out or not out[-1].startswith("Ctrl-C to stop"):
        try:
            line = lines.get(timeout=60)
        except queue.Empty:
            line = None
        if line is None:
            proc.kill()
            pytest.fail(f"arts rate printed no links: {''.join(out)}")
        out.append(line)
        if line.startswith("  http"):
            links[label] = line.strip()
        elif line.startswith("coordinator"):
            label = "coordinator"
        elif line.startswith("personal link of "):
            label = line.split()[3]
        elif line.startswith("sign-up"):
            label = "signup"
    links["_output"] = "".join(out)
    return proc, links


def _stop_cli(proc: subprocess.Popen) -> str:
    proc.terminate()
    proc.wait(10)
    return proc.stderr.read()


def _token(link: str) -> str:
    return link.split("#token=", 1)[1]


def _get(link: str, path: str) -> int:
    req = urllib.request.Request(
        link.split("#", 1)[0] + path.lstrip("/"), headers={"Authorization": f"Bearer {_token(link)}"}
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_rate_command_prints_links_and_personal_links_survive_a_restart(tmp_path):
    """`arts rate DIR --input FILE --rater alice` creates the build folder, serves it and prints the links."""
    texts = tmp_path / "texts.txt"
    texts.write_text("\n".join(TEXTS) + "\n")
    folder = tmp_path / "b"
    proc, links = _start_cli([str(folder), "--input", str(texts), "--port", "0", "--rater", "alice"])
    try:
        assert links["coordinator"].startswith("http://127.0.0.1:") and set(links) >= {"alice"}
        url = links["coordinator"].split("#", 1)[0]
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(url + "api/config", timeout=10)
        assert err.value.code == 403
        req = urllib.request.Request(url + "api/config", headers={"Authorization": f"Bearer {_token(links['alice'])}"})
        with urllib.request.urlopen(req, timeout=10) as r:
            cfg = json.loads(r.read())
        assert cfg["total"] == 4 * len(TEXTS) and cfg["access"]["rater"] == "human:alice"
        assert _get(links["coordinator"], "api/progress") == 200
        with urllib.request.urlopen(url, timeout=10) as r:
            assert "rating interface" in r.read().decode()
    finally:
        _stop_cli(proc)
    assert (folder / "build.sqlite").is_file()

    # A restart (no --rater): alice's link still works, the old coordinator link does not; --signup adds one.
    proc, again = _start_cli([str(folder), "--port", "0", "--signup"])
    try:
        assert "earlier personal links stay valid for: alice" in again["_output"]
        new_base = again["coordinator"].split("#", 1)[0]
        old_alice = new_base + "#token=" + _token(links["alice"])
        old_coord = new_base + "#token=" + _token(links["coordinator"])
        assert _get(old_alice, "api/next") == 200
        assert _get(old_coord, "api/progress") == 403
        assert _get(again["coordinator"], "api/progress") == 200 and _get(again["signup"], "api/config") == 200
    finally:
        _stop_cli(proc)
    # --revoke ends alice's links.
    proc, third = _start_cli([str(folder), "--port", "0", "--revoke", "alice"])
    try:
        assert _get(third["coordinator"].split("#", 1)[0] + "#token=" + _token(links["alice"]), "api/next") == 403
    finally:
        err = _stop_cli(proc)
    assert "revoked 1 personal link(s) of alice" in err


def test_host_beyond_loopback_warns(tmp_path):
    folder = tmp_path / "wide"
    prepare(folder, [{"text": t} for t in TEXTS[:4]], matches_per_text=1, seed=0).close()
    proc, links = _start_cli([str(folder), "--host", "0.0.0.0", "--port", "0"])
    try:
        assert _get(links["coordinator"], "api/progress") == 200
    finally:
        err = _stop_cli(proc)
    assert "warning: --host 0.0.0.0 makes the rating page reachable from other machines" in err
    proc, _ = _start_cli([str(folder), "--port", "0"])
    assert "warning" not in _stop_cli(proc)


def _pairwise_server(tmp_path: Path):
    folder = tmp_path / "build"
    prepare(folder, [{"id": f"t{i}", "text": t} for i, t in enumerate(TEXTS)], matches_per_text=2, seed=4).close()
    return folder, _serve(folder)


def _history(folder: Path, rater: str) -> list[dict]:
    with open_store(folder) as store:
        return store.history(rater)


def test_phone_width_stacks_the_two_texts(tmp_path, browser):
    folder, server = _pairwise_server(tmp_path)
    try:
        page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        _open(page, server.link(server.app.new_link("pia")))
        a, b = page.locator("#text-a").bounding_box(), page.locator("#text-b").bounding_box()
        for box in (a, b):  # both texts wholly on screen, none starts off to the right
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        assert b["y"] >= a["y"] + a["height"]  # B below A
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
    finally:
        _stop(server)


def test_each_click_is_recorded_once_and_the_last_one_can_be_undone(tmp_path, browser):
    folder, server = _pairwise_server(tmp_path)
    try:
        ctx = browser.new_context()
        page = ctx.new_page()
        _open(page, server.link(server.app.new_link("dan")))
        box = page.locator("#text-a").bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        # A double click: the first click decides, its second click lands on the next pair and must not.
        assert page.locator("#undo").is_hidden()  # nothing to undo yet
        cdp = ctx.new_cdp_session(page)
        page.mouse.click(x, y)
        page.wait_for_selector("#stats[data-done='1']")
        for kind in ("mousePressed", "mouseReleased"):  # the double click's second click, on the next pair
            cdp.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 2})
        page.wait_for_timeout(800)
        assert len(_history(folder, "human:dan")) == 1
        # A slow network: clicks while the decision is on its way are not sent again.
        cdp.send("Network.enable")
        slow = {"offline": False, "latency": 1500, "downloadThroughput": -1, "uploadThroughput": -1}
        cdp.send("Network.emulateNetworkConditions", slow)
        for _ in range(3):
            page.mouse.click(x, y)
            page.wait_for_timeout(150)
        page.wait_for_selector("#stats[data-done='2']", timeout=30_000)
        page.wait_for_timeout(2000)
        assert len(_history(folder, "human:dan")) == 2
        fast = {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
        cdp.send("Network.emulateNetworkConditions", fast)
        # Undo: the last decision is taken back in the store and its pair is shown again.
        last = max(m["match"] for m in _history(folder, "human:dan"))
        page.click("#undo")
        page.wait_for_selector("#stats[data-done='1']")
        assert int(page.locator("#text-a").get_attribute("data-match")) == last
        assert [m["match"] for m in _history(folder, "human:dan")] == [0]
        page.click("#text-b")  # decided again, the other way
        page.wait_for_selector("#stats[data-done='2']")
        row = next(m for m in _history(folder, "human:dan") if m["match"] == last)
        assert row["harder"] == row["a"]  # B clicked as easier: A is the harder text
        token = server.app.new_link("eve")
        status, body, _ = _call(server, "POST", "/api/undo", {}, token=token)
        assert status == 400 and "nothing to undo" in body["error"]
    finally:
        _stop(server)


def _rank_batch(page, order: list[int], levels: list[str]) -> None:
    for i in order:
        page.click(f".rank-item[data-index='{i}'] .rank-text")
    for rank, i in enumerate(order):
        page.select_option(f".rank-item[data-index='{i}'] select", levels[rank])
    done = int(page.locator("#stats").get_attribute("data-done"))
    page.click("#rank-submit")
    page.wait_for_selector(f"#stats[data-done='{done + 1}']")  # the page's CSP forbids eval'd waits


def _shown_batch(page) -> list[int]:
    items = page.locator(".rank-item")
    return [int(items.nth(i).get_attribute("data-index")) for i in range(items.count())]


def test_rank_and_rate_mode_undoes_the_last_batch(tmp_path, browser):
    folder = tmp_path / "rr-undo"
    prepare(folder, [{"text": t} for t in TEXTS], matches_per_text=1, seed=0).close()
    server = _serve(folder, mode="rank-rate")
    levels = ["A1", "A2", "B1", "B2", "C1", "C2"]
    try:
        page = browser.new_context().new_page()
        _open(page, server.link(server.app.new_link("gus")))
        assert page.locator("#undo").is_hidden()  # nothing to undo yet
        first = _shown_batch(page)
        easiest_first = sorted(first, key=lambda i: len(TEXTS[i]))
        _rank_batch(page, easiest_first, levels)
        assert server.app.store.ranked_batches("human:gus") == {0}
        # A misclick: undo takes the submitted batch back in the store and shows it again.
        assert page.locator("#undo").is_visible() and page.inner_text("#undo") == "Undo last batch"
        page.click("#undo")
        page.wait_for_selector("#stats[data-done='0']")
        assert server.app.store.ranked_batches("human:gus") == set()
        assert sorted(_shown_batch(page)) == sorted(first) and page.locator(".rank-item.ranked").count() == 0
        _rank_batch(page, easiest_first[::-1], levels[::-1])  # answered again, differently
        # Undo also works from the last batch's end screen.
        second = _shown_batch(page)
        _rank_batch(page, sorted(second, key=lambda i: len(TEXTS[i])), levels)
        page.wait_for_selector("#done-view:not([hidden])")
        page.click("#undo")
        page.wait_for_selector("#stats[data-done='1']")
        assert page.locator("#rank-view").is_visible() and sorted(_shown_batch(page)) == sorted(second)
        rows = [json.loads(x) for x in server.app.history("human:gus").splitlines()]
        assert [r["ranking"] for r in rows] == [easiest_first[::-1]]
        status, body, _ = _call(server, "POST", "/api/undo", {}, token=server.app.new_link("hal"))
        assert status == 400 and "nothing to undo" in body["error"]
    finally:
        _stop(server)
