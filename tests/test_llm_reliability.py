"""Reliability against the real HTTP test server: a text's score depends on the text
alone (not on its companions, the batch size or the number of processes), a
transient fault is never a judgment (retried, never cached, counted as failed,
completed by a rerun), stragglers hold up no other text, and pointwise
placement counts and caches the pool texts it scores."""

from __future__ import annotations

import time

import datasets
import numpy as np
import pytest
from llm_server import Faults, ReplayServer, make_server  # noqa: F401  (fixture)
from recorded import GPT4, recorded_run, replay_judge

from arts_metric import data as arts_data
from arts_metric.judges import UNANSWERED, Judge, get_judge
from arts_metric.llm.cache import CACHE_FILE, JudgmentCache
from arts_metric.llm.protocol import read_completion as _read_completion
from arts_metric.llm.strategies import PairwiseStrategy
from arts_metric.placement import place
from arts_metric.pool import pool_from_rows
from arts_metric.ratings.elo import ratings_from_history
from arts_metric.scoring.bulk import score_dataset
from arts_metric.scoring.config import ScoringConfig
from arts_metric.scoring.scorer import Scorer
from arts_metric.scoring.units import place_texts
from arts_metric.text.sentences import sentence_units

FAST = dict(progress=False, backoff_base=0.01, backoff_max=0.05)
NOISE = 0.15  # share of unrecorded pairs the server answers "the longer text is easier"


@pytest.fixture(scope="module")
def arts94(data_dir):
    """ARTS94's texts; the pool is texts 20..93 with the human majority's Elo ratings."""
    texts = [r["text"] for r in arts_data.load_pool_rows("arts94", data_dir)]
    human = ratings_from_history(94, arts_data.load_history("arts94", "human", "majority", data_dir))
    rows = [{"text": t, "elo": float(r)} for t, r in zip(texts[20:], human[20:])]
    return texts, rows


def _judge(server: ReplayServer, tmp_path, **options) -> Judge:
    # No hedges unless a test asks: request counts stay exact on a loaded machine, where an
    # answer may take over the 1 s after which a straggling request is duplicated.
    return get_judge(
        f"openai:m@{server.base_url}", cache_dir=str(tmp_path / "cache"), **{**FAST, "hedges": 0, **options}
    )


# -- a text's score depends on the text alone -------------------------------------


@pytest.mark.parametrize("method", ["adaptive", "mle", "elo"])
def test_a_sentence_places_the_same_alone_or_in_company(make_server, arts94, tmp_path, method):
    texts, rows = arts94
    server = make_server(texts, unknown_noise=NOISE)
    judge = _judge(server, tmp_path)
    pool = pool_from_rows(rows, name="arts94-pool")
    s = texts[0]
    companies = [[s], [texts[1], s], [texts[2], texts[3], s, texts[4], texts[5], texts[6]]]
    results = [place(judge, pool, company, method=method) for company in companies]
    first, i0 = results[0], 0
    assert np.isfinite(first.arts[i0]) and first.calls_per_text[i0] > 0
    for res, company in zip(results[1:], companies[1:]):
        i = company.index(s)
        assert res.arts[i] == first.arts[i0] and res.ratings[i] == first.ratings[i0]
        np.testing.assert_array_equal(res.arts_interval[i], first.arts_interval[i0])
        # The same judge calls: the same opponents, in the same order, with the same answers.
        assert res.calls_per_text[i] == first.calls_per_text[i0] and res.matches[i] == first.matches[i0]
    # Its neighbours were placed too (not a trivial run).
    assert np.isfinite(results[2].arts).all() and len(set(np.round(results[2].arts, 6))) == 6


def test_units_of_a_text_place_the_same_in_any_batch(make_server, arts94, tmp_path):
    """Through place_texts (what compute() and score_dataset use), long texts cut into units included."""
    texts, rows = arts94
    server = make_server(texts, unknown_noise=NOISE)
    judge = _judge(server, tmp_path)
    pool = pool_from_rows(rows, name="arts94-pool")
    long_doc = " ".join(texts[7:12])  # longer than split_above: placed as several units
    config = ScoringConfig(placement="adaptive")
    alone = place_texts([long_doc], Scorer.prepare(config, judge, pool))
    together = place_texts([texts[1], long_doc, texts[2]], Scorer.prepare(config, judge, pool))
    assert alone.units[0] > 1
    for key in ("arts", "arts_elo"):
        assert getattr(together, key)[1] == getattr(alone, key)[0]
    np.testing.assert_array_equal(together.arts_interval[1], alone.arts_interval[0])
    assert together.calls_per_text[1] == alone.calls_per_text[0]


