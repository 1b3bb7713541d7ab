"""Selecting LLM judges by string, endpoint resolution, options, position bias,
the Jupyter case, and the recorded-history judge."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from llm_server import Faults, make_server  # noqa: F401  (fixture)

from arts_metric import data as arts_data
from arts_metric.judges import get_judge
from arts_metric.judges.history import HistoryJudge
from arts_metric.judges.openai_judge import (
    OpenAIListwiseJudge,
    OpenAIPairwiseJudge,
    OpenAIPointwiseJudge,
)
from arts_metric.llm.endpoint import (
    PLACEHOLDER_KEY,
    parse_spec,
    resolve_endpoint,
    sanitize_url,
)
from arts_metric.ratings.elo import ratings_from_history, run_elo

GPT4 = "gpt-4-1106-preview"


@pytest.fixture(scope="module")
def arts94(data_dir):
    texts = [r["text"] for r in arts_data.load_pool_rows("arts94", data_dir)]
    return texts, arts_data.load_history("arts94", GPT4, "pairwise-run1", data_dir)


def test_parse_spec_forms():
    assert parse_spec("gpt-4o") == ("gpt-4o", None, {})
    assert parse_spec("llama3.1:8b@http://localhost:11434/v1") == ("llama3.1:8b", "http://localhost:11434/v1", {})
    assert parse_spec("m@https://h:8000/v1?strategy=pointwise&concurrency=8") == (
        "m",
        "https://h:8000/v1",
        {"strategy": "pointwise", "concurrency": "8"},
    )
    assert parse_spec("org/model@v2?persona=medical") == ("org/model@v2", None, {"persona": "medical"})
    for bad in ("", "?strategy=x", "m?strategy", "has space", "m?a=1&a=2"):
        with pytest.raises(ValueError):
            parse_spec(bad)


def test_endpoint_resolution_explicit_wins_over_environment():
    env = {"OPENAI_BASE_URL": "http://env-host:1/v1", "OPENAI_API_KEY": "env-key"}
    ep = resolve_endpoint("m", env=env)
    assert (ep.base_url, ep.api_key) == ("http://env-host:1/v1", "env-key")
    ep = resolve_endpoint("m", base_url="http://arg-host:2/v1/", api_key="arg-key", env=env)
    assert (ep.base_url, ep.api_key) == ("http://arg-host:2/v1", "arg-key")
    assert resolve_endpoint("m", "http://localhost:8000/v1", env={}).api_key == PLACEHOLDER_KEY
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        resolve_endpoint("gpt-4o", env={})
    with pytest.raises(ValueError, match="http"):
        resolve_endpoint("m", "localhost:8000/v1", env={})
    assert sanitize_url("https://u:p@h:8/v1/?key=s#f") == "https://h:8/v1"


def test_env_endpoint_and_explicit_override_end_to_end(make_server, arts94, tmp_path, monkeypatch):
    texts, history = arts94
    server = make_server(texts, history=history, api_key="sk-env")
    pairs = [(texts[m.a], texts[m.b]) for m in history[:5]]
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    judge = get_judge(f"openai:{GPT4}", cache_dir=str(tmp_path), progress=False)
    assert judge.compare(pairs) == [m.outcome_a for m in history[:5]]
    # Explicit arguments win: a dead URL in the environment does not matter.
    other = make_server(texts, history=history, api_key="sk-arg")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    judge = get_judge(
        f"openai:{GPT4}", base_url=other.base_url, api_key="sk-arg", cache_dir=str(tmp_path / "b"), progress=False
    )
    assert judge.compare(pairs) == [m.outcome_a for m in history[:5]] and other.chat_requests == 5
    # The base_url argument also wins over the spec's @URL.
    judge = get_judge(
        "openai:x@http://127.0.0.1:9/v1",
        base_url=other.base_url,
        api_key="sk-arg",
        cache_dir=str(tmp_path / "c"),
        progress=False,
    )
    assert judge.endpoint.base_url == other.base_url


def test_strategy_and_options_from_spec_or_kwargs():
    j = get_judge("openai:m@http://127.0.0.1:9/v1?strategy=ease_1to5&style=simple&concurrency=3&both_orders=false")
    assert isinstance(j, OpenAIPointwiseJudge) and j.options.style == "simple" and j.options.concurrency == 3
    assert j.name == "openai:m@http://127.0.0.1:9/v1?strategy=ease_1to5&style=simple"
    j = get_judge("openai:m@http://127.0.0.1:9/v1?strategy=pointwise", strategy="listwise", batch_size=50)
    assert isinstance(j, OpenAIListwiseJudge) and j.options.batch_size == 50  # kwargs win
    j = get_judge("openai:m@http://127.0.0.1:9/v1?topic=philosophy&both_orders=1")
    assert isinstance(j, OpenAIPairwiseJudge) and j.strategy.topic == "philosophy" and j.options.both_orders
    errors = {
        "openai:m@http://h:1/v1?strategie=pairwise": "unknown option 'strategie'",
        "openai:m@http://h:1/v1?strategy=ranking": "strategy must be one of",
        "openai:m@http://h:1/v1?strategy=pairwise_expert": "needs persona",
        "openai:m@http://h:1/v1?strategy=pointwise&persona=medical": "persona applies to the pairwise",
        "openai:m@http://h:1/v1?concurrency=0": "concurrency must be an integer >= 1",
        "openai:m@http://h:1/v1?both_orders=maybe": "both_orders='maybe' is not a valid bool",
        "openai:m@http://h:1/v1?invalid=guess": "invalid must be 'record' or 'coin_flip'",
        "openai:m@http://h:1/v1?style=fancy": "style must be one of",
        "openai:m@http://h:1/v1?api_key=sk-x": "api_key",
        "openai:m@http://h:1/v1?max_cost=1": "price_in and price_out",
        "openai:": "needs a model",
    }
    for spec, message in errors.items():
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("?", r"\?")):
            get_judge(spec).compare([("a", "b")])


def test_bad_inputs_name_the_offending_item(tmp_path):
    j = get_judge("openai:m@http://127.0.0.1:9/v1", progress=False)
    with pytest.raises(ValueError, match=r"pairs\[1\]\[0\]"):
        j.compare([("a", "b"), ("", "c")])
    with pytest.raises(ValueError, match=r"pairs\[0\]"):
        j.compare([("a", "b", "c")])
    p = get_judge("openai:m@http://127.0.0.1:9/v1?strategy=pointwise", progress=False)
    with pytest.raises(ValueError, match=r"texts\[2\]"):
        p.score(["a", "b", None])
    with pytest.raises(ValueError, match=r"examples\[1\]"):
        get_judge("openai:m@http://127.0.0.1:9/v1?strategy=cefr", examples=[("ok", "B1"), ("bad", "D4")])
    bad_file = tmp_path / "examples.jsonl"
    bad_file.write_text('{"text": "a sentence", "level": "B1"}\n{"text": "cut off\n')
    with pytest.raises(ValueError, match="line 2: not valid JSON"):
        get_judge("openai:m@http://127.0.0.1:9/v1?strategy=cefr", examples=str(bad_file))


def test_works_inside_a_running_event_loop(make_server, arts94, tmp_path):
    """As in Jupyter: compare() called from code that runs inside an event loop."""
    texts, history = arts94
    server = make_server(texts, history=history)
    judge = get_judge(f"openai:{GPT4}@{server.base_url}", cache_dir=str(tmp_path), progress=False)
    pairs = [(texts[m.a], texts[m.b]) for m in history[:10]]

    async def notebook_cell():
        asyncio.get_running_loop()  # a loop is running here
        return judge.compare(pairs)

    assert asyncio.run(notebook_cell()) == [m.outcome_a for m in history[:10]]


def test_both_orders_combines_and_reports_inconsistency(make_server, arts94, tmp_path):
    texts, history = arts94
    # Pairs recorded once in either order (the run answered one pair differently in its two orders).
    count = {}
    for m in history:
        count[frozenset((m.a, m.b))] = count.get(frozenset((m.a, m.b)), 0) + 1
    unique = [m for m in history if count[frozenset((m.a, m.b))] == 1]
    pairs = [(texts[m.a], texts[m.b]) for m in unique]
    # An unbiased server answers both orders from the same record: no inconsistency.
    server = make_server(texts, history=history)
    judge = get_judge(
        f"openai:{GPT4}@{server.base_url}", cache_dir=str(tmp_path / "a"), both_orders=True, progress=False
    )
    assert judge.compare(pairs) == [m.outcome_a for m in unique]
    assert server.chat_requests == 2 * len(pairs) and judge.stats.extra["order_inconsistency_rate"] == 0.0
    # A position-biased server (answers "A" to 30% of prompts): contradictions are detected and become draws.
    biased = make_server(texts, history=history, faults=Faults(position_bias=0.3))
    judge = get_judge(
        f"openai:{GPT4}@{biased.base_url}", cache_dir=str(tmp_path / "b"), both_orders=True, progress=False
    )
    decisions = judge.compare(pairs)
    draws = sum(d == 0.5 for d in decisions)
    ex = judge.stats.extra
    assert ex["order_pairs"] == len(pairs) and ex["order_inconsistent"] == draws > 0
    assert ex["order_inconsistency_rate"] == pytest.approx(draws / len(pairs), abs=1e-6)
    assert biased.stats["biased"] >= draws
    assert set(decisions) <= {0.0, 0.5, 1.0}


def test_history_judge_replays_every_run_exactly(data_dir):
    for pool, judge_name, run in [
        ("arts94", GPT4, "pairwise-24-per-text"),
        ("arts94", "gpt-3.5-turbo-1106", "pairwise-run1"),
        ("arts94", "human", "majority"),
        ("arts300", "gpt-3.5-turbo-1106", "pairwise-run1"),
    ]:
        texts = [r["text"] for r in arts_data.load_pool_rows(pool, data_dir)]
        history = arts_data.load_history(pool, judge_name, run, data_dir)
        judge = get_judge(f"history:{pool}/{judge_name}/{run}", data_dir=data_dir)
        assert isinstance(judge, HistoryJudge)
        decisions = judge.compare([(texts[m.a], texts[m.b]) for m in history])
        ratings = run_elo(len(texts), [(m.a, m.b, d) for m, d in zip(history, decisions)])
        np.testing.assert_array_equal(ratings, ratings_from_history(len(texts), history))
        assert judge.stats.extra["unknown_pairs"] == 0


def test_history_judge_reversed_and_unknown_pairs(data_dir, tmp_path):
    texts = [r["text"] for r in arts_data.load_pool_rows("arts94", data_dir)]
    m = arts_data.load_history("arts94", GPT4, "pairwise-run1", data_dir)[0]
    path = tmp_path / "h.jsonl"
    path.write_text('{"match": 0, "a": %d, "b": %d, "harder": %d}\n' % (m.a, m.b, m.harder))
    judge = get_judge(f"history:{path}", texts=texts)
    out = judge.compare([(texts[m.a], texts[m.b]), (texts[m.b], texts[m.a]), (texts[0], "not in the pool")])
    assert out == [m.outcome_a, 1.0 - m.outcome_a, None]
    assert judge.stats.invalid == 1 and judge.stats.extra["unknown_pairs"] == 1
    with pytest.raises(ValueError, match="pool texts"):
        get_judge(f"history:{path}")
    with pytest.raises(ValueError, match="neither a file"):
        get_judge("history:no/such/run", texts=texts)
    with pytest.raises(ValueError, match=r"pairs\[1\]\[1\]"):
        judge.compare([(texts[0], texts[1]), (texts[0], None)])
    broken = tmp_path / "broken.jsonl"
    broken.write_text(path.read_text() + '{"match": 1, "a": 1,\n')
    with pytest.raises(ValueError, match="line 2: not valid JSON"):
        get_judge(f"history:{broken}", texts=texts)


def test_pool_scores_are_cached_per_judge_settings():
    """A pool keeps a pointwise judge's scores of its texts; two LLM judges that
    differ only in sampling settings must not share them."""

    a = get_judge("openai:m@http://127.0.0.1:9/v1?strategy=pointwise&temperature=0")
    b = get_judge("openai:m@http://127.0.0.1:9/v1?strategy=pointwise&temperature=0.7")
    assert a.name == b.name and a.score_key != b.score_key
    assert get_judge("learned").score_key == "learned"  # the key of the shipped pool scores
