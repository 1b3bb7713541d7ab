"""The SQLite file of a build (``OUT/build.sqlite``): every read and write of its tables.

Texts, the schedule, metadata, raters, one row per (rater, match) decision,
and the rank-and-rate answers of the web interface (table ``rank_rate``,
one row per (rater, batch)). Opened in WAL mode so the web server and a build
can use it at once; every write is committed at once.

A decision row is an answer: a failed request, or one a budget did not send,
leaves no row, so the match stays to be asked (format 2). Stores written
before (no ``store_format`` in ``meta``) also hold NULL rows for failures;
opening one records how many NULL rows each machine rater has
(``meta["legacy_null"]``: they count as invalid answers until re-asked with
``retry_invalid``) and removes secrets from rater names and specs.
"""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from arts_metric.builder.inputs import texts_fingerprint
from arts_metric.builder.specs import HUMAN_PREFIX, RaterConfig, public_kwargs, public_name, public_spec
from arts_metric.sqlite_store import connect_wal
from arts_metric.text.cefr import cefr_number

STORE_NAME = "build.sqlite"
#: 2: only answers are stored (failed or unsent requests leave no row); no secrets in rater names or specs.
STORE_FORMAT = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS texts (idx INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, text TEXT NOT NULL, extra TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (match INTEGER PRIMARY KEY, a INTEGER NOT NULL, b INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS raters (
    name TEXT PRIMARY KEY, spec TEXT NOT NULL, grp TEXT NOT NULL, kwargs TEXT NOT NULL,
    info TEXT NOT NULL DEFAULT '{}', created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS decisions (
    rater TEXT NOT NULL, match INTEGER NOT NULL, a INTEGER NOT NULL, b INTEGER NOT NULL,
    harder INTEGER, prob REAL, time TEXT NOT NULL, elapsed_s REAL,
    PRIMARY KEY (rater, match));
"""
#: Created only when a rank-and-rate session starts (:meth:`DecisionStore.init_rank_rate`).
_RANK_RATE_SCHEMA = """
CREATE TABLE IF NOT EXISTS rank_rate (
    rater TEXT NOT NULL, batch INTEGER NOT NULL, ranking TEXT NOT NULL, cefr TEXT NOT NULL,
    time TEXT NOT NULL, elapsed_s REAL, PRIMARY KEY (rater, batch));
"""


def now_iso() -> str:
    """The current UTC time as ``YYYY-MM-DDTHH:MM:SSZ`` (the timestamps of the store and the ARTS histories)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class DecisionStore:
    """The SQLite file of a build: texts, schedule, raters and one row per (rater, match).

    Opened in WAL mode so the web server and a build can use it at once; every
    decision is committed as soon as it is recorded. ``harder`` is the index of
    the text judged harder (the winner) or NULL when the rater gave no usable
    answer; ``prob`` is the judge's P(a harder) when it gave one.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.conn = connect_wal(self.path, timeout=30.0, autocommit=False, check_same_thread=False)
        except sqlite3.DatabaseError as exc:  # e.g. "file is not a database"
            raise ValueError(f"{self.path} is not a usable build store: {exc}") from None
        try:
            self.conn.executescript(_SCHEMA)
            self.conn.commit()
            self._upgrade()
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise ValueError(f"{self.path} is not a usable build store: {exc}") from None

    def _upgrade(self) -> None:
        """Bring a store written before format 2 up to it (module docstring); a no-op otherwise."""
        if not self.initialised or int(self.meta().get("store_format", 1)) >= STORE_FORMAT:
            return
        self.conn.execute("PRAGMA secure_delete = ON")  # overwritten secrets do not linger in free pages
        with self.conn:
            raters = list(self.conn.execute("SELECT name, spec FROM raters"))
            taken = {name for name, _ in raters}
            legacy = {}
            for name, spec in raters:
                if spec.split(":", 1)[0] == HUMAN_PREFIX:
                    continue
                new_name, new_spec = public_name(name), public_spec(spec)
                if new_name != name and new_name in taken:
                    new_name = f"{new_name} (renamed)"
                if (new_name, new_spec) != (name, spec):
                    self.conn.execute(
                        "UPDATE raters SET name = ?, spec = ? WHERE name = ?", (new_name, new_spec, name)
                    )
                    self.conn.execute("UPDATE decisions SET rater = ? WHERE rater = ?", (new_name, name))
                    taken.add(new_name)
                n_null = self.conn.execute(
                    "SELECT count(*) FROM decisions WHERE rater = ? AND harder IS NULL AND prob IS NULL", (new_name,)
                ).fetchone()[0]
                if n_null:
                    legacy[new_name] = n_null
            self.conn.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                [("legacy_null", json.dumps(legacy)), ("store_format", json.dumps(STORE_FORMAT))],
            )
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # -- set-up
    @property
    def initialised(self) -> bool:
        return self.conn.execute("SELECT count(*) FROM matches").fetchone()[0] > 0

    def initialise(self, rows: Sequence[dict], pairs: Sequence[tuple[int, int]], meta: dict) -> None:
        """Write texts, schedule and metadata once; on a later run check they are unchanged."""
        fp = texts_fingerprint([r["text"] for r in rows])
        meta = {**meta, "fingerprint": fp, "n_texts": len(rows), "n_matches": len(pairs), "store_format": STORE_FORMAT}
        if self.initialised:
            old = self.meta()
            for key in ("fingerprint", "n_texts", "schedule"):
                if key in meta and old.get(key) != meta[key]:
                    what = {
                        "fingerprint": "different texts",
                        "n_texts": "a different number of texts",
                        "schedule": "a different schedule (seed, matches per text or pairs file)",
                    }[key]
                    raise ValueError(
                        f"{self.path.parent} was built from {what} ({key}: stored {old.get(key)!r}, now "
                        f"{meta[key]!r}); use a new --out folder or the original settings"
                    )
            return
        with self.conn:
            self.conn.executemany(
                "INSERT INTO texts (idx, id, text, extra) VALUES (?, ?, ?, ?)",
                [
                    (i, r["id"], r["text"], json.dumps({k: v for k, v in r.items() if k not in ("id", "text")}))
                    for i, r in enumerate(rows)
                ],
            )
            self.conn.executemany(
                "INSERT INTO matches (match, a, b) VALUES (?, ?, ?)",
                [(i, int(a), int(b)) for i, (a, b) in enumerate(pairs)],
            )
            self.conn.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [(k, json.dumps(v)) for k, v in meta.items()]
            )

    def meta(self) -> dict:
        return {k: json.loads(v) for k, v in self.conn.execute("SELECT key, value FROM meta")}

    def set_meta(self, **items: Any) -> None:
        with self.conn:
            self.conn.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                [(k, json.dumps(v)) for k, v in items.items()],
            )

    def rows(self) -> list[dict]:
        """Text rows ``{index, id, text, **extra}`` in index order."""
        out = []
        for idx, rid, text, extra in self.conn.execute("SELECT idx, id, text, extra FROM texts ORDER BY idx"):
            out.append({"index": idx, "id": rid, "text": text, **json.loads(extra)})
        return out

    def texts(self) -> list[str]:
        return [t for (t,) in self.conn.execute("SELECT text FROM texts ORDER BY idx")]

    def pairs(self) -> list[tuple[int, int]]:
        return [(a, b) for a, b in self.conn.execute("SELECT a, b FROM matches ORDER BY match")]

    # -- raters
    def add_rater(self, cfg: RaterConfig) -> None:
        """Register a rater, or refresh its spec and options when it exists (the name is its identity).

        A human name cannot be taken by a machine rater or the other way round.
        """
        row = self.conn.execute("SELECT spec, kwargs, grp FROM raters WHERE name = ?", (cfg.name,)).fetchone()
        kwargs = public_kwargs(cfg.kwargs)
        spec = public_spec(cfg.spec)  # the judge is made from cfg.spec; the store keeps no secret
        if row is not None:
            was_human = row[0].split(":", 1)[0] == HUMAN_PREFIX
            if was_human != cfg.is_human:
                raise ValueError(
                    f"rater name {cfg.name!r} already belongs to {'a human' if was_human else 'a judge'} "
                    f"({row[0]!r}) in {self.path.parent}; give this rater another name=..."
                )
            if row[0] != spec or json.loads(row[1]) != kwargs or row[2] != cfg.group:
                with self.conn:
                    self.conn.execute(
                        "UPDATE raters SET spec = ?, kwargs = ?, grp = ? WHERE name = ?",
                        (spec, json.dumps(kwargs, sort_keys=True), cfg.group, cfg.name),
                    )
            return
        with self.conn:
            self.conn.execute(
                "INSERT INTO raters (name, spec, grp, kwargs, created) VALUES (?, ?, ?, ?, ?)",
                (cfg.name, spec, cfg.group, json.dumps(kwargs, sort_keys=True), now_iso()),
            )

    def set_rater_info(self, name: str, info: dict) -> None:
        with self.conn:
            self.conn.execute("UPDATE raters SET info = ? WHERE name = ?", (json.dumps(info, default=str), name))

    def rater_info(self, name: str) -> dict:
        row = self.conn.execute("SELECT info FROM raters WHERE name = ?", (name,)).fetchone()
        return json.loads(row[0]) if row else {}

    def raters(self) -> list[dict]:
        return [
            {"name": n, "spec": s, "group": g, "kwargs": json.loads(k), "info": json.loads(i), "created": c}
            for n, s, g, k, i, c in self.conn.execute(
                "SELECT name, spec, grp, kwargs, info, created FROM raters ORDER BY created, name"
            )
        ]

    def human_raters(self) -> list[str]:
        return [r["name"] for r in self.raters() if r["spec"].split(":", 1)[0] == HUMAN_PREFIX]

    # -- decisions
    def record(
        self, rater: str, match: int, harder: int | None, prob: float | None = None, elapsed_s: float | None = None
    ) -> bool:
        """Store one decision; returns False (and changes nothing) if this rater already decided it."""
        a, b = self._match(match)
        if harder is not None and harder not in (a, b):
            raise ValueError(f"match {match}: harder={harder!r} is neither a={a} nor b={b}")
        try:
            with self.conn:
                cur = self.conn.execute(
                    "INSERT OR IGNORE INTO decisions (rater, match, a, b, harder, prob, time, elapsed_s) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (rater, match, a, b, harder, prob, now_iso(), elapsed_s),
                )
        except sqlite3.OperationalError as exc:  # disk full, I/O error, read-only file
            raise OSError(
                f"cannot write to the build store {self.path} ({exc}): every answer stored before is kept; "
                "free disk space (or make the folder writable) and run the same build again to ask only "
                "what is missing"
            ) from None
        return cur.rowcount == 1

    def undo_last(self, rater: str) -> int | None:
        """Delete this rater's most recent decision and return its match (None: nothing to undo)."""
        with self.conn:
            row = self.conn.execute(
                "SELECT rowid, match FROM decisions WHERE rater = ? ORDER BY rowid DESC LIMIT 1", (rater,)
            ).fetchone()
            if row is None:
                return None
            self.conn.execute("DELETE FROM decisions WHERE rowid = ?", (row[0],))
        return int(row[1])

    def forget(self, rater: str, matches: Iterable[int]) -> None:
        """Delete decisions (used to re-ask unusable answers on request)."""
        with self.conn:
            self.conn.executemany("DELETE FROM decisions WHERE rater = ? AND match = ?", [(rater, m) for m in matches])

    def _match(self, match: int) -> tuple[int, int]:
        row = self.conn.execute("SELECT a, b FROM matches WHERE match = ?", (int(match),)).fetchone()
        if row is None:
            raise ValueError(f"no match {match!r} in the schedule of {self.path.parent}")
        return row

    def decided(self, rater: str) -> set[int]:
        return {m for (m,) in self.conn.execute("SELECT match FROM decisions WHERE rater = ?", (rater,))}

    def missing(self, rater: str) -> list[int]:
        """The matches this rater has no stored answer for (never asked, failed or not sent), in schedule order."""
        return [
            m
            for (m,) in self.conn.execute(
                "SELECT match FROM matches WHERE match NOT IN (SELECT match FROM decisions WHERE rater = ?) "
                "ORDER BY match",
                (rater,),
            )
        ]

    def legacy_nulls(self, rater: str) -> int:
        """NULL rows of this rater written before store format 2 (failures or invalid answers, not told apart)."""
        return int((self.meta().get("legacy_null") or {}).get(rater, 0))

    def clear_legacy_nulls(self, rater: str) -> None:
        """Forget the legacy count of ``rater`` (after its NULL rows were asked again)."""
        legacy = self.meta().get("legacy_null") or {}
        if legacy.pop(rater, None) is not None:
            self.set_meta(legacy_null=legacy)

    def progress(self, rater: str) -> tuple[int, int]:
        """``(decided, total)`` for a rater: stored answers (invalid ones included) and matches."""
        done = self.conn.execute("SELECT count(*) FROM decisions WHERE rater = ?", (rater,)).fetchone()[0]
        total = self.conn.execute("SELECT count(*) FROM matches").fetchone()[0]
        return done, total

    def next_match(self, rater: str) -> int | None:
        """The first match in schedule order this rater has not decided, or None when finished."""
        row = self.conn.execute(
            "SELECT match FROM matches WHERE match NOT IN (SELECT match FROM decisions WHERE rater = ?) "
            "ORDER BY match LIMIT 1",
            (rater,),
        ).fetchone()
        return None if row is None else row[0]

    def history(self, rater: str) -> list[dict]:
        """The rater's decisions as ARTS history rows ``{match, a, b, harder, time}`` in match order."""
        return [
            {"match": m, "a": a, "b": b, "harder": h, "time": t}
            for m, a, b, h, t in self.conn.execute(
                "SELECT match, a, b, harder, time FROM decisions WHERE rater = ? ORDER BY match", (rater,)
            )
        ]

    def elapsed(self, rater: str) -> list[float]:
        """Seconds per decision (machine raters: per pair of a batch), where recorded."""
        return [
            e
            for (e,) in self.conn.execute(
                "SELECT elapsed_s FROM decisions WHERE rater = ? AND elapsed_s IS NOT NULL", (rater,)
            )
        ]

    # -- rank-and-rate answers (README++: a batch ordered easiest first, a CEFR level per text)
    def init_rank_rate(self) -> None:
        """Create the ``rank_rate`` table if it is not there yet."""
        self.conn.executescript(_RANK_RATE_SCHEMA)
        self.conn.commit()

    def record_rank(
        self, rater: str, batch: int, ranking: Sequence[int], cefr: Mapping[int, str], elapsed_s: float | None = None
    ) -> bool:
        """Store one checked batch answer (``ranking`` easiest first); False if this rater submitted it before."""
        with self.conn:
            cur = self.conn.execute(
                "INSERT OR IGNORE INTO rank_rate (rater, batch, ranking, cefr, time, elapsed_s) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    rater,
                    batch,
                    json.dumps([int(x) for x in ranking]),
                    json.dumps({str(int(k)): v for k, v in cefr.items()}),
                    now_iso(),
                    elapsed_s,
                ),
            )
        return cur.rowcount == 1

    def ranked_batches(self, rater: str) -> set[int]:
        """The batches this rater has submitted."""
        return {b for (b,) in self.conn.execute("SELECT batch FROM rank_rate WHERE rater = ?", (rater,))}

    def undo_last_rank(self, rater: str) -> int | None:
        """Delete this rater's most recently submitted batch and return it (None: nothing to undo)."""
        with self.conn:
            row = self.conn.execute(
                "SELECT rowid, batch FROM rank_rate WHERE rater = ? ORDER BY rowid DESC LIMIT 1", (rater,)
            ).fetchone()
            if row is None:
                return None
            self.conn.execute("DELETE FROM rank_rate WHERE rowid = ?", (row[0],))
        return int(row[1])

    def rank_raters(self) -> list[str]:
        """Raters with rank-and-rate answers, sorted (none when no session ever ran)."""
        has = self.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rank_rate'").fetchone()
        if not has:
            return []
        return [r for (r,) in self.conn.execute("SELECT DISTINCT rater FROM rank_rate ORDER BY rater")]

    def rank_history(self, rater: str) -> list[dict]:
        """Rows ``{batch, ranking (easiest first), cefr {index: level}, cefr_numeric (1-6, higher = harder), time}``."""
        out = []
        for b, ranking, cefr, t in self.conn.execute(
            "SELECT batch, ranking, cefr, time FROM rank_rate WHERE rater = ? ORDER BY batch", (rater,)
        ):
            levels = json.loads(cefr)
            out.append(
                {
                    "batch": b,
                    "ranking": json.loads(ranking),
                    "cefr": levels,
                    "cefr_numeric": {k: cefr_number(v) for k, v in levels.items()},
                    "time": t,
                }
            )
        return out

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "DecisionStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- personal links of the web rating page (arts_metric.builder.access): only SHA-256 digests are kept
    _RATER_TOKENS_SCHEMA = """
    CREATE TABLE IF NOT EXISTS rater_tokens (
        digest TEXT PRIMARY KEY, rater TEXT NOT NULL, created TEXT NOT NULL);
    """

    def init_rater_tokens(self) -> None:
        """Create the ``rater_tokens`` table if it is not there yet."""
        self.conn.executescript(self._RATER_TOKENS_SCHEMA)
        self.conn.commit()

    def add_rater_token(self, rater: str, digest: str) -> None:
        """Keep the digest of a new personal token of ``rater``."""
        with self.conn:
            self.conn.execute(
                "INSERT INTO rater_tokens (digest, rater, created) VALUES (?, ?, ?)", (digest, rater, now_iso())
            )

    def rater_tokens(self) -> list[tuple[str, str]]:
        """Every kept ``(digest, rater)``."""
        return list(self.conn.execute("SELECT digest, rater FROM rater_tokens ORDER BY created, rater"))

    def revoke_rater_tokens(self, rater: str) -> int:
        """Forget every personal token of ``rater``; returns how many there were."""
        with self.conn:
            return self.conn.execute("DELETE FROM rater_tokens WHERE rater = ?", (rater,)).rowcount


def open_store(out_dir: str | os.PathLike) -> DecisionStore:
    """Open an existing build folder's store (ValueError if there is none)."""
    path = Path(out_dir) / STORE_NAME
    if not path.is_file():
        raise ValueError(f"{out_dir} is not a build folder (no {STORE_NAME}); create it with `arts build`")
    store = DecisionStore(path)
    if not store.initialised:
        store.close()
        raise ValueError(f"{path} holds no schedule; create the build with `arts build`")
    return store
