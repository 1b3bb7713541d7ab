"""Duplicates of slow requests, against the real HTTP test server: none unless asked for;
when asked for, each one counted, reported and inside ``max_requests``."""

from __future__ import annotations

import time

import pytest
from llm_server import Faults, make_server  # noqa: F401  (fixture)

from arts_metric.judges import UNANSWERED, get_judge
from arts_metric.llm.hedging import HEDGE_FLOOR, HEDGE_SAMPLES, Latencies
from arts_metric.llm.report import request_summary

FAST = dict(progress=False, backoff_base=0.01, backoff_max=0.05, cache=False)
#: Self-written texts; the server answers "the shorter text is easier".
TEXTS = [f"Sample {i}: " + " ".join(["word"] * (1 + i % 11)) + f" end{i}." for i in range(24)]
SLOW = TEXTS[23]


def _pairs(n: int, last_with_slow: int = 0) -> list[tuple[str, str]]:
    """``n`` distinct pairs of quick texts, then ``last_with_slow`` pairs with :data:`SLOW`."""
    quick = [(TEXTS[i % 23], TEXTS[(i + 1 + i // 23) % 23]) for i in range(n)]
    return quick + [(SLOW, TEXTS[i]) for i in range(last_with_slow)]


def _counted(stats: dict) -> int:
    return stats["asked"] + stats["retried"] + stats["reasked"] + stats["hedged"]


def test_no_duplicate_by_default_even_for_far_slower_requests(make_server):
    # 40 answers in ~10 ms each, then 4 requests that take 1.5 s: far beyond the others, so an
    # automatic duplicate rule would fire; by default none may be sent.
    server = make_server(TEXTS, latency=0.01, faults=Faults(by_text={SLOW: "hang"}, hang=1.5))
    judge = get_judge(f"openai:m@{server.base_url}", concurrency=4, **FAST)
    pairs = _pairs(40, last_with_slow=4)
    decisions = judge.compare(pairs)
    assert UNANSWERED not in decisions and None not in decisions
    stats = judge.stats.as_dict()
    assert server.chat_requests == stats["requests"] == stats["asked"] == stats["answered"] == 44
    assert stats["hedged"] == 0 and server.stats["timeouts"] == 4
    assert request_summary(stats).startswith("44 judgments (0 from the cache, 44 answered by the model); 44 requests")


def test_a_duplicate_when_asked_for_is_counted_and_reported(make_server):
    server = make_server(TEXTS, faults=Faults(by_text={SLOW: "hang_once"}, hang=20.0))
    judge = get_judge(f"openai:m@{server.base_url}", hedges=1, hedge_after=0.3, timeout=60, **FAST)
    t0 = time.monotonic()
    decisions = judge.compare(_pairs(5, last_with_slow=1))
    assert UNANSWERED not in decisions and time.monotonic() - t0 < 10  # the duplicate answered
    stats = judge.stats.as_dict()
    assert stats["hedged"] == 1 and stats["requests"] == server.chat_requests == 7 == _counted(stats)
    assert stats["asked"] == stats["answered"] == 6
    assert "7 requests sent: 6 first asks, 0 retries after transport faults" in request_summary(stats)
    assert request_summary(stats).endswith("1 duplicates of slow requests")


@pytest.mark.parametrize("max_requests, duplicates", [(6, 0), (7, 1)])
def test_duplicates_stay_inside_max_requests(make_server, max_requests, duplicates):
    # 6 judgments need 6 requests; a duplicate of the slow one is sent only if a 7th is allowed,
    # and one the budget cannot afford neither stops the run nor costs a judgment.
    server = make_server(TEXTS, faults=Faults(by_text={SLOW: "hang_once"}, hang=2.0))
    judge = get_judge(
        f"openai:m@{server.base_url}", hedges=1, hedge_after=0.3, max_requests=max_requests, timeout=60, **FAST
    )
    decisions = judge.compare(_pairs(5, last_with_slow=1))
    assert UNANSWERED not in decisions
    stats = judge.stats.as_dict()
    assert server.chat_requests == stats["requests"] == 6 + duplicates <= max_requests
    assert stats["hedged"] == duplicates and stats["skipped"] == 0 and "stopped" not in stats


def test_the_automatic_delay_is_a_multiple_of_the_chosen_percentile():
    lat = Latencies(percentile=99.0)
    for _ in range(HEDGE_SAMPLES - 1):
        lat.add(0.05)
    assert lat.delay() is None  # too few answers to tell what "slow" is
    lat.add(0.05)
    assert lat.delay() == HEDGE_FLOOR  # 3 x 0.05 s is below the floor
    for s in [2.0] * HEDGE_SAMPLES:
        lat.add(s)
    assert lat.delay() == pytest.approx(6.0)  # the 99th percentile is 2 s
    median = Latencies(percentile=50.0)
    for s in [0.5] * 30 + [4.0] * 10:
        median.add(s)
    assert median.delay() == pytest.approx(1.5)
    assert Latencies(fixed=0.3).delay() == 0.3


@pytest.mark.parametrize("bad", [0, -1, 101, "x", True])
def test_hedge_percentile_is_checked(bad):
    with pytest.raises(ValueError, match="hedge_percentile"):
        get_judge("openai:m@http://127.0.0.1:9/v1", hedge_percentile=bad)


def test_hedging_is_off_by_default_and_the_spec_turns_it_on():
    assert get_judge("openai:m@http://127.0.0.1:9/v1").options.hedges == 0
    on = get_judge("openai:m@http://127.0.0.1:9/v1?hedges=1&hedge_percentile=95")
    assert (on.options.hedges, on.options.hedge_percentile) == (1, 95.0)