@pytest.mark.parametrize("method", ["adaptive", "mle"])
def test_score_dataset_is_the_same_for_any_batch_size_and_process_count(make_server, arts94, tmp_path, method):
    texts, rows = arts94
    server = make_server(texts, unknown_noise=NOISE)
    ds = datasets.Dataset.from_dict({"text": texts[:8]})
    kw = dict(
        judge=f"openai:m@{server.base_url}",
        judge_options={"cache_dir": str(tmp_path), **FAST},
        pool=rows,
        placement=method,
    )
    big = score_dataset(ds, batch_size=1024, **kw)
    small = score_dataset(ds, batch_size=2, **kw)
    for column in ("arts", "arts_elo", "interval", "judge_calls"):
        assert big[column] == small[column], column
    two = score_dataset(ds, batch_size=3, num_proc=2, **kw)
    for column in ("arts", "arts_elo", "interval", "judge_calls"):
        assert two[column] == big[column], column
    assert all(a is not None for a in big["arts"]) and min(big["judge_calls"]) > 0
    with pytest.raises(ValueError, match="num_proc"):
        score_dataset(ds, num_proc=0, **kw)
    limited = dict(kw, judge_options={**kw["judge_options"], "max_requests": 10})
    with pytest.raises(ValueError, match="max_requests"):
        score_dataset(ds, num_proc=2, **limited)


def test_worker_processes_do_not_each_pay_for_the_calibration(make_server, arts94, tmp_path):
    """num_proc=2: the calibration pairs that every worker would ask first are asked once, in this
    process, before the workers start; the workers read them from the judge's cache."""
    from collections import Counter

    from arts_metric.scoring.config import ScoringConfig

    texts, rows = arts94
    server = make_server(texts, unknown_noise=NOISE)
    options = {"cache_dir": str(tmp_path), **FAST}
    judge = ScoringConfig(judge=f"openai:m@{server.base_url}", judge_options=options).make_judge()
    ds = datasets.Dataset.from_dict({"text": texts[:6]})
    score_dataset(ds, batch_size=3, num_proc=2, judge=judge, pool=rows, placement="adaptive")
    assert judge.stats.as_dict()["requests"] > 0  # the calibration, asked by this process's judge
    assert max(Counter(p for _, p in server.request_log).values()) == 1


def test_the_per_text_pipeline_gives_what_rounds_give(make_server, arts94, tmp_path):
    """A remote judge's texts advance one by one as answers arrive; a local judge's in
    rounds. Both are the same search: a local judge that answers exactly as the
    server does gets exactly the same placement."""
    texts, rows = arts94
    server = make_server(texts, unknown_noise=NOISE)
    rule = ReplayServer(texts, unknown_noise=NOISE)  # never started: its answer rule only
    strategy = PairwiseStrategy()

    class LocalRule(Judge):
        name = "local-rule"

        def compare(self, pairs):
            out = []
            for a, b in pairs:
                _, letter = rule._answer(strategy.messages(a, b)[0]["content"])
                out.append(strategy.prob_first_harder(letter))
            return out

    local = LocalRule()
    remote = _judge(server, tmp_path)
    assert remote.concurrent and not local.concurrent
    pool = pool_from_rows(rows, name="arts94-pool")
    news = texts[:10]
    a = place(local, pool, news, method="adaptive")
    b = place(remote, pool, news, method="adaptive")
    np.testing.assert_array_equal(a.arts, b.arts)
    np.testing.assert_array_equal(a.arts_interval, b.arts_interval)
    assert a.matches == b.matches and a.judge_calls == b.judge_calls
    assert 0.95 * b.judge_calls < server.chat_requests <= b.judge_calls  # a pair asked twice is sent once


# -- a transient fault is never a judgment ------------------------------------------


@pytest.fixture(scope="module")
def job(data_dir):
    """Distinct ordered pairs of GPT-4's ARTS3000 run with their recorded decisions."""
    return recorded_run("arts3000", data_dir, 120, decided=True)


