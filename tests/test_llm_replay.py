"""Replaying the recorded GPT-4 / GPT-3.5 judgments through real HTTP.

The test server (tests/llm_server.py) finds the texts inside the prompt our
judge actually sends and answers from the recorded judgment of those texts, so
these tests run the whole path: prompt template -> openai client -> HTTP ->
strict parsing -> cache -> decisions -> Elo.
"""

from __future__ import annotations

import numpy as np
import pytest
from llm_server import make_server  # noqa: F401  (fixture)
from scipy.stats import spearmanr

from arts_metric import data as arts_data
from arts_metric.judges import get_judge
from arts_metric.judges.openai_judge import (
    OpenAIListwiseJudge,
    OpenAIPairwiseJudge,
    OpenAIPointwiseJudge,
)
from arts_metric.ratings.elo import ratings_from_history, run_elo

GPT4 = "gpt-4-1106-preview"
GPT35 = "gpt-3.5-turbo-1106"


@pytest.fixture(scope="module")
def arts94(data_dir):
    texts = [r["text"] for r in arts_data.load_pool_rows("arts94", data_dir)]
    gold = ratings_from_history(94, arts_data.load_history("arts94", "human", "majority", data_dir))
    return texts, gold


def _first_answer_per_ordered_pair(history):
    """What a cache keyed by the texts in order must give: a question asked twice
    gets the first recorded answer both times."""
    first: dict[tuple[int, int], int | None] = {}
    out = []
    for m in history:
        first.setdefault((m.a, m.b), m.harder)
        out.append(arts_data.Match(m.match, m.a, m.b, first[(m.a, m.b)]))
    return out


def _replay(make_server, texts, history, tmp_path, model, **options):
    server = make_server(texts, history=history, model=model)
    judge = get_judge(
        f"openai:{model}@{server.base_url}", cache_dir=str(tmp_path), progress=False, concurrency=32, **options
    )
    pairs = [(texts[m.a], texts[m.b]) for m in history]
    decisions = judge.compare(pairs)
    return server, judge, decisions


@pytest.mark.parametrize(
    "model, run",
    [
        (GPT4, "pairwise-run1"),
        (GPT4, "pairwise-run2"),
        (GPT35, "pairwise-run1"),
        (GPT35, "pairwise-run2"),
        (GPT35, "pairwise-run3"),
        (GPT35, "pairwise-run4"),
    ],
)
def test_pairwise_replay_gives_the_history_elo(make_server, arts94, data_dir, tmp_path, model, run):
    texts, gold = arts94
    history = arts_data.load_history("arts94", model, run, data_dir)
    server, judge, decisions = _replay(make_server, texts, history, tmp_path, model)
    assert isinstance(judge, OpenAIPairwiseJudge)
    assert None not in decisions
    # Every prompt was recognised as the A.2.2 prompt and both texts were found in it.
    assert server.stats["kind_pairwise"] == server.chat_requests == judge.stats.requests
    assert server.stats["unknown_pairs"] == 0
    ratings = run_elo(94, [(m.a, m.b, d) for m, d in zip(history, decisions)])
    expected = ratings_from_history(94, _first_answer_per_ordered_pair(history))
    np.testing.assert_array_equal(ratings, expected)
    direct = ratings_from_history(94, history)
    n_conflicts = sum(a.harder != b.harder for a, b in zip(history, _first_answer_per_ordered_pair(history)))
    if n_conflicts == 0:  # GPT-4's runs and GPT-3.5's runs 2 and 4: identical to the history itself
        np.testing.assert_array_equal(ratings, direct)
    else:  # GPT-3.5 runs 1 and 3 answered one repeated ordered pair differently the second time
        assert n_conflicts == 1
    rho = spearmanr(ratings, gold)[0]
    assert rho == pytest.approx(spearmanr(direct, gold)[0], abs=0.01)
    if model == GPT4:
        assert rho == pytest.approx(0.7949, abs=0.02)  # paper Table 3: .7949
    else:
        assert 0.45 < rho < 0.65
    # Repeated ordered pairs were asked once.
    assert judge.stats.requests == len({(m.a, m.b) for m in history})


def test_pointwise_replay_gpt4_and_gpt35(make_server, arts94, data_dir, tmp_path):
    texts, gold = arts94
    results = {}
    for model in (GPT4, GPT35):
        recorded = arts_data.load_pointwise("arts94", model, data_dir)
        server = make_server(texts, pointwise={r["index"]: r["answer"] for r in recorded}, model=model)
        judge = get_judge(
            f"openai:{model}@{server.base_url}", strategy="pointwise", cache_dir=str(tmp_path), progress=False
        )
        assert isinstance(judge, OpenAIPointwiseJudge)
        latent = judge.score(texts)
        assert server.stats["kind_pointwise"] == 94 and server.stats["unknown_texts"] == 0
        expected = np.array([float(r["answer"]) for r in sorted(recorded, key=lambda r: r["index"])])
        np.testing.assert_array_equal(latent, expected)  # 0 = very easy ... 1 = very challenging
        results[model] = spearmanr(latent, gold)[0]
        # The same agreement as the recorded answers themselves give (no published figure for GPT-3.5).
        assert results[model] == pytest.approx(spearmanr(expected, gold)[0])
    assert results[GPT4] == pytest.approx(0.69, abs=0.02)  # the figure; paper: .7128
    assert results[GPT4] == pytest.approx(0.7128, abs=0.03)


