"""The metric with an LLM judge end to end: ``compute(..., judge="openai:<model>")`` with
the endpoint taken from ``OPENAI_BASE_URL``, against the replay server."""

from __future__ import annotations

import json

import evaluate
import pytest
from llm_server import OWN_POOL, make_server  # noqa: F401  (fixture)
from scipy.stats import spearmanr

from arts_metric import data as arts_data
from arts_metric.evaluate_module.registry import module_script_path
from arts_metric.ratings.elo import ratings_from_history

GPT4 = "gpt-4-1106-preview"


def test_compute_with_openai_judge_from_environment(make_server, data_dir, tmp_path, monkeypatch):
    texts = [r["text"] for r in arts_data.load_pool_rows("arts94", data_dir)]
    human = ratings_from_history(94, arts_data.load_history("arts94", "human", "majority", data_dir))
    # GPT-4's 24-matches-per-text run covers most pairs of ARTS94 texts.
    server = make_server(texts, history=arts_data.load_history("arts94", GPT4, "pairwise-24-per-text", data_dir))
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path))
    # A user pool with known ratings: the other 74 texts with the human Elo ratings.
    pool = [{"text": t, "elo": float(r)} for t, r in zip(texts[20:], human[20:])]
    metric = evaluate.load(str(module_script_path()))
    out = metric.compute(predictions=texts[:20], pool=pool, judge=f"openai:{GPT4}")
    stats = out["judge_stats"]
    assert out["judge"] == f"openai:{GPT4}" and out["invalid"] == 0
    assert stats["requests"] == server.chat_requests == server.stats["kind_pairwise"] > 0
    assert stats["prompt_tokens"] == server.prompt_tokens
    assert all(0.0 <= a <= 1.0 for a in out["arts"])
    # The recorded GPT-4 judgments place the texts roughly where the humans did.
    assert spearmanr(out["arts"], human[:20])[0] > 0.5
    # Same call again: everything from the cache, same scores.
    again = metric.compute(predictions=texts[:20], pool=pool, judge=f"openai:{GPT4}")
    assert again["arts"] == pytest.approx(out["arts"])
    assert again["judge_stats"]["requests"] == 0 and server.chat_requests == stats["requests"]


def test_listwise_judge_ranks_newcomers_together_with_the_pool(make_server, data_dir, tmp_path, monkeypatch):
    """A listwise position is relative to the texts ranked with it: the newcomers must be
    ranked together with pool texts, not in a ranking of their own (regression)."""
    texts = [r["text"] for r in arts_data.load_pool_rows("arts94", data_dir)]
    shortest = sorted(range(94), key=lambda i: len(texts[i]))[:10]
    # Without a recorded ranking the server sorts by length; a pool rated by length agrees with it.
    server = make_server(texts)
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path))
    pool = [{"text": texts[i], "elo": float(len(texts[i]))} for i in range(94) if i not in shortest]
    metric = evaluate.load(str(module_script_path()))
    judge = f"openai:m@{server.base_url}?strategy=listwise&progress=false"
    out = metric.compute(predictions=[texts[i] for i in shortest], pool=pool, judge=judge)
    assert server.stats["kind_listwise"] == server.chat_requests > 0
    # Shorter than every pool text, so easier than all of them (a ranking of their own spread them over 0..1).
    assert max(out["arts"]) < 0.1


# --- every input and option is checked before the first paid request ---

OUTPUTS = ["Cats sleep a lot.", "The mitochondrion is the site of oxidative phosphorylation.", "We ate soup."]


