"""Budgets, token accounting, reruns and secrets, against the real test server."""

from __future__ import annotations

import json
import warnings

import pytest
from llm_server import make_server  # noqa: F401  (fixture)
from recorded import recorded_run, replay_judge

from arts_metric.judges import UNANSWERED, get_judge
from arts_metric.llm.budget import Budget
from arts_metric.llm.cache import CACHE_FILE


@pytest.fixture(scope="module")
def arts94(data_dir):
    return recorded_run("arts94", data_dir)


def test_max_requests_stops_cleanly_and_a_rerun_resumes(make_server, arts94, tmp_path):
    texts, history, matches = arts94
    pairs = [(texts[m.a], texts[m.b]) for m in matches[:200]]
    server = make_server(texts, history=history)
    judge = replay_judge(
        server,
        tmp_path,
        max_requests=40,
        concurrency=16,
        progress=False,
        hedges=0,
    )  # no duplicates of slow requests: exact counts on a loaded machine
    with pytest.warns(RuntimeWarning, match="budget reached"):
        decisions = judge.compare(pairs)
    assert server.chat_requests == judge.stats.requests == 40
    assert sum(isinstance(d, float) for d in decisions) == 40
    assert decisions.count(UNANSWERED) == 160  # not asked: no judgment, asked on a rerun
    assert judge.stats.extra["skipped"] == 160 and judge.stats.extra["stopped"] == "max_requests"
    assert judge.stats.invalid == 0  # not asked is not "unusable"
    # The budget belongs to the judge: a second call sends nothing more.
    with pytest.warns(RuntimeWarning):
        judge.compare(pairs[150:])
    assert server.chat_requests == 40
    # A new run without a budget asks exactly the missing 160.
    full = replay_judge(server, tmp_path, progress=False, hedges=0)
    assert full.compare(pairs) == [m.outcome_a for m in matches[:200]]
    assert server.chat_requests == 200 and full.stats.cached == 40


def test_max_cost_is_never_exceeded(make_server, arts94, tmp_path):
    texts, history, matches = arts94
    pairs = [(texts[m.a], texts[m.b]) for m in matches[:150]]
    server = make_server(texts, history=history)
    # $10 / $30 per million tokens; a pairwise request here costs about $0.002.
    judge = replay_judge(
        server,
        tmp_path,
        max_cost=0.15,
        price_in=10.0,
        price_out=30.0,
        concurrency=8,
        progress=False,
    )
    with pytest.warns(RuntimeWarning, match="max_cost"):
        decisions = judge.compare(pairs)
    cost = (server.prompt_tokens * 10.0 + server.completion_tokens * 30.0) / 1e6
    assert judge.stats.extra["cost_usd"] == pytest.approx(cost)
    assert cost <= 0.15
    answered = sum(isinstance(d, float) for d in decisions)
    assert 20 < answered < 150 and judge.stats.extra["skipped"] == 150 - answered
    # The stop came near the limit: less than the worst case of the requests in flight was left.
    assert 0.15 - cost < 8 * judge.budget.worst_case(4000, 1, 16)


def test_budget_validation():
    with pytest.raises(ValueError, match="price_in and price_out"):
        Budget(max_cost=1.0)
    with pytest.raises(ValueError, match="max_requests"):
        Budget(max_requests=-1)
    b = Budget(max_requests=2)
    assert b.try_reserve(10, 1, 5) and b.try_reserve(10, 1, 5)
    assert b.try_reserve(10, 1, 5) is None and b.stopped == "max_requests"


def test_usage_tokens_are_reported_in_the_result(make_server, arts94, tmp_path):
    texts, history, matches = arts94
    server = make_server(texts, history=history)
    judge = replay_judge(server, tmp_path, price_in=1.0, price_out=2.0, progress=False)
    judge.compare([(texts[m.a], texts[m.b]) for m in matches[:30]])
    report = judge.report()
    assert report["prompt_tokens"] == server.prompt_tokens > 30 * 100
    assert report["completion_tokens"] == server.completion_tokens == 30
    assert report["cost_usd"] == pytest.approx((server.prompt_tokens * 1.0 + 30 * 2.0) / 1e6)
    assert report["requests"] == 30 and report["calls"] == 30


