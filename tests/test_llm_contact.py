"""First contact with an endpoint, against real sockets on 127.0.0.1: an endpoint that never
replied fails fast in one line; one that comes up within seconds is used; one that replied
before is retried as usual when it fails later."""

from __future__ import annotations

import socket
import threading
import time

import openai  # noqa: F401  (imported before the clock starts: its import takes seconds on a busy machine)
import pytest
from llm_server import Faults, ReplayServer, make_server  # noqa: F401  (fixture)
from recorded import recorded_run, replay_judge

import arts_metric
from arts_metric.judges import UNANSWERED, get_judge
from arts_metric.llm import contact
from arts_metric.llm.contact import CONTACT_WINDOW, GRACE
from arts_metric.llm.runner import EndpointError

FAST = dict(progress=False, backoff_base=0.01, backoff_max=0.2)
PASSWORD = "pw-Secret-4711"


@pytest.fixture(scope="module")
def job(data_dir):
    texts, history, matches = recorded_run("arts94", data_dir, 20, by_text=True)
    return texts, history, matches, [(texts[m.a], texts[m.b]) for m in matches]


def free_port() -> int:
    """A port on 127.0.0.1 that nobody listens on (connections to it are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_closed_port_fails_within_seconds_in_one_line_without_credentials(tmp_path):
    url = f"http://alice:{PASSWORD}@127.0.0.1:{free_port()}/v1"
    judge = get_judge(f"openai:m@{url}", cache_dir=str(tmp_path), progress=False)  # default retries and backoff
    t0 = time.perf_counter()
    with pytest.raises(EndpointError) as err:
        arts_metric.score_texts(["The cat sat.", "A second text to place."], judge=judge, pool="arts94")
    elapsed = time.perf_counter() - t0
    message = str(err.value)
    assert elapsed < 15, elapsed
    assert "\n" not in message
    assert message.startswith(f"cannot reach {url.replace(f'alice:{PASSWORD}@', '')} (model 'm'): connection refused")
    assert PASSWORD not in message and "alice" not in message
    # One request at a time, tried again over the window, not hundreds.
    assert judge.stats.requests <= 8
    assert CONTACT_WINDOW - 1 <= elapsed  # the server had its chance to come up


def tls_garbage_server() -> int:
    """A port whose server answers a TLS handshake with plain HTTP and hangs up."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)

    def serve() -> None:
        with srv:
            while True:
                try:
                    conn, _ = srv.accept()
                except OSError:
                    return
                with conn:
                    conn.recv(4096)
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    threading.Thread(target=serve, daemon=True).start()
    return srv.getsockname()[1]


@pytest.mark.parametrize(
    "make_url, cause",
    [
        (lambda: f"https://127.0.0.1:{tls_garbage_server()}/v1", r"TLS failure \(WRONG_VERSION_NUMBER\)"),
        (lambda: "http://no-such-host.invalid/v1", r"unknown host|host name lookup failed"),
    ],
    ids=["tls", "unknown-host"],
)
def test_tls_failures_and_unknown_hosts_fail_at_once(job, tmp_path, make_url, cause):
    *_, pairs = job
    url = make_url()
    judge = get_judge(f"openai:m@{url}", cache_dir=str(tmp_path), progress=False)
    t0 = time.perf_counter()
    with pytest.raises(EndpointError, match=rf"^cannot reach {url} \(model 'm'\): ({cause})") as err:
        judge.compare(pairs)
    assert time.perf_counter() - t0 < 15 and "\n" not in str(err.value)
    if "TLS" in cause:  # will not mend by waiting: one request
        assert judge.stats.requests == 1


def test_a_server_that_starts_within_the_window_is_used(job, tmp_path):
    """Documented: until the endpoint first replies, one request at a time goes out, tried again
    after 0.25, 0.5, 1, 2, 4 s; a server listening by then answers every item."""
    texts, history, matches, pairs = job
    port = free_port()
    server = ReplayServer(texts, history=history)
    late = threading.Timer(1.5, server.start, kwargs={"port": port})
    late.start()
    try:
        judge = get_judge(f"openai:m@http://127.0.0.1:{port}/v1", cache_dir=str(tmp_path), concurrency=16, **FAST)
        t0 = time.perf_counter()
        decisions = judge.compare(pairs)
        elapsed = time.perf_counter() - t0
    finally:
        late.join()
        server.stop()
    assert decisions == [m.outcome_a for m in matches]
    # Refused tries at 0, 0.25, 0.75 s (one at a time), then 1.75 s: answered.
    assert 1.5 <= elapsed < CONTACT_WINDOW
    assert 2 <= judge.stats.retried <= 4 and judge.stats.extra["failed"] == 0
    assert server.chat_requests == len(pairs) and judge.stats.requests == len(pairs) + judge.stats.retried


def test_a_slow_first_answer_holds_up_no_other_request(make_server, job, tmp_path, monkeypatch):
    """The first request of a fresh judge goes out alone, but once it has been in flight for
    GRACE seconds (it connected) the others go out without waiting for its answer."""
    # The window opens when the first request leaves the judge, the log records when it reaches
    # the server: a fresh client's first request took 0.8 s to get there on a busy machine, so
    # the test widens the window to keep that way well inside it.
    grace = 2 * GRACE
    monkeypatch.setattr(contact, "GRACE", grace)
    texts, history, matches, pairs = job
    slow = pairs[0][0].strip()
    server = make_server(texts, history=history, faults=Faults(by_text={slow: "hang_once"}, hang=2 * grace + 2.0))
    judge = replay_judge(server, tmp_path, timeout=30, concurrency=16, **FAST)
    assert judge.compare(pairs) == [m.outcome_a for m in matches]
    (t_slow, first), *others = server.request_log
    assert slow in first and server.stats["timeouts"] == 1
    # Alone for GRACE (less the slow request's own way to the server), then all the others at once.
    assert grace / 2 <= others[0][0] - t_slow and max(t for t, _ in others) - t_slow < grace + 1.5 < 2 * grace + 2.0
    assert judge.stats.requests == len(pairs)


def test_an_endpoint_that_replied_before_is_retried_as_usual(make_server, job, tmp_path):
    texts, history, matches, pairs = job
    server = make_server(texts, history=history)
    judge = replay_judge(server, tmp_path, max_retries=2, **FAST)
    assert judge.compare(pairs[:2]) == [m.outcome_a for m in matches[:2]]
    # 5xx from then on: every item is retried max_retries times, fails, and the run goes on.
    server.faults.rate_500 = 1.0
    with pytest.warns(RuntimeWarning, match="3 of 3 judgments failed.*HTTP 500"):
        assert judge.compare(pairs[2:5]) == [UNANSWERED] * 3
    assert server.stats["status_500"] == 9
    # The server goes away: refused connections are retried like any fault, no fast failure.
    server.stop()
    before = judge.stats.requests
    with pytest.warns(RuntimeWarning, match="4 of 4 judgments failed.*connection error: connection refused"):
        assert judge.compare(pairs[5:9]) == [UNANSWERED] * 4
    assert judge.stats.requests - before == 4 * 3
