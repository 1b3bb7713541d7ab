"""The SQLite judgment cache: keys, WAL, two writers at once, location."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arts_metric.llm.cache import (
    CACHE_FILE,
    JudgmentCache,
    default_cache_dir,
    judgment_key,
)

ROOT = Path(__file__).resolve().parent.parent
BASE = dict(
    model="m",
    strategy="pairwise",
    prompt_version="arts_pairwise/v1:abc",
    params={"temperature": 0.0},
    texts=("x", "y"),
)


def _put(cache: JudgmentCache, key: str, value, valid=True) -> None:
    cache.put(
        key,
        model="m",
        strategy="pairwise",
        prompt_version="v",
        params={"temperature": 0.0},
        texts=("x", "y"),
        endpoint="http://h/v1",
        answer=str(value),
        value=value,
        valid=valid,
        requests=1,
        prompt_tokens=3,
        completion_tokens=1,
    )


def test_key_covers_model_strategy_prompt_params_and_text_order():
    k = judgment_key(**BASE)
    assert k == judgment_key(**BASE) and len(k) == 64
    variants = [
        dict(BASE, model="m2"),
        dict(BASE, strategy="pairwise_expert"),
        dict(BASE, prompt_version="arts_pairwise/v2:def"),
        dict(BASE, params={"temperature": 0.7}),
        dict(BASE, params={"temperature": 0.0, "seed": 1}),
        dict(BASE, texts=("y", "x")),
        dict(BASE, texts=("x", "y ")),
    ]
    keys = {judgment_key(**v) for v in variants}
    assert len(keys) == len(variants) and k not in keys
    assert judgment_key(**BASE, extra={"topic": "medical"}) != k


def test_put_get_roundtrip_in_wal_mode(tmp_path):
    with JudgmentCache.in_dir(tmp_path) as cache:
        _put(cache, "k1", "A")
        _put(cache, "k2", {"answer": 4.0, "reason": "plain words"})
        _put(cache, "k3", None, valid=False)
        got = cache.get_many(["k1", "k2", "k3", "nope"])
        assert cache.count() == 3
    assert got["k1"].value == "A" and got["k1"].valid
    assert got["k2"].value == {"answer": 4.0, "reason": "plain words"}
    assert not got["k3"].valid and "nope" not in got
    conn = sqlite3.connect(tmp_path / CACHE_FILE)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_two_processes_write_the_same_file_at_once(tmp_path):
    """Two runs sharing one cache: no 'database is locked', no lost rows."""
    script = (
        "import sys\n"
        "from arts_metric.llm.cache import JudgmentCache\n"
        "tag = sys.argv[2]\n"
        "with JudgmentCache.in_dir(sys.argv[1]) as c:\n"
        "    for i in range(300):\n"
        "        c.put(f'{tag}-{i}', model='m', strategy='s', prompt_version='v', params={}, texts=(str(i),),\n"
        "              endpoint='e', answer='A', value='A', valid=True, requests=1, prompt_tokens=1, completion_tokens=1)\n"
        "        c.get_many([f'{tag}-{i}'])\n"
        "        if i % 50 == 0: c.put('shared', model='m', strategy='s', prompt_version='v', params={}, texts=('s',),\n"
        "              endpoint='e', answer=tag, value=tag, valid=True, requests=1, prompt_tokens=1, completion_tokens=1)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(tmp_path), tag], env=env, stderr=subprocess.PIPE)
        for tag in "ab"
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()[-2000:]
    with JudgmentCache.in_dir(tmp_path) as cache:
        assert cache.count() == 601
        assert cache.get_many(["shared"])["shared"].value in ("a", "b")


def test_cache_location(tmp_path, monkeypatch):
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path / "here"))
    assert default_cache_dir() == tmp_path / "here"
    with JudgmentCache.in_dir() as cache:
        _put(cache, "k", "B")
    assert (tmp_path / "here" / CACHE_FILE).is_file()
    monkeypatch.delenv("ARTS_CACHE_DIR")
    assert default_cache_dir().name == "arts-metric"


def test_judge_uses_arts_cache_dir(tmp_path, monkeypatch):
    from arts_metric.judges import get_judge
    from arts_metric.llm.runner import EndpointError

    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path))
    judge = get_judge("openai:m@http://127.0.0.1:9/v1", progress=False, max_retries=0)
    with pytest.raises(EndpointError):
        judge.compare([("a", "b")])  # nobody listens; the cache file is still created where it belongs
    assert (tmp_path / CACHE_FILE).is_file()


def test_unwritable_cache_dir_warns_and_judges_without_cache(tmp_path):
    from llm_server import ReplayServer

    from arts_metric.judges import get_judge

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with ReplayServer(["first text", "second text"]) as server:
        judge = get_judge(f"openai:m@{server.base_url}", cache_dir=str(blocker / "cache"), progress=False)
        with pytest.warns(RuntimeWarning, match="cache unavailable"):
            assert judge.compare([("first text", "second text")]) == [0.0]  # the shorter text is easier
        assert server.chat_requests == 1


def test_other_model_or_prompt_version_asks_again_the_same_judge_does_not(tmp_path, monkeypatch):
    """End to end through the HTTP server: a cached answer is reused only by the same
    model, prompt version and sampling; any of them changed sends the requests again."""
    from llm_server import ReplayServer

    from arts_metric.judges import get_judge
    from arts_metric.llm import prompts

    texts = ["A short one.", "A somewhat longer second sentence.", "The third and by far the longest sentence here."]
    pairs = [(texts[0], texts[1]), (texts[2], texts[0]), (texts[1], texts[2])]
    cache = str(tmp_path / "cache")

    def new_requests(spec: str, **options) -> tuple[int, list]:
        before = server.chat_requests
        judge = get_judge(
            f"{spec}@{server.base_url}", cache_dir=cache, progress=False, hedges=0, **options
        )  # exact counts
        try:
            answers = judge.compare(pairs)
        finally:
            judge.close()
        return server.chat_requests - before, answers

    with ReplayServer(texts) as server:
        sent, answers = new_requests("openai:m")
        assert sent >= len(pairs) and answers == [0.0, 1.0, 0.0]  # the longer text is the harder one
        assert new_requests("openai:m") == (0, answers)  # same model, prompt and sampling: all cached
        assert new_requests("openai:m2") == (sent, answers)  # another model
        assert new_requests("openai:m", temperature=0.5)[0] == sent  # other sampling
        # A new release of the pairwise prompt with the same wording (only its version changes).
        manifest = {**prompts._manifest(), "arts_pairwise": {**prompts._manifest()["arts_pairwise"], "version": "v2"}}
        try:
            with monkeypatch.context() as patched:
                patched.setattr(prompts, "_manifest", lambda: manifest)
                prompts.load_template.cache_clear()
                assert prompts.load_template("arts_pairwise").version.startswith("arts_pairwise/v2:")
                assert new_requests("openai:m") == (sent, answers)
                assert new_requests("openai:m") == (0, answers)
        finally:
            prompts.load_template.cache_clear()
        assert prompts.load_template("arts_pairwise").version.startswith("arts_pairwise/v1:")
        assert new_requests("openai:m") == (0, answers)  # the v1 answers are still there for v1


def test_keys_stay_those_of_schema_1_so_old_caches_keep_answering():
    """A key is the SHA-256 of the canonical JSON (sorted keys, UTF-8, no spaces) of schema 1's
    payload: any other form would silently miss every judgment users have cached."""
    import hashlib
    import json

    payload = {
        "schema": 1,
        "model": "gpt-4o",
        "strategy": "pairwise",
        "prompt": "arts_pairwise/v1:abc",
        "params": {"max_tokens": 8, "temperature": 0.0},
        "texts": ["Café au lait.", "Straße"],
        "extra": {"topic": "médical"},
    }
    canonical = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    key = judgment_key(
        model="gpt-4o",
        strategy="pairwise",
        prompt_version="arts_pairwise/v1:abc",
        params={"temperature": 0.0, "max_tokens": 8},
        texts=("Café au lait.", "Straße"),
        extra={"topic": "médical"},
    )
    assert key == hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def test_get_many_finds_every_key_of_a_long_list(tmp_path):
    with JudgmentCache.in_dir(tmp_path) as cache:
        for i in range(1201):
            _put(cache, f"k{i}", i)
        got = cache.get_many([f"k{i}" for i in range(1201)] + ["nope"])
    assert sorted(v.value for v in got.values()) == list(range(1201))


def test_texts_are_stored_readable_and_fields_by_keyword_only(tmp_path):
    with JudgmentCache.in_dir(tmp_path) as cache:
        cache.put(
            "k",
            model="m",
            strategy="pairwise",
            prompt_version="v",
            params={},
            texts=("Café", "Straße"),
            endpoint="http://h/v1",
            answer="A",
            value="A",
            valid=True,
            requests=1,
            prompt_tokens=1,
            completion_tokens=1,
        )
        with pytest.raises(TypeError):
            cache.put("k2", "m", "pairwise", "v", {}, ("a", "b"), "http://h/v1", "A", "A", True, 1, 1, 1)
    conn = sqlite3.connect(tmp_path / CACHE_FILE)
    assert conn.execute("SELECT texts FROM judgments").fetchone()[0] == '["Café", "Straße"]'
    conn.close()
