"""Fault tolerance against a real HTTP server: 429 + Retry-After, 500, timeouts,
unusable answers, fatal errors, and a job killed halfway that resumes from the cache."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llm_server import Faults, make_server  # noqa: F401  (fixture)
from recorded import GPT4, recorded_run, replay_judge

from arts_metric.judges import UNANSWERED, get_judge
from arts_metric.llm.cache import CACHE_FILE
from arts_metric.llm.runner import EndpointError, backoff_delay, retry_after_seconds

ROOT = Path(__file__).resolve().parent.parent
FAST = dict(progress=False, backoff_base=0.01, backoff_max=0.2)


@pytest.fixture(scope="module")
def job(data_dir):
    """The first 1000 distinct ordered pairs of GPT-4's ARTS3000 run, with their recorded decisions."""
    texts, history, matches = recorded_run("arts3000", data_dir, 1000, by_text=True)
    pairs = [(texts[m.a], texts[m.b]) for m in matches]
    return texts, history, matches, pairs


def test_1000_matches_with_10pct_failures_and_5pct_unusable(make_server, job, tmp_path):
    texts, history, matches, pairs = job
    faults = Faults(rate_429=0.05, rate_500=0.05, rate_unusable=0.05, retry_after=0.02, seed=7)
    server = make_server(texts, history=history, faults=faults)
    # No hedges: the counts below are exact (a duplicate of a request slowed by a loaded machine would add one).
    judge = replay_judge(
        server,
        tmp_path,
        concurrency=32,
        max_retries=10,
        max_reasks=5,
        hedges=0,
        **FAST,
    )
    decisions = judge.compare(pairs)
    # Every decision recorded, and each is the recorded one.
    assert decisions == [m.outcome_a for m in matches]
    st = judge.stats
    assert st.invalid == 0 and st.extra["failed"] == 0 and st.extra["skipped"] == 0
    # The judge's counters agree with what the server saw.
    assert st.requests == server.chat_requests
    assert st.retried == server.stats["status_429"] + server.stats["status_500"] > 50
    assert st.extra["reasked"] == server.stats["unusable"] > 20
    assert st.requests == 1000 + st.retried + st.extra["reasked"]
    # Each request counted once: a first ask, a retry or a re-ask (no duplicate was asked for).
    assert (st.extra["asked"], st.extra["answered"], st.extra["hedged"]) == (1000, 1000, 0)
    assert (st.prompt_tokens, st.completion_tokens) == (server.prompt_tokens, server.completion_tokens)
    with sqlite3.connect(tmp_path / CACHE_FILE) as conn:
        assert conn.execute("SELECT COUNT(*), SUM(valid) FROM judgments").fetchone() == (1000, 1000)
        # Each row counts its own requests and tokens, not those of the other items in flight.
        row = conn.execute(
            "SELECT SUM(requests), SUM(prompt_tokens), SUM(completion_tokens), MIN(requests) FROM judgments"
        ).fetchone()
    assert row == (server.chat_requests, server.prompt_tokens, server.completion_tokens, 1)


