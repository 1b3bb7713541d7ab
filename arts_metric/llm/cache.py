"""The judgment cache: one SQLite file, one row per judgment, written as it arrives.

The key is the SHA-256 of the model, the strategy, the prompt version(s), the
sampling parameters and the texts in order (plus the persona or in-context
examples where a strategy has them); these are also kept as readable columns.
The endpoint URL is recorded (without credentials) but is not part of the key,
so a server that moves to another port keeps its cache; use another
``cache_dir`` to keep two servers that serve different weights under one
model name apart. API keys are never written.

WAL mode with a busy timeout makes two runs on the same file at once safe:
readers never block, writers queue for the lock, and every row is committed on
its own so a killed run loses at most the judgments still in flight.

Disk faults: a cache that cannot be written (disk full, I/O error, file made
read-only) stops caching with one warning that names the file, and the run
goes on (the judgment just paid for is still used); a damaged file or row is a
:class:`CacheDamagedError` that names the file and how to recover, never a
silent miss that would pay for every judgment again.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import platformdirs

from arts_metric.sqlite_store import connect_wal

CACHE_FILE = "llm_judgments.sqlite"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judgments (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    strategy TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    params TEXT NOT NULL,
    texts TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    answer TEXT,
    value TEXT,
    valid INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    created REAL NOT NULL
)
"""


def default_cache_dir() -> Path:
    """``$ARTS_CACHE_DIR`` if set, else the user cache directory / ``arts-metric``."""
    env = os.environ.get("ARTS_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_cache_dir("arts-metric", appauthor=False))


def judgment_key(
    model: str,
    strategy: str,
    prompt_version: str,
    params: Mapping[str, Any],
    texts: Sequence[str],
    extra: Mapping[str, Any] | None = None,
) -> str:
    """Deterministic cache key (hex SHA-256) of everything that determines an answer."""
    payload = {
        "schema": SCHEMA_VERSION,
        "model": model,
        "strategy": strategy,
        "prompt": prompt_version,
        "params": dict(sorted(params.items())),
        "texts": list(texts),
        "extra": dict(sorted((extra or {}).items())),
    }
    blob = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


#: SQLite primary result codes of a file that cannot take more writes (full, I/O error, read-only).
_UNWRITABLE = {sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN}
#: ... and of a damaged file.
_DAMAGED = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}


class CacheDamagedError(Exception):
    """The judgment cache file (or a row in it) cannot be read; the message names the file and the way out."""


def _code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def _damaged(path: Path, exc: Exception) -> CacheDamagedError:
    return CacheDamagedError(
        f"the judgment cache {path} is damaged ({exc}): move it aside (its judgments are then asked again) "
        "or point cache_dir= / ARTS_CACHE_DIR at another folder; cache=False judges without a cache"
    )


@dataclass
class CachedJudgment:
    """A stored judgment: the parsed value (JSON-decoded) or ``valid=False`` for an
    answer that stayed unusable after every re-ask."""

    value: Any
    valid: bool
    answer: str | None


class JudgmentCache:
    """A SQLite judgment store. Use from one thread (open one per run)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.writable = True  # False once a write failed for want of space or permission
        try:
            # autocommit: each INSERT is its own durable transaction.
            self._conn = connect_wal(self.path, timeout=60.0, autocommit=True)
        except sqlite3.DatabaseError as exc:
            if _code(exc) in _DAMAGED:
                raise _damaged(self.path, exc) from None
            raise
        try:
            self._conn.execute(_SCHEMA)
        except BaseException as exc:
            self._conn.close()
            if isinstance(exc, sqlite3.DatabaseError) and _code(exc) in _DAMAGED:
                raise _damaged(self.path, exc) from None
            raise

    @classmethod
    def in_dir(cls, cache_dir: str | os.PathLike | None = None) -> "JudgmentCache":
        return cls(Path(cache_dir).expanduser() / CACHE_FILE if cache_dir else default_cache_dir() / CACHE_FILE)

    def get_many(self, keys: Iterable[str]) -> dict[str, CachedJudgment]:
        keys = list(dict.fromkeys(keys))
        found: dict[str, CachedJudgment] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            try:
                rows = self._conn.execute(
                    f"SELECT key, value, valid, answer FROM judgments WHERE key IN ({marks})", chunk
                ).fetchall()
            except sqlite3.DatabaseError as exc:
                if _code(exc) in _DAMAGED:
                    raise _damaged(self.path, exc) from None
                raise
            for key, value, valid, answer in rows:
                try:
                    decoded = json.loads(value) if value is not None else None
                except (TypeError, ValueError) as exc:
                    raise CacheDamagedError(
                        f"the judgment cache {self.path} has an unreadable row (key {key}: {exc}): delete that "
                        f"row (sqlite3 {self.path} \"DELETE FROM judgments WHERE key = '{key}'\") to ask it "
                        "again, or move the file aside"
                    ) from None
                found[key] = CachedJudgment(decoded, bool(valid), answer)
        return found

    def put(
        self,
        key: str,
        *,
        model: str,
        strategy: str,
        prompt_version: str,
        params: Mapping[str, Any],
        texts: Sequence[str],
        endpoint: str,
        answer: str | None,
        value: Any,
        valid: bool,
        requests: int,
        prompt_tokens: int,
        completion_tokens: int,
    ) -> None:
        """Store (or replace) one judgment, committed immediately. If the file cannot be written
        (disk full, I/O error, read-only) caching stops with one warning; the run goes on."""
        if not self.writable:
            return
        row = (
            key,
            model,
            strategy,
            prompt_version,
            json.dumps(dict(sorted(params.items()))),
            json.dumps(list(texts), ensure_ascii=False),
            endpoint,
            answer,
            None if value is None else json.dumps(value),
            int(bool(valid)),
            int(requests),
            int(prompt_tokens),
            int(completion_tokens),
            time.time(),
        )
        try:
            self._conn.execute("INSERT OR REPLACE INTO judgments VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", row)
        except sqlite3.DatabaseError as exc:
            if _code(exc) in _DAMAGED:
                raise _damaged(self.path, exc) from None
            if _code(exc) not in _UNWRITABLE:
                raise
            self.writable = False
            warnings.warn(
                f"cannot write to the judgment cache {self.path} ({exc}); judging goes on without caching "
                "(judgments from now on are not kept for a rerun): free disk space, or set ARTS_CACHE_DIR "
                "or cache_dir= to a writable folder",
                RuntimeWarning,
                stacklevel=2,
            )

    def count(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM judgments").fetchone()[0])

    def close(self) -> None:
        try:
            self._conn.close()
        except sqlite3.Error:  # already closed
            pass

    def __enter__(self) -> "JudgmentCache":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
