"""Who may use a build's rating page: secret tokens, their digests, and the check of a presented token.

Three kinds of token (:class:`Grant` roles):

- ``coordinator``: sees every rater's progress and history, creates and revokes
  personal links; it does not rate. A new one at every server start, held in memory.
- ``signup`` (optional): whoever holds it may start as a *new* rater by name and
  receives a personal token; it cannot act for a rater who already exists.
  A new one at every start, held in memory.
- ``rater``: a personal token that rates, and reads the history of, one rater
  (``human:NAME``) only. Only its SHA-256 digest is kept, in the build's store
  (table ``rater_tokens``), so personal links survive a restart and the file
  holds nothing that acts as a login.

Tokens are ``secrets.token_urlsafe(32)`` (256 random bits); every check
compares digests with :func:`hmac.compare_digest` against all known ones.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from arts_metric.builder.store import DecisionStore

COORDINATOR, SIGNUP, RATER = "coordinator", "signup", "rater"


@dataclass(frozen=True)
class Grant:
    """What a valid token allows: its ``role``, and for ``rater`` tokens the rater (``human:NAME``)."""

    role: str
    rater: str | None = None


def new_token() -> str:
    """A fresh secret token (43 URL-safe characters, 256 random bits)."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """The SHA-256 hex digest under which a token is kept (a token is random, so no salt or slow hash is needed)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class AccessList:
    """The tokens of one rating server: in-memory coordinator/sign-up tokens, personal tokens in the store.

    Not thread-safe on its own: the caller serialises use of the store (the
    rating server holds its lock around every call).
    """

    def __init__(self, store: DecisionStore) -> None:
        self.store = store
        store.init_rater_tokens()
        self._session: list[tuple[str, Grant]] = []  # (digest, grant) of this run's coordinator/sign-up tokens

    def session_token(self, role: str) -> str:
        """A new coordinator or sign-up token, valid while this object lives."""
        if role not in (COORDINATOR, SIGNUP):
            raise ValueError(f"a session token is a {COORDINATOR!r} or {SIGNUP!r} token, not {role!r}")
        token = new_token()
        self._session.append((token_digest(token), Grant(role)))
        return token

    def rater_token(self, rater: str) -> str:
        """A new personal token of ``rater`` (``human:NAME``); earlier ones stay valid until revoked."""
        token = new_token()
        self.store.add_rater_token(rater, token_digest(token))
        return token

    def revoke(self, rater: str) -> int:
        """End every personal link of ``rater``; returns how many there were."""
        return self.store.revoke_rater_tokens(rater)

    def link_counts(self) -> dict[str, int]:
        """Valid personal links per rater."""
        counts: dict[str, int] = {}
        for _, rater in self.store.rater_tokens():
            counts[rater] = counts.get(rater, 0) + 1
        return counts

    def check(self, token: str | None) -> Grant | None:
        """The grant of a presented token, or None when it is missing or unknown.

        Every known digest is compared (constant time each), so the answer's
        timing does not depend on which one matched.
        """
        if not token:
            return None
        digest = token_digest(token)
        known = self._session + [(d, Grant(RATER, r)) for d, r in self.store.rater_tokens()]
        found = None
        for d, grant in known:
            if hmac.compare_digest(d, digest) and found is None:
                found = grant
        return found
