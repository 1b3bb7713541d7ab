"""Disk faults of the judgment cache, on real SQLite files: a full disk keeps judging without the
cache and warns once; a damaged file or row is an error that names the file and the way out."""

from __future__ import annotations

import sqlite3
import warnings

import pytest
from llm_server import ReplayServer

from arts_metric.judges import get_judge
from arts_metric.llm.cache import CACHE_FILE, CacheDamagedError, JudgmentCache

TEXTS = [f"Text number {i} says {'many long words ' * (i % 7)}and stops here." for i in range(12)]
PAIRS = [(a, b) for a in TEXTS[:8] for b in TEXTS[:8] if a != b][:40]


@pytest.fixture
def server():
    srv = ReplayServer(TEXTS)
    srv.start()
    yield srv
    srv.stop()


def judge_for(server, cache_dir):
    return get_judge(f"openai:m@{server.base_url}", cache_dir=str(cache_dir), progress=False, hedges=0)


def rows(cache_dir) -> int:
    with sqlite3.connect(cache_dir / CACHE_FILE) as conn:
        return conn.execute("SELECT COUNT(*) FROM judgments").fetchone()[0]


def test_a_full_cache_disk_keeps_judging_and_warns_once(server, tmp_path, monkeypatch):
    """``PRAGMA max_page_count`` makes SQLite answer SQLITE_FULL ("database or disk is full") exactly
    as a full disk does, on the cache's own connection."""
    opened = JudgmentCache.in_dir.__func__

    def tiny_disk(cls, cache_dir=None):
        cache = opened(cls, cache_dir)
        pages = cache._conn.execute("PRAGMA page_count").fetchone()[0]
        cache._conn.execute(f"PRAGMA max_page_count = {pages}")
        return cache

    monkeypatch.setattr(JudgmentCache, "in_dir", classmethod(tiny_disk))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        decisions = judge_for(server, tmp_path).compare(PAIRS)
    full = [w for w in caught if "cannot write to the judgment cache" in str(w.message)]
    assert len(full) == 1 and str(tmp_path / CACHE_FILE) in str(full[0].message)
    assert "disk is full" in str(full[0].message) and "writable folder" in str(full[0].message)
    assert None not in decisions and len(decisions) == len(PAIRS)  # every paid answer used
    assert server.chat_requests == len(PAIRS)  # none asked twice
    assert 0 < rows(tmp_path) < len(PAIRS)  # what fitted was kept


def _fill(server, cache_dir) -> None:
    judge_for(server, cache_dir).compare(PAIRS[:10])
    assert rows(cache_dir) == 10


@pytest.mark.parametrize("where", ["header", "pages"])
def test_a_damaged_cache_file_is_a_clear_error(server, tmp_path, where):
    _fill(server, tmp_path)
    path = tmp_path / CACHE_FILE
    data = bytearray(path.read_bytes())
    if where == "header":
        data[:16] = b"not a database!!"
    else:  # every page after the first (the schema) overwritten
        data[4096:] = b"\xa5" * (len(data) - 4096)
    path.write_bytes(bytes(data))
    before = server.chat_requests
    with pytest.raises(CacheDamagedError) as info:
        judge_for(server, tmp_path).compare(PAIRS[:10])
    message = str(info.value)
    assert str(path) in message and "move it aside" in message and "ARTS_CACHE_DIR" in message
    assert server.chat_requests == before  # nothing paid again behind the user's back


def test_an_unreadable_row_is_a_clear_error(server, tmp_path):
    _fill(server, tmp_path)
    with sqlite3.connect(tmp_path / CACHE_FILE) as conn:
        key = conn.execute("SELECT key FROM judgments LIMIT 1").fetchone()[0]
        conn.execute("UPDATE judgments SET value = '{not json' WHERE key = ?", (key,))
    with pytest.raises(CacheDamagedError) as info:
        judge_for(server, tmp_path).compare(PAIRS[:10])
    message = str(info.value)
    assert str(tmp_path / CACHE_FILE) in message and key in message and "DELETE FROM judgments" in message