def test_listwise_replay_gpt4(make_server, arts94, data_dir, tmp_path):
    texts, gold = arts94
    recorded = arts_data.load_listwise("arts94", GPT4, data_dir)
    server = make_server(texts, listwise=recorded)
    judge = get_judge(f"openai:{GPT4}@{server.base_url}", strategy="listwise", cache_dir=str(tmp_path), progress=False)
    assert isinstance(judge, OpenAIListwiseJudge)
    latent = judge.score(texts)
    assert server.chat_requests == 1 and server.stats["kind_listwise"] == 1
    # The recorded answer names an id the prompt does not have and leaves one text out.
    assert judge.stats.extra["listwise_unknown"] == 1 and judge.stats.extra["listwise_missing"] == 1
    missing = set(range(94)) - set(recorded)
    assert set(np.flatnonzero(np.isnan(latent))) == missing
    ok = ~np.isnan(latent)
    rho = spearmanr(latent[ok], gold[ok])[0]
    assert rho == pytest.approx(0.42, abs=0.02)  # paper: .3759
    # rank() returns the model's order (easiest first) as indices into texts
    order = judge.rank(texts)
    assert order == [i for i in recorded if i < 94]
    assert server.chat_requests == 1  # answered from the cache


def test_pairwise_expert_sends_the_topic(make_server, arts94, data_dir, tmp_path):
    texts, _ = arts94
    history = arts_data.load_history("arts94", GPT4, "pairwise-run1", data_dir)[:60]
    server, judge, decisions = _replay(
        make_server, texts, history, tmp_path, GPT4, strategy="pairwise_expert", persona="medical"
    )
    assert server.topics == {"medical": server.chat_requests}
    assert decisions == [m.outcome_a for m in _first_answer_per_ordered_pair(history)]
    assert judge.name.endswith("persona=medical")
    # Same texts, another persona: another prompt, so nothing comes from the first persona's cache.
    server2, judge2, _ = _replay(make_server, texts, history, tmp_path, GPT4, persona="geography")
    assert judge2.stats.cached == 0 and server2.topics == {"geography": server2.chat_requests}


@pytest.mark.parametrize("style", ["simple", "ascb", "own_reasoning"])
def test_ease_1to5_answers_with_reasons(make_server, arts94, data_dir, tmp_path, style):
    pool, _ = arts94
    texts = pool[:30]
    recorded = {r["index"]: r["answer"] for r in arts_data.load_pointwise("arts94", GPT4, data_dir)}
    server = make_server(pool, pointwise=recorded)
    judge = get_judge(
        f"openai:m@{server.base_url}", strategy="ease_1to5", style=style, cache_dir=str(tmp_path), progress=False
    )
    values = judge.rate(texts)
    assert server.stats["kind_ease"] == 30
    # The server rates ease = round(5 - 4 * recorded score); the judge maps back to "higher = harder".
    for i, v in enumerate(values):
        assert v["answer"] == min(5, max(1, round(5 - 4 * float(recorded[i]))))
        assert v["reason"]
    latent = judge.score(texts)
    np.testing.assert_allclose(latent, [(5 - v["answer"]) / 4 for v in values])
    if style == "own_reasoning":
        assert "Do not use traditional readability formulas" in server.last_prompts[-1]
    if style == "ascb":
        assert "American Society for Cell Biology" in server.last_prompts[-1]


def test_cefr_with_k_examples(make_server, arts94, data_dir, tmp_path):
    texts, _ = arts94
    recorded = {r["index"]: r["answer"] for r in arts_data.load_pointwise("arts94", GPT4, data_dir)}
    examples = [(texts[i], ["A1", "A2", "B1", "B2", "C1", "C2"][i % 6]) for i in range(60, 70)]
    server = make_server(texts, pointwise=recorded)
    judge = get_judge(
        f"openai:m@{server.base_url}", strategy="cefr", examples=examples, k=3, cache_dir=str(tmp_path), progress=False
    )
    levels = judge.rate(texts[:20])
    assert levels == [1 + round(5 * float(recorded[i])) for i in range(20)]
    prompt = server.last_prompts[-1]
    assert prompt.count("\nLevel: ") == 3 and "C2 (6): Can understand with ease" in prompt
    np.testing.assert_allclose(judge.score(texts[:20]), [(lv - 1) / 5 for lv in levels])
    assert server.stats["kind_cefr"] == 20  # the second call came from the cache
