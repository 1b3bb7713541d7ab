"""The state behind the rating server: one build's decision store, its access list and
one lock. Its methods are the trusted in-process API (whoever holds the object holds
the store); :mod:`arts_metric.web.server` decides which token may call which."""

from __future__ import annotations

import json
import os
import threading
from http import HTTPStatus
from pathlib import Path

from arts_metric.builder.access import COORDINATOR, SIGNUP, AccessList, Grant
from arts_metric.builder.rankrate import RankRate
from arts_metric.builder.specs import HUMAN_PREFIX, RaterConfig, login_key, rater_id
from arts_metric.builder.store import DecisionStore, open_store
from arts_metric.text.cefr import CEFR_LEVELS
from arts_metric.web import guard
from arts_metric.web.guard import Refused
from arts_metric.web.guideline import INSTRUCTION, load_guideline

MODES = ("pairwise", "rank-rate")


class RatingApp:
    """The state behind the server: one store, its access list, one lock (SQLite writes are serialised).

    Its methods are the trusted in-process API (whoever holds this object holds
    the store); the HTTP handler decides which token may call which.
    ``coordinator_token`` (and ``signup_token`` when ``signup=True``) are new at
    every start and never stored.
    """

    def __init__(
        self,
        out_dir: str | os.PathLike,
        mode: str = "pairwise",
        guideline: str | os.PathLike | None = None,
        title: str | None = None,
        signup: bool = False,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.out_dir = Path(out_dir)
        self.guideline = load_guideline(guideline)  # before the store is opened: a bad file leaks nothing
        self.store: DecisionStore = open_store(out_dir)
        self.rank = RankRate(self.store) if mode == "rank-rate" else None
        self.mode = mode
        self.title = title or self.store.meta().get("name") or self.out_dir.name
        self.lock = threading.RLock()
        self.texts = self.store.texts()
        self.pairs = self.store.pairs()
        self.access = AccessList(self.store)
        self.coordinator_token = self.access.session_token(COORDINATOR)
        self.signup_token = self.access.session_token(SIGNUP) if signup else None

    # -- access
    def grant(self, token: str | None) -> Grant | None:
        """What a presented token allows (None: nothing)."""
        with self.lock:
            return self.access.check(token)

    def _register(self, rid: str) -> None:
        if rid not in self.store.human_raters():  # a returning rater keeps the group a build gave them
            self.store.add_rater(RaterConfig(rid, rid, HUMAN_PREFIX))

    def new_link(self, name: str) -> str:
        """A new personal token for rater ``name`` (registered if new); earlier ones stay valid."""
        rid = rater_id(name.removeprefix(f"{HUMAN_PREFIX}:"))
        with self.lock:
            self._register(rid)
            return self.access.rater_token(rid)

    def revoke(self, name: str) -> int:
        """End every personal link of rater ``name``; returns how many there were."""
        rid = rater_id(name.removeprefix(f"{HUMAN_PREFIX}:"))
        with self.lock:
            return self.access.revoke(rid)

    def signup(self, name: str) -> dict:
        """Start a *new* rater by name (the sign-up link's one right): their personal token and first item."""
        rid = rater_id(name)
        with self.lock:
            taken = {login_key(r): r for r in [*self.store.human_raters(), *self.access.link_counts()]}
            if login_key(rid) in taken:
                same = taken[login_key(rid)].removeprefix(f"{HUMAN_PREFIX}:")
                raise Refused(
                    HTTPStatus.CONFLICT,
                    f"rater {name!r} already exists" + (f" (as {same!r})" if same != name else "") + ": continue "
                    "with your personal link (the coordinator can give you a new one)",
                )
            self._register(rid)
            token = self.access.rater_token(rid)
            return {"rater": rid, "token": token, **self.next(rid)}

    def progress(self) -> dict:
        """Every human rater's ``done`` of ``total`` items and number of valid personal links."""
        with self.lock:
            links = self.access.link_counts()
            rows = []
            for rid in self.store.human_raters():
                p = self.next(rid)
                rows.append(
                    {
                        "rater": rid,
                        "name": rid.removeprefix(f"{HUMAN_PREFIX}:"),
                        "done": p["done"],
                        "total": p["total"],
                        "finished": p["finished"],
                        "links": links.get(rid, 0),
                    }
                )
        return {"total": self.config()["total"], "raters": rows}

    # -- rating
    def config(self) -> dict:
        total = len(self.rank.batches) if self.rank else len(self.pairs)
        return {
            "title": self.title,
            "mode": self.mode,
            "instruction": INSTRUCTION,
            "guideline": self.guideline,
            "total": total,
            "cefr_levels": list(CEFR_LEVELS),
        }

    def login(self, body: dict) -> dict:
        """Start or resume rater ``human:<name>`` (in-process use; over HTTP only a sign-up token starts a rater)."""
        rid = rater_id(guard.str_field(body, "name"))
        with self.lock:
            self._register(rid)
        return {"rater": rid, **self.next(rid)}

    def _known(self, rid: str) -> str:
        if rid not in self.store.human_raters():
            raise ValueError(f"unknown rater {rid!r}: log in first")
        return rid

    def next(self, rid: str) -> dict:
        with self.lock:
            self._known(rid)
            if self.rank:
                return self.rank.next(rid, self.texts)
            done, total = self.store.progress(rid)
            m = self.store.next_match(rid)
        if m is None:
            return {"done": done, "total": total, "finished": True, "match": None}
        a, b = self.pairs[m]
        return {
            "done": done,
            "total": total,
            "finished": False,
            "match": {"match": m, "a": {"index": a, "text": self.texts[a]}, "b": {"index": b, "text": self.texts[b]}},
        }

    def decide(self, body: dict) -> dict:
        rid = rater_id(guard.str_field(body, "rater").removeprefix(f"{HUMAN_PREFIX}:"))
        m, clicked = guard.int_field(body, "match"), guard.int_field(body, "clicked")
        elapsed_s = guard.elapsed_seconds(body)
        if not 0 <= m < len(self.pairs):
            raise ValueError(f"no match {m} in the schedule (0..{len(self.pairs) - 1})")
        a, b = self.pairs[m]
        if clicked not in (a, b):
            raise ValueError(f"match {m}: clicked text {clicked} is neither {a} nor {b}")
        harder = b if clicked == a else a  # the rater clicks the EASIER text; the winner is the other
        with self.lock:
            self._known(rid)
            recorded = self.store.record(rid, m, harder, None, elapsed_s)
        return {"recorded": recorded, **self.next(rid)}

    def undo(self, body: dict) -> dict:
        """Take back the rater's last decision, in either mode: the pair (pairwise) or the
        ranked and rated batch (rank-and-rate) is asked again next. Answers ``undone`` (the
        match or batch) with the next item."""
        rid = rater_id(guard.str_field(body, "rater").removeprefix(f"{HUMAN_PREFIX}:"))
        with self.lock:
            self._known(rid)
            undone = self.rank.undo(rid) if self.rank else self.store.undo_last(rid)
            if undone is None:
                raise ValueError("nothing to undo: no decision is stored yet")
            return {"undone": undone, **self.next(rid)}

    def rank_submit(self, body: dict) -> dict:
        if not self.rank:
            raise ValueError("this server runs in pairwise mode; rank-and-rate needs --mode rank-rate")
        rid = rater_id(guard.str_field(body, "rater").removeprefix(f"{HUMAN_PREFIX}:"))
        guard.int_field(body, "batch")
        guard.elapsed_seconds(body)
        with self.lock:
            self._known(rid)
            recorded = self.rank.record(rid, body)
        return {"recorded": recorded, **self.next(rid)}

    def history(self, rid: str) -> str:
        with self.lock:
            self._known(rid)
            rows = self.rank.history(rid) if self.rank else self.store.history(rid)
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)

    def close(self) -> None:
        self.store.close()