@pytest.mark.parametrize(
    "bad, match",
    [
        ({"human_scores": [3, 3, 3]}, "human_scores are all 3"),  # used to fail after 182 requests
        ({"human_scores": [1, float("nan"), 2]}, r"human_scores\[1\] is not a finite number"),
        ({"human_scores": [1, 2]}, "human_scores has 2 items but predictions has 3"),
        ({"predictions": [OUTPUTS[0], "\ud800", OUTPUTS[2]]}, r"predictions\[1\] is not valid Unicode"),
        ({"predictions": [OUTPUTS[0], " ", OUTPUTS[2]]}, r"predictions\[1\] is empty"),
        ({"sources": ["A source.", None, "Another."]}, r"sources\[1\] is None"),
        ({"references": [["A."], ["B."], []]}, r"references\[2\] must be a non-empty list"),
        ({"placement_options": {"budget": 0}}, "budget must be a positive integer"),
        ({"placement_options": {"target_width": 2.0}}, r"target_width must be in \[0, 1\]"),
        ({"placement": "elo", "placement_options": {"k": -1}}, "k must be > 0"),
        ({"judge_options": {"concurrency": "many"}}, "concurrency"),
        ({"empty": "skip"}, "empty must be one of 'error', 'score'"),
    ],
)
def test_bad_input_sends_no_request(make_server, tmp_path, monkeypatch, bad, match):
    server = make_server(OWN_POOL + OUTPUTS)
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path))
    metric = evaluate.load(str(module_script_path()))
    args = {
        "predictions": OUTPUTS,
        "pool": [{"text": t} for t in OWN_POOL],
        "judge": f"openai:m@{server.base_url}",
        "judge_options": {"progress": False},
        "formulas": [],
    }
    with pytest.raises(ValueError, match=match):
        metric.compute(**{**args, **bad})
    assert server.chat_requests == 0
    # the same call with good inputs does pay (so the count above could have failed)
    good = metric.compute(**args, human_scores=[1, 3, 2])
    assert server.chat_requests > 0 and good["judge_stats"]["requests"] == server.chat_requests


def test_load_time_llm_judge_reports_each_calls_own_requests(make_server, tmp_path, monkeypatch):
    """A judge built once by evaluate.load serves every compute(); judge_stats are per call."""
    server = make_server(OWN_POOL + OUTPUTS)
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path))
    metric = evaluate.load(
        str(module_script_path()),
        judge=f"openai:m@{server.base_url}",
        judge_options={"progress": False},
        pool=[{"text": t, "elo": 1000.0 + 60 * i} for i, t in enumerate(OWN_POOL)],
        formulas=[],
    )
    assert server.chat_requests == 0  # building the judge and pool sends nothing
    first = metric.compute(predictions=OUTPUTS)
    assert (
        first["judge"] == f"openai:m@{server.base_url}"
        and first["judge_stats"]["requests"] == server.chat_requests > 0
    )
    again = metric.compute(predictions=OUTPUTS)  # from the cache
    assert again["judge_stats"]["requests"] == 0 and again["arts"] == pytest.approx(first["arts"])
    # the line the CLI prints, ready to print; text, so the corpus-only result leaves it out
    n = server.chat_requests
    assert first["judge_report"].startswith(
        f"{n} judgments (0 from the cache, {n} answered by the model); {n} requests sent: {n} first asks, 0 retries"
    )
    assert again["judge_report"].startswith(f"{n} judgments ({n} from the cache, 0 answered by the model); 0 requests")
    json.dumps(first, allow_nan=False)
    corpus = metric.compute(predictions=OUTPUTS, corpus_only=True)
    assert corpus and all(v is None or isinstance(v, float) for v in corpus.values()) and server.chat_requests == n


def test_no_usable_answer_gives_none_not_nan(make_server, tmp_path, monkeypatch):
    """When no text gets a usable decision, `arts_mean` was NaN and broke
    json.dumps(result, allow_nan=False); undefined values are None."""
    from llm_server import Faults

    server = make_server(OWN_POOL + OUTPUTS, faults=Faults(rate_unusable=1.0))
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path))
    metric = evaluate.load(str(module_script_path()))
    out = metric.compute(
        predictions=OUTPUTS,
        sources=OUTPUTS[::-1],
        human_scores=[1, 2, 3],
        pool=[{"text": t, "elo": 1000.0 + 60 * i} for i, t in enumerate(OWN_POOL)],
        judge=f"openai:m@{server.base_url}",
        judge_options={"progress": False, "max_reasks": 0},
    )
    assert server.chat_requests > 0 and out["invalid"] > 0
    strict = json.loads(json.dumps(out, allow_nan=False))
    assert strict["arts"] == [None] * 3 and strict["arts_mean"] is None and strict["arts_delta_mean"] is None
    assert strict["correlation"]["arts"]["spearman"] is None and strict["correlation"]["fkgl"]["n"] == 3