def _once(pairs, k):
    """A text of pair ``k`` that appears in no other pair of ``pairs``."""
    for t in pairs[k]:
        if sum(t in p for p in pairs) == 1:
            return t.strip()
    raise AssertionError("no text of its own")


def test_replies_without_an_answer_are_retried_and_never_cached(make_server, job, tmp_path):
    texts, history, matches = job
    pairs = [(texts[m.a], texts[m.b]) for m in matches[:100]]
    expected = [m.outcome_a for m in matches[:100]]
    server = make_server(texts, history=history, faults=Faults(rate_empty=0.15, rate_null=0.15, seed=5))
    judge = replay_judge(server, tmp_path, max_retries=10, hedges=0, **FAST)
    assert judge.compare(pairs) == expected
    faults = server.stats["empty_choices"] + server.stats["null_content"]
    assert server.stats["empty_choices"] > 5 and server.stats["null_content"] > 5
    assert judge.stats.retried == faults and judge.stats.invalid == 0 and judge.stats.extra["reasked"] == 0
    with JudgmentCache.in_dir(tmp_path) as cache:
        assert cache.count() == 100 and all(
            h.valid for h in cache.get_many(judge._item(a, b).key for a, b in pairs).values()
        )

    # A reply that never carries an answer: failed after the retries, not cached, asked again next run.
    eight = [(texts[m.a], texts[m.b]) for m in matches[100:108]]
    want = [m.outcome_a for m in matches[100:108]]
    bad = {_once(eight, 2): "null", _once(eight, 5): "empty"}
    server2 = make_server(texts, history=history, faults=Faults(by_text=bad))
    cache2 = tmp_path / "second"
    judge2 = replay_judge(server2, cache2, max_retries=2, **FAST)
    with pytest.warns(RuntimeWarning, match=r"2 of 8 judgments failed.*HTTP 200 without an answer"):
        got = judge2.compare(eight)
    assert got[2] is UNANSWERED and got[5] is UNANSWERED
    assert [d for k, d in enumerate(got) if k not in (2, 5)] == [d for k, d in enumerate(want) if k not in (2, 5)]
    assert judge2.stats.invalid == 0 and judge2.stats.extra["failed"] == 2 and judge2.stats.retried == 4
    with JudgmentCache.in_dir(cache2) as cache:
        assert cache.count() == 6
    server2.faults.by_text = {}
    rerun = replay_judge(server2, cache2, **FAST)
    before = server2.chat_requests
    assert rerun.compare(eight) == want
    assert server2.chat_requests - before == rerun.stats.requests == 2


def test_the_model_answer_is_read_and_a_missing_one_is_a_fault():
    assert _read_completion({"choices": [{"message": {"content": "A"}}]})[2] == "A"
    assert _read_completion({"choices": [{"message": {"content": ""}}]})[2] == ""  # an (unusable) answer
    refusal = {"choices": [{"message": {"content": None, "refusal": "I can't help with that."}}]}
    assert _read_completion(refusal)[2] == "I can't help with that."  # the model's own answer
    for body, why in (
        ({"choices": []}, "no choices"),
        ({"usage": {}}, "no choices"),
        ({"choices": [{"message": {"content": None}, "finish_reason": "length"}]}, "content: null"),
    ):
        _, _, text, missing = _read_completion(body)
        assert text is None and why in missing
    assert (
        "finish_reason 'length'"
        in _read_completion({"choices": [{"message": {"content": None}, "finish_reason": "length"}]})[3]
    )


def test_a_late_failure_neither_aborts_nor_becomes_a_judgment(make_server, job, tmp_path):
    texts, history, matches = job
    pairs = [(texts[m.a], texts[m.b]) for m in matches[:10]]
    server = make_server(texts, history=history)
    judge = replay_judge(server, tmp_path, max_retries=1, **FAST)
    assert judge.compare(pairs[:5]) == [m.outcome_a for m in matches[:5]]
    server.faults.rate_500 = 1.0  # the endpoint answered before: a failure now is a failure, not a dead endpoint
    with pytest.warns(RuntimeWarning, match="3 of 3 judgments failed.*HTTP 500"):
        assert judge.compare(pairs[5:8]) == [UNANSWERED] * 3
    assert judge.stats.extra["failed"] == 3 and judge.stats.invalid == 0