def test_killed_job_resumes_from_the_cache(make_server, job, tmp_path):
    texts, history, matches, pairs = job
    server = make_server(texts, history=history, latency=0.01)
    script = (
        "import json, sys\n"
        "from arts_metric.judges import get_judge\n"
        "pairs = [tuple(p) for p in json.load(open(sys.argv[1]))]\n"
        "judge = get_judge('openai:%s@' + sys.argv[2], cache_dir=sys.argv[3], concurrency=4, progress=False)\n"
        "judge.compare(pairs)\n"
        "print('FINISHED')\n" % GPT4
    )
    pairs_file = tmp_path / "pairs.json"
    pairs_file.write_text(__import__("json").dumps(pairs))
    cache_dir = tmp_path / "cache"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(pairs_file), server.base_url, str(cache_dir)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    db = cache_dir / CACHE_FILE
    deadline = time.monotonic() + 120
    done = 0
    try:
        while time.monotonic() < deadline:
            if db.exists():
                try:
                    conn = sqlite3.connect(db, timeout=30)
                    done = conn.execute("SELECT COUNT(*) FROM judgments").fetchone()[0]
                except sqlite3.OperationalError:  # created, table not there yet
                    pass
                finally:
                    conn.close()
                if done >= 300:
                    break
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=30)
    assert b"FINISHED" not in out and done >= 300
    with sqlite3.connect(db) as conn:
        cached = conn.execute("SELECT COUNT(*) FROM judgments").fetchone()[0]
    assert 300 <= cached < 1000
    before = server.chat_requests
    judge = replay_judge(server, cache_dir, concurrency=32, progress=False)
    decisions = judge.compare(pairs)
    assert decisions == [m.outcome_a for m in matches]
    # Only what was missing was sent.
    assert server.chat_requests - before == judge.stats.requests == 1000 - cached
    assert judge.stats.cached == cached
    # One request per missing judgment: by default no duplicate is sent, however loaded the machine.
    assert judge.stats.extra["answered"] == judge.stats.requests and judge.stats.extra["hedged"] == 0


def test_retry_after_is_honoured(make_server, job, tmp_path):
    texts, history, matches, pairs = job
    server = make_server(texts, history=history, faults=Faults(fail_first=2, retry_after=0.3))
    judge = replay_judge(server, tmp_path, **FAST)
    assert judge.compare(pairs[:1]) == [matches[0].outcome_a]
    gaps = [b - a for a, b in zip(server.request_times, server.request_times[1:])]
    assert len(gaps) == 2 and min(gaps) >= 0.3  # backoff alone (base 0.01 s) would be far shorter
    assert judge.stats.retried == 2


def test_timeouts_are_retried(make_server, job, tmp_path):
    texts, history, matches, pairs = job
    server = make_server(texts, history=history, faults=Faults(rate_timeout=0.2, hang=1.0, seed=3))
    judge = replay_judge(server, tmp_path, timeout=0.25, concurrency=16, **FAST)
    decisions = judge.compare(pairs[:60])
    assert decisions == [m.outcome_a for m in matches[:60]]
    assert server.stats["timeouts"] > 0 and judge.stats.retried >= server.stats["timeouts"]


def test_unusable_answers_are_recorded_not_guessed(make_server, job, tmp_path):
    texts, history, matches, pairs = job
    server = make_server(texts, history=history, faults=Faults(rate_unusable=1.0))
    judge = replay_judge(server, tmp_path, max_reasks=2, **FAST)
    assert judge.compare(pairs[:10]) == [None] * 10
    assert judge.stats.invalid == 10 and server.chat_requests == 30  # 1 ask + 2 re-asks each
    # Cached as invalid: a rerun sends nothing and still reports them.
    again = replay_judge(server, tmp_path, **FAST)
    assert again.compare(pairs[:10]) == [None] * 10
    assert server.chat_requests == 30 and again.stats.invalid == 10
    # The authors' coin flip only when asked for, and still counted.
    flip = replay_judge(server, tmp_path, invalid="coin_flip", **FAST)
    flips = flip.compare(pairs[:10])
    assert set(flips) <= {0.0, 1.0} and flip.stats.invalid == 10 and flip.stats.extra["coin_flips"] == 10
    assert flip.compare(pairs[:10]) == flips  # seeded: the same flips every time
    # retry_invalid asks again (the server now answers properly).
    server.faults.rate_unusable = 0.0
    fixed = replay_judge(server, tmp_path, retry_invalid=True, **FAST)
    assert fixed.compare(pairs[:10]) == [m.outcome_a for m in matches[:10]]


def test_fatal_errors_stop_the_job_without_leaking_the_key(make_server, job, tmp_path):
    texts, history, _, pairs = job
    server = make_server(texts, history=history, api_key="sk-right-key-123", model=GPT4)
    wrong = get_judge(f"openai:{GPT4}@{server.base_url}", api_key="sk-wrong-key-456", cache_dir=str(tmp_path), **FAST)
    with pytest.raises(EndpointError, match="401") as err:
        wrong.compare(pairs[:5])
    assert "sk-wrong-key-456" not in str(err.value)
    unknown = get_judge(
        f"openai:no-such-model@{server.base_url}", api_key="sk-right-key-123", cache_dir=str(tmp_path), **FAST
    )
    with pytest.raises(EndpointError, match="404.*no-such-model"):
        unknown.compare(pairs[:5])