def test_rerun_sends_zero_requests_and_keys_never_leak(make_server, arts94, tmp_path, monkeypatch):
    texts, history, matches = arts94
    secret = "sk-test-SECRET-0123456789"
    server = make_server(texts, history=history, api_key=secret)
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    pairs = [(texts[m.a], texts[m.b]) for m in history]
    first = replay_judge(server, tmp_path, progress=False, hedges=0)
    d1 = first.compare(pairs)
    n = server.chat_requests
    assert n == len(matches) and f"Bearer {secret}" in server.auth_headers
    second = replay_judge(server, tmp_path, progress=False)
    assert second.compare(pairs) == d1
    assert server.chat_requests == n and second.stats.requests == 0 and second.stats.cached == n
    # Another sampling parameter is another cache key.
    third = replay_judge(server, tmp_path, temperature=0.7, progress=False)
    third.compare(pairs[:5])
    assert third.stats.requests == 5
    # Neither the cache file (with its WAL) nor the results contain the key.
    blob = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith(CACHE_FILE))
    assert len(blob) > 10_000 and secret.encode() not in blob
    for j in (first, second, third):
        assert secret not in json.dumps(j.report()) and secret not in j.name and secret not in repr(j.endpoint)
    # Credentials inside a base URL are not shown either.
    j = get_judge("openai:m@http://user:pw-in-url@127.0.0.1:9/v1?strategy=pointwise", progress=False)
    assert "pw-in-url" not in j.name + json.dumps(j.report()) + repr(j.endpoint)


def test_progress_bar_shows_live_counts(make_server, arts94, tmp_path, capsys):
    texts, history, matches = arts94
    server = make_server(texts, history=history)
    judge = replay_judge(server, tmp_path, progress=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        judge.compare([(texts[m.a], texts[m.b]) for m in matches[:20]])
    err = capsys.readouterr().err
    for word in ("20/20", "cached=", "retried=", "invalid=", "tokens="):
        assert word in err


def test_coin_flip_never_stands_in_for_a_judgment_not_asked(make_server, arts94, tmp_path):
    """invalid="coin_flip" replaces unusable answers only, not texts the budget left unasked."""
    texts, _, _ = arts94
    server = make_server(texts, pointwise={i: "0.5" for i in range(94)})
    server.faults.rate_unusable = 1.0
    judge = get_judge(
        f"openai:m@{server.base_url}",
        strategy="pointwise",
        invalid="coin_flip",
        max_requests=2,
        max_reasks=0,
        cache_dir=str(tmp_path),
        progress=False,
    )
    with pytest.warns(RuntimeWarning, match="budget reached"):
        decisions = judge.compare([(texts[0], texts[1]), (texts[2], texts[3])])
    # The first pair was asked (both answers unusable): flipped and counted; the second was never asked.
    assert decisions[0] in (0.0, 1.0) and decisions[1] is UNANSWERED
    assert judge.stats.extra["coin_flips"] == 1 and judge.stats.extra["skipped"] == 2 and server.chat_requests == 2


def test_listwise_batch_not_asked_is_not_invalid(make_server, arts94, tmp_path):
    texts, _, _ = arts94
    server = make_server(texts)
    judge = get_judge(
        f"openai:m@{server.base_url}", strategy="listwise", max_requests=0, cache_dir=str(tmp_path), progress=False
    )
    with pytest.warns(RuntimeWarning, match="budget reached"):
        latent = judge.score(texts[:10])
    assert all(x != x for x in latent)  # all NaN
    assert judge.stats.invalid == 0 and judge.stats.extra["skipped"] == 1 and server.chat_requests == 0