def test_a_failed_text_is_counted_and_a_rerun_completes_it(make_server, arts94, tmp_path):
    texts, rows = arts94
    news = texts[:4]
    bad = news[2].strip()
    config = ScoringConfig(placement="adaptive", placement_options={"target_width": 0.3})
    server = make_server(texts, unknown_noise=NOISE, faults=Faults(by_text={bad: "500"}))
    judge = _judge(server, tmp_path, max_retries=1)
    with pytest.warns(RuntimeWarning, match="failed"):
        placed = place_texts(news, Scorer.prepare(config, judge, pool_from_rows(rows)))
    # Nothing aborted, and the failures are not unusable answers (judgments) but failures.
    assert placed.invalid == 0
    assert placed.failed == 1  # it stops at its first pair without an answer
    assert np.isnan(placed.arts[2]) and placed.incomplete.tolist() == [False, False, True, False]
    # The reference: a run without faults, on its own cache.
    clean = make_server(texts, unknown_noise=NOISE)
    reference = place_texts(news, Scorer.prepare(config, _judge(clean, tmp_path / "ref"), pool_from_rows(rows)))
    assert np.isfinite(reference.arts).all() and reference.failed == 0
    for i in (0, 1, 3):
        assert placed.arts[i] == reference.arts[i] and placed.arts_elo[i] == reference.arts_elo[i]
    # compute() reports it the same way: None, and failed beside invalid.
    from arts_metric.scoring.api import score_texts

    with pytest.warns(RuntimeWarning, match="failed"):
        out = score_texts(
            news, judge=judge, pool=rows, placement="adaptive", placement_options={"target_width": 0.3}, formulas=[]
        )
    assert out["arts"][2] is None and out["failed"] == 1 and out["invalid"] == 0

    # The fault is gone: a rerun asks only what is missing and gives the reference scores.
    server.faults.by_text = {}
    before = server.chat_requests
    rerun = _judge(server, tmp_path)
    done = place_texts(news, Scorer.prepare(config, rerun, pool_from_rows(rows)))
    np.testing.assert_array_equal(done.arts, reference.arts)
    # Exactly the failed text's calls are sent (it failed on its first pair); the rest is cached.
    assert done.failed == 0 and server.chat_requests - before == rerun.stats.requests == reference.calls_per_text[2]


def test_budget_left_texts_incomplete_not_invalid(make_server, arts94, tmp_path):
    texts, rows = arts94
    server = make_server(texts, unknown_noise=NOISE)
    config = ScoringConfig(placement="adaptive")
    judge = _judge(server, tmp_path, max_requests=12)
    with pytest.warns(RuntimeWarning, match="budget reached"):
        placed = place_texts(texts[:3], Scorer.prepare(config, judge, pool_from_rows(rows)))
    # Not asked is not unusable: no text gets a score from what the budget allowed.
    assert np.isnan(placed.arts).all() and placed.invalid == 0 and server.chat_requests == 12
    assert placed.incomplete.all() and placed.failed > 0
    full = place_texts(texts[:3], Scorer.prepare(config, _judge(server, tmp_path), pool_from_rows(rows)))
    assert np.isfinite(full.arts).all() and full.failed == 0


# -- stragglers -----------------------------------------------------------------------


def test_a_hung_request_holds_up_no_other_text(make_server, arts94, tmp_path):
    texts, rows = arts94
    slow, others = texts[0].strip(), texts[1:6]
    server = make_server(texts, unknown_noise=NOISE, faults=Faults(by_text={slow: "hang"}, hang=0.6))
    judge = _judge(server, tmp_path, timeout=30)  # a 0.6 s stall is too short to be hedged (1 s at least)
    res = place(judge, pool_from_rows(rows), [texts[0]] + others, method="adaptive", budget=6, target_width=0.0)
    assert np.isfinite(res.arts).all() and list(res.calls_per_text) == [6] * 6
    newcomer = [(t, p) for t, p in server.request_log if any(x.strip() in p for x in [slow] + others)]
    t0 = newcomer[0][0]  # after the calibration
    slow_times = [t - t0 for t, p in newcomer if slow in p]
    other_times = [t - t0 for t, p in newcomer if slow not in p]
    assert len(slow_times) == 6 and len(other_times) == 30 and server.stats["timeouts"] == 6
    # Each of the slow text's answers takes 0.6 s; the others never waited for one.
    assert max(slow_times) >= 5 * 0.6 and max(other_times) < 1.5


