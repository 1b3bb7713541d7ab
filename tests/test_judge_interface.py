"""What callers ask of any judge without probing attributes: a description for
reports, a quiet mode for progress bars, the preferred batch of pairs, and the
caller's context when the judge is made."""

from __future__ import annotations

import json

import pytest
from llm_server import make_server  # noqa: F401  (fixture)

from arts_metric import data as arts_data
from arts_metric.judges import Judge, JudgeContext, get_judge

GPT4 = "gpt-4-1106-preview"
A, B = "The cat sat on the mat.", "The lessee shall indemnify the lessor."


@pytest.fixture(scope="module")
def arts94(data_dir):
    texts = [r["text"] for r in arts_data.load_pool_rows("arts94", data_dir)]
    return texts, arts_data.load_history("arts94", GPT4, "pairwise-run1", data_dir)


def test_quiet_silences_the_judge_bar_and_restores_it(make_server, tmp_path, capsys):
    server = make_server([A, B])
    judge = get_judge(f"openai:m@{server.base_url}", cache=False, hedges=0)  # exact request count below
    assert judge.progress is True
    judge.compare([(A, B)])
    assert "m pairwise" in capsys.readouterr().err  # the judge's own bar
    with judge.quiet() as same:
        assert same is judge and judge.progress is False
        judge.compare([(A, B)])
    assert capsys.readouterr().err == ""
    assert judge.progress is True
    with pytest.raises(RuntimeError), judge.quiet():
        raise RuntimeError("a failing round")
    assert judge.progress is True  # restored after an error too
    off = get_judge(f"openai:m@{server.base_url}", cache=False, progress=False, hedges=0)
    with off.quiet():
        pass
    assert off.progress is False  # quiet never turns a bar on
    assert server.chat_requests == 2


def test_quiet_keeps_a_judge_that_decides_for_itself():
    learned = get_judge("learned")
    assert learned.progress is None  # the learned judge shows a bar only for long jobs
    with learned.quiet():
        assert learned.progress is False
    assert learned.progress is None


def test_describe_names_the_judge_without_secrets(make_server, arts94, tmp_path):
    texts, history = arts94
    server = make_server(texts, history=history, api_key="sk-very-secret")
    url = server.base_url
    judge = get_judge(
        f"openai:{GPT4}@{url}?persona=medical", api_key="sk-very-secret", cache_dir=str(tmp_path), progress=False
    )
    judge.compare([(texts[m.a], texts[m.b]) for m in history[:3]])
    info = judge.describe()
    assert info["judge"] == judge.name and info["model"] == GPT4
    assert (
        info["endpoint"] == server.base_url and info["strategy"] == "pairwise_expert" and info["persona"] == "medical"
    )
    assert info["prompt_version"].startswith("arts_pairwise_expert")
    assert info["stats"]["calls"] == 3 and info["stats"]["requests"] == 3
    assert "secret" not in json.dumps(info)
    with_credentials = get_judge(
        "openai:m", base_url="http://user:secret-pw@127.0.0.1:9/v1?key=secret-q", api_key="sk-very-secret"
    )
    described = with_credentials.describe()
    assert described["endpoint"] == "http://127.0.0.1:9/v1" and "secret" not in json.dumps(described)
    learned = get_judge("learned")
    assert learned.describe() == {"judge": "learned", "stats": learned.stats.as_dict()}


def test_preferred_batch(data_dir):
    history = get_judge(f"history:arts94/{GPT4}/pairwise-run1", data_dir=data_dir)
    assert history.preferred_batch is None  # a repeated pair's k-th record replays only within one call
    for judge in (get_judge("learned"), get_judge("openai:m@http://127.0.0.1:9/v1")):
        assert isinstance(judge.preferred_batch, int) and judge.preferred_batch >= 1
    assert Judge.preferred_batch == 32


def test_context_gives_the_history_judge_texts_and_data(arts94, data_dir, tmp_path, monkeypatch):
    texts, history = arts94
    pairs = [(texts[m.a], texts[m.b]) for m in history[:20]]
    expected = [m.outcome_a for m in history[:20]]
    path = tmp_path / "h.jsonl"
    path.write_text(
        "".join(
            json.dumps({"match": i, "a": m.a, "b": m.b, "harder": m.harder}) + "\n" for i, m in enumerate(history[:20])
        )
    )
    assert get_judge(f"history:{path}", context=JudgeContext(texts=texts)).compare(pairs) == expected
    with pytest.raises(ValueError, match="pool texts"):
        get_judge(f"history:{path}", context=JudgeContext(data_dir=data_dir))
    # The pool given as an option wins over the context's texts (here in another order).
    judge = get_judge(f"history:{path}", pool="arts94", data_dir=data_dir, context=JudgeContext(texts=texts[::-1]))
    assert judge.compare(pairs) == expected
    # POOL/JUDGE/RUN found through the context's data folder alone.
    monkeypatch.setenv("ARTS_DATA_DIR", str(tmp_path / "missing"))
    judge = get_judge(f"history:arts94/{GPT4}/pairwise-run1", context=JudgeContext(data_dir=data_dir))
    assert judge.compare(pairs) == expected


def test_factories_without_a_context_parameter_ignore_it():
    ctx = JudgeContext(texts=[A, B], data_dir="/nowhere")
    assert get_judge("learned", context=ctx).name == "learned"
    assert get_judge("openai:m@http://127.0.0.1:9/v1", context=ctx).name == "openai:m@http://127.0.0.1:9/v1"
    assert ctx.texts == (A, B)
    with pytest.raises(ValueError, match="not one string"):
        JudgeContext(texts="one text")