def test_persistent_server_errors_fail_loudly(make_server, job, tmp_path):
    texts, history, _, pairs = job
    server = make_server(texts, history=history, faults=Faults(rate_500=1.0))
    judge = replay_judge(server, tmp_path, max_retries=2, **FAST)
    with pytest.raises(EndpointError, match="no request .* succeeded.*HTTP 500"):
        judge.compare(pairs[:4])
    assert server.chat_requests == 12  # 1 + 2 retries each, then given up


def test_unreachable_endpoint(tmp_path):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    judge = get_judge(f"openai:m@http://127.0.0.1:{port}/v1", cache_dir=str(tmp_path), max_retries=1, **FAST)
    with pytest.raises(EndpointError, match="cannot reach .*: connection refused; 2 tries"):
        judge.compare([("a text", "another text")])
    assert judge.stats.requests == 2  # max_retries bounds the tries of an endpoint that never replied too


def test_retry_after_parsing_and_backoff():
    import random

    assert retry_after_seconds({"retry-after": "2.5"}) == 2.5
    assert retry_after_seconds({"retry-after-ms": "150"}) == 0.15
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # in the past
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None
    rng = random.Random(0)
    delays = [backoff_delay(a, 0.5, 8.0, None, rng) for a in range(1, 12)]
    assert all(0 <= d <= min(8.0, 0.5 * 2 ** (a - 1)) for a, d in zip(range(1, 12), delays))
    assert len(set(delays)) == len(delays)  # jittered
    assert all(1.0 <= backoff_delay(1, 0.5, 8.0, 1.0, rng) <= 1.25 for _ in range(50))


def test_max_completion_tokens_for_newer_models(make_server, job, tmp_path):
    texts, history, matches, pairs = job
    server = make_server(texts, history=history, faults=Faults(reject_max_tokens=True))
    judge = replay_judge(server, tmp_path, concurrency=1, **FAST)
    assert judge.compare(pairs[:5]) == [m.outcome_a for m in matches[:5]]
    assert server.stats["status_400"] == 1 and server.chat_requests == 6  # renamed once, then used throughout
    # Concurrently: every request already in flight with max_tokens is renamed and asked again too.
    server2 = make_server(texts, history=history, faults=Faults(reject_max_tokens=True))
    judge2 = replay_judge(server2, tmp_path / "c", concurrency=8, **FAST)
    assert judge2.compare(pairs[:40]) == [m.outcome_a for m in matches[:40]]
    assert judge2.stats.extra["failed"] == 0
    assert 1 <= server2.stats["status_400"] <= 8 and server2.chat_requests == 40 + server2.stats["status_400"]


def test_client_errors_fail_the_item_not_the_run(make_server, job, tmp_path):
    texts, history, matches, pairs = job
    bad = pairs[3][0].strip()
    server = make_server(texts, history=history, faults=Faults(reject_containing=bad))
    judge = replay_judge(server, tmp_path, **FAST)
    with pytest.warns(RuntimeWarning, match="1 of 8 judgments failed.*HTTP 400"):
        decisions = judge.compare(pairs[:8])
    expected = [m.outcome_a for m in matches[:8]]
    assert decisions[3] is UNANSWERED and decisions[:3] + decisions[4:] == expected[:3] + expected[4:]
    assert judge.stats.extra["failed"] == 1 and judge.stats.invalid == 0 and judge.stats.retried == 0
    # Not cached: a rerun (the server fixed) asks exactly that one again.
    server.faults.reject_containing = None
    again = replay_judge(server, tmp_path, **FAST)
    assert again.compare(pairs[:8]) == expected and again.stats.requests == 1