def test_a_straggling_request_is_hedged(make_server, job, tmp_path):
    texts, history, matches = job
    pair = (texts[matches[0].a], texts[matches[0].b])
    server = make_server(texts, history=history, faults=Faults(by_text={pair[0].strip(): "hang_once"}, hang=20.0))
    judge = replay_judge(server, tmp_path, hedges=1, hedge_after=0.3, timeout=60, **FAST)
    t0 = time.monotonic()
    assert judge.compare([pair]) == [matches[0].outcome_a]
    assert time.monotonic() - t0 < 10  # the duplicate answered; the first request (20 s) was dropped
    assert judge.stats.extra["hedged"] == 1 and judge.stats.requests == server.chat_requests == 2
    with JudgmentCache.in_dir(tmp_path) as cache:
        assert cache.count() == 1
    with pytest.raises(ValueError, match="hedge_after"):
        get_judge(f"openai:{GPT4}@{server.base_url}", hedge_after=0)


# -- pointwise placement: every request counted, the pool's scores cached --------------


def test_pointwise_placement_counts_and_caches_the_pool_scores(make_server, arts94, data_dir, tmp_path):
    texts, rows = arts94
    recorded = {r["index"]: r["answer"] for r in arts_data.load_pointwise("arts94", GPT4, data_dir)}
    server = make_server(texts, pointwise=recorded)
    # three texts of one sentence each: one unit, one recorded answer each
    news = [t for t in texts if len(sentence_units(t)) == 1][:3]
    judge = _judge(server, tmp_path, strategy="pointwise")
    placed = place_texts(news, Scorer.prepare(ScoringConfig(), judge, pool_from_rows(rows)))
    assert placed.method == "exhaustive" and np.isfinite(placed.arts).all()
    assert placed.judge_calls == 74 + 3 == server.chat_requests and placed.calls_per_text == [1, 1, 1]
    # Another run (new judge, new pool object): every score from the judgment cache.
    again = place_texts(
        news, Scorer.prepare(ScoringConfig(), _judge(server, tmp_path, strategy="pointwise"), pool_from_rows(rows))
    )
    assert server.chat_requests == 77 and again.judge_calls == 77
    np.testing.assert_array_equal(again.arts, placed.arts)
    # A pool text without an answer leaves every newcomer incomplete; the next call asks only it.
    server.faults.by_text = {texts[40].strip(): "500"}
    fresh = tmp_path / "fresh"
    judge3 = get_judge(
        f"openai:m@{server.base_url}", strategy="pointwise", cache_dir=str(fresh), max_retries=1, hedges=0, **FAST
    )
    pool3 = pool_from_rows(rows)
    with pytest.warns(RuntimeWarning, match="1 of 74 judgments failed"):
        broken = place_texts(news, Scorer.prepare(ScoringConfig(), judge3, pool3))
    assert np.isnan(broken.arts).all() and broken.incomplete.all() and broken.failed == 1
    server.faults.by_text = {}
    before = server.chat_requests
    fixed = place_texts(news, Scorer.prepare(ScoringConfig(), judge3, pool3))
    assert server.chat_requests - before == 1
    np.testing.assert_array_equal(fixed.arts, placed.arts)


def test_cache_file_holds_no_failed_judgment(make_server, job, tmp_path):
    """Every row of the cache is a model's answer (valid or invalid), never a fault."""
    texts, history, matches = job
    pairs = [(texts[m.a], texts[m.b]) for m in matches[:30]]
    server = make_server(texts, history=history, faults=Faults(rate_500=0.3, rate_null=0.2, rate_unusable=0.2, seed=9))
    judge = replay_judge(server, tmp_path, max_retries=0, max_reasks=0, **FAST)
    with pytest.warns(RuntimeWarning, match="failed"):
        got = judge.compare(pairs)
    failed = sum(d is UNANSWERED for d in got)
    invalid = sum(d is None for d in got)
    assert failed > 0 and invalid > 0 and judge.stats.extra["failed"] == failed and judge.stats.invalid == invalid
    import sqlite3

    with sqlite3.connect(tmp_path / CACHE_FILE) as conn:
        n, n_valid = conn.execute("SELECT COUNT(*), SUM(valid) FROM judgments").fetchone()
    assert n == len(pairs) - failed and n - n_valid == invalid
