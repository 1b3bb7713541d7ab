"""What an LLM judge's run cost: a build, a compute and a build resumed after a kill each send
exactly one request per judgment they need, and say so (CLI output, ``judge_stats``, the
dataset card). Against the real OpenAI-protocol test server and its request counter; one text
answers far slower than the others, which must not draw a duplicate unless asked for."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llm_server import Faults, ReplayServer

from arts_metric.builder import open_store
from arts_metric.cli import main as cli_main
from arts_metric.llm.report import request_summary, sum_stats
from arts_metric.scoring.api import score_texts

REPO = Path(__file__).resolve().parent.parent
#: 30 self-written texts of different lengths (the server answers "the shorter text is easier").
TEXTS = [f"Note {i}: " + " ".join(["plain"] * (1 + i % 7) + ["intricate"] * (i % 5)) + f" ({i})." for i in range(30)]
SLOW = TEXTS[7]
MATCHES = 30 * 4  # --matches-per-text 4


def _slow_server(latency: float = 0.0) -> ReplayServer:
    return ReplayServer(TEXTS, latency=latency, faults=Faults(by_text={SLOW: "hang"}, hang=1.2))


def _build_args(tmp_path: Path, url: str) -> list[str]:
    texts = tmp_path / "texts.txt"
    texts.write_text("\n".join(TEXTS) + "\n")
    spec = f"openai:m@{url} concurrency=16"
    return ["build", str(texts), "--out", str(tmp_path / "out"), "--matches-per-text", "4", "--rater", spec]


def _one_request_each(stats: dict, judgments: int) -> None:
    assert stats["requests"] == stats["asked"] == stats["answered"] == judgments
    assert stats["retried"] == stats["reasked"] == stats["hedged"] == 0


def test_request_summary():
    stats = dict(requests=12, asked=9, answered=8, cached=3, retried=2, reasked=1, hedged=0, failed=1)
    assert request_summary(stats) == (
        "11 judgments (3 from the cache, 8 answered by the model); 12 requests sent: 9 first asks, "
        "2 retries after transport faults, 1 re-asks after unusable answers, 0 duplicates of slow requests; "
        "without an answer: 1 failed"
    )
    assert request_summary({**stats, "cost_usd": 0.01234, "skipped": 4}).endswith("1 failed, 4 skipped; cost $0.0123")
    assert request_summary({"calls": 40, "requests": 0, "cached": 0}) is None  # not an LLM judge


def test_sum_stats_adds_the_counters_of_the_parts_of_a_run():
    parts = [
        {"requests": 3, "cost_usd": 0.1, "model": "m"},
        {"requests": 4, "cost_usd": 0.2, "model": "m", "hedged": 1},
    ]
    assert sum_stats(parts) == {"requests": 7, "cost_usd": 0.3, "model": "m", "hedged": 1}  # not 0.30000000000000004
    assert sum_stats([]) == {}


def test_a_build_sends_one_request_per_match_and_reports_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path / "cache"))
    srv = _slow_server()
    url = srv.start()
    try:
        assert cli_main(_build_args(tmp_path, url) + ["--no-progress"]) == 0
    finally:
        srv.stop()
    assert srv.chat_requests == MATCHES and srv.stats["timeouts"] > 0  # the slow text was asked, never twice
    stats = json.loads((tmp_path / "out" / "report.json").read_text())["raters"][0]["info"]["stats"]
    _one_request_each(stats, MATCHES)
    line = f"{MATCHES} judgments (0 from the cache, {MATCHES} answered by the model); {MATCHES} requests sent"
    assert f"openai:m: {line}" in capsys.readouterr().out
    card = (tmp_path / "out" / "README.md").read_text()
    assert "## Requests" in card and f"- openai:m: {line}" in card


def test_a_compute_sends_one_request_per_judgment_and_reports_it(tmp_path, monkeypatch):
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path / "cache"))
    srv = _slow_server()
    url = srv.start()
    pool = [{"text": t, "elo": 1000.0 + 10 * len(t)} for t in TEXTS if t != SLOW][:20]
    newcomers = [SLOW] + [t for t in TEXTS if t not in {p["text"] for p in pool}][:3]
    try:
        out = score_texts(newcomers, pool=pool, judge=f"openai:m@{url}?progress=false", placement="adaptive")
    finally:
        srv.stop()
    stats = out["judge_stats"]
    assert stats["requests"] == srv.chat_requests > 0 and srv.stats["timeouts"] > 0
    _one_request_each(stats, srv.chat_requests)
    again = score_texts(newcomers, pool=pool, judge=f"openai:m@{url}?progress=false", placement="adaptive")
    assert again["judge_stats"]["requests"] == 0 and again["arts"] == pytest.approx(out["arts"])
    assert request_summary(again["judge_stats"]).startswith(f"{srv.chat_requests} judgments ({srv.chat_requests} from")


def test_a_build_resumed_after_a_kill_pays_only_for_what_is_missing(tmp_path, monkeypatch, capsys):
    srv = _slow_server(latency=0.02)
    url = srv.start()
    env = dict(os.environ, PYTHONPATH=str(REPO), ARTS_CACHE_DIR=str(tmp_path / "cache"), HF_HUB_OFFLINE="1")
    args = _build_args(tmp_path, url)
    try:
        first = subprocess.Popen(
            [sys.executable, "-m", "arts_metric.cli", *args, "--no-progress"],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 120
        while srv.chat_requests < 40 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert first.poll() is None, first.communicate()[1][-2000:]
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=30)
        time.sleep(0.5)  # requests already on the wire reach the server
        before = srv.chat_requests
        with open_store(tmp_path / "out") as store:
            stored = store.progress("openai:m")[0]
        assert 0 < stored < MATCHES
        monkeypatch.setenv("ARTS_CACHE_DIR", env["ARTS_CACHE_DIR"])
        assert cli_main(args + ["--no-progress"]) == 0
    finally:
        srv.stop()
    sent = srv.chat_requests - before
    stats = json.loads((tmp_path / "out" / "report.json").read_text())["raters"][0]["info"]["stats"]
    # The killed run left no stats; the resumed run asked what the store lacked: the answers
    # cached since the last stored batch without a request, the rest with exactly one each.
    assert stats["cached"] + stats["answered"] == MATCHES - stored
    _one_request_each(stats, sent)
    out = capsys.readouterr().out
    assert f"openai:m: {MATCHES - stored} judgments ({stats['cached']} from the cache, {sent} answered" in out


def test_arts_score_prints_what_an_llm_judge_sent(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path / "cache"))
    pool = tmp_path / "pool.jsonl"
    pool.write_text("".join(json.dumps({"text": t, "elo": 1000.0 + 10 * len(t)}) + "\n" for t in TEXTS[:20]))
    texts = tmp_path / "in.txt"
    texts.write_text("\n".join(TEXTS[20:23]) + "\n")
    srv = ReplayServer(TEXTS)
    url = srv.start()
    try:
        args = ["score", str(texts), "--pool", str(pool), "--judge", f"openai:m@{url}", "--formulas", "none"]
        assert cli_main(args + ["--placement", "adaptive", "--budget", "6", "--no-progress"]) == 0
    finally:
        srv.stop()
    n = srv.chat_requests
    assert n > 0
    err = capsys.readouterr().err
    assert f"requests: {n} judgments (0 from the cache, {n} answered by the model); {n} requests sent" in err


def test_arts_compare_prints_what_an_llm_judge_sent_for_both_views(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path / "cache"))
    pool = tmp_path / "pool.jsonl"
    pool.write_text("".join(json.dumps({"text": t, "elo": 1000.0 + 10 * len(t)}) + "\n" for t in TEXTS[:20]))
    systems = []
    for name, texts in (("short", TEXTS[20:24]), ("long", TEXTS[24:28])):
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(texts) + "\n")
        systems += ["--system", f"{name}={path}"]
    srv = ReplayServer(TEXTS)
    url = srv.start()
    try:
        args = ["compare", *systems, "--pool", str(pool), "--judge", f"openai:m@{url}?progress=false"]
        args += ["--formulas", "none", "--placement", "adaptive", "--budget", "4", "--resamples", "20"]
        assert cli_main(args + ["--permutations", "20", "--out", str(tmp_path / "o")]) == 0
    finally:
        srv.stop()
    n = srv.chat_requests
    info = json.loads((tmp_path / "o" / "comparison.json").read_text())
    assert n > info["head_to_head"]["requests"] == 4 > 0 and info["pool_view"]["requests"] > 0  # both views paid
    err = capsys.readouterr().err
    assert (
        f"requests: {n} judgments (0 from the cache, {n} answered by the model); {n} requests sent: {n} first" in err
    )
