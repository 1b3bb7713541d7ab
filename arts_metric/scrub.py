"""Secrets out of every message, log record and error text.

A judge spec, rater option or endpoint URL may carry secrets: an API key
(``api_key=``, ``key=``, ``token=``, ``secret=``, ...), a URL password
(``http://alice:PASSWORD@host/v1``) or a token given as URL user name. Once a
spec or endpoint is read, its secrets are remembered for the life of the
process, and :func:`scrub` replaces them, in raw, percent-encoded and base64
form (a server may echo the ``Authorization: Basic`` header it was sent), by
``***`` in any text. Free-text patterns are masked too, whether or not the
secret was seen: ``NAME=value`` for every name in :data:`SECRET_KEYS`, URL
user info, ``Bearer`` / ``Basic`` credentials.

:func:`install_log_filter` makes the loggers of the HTTP client (``httpx``,
``httpcore``, ``openai``), of ``asyncio`` and of this package scrub every
record they emit.
"""

from __future__ import annotations

import base64
import logging
import re
import threading
from typing import Any, Iterable, Mapping
from urllib.parse import parse_qsl, quote, unquote

MASK = "***"
#: Option names whose values are secrets: never stored, printed or published.
SECRET_KEYS = frozenset({"api_key", "api-key", "apikey", "key", "token", "access_token", "password", "secret"})
_OPTION = re.compile(
    r"(?<![\w-])(" + "|".join(sorted(map(re.escape, SECRET_KEYS), key=len, reverse=True)) + r")=[^\s&'\",]+", re.I
)
_PLACEHOLDERS = {"value", "...", MASK}  # "expected key=value" explains a form, it holds no secret
_USERINFO = re.compile(r"(https?://)[^\s'\"@]*@", re.I)
_CREDENTIAL = re.compile(r"\b(Basic|Bearer)\s+[A-Za-z0-9+/=._~-]+", re.I)
_URL = re.compile(r"https?://[^\s'\"]+", re.I)
#: Loggers whose records are scrubbed (a filter on a logger sees only the records it emits itself).
LOGGERS = (
    "httpx",
    *(
        f"{core}{part}"
        for core in ("httpcore", "httpcore2")
        for part in ("", ".connection", ".http11", ".http2", ".proxy")
    ),
    "openai",
    "openai._base_client",
    "asyncio",
    "arts_metric",
)
_MIN_SECRET = 6  # shorter remembered strings are not masked wherever they occur (they would mangle ordinary text)

_known: set[str] = set()
_lock = threading.Lock()


def _forms(secret: str, shortest: int = 1) -> set[str]:
    """A secret as it may appear in text: raw, percent-encoded or -decoded, base64."""
    forms = {secret, quote(secret, safe=""), unquote(secret)}
    for form in list(forms):
        raw = form.encode("utf-8")
        forms |= {base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()}
    forms |= {f.rstrip("=") for f in forms}  # also without base64 padding
    return {f for f in forms if len(f) >= shortest}


def userinfo(url: str) -> str | None:
    """The ``user[:password]`` part of ``url`` (up to its last ``@`` before any query), or None.
    Read by hand: a password with ``/``, ``?`` or ``@`` is not split the way ``urlsplit`` would."""
    _, sep, rest = url.partition("://")
    if not sep:
        return None
    info, at, _ = rest.split("?", 1)[0].rpartition("@")
    return info if at and info else None


def secrets_in(texts: Iterable[Any] = (), options: Mapping[str, Any] | None = None) -> list[str]:
    """The secrets in specs / URLs ``texts`` and in ``options``: values of :data:`SECRET_KEYS`
    options (also inside a spec's ``?query``), URL user info (``user:password`` and each part)."""
    found: set[str] = set()
    for key, value in (options or {}).items():
        if str(key).lower() in SECRET_KEYS and isinstance(value, str):
            found.add(value)
        elif isinstance(value, str):
            texts = [*texts, value]
    for text in texts:
        if not isinstance(text, str):
            continue
        for url in _URL.findall(text):
            info = userinfo(url)
            if info:
                found |= {info, info.partition(":")[2]}  # a token given as the user name is all of ``info``
        for token in text.replace("&", " ").replace("?", " ").split():
            name, eq, value = token.partition("=")
            if eq and name.lower() in SECRET_KEYS:
                found.add(value)
        _, sep, query = text.rpartition("?")
        if sep:
            found.update(v for k, v in parse_qsl(query, keep_blank_values=True) if k.lower() in SECRET_KEYS)
    return sorted((s for s in found if s), key=len, reverse=True)


def remember(secrets: Iterable[str]) -> None:
    """Mask ``secrets`` (and their encoded forms) in every later :func:`scrub` of this process."""
    new = set()
    for secret in secrets:
        if isinstance(secret, str) and len(secret) >= _MIN_SECRET:
            new |= _forms(secret, _MIN_SECRET)
    if new:
        with _lock:
            _known.update(new)


def remember_spec(spec: Any, options: Mapping[str, Any] | None = None) -> list[str]:
    """:func:`remember` the secrets of a judge spec and its options; returns them."""
    found = secrets_in([spec] if isinstance(spec, str) else [], options)
    remember(found)
    return found


def _mask_option(m: re.Match) -> str:
    name, value = m.group(0).split("=", 1)
    return m.group(0) if value.lower() in _PLACEHOLDERS else f"{name}={MASK}"


def scrub(text: Any, secrets: Iterable[str] = ()) -> str:
    """``str(text)`` with every remembered or given secret (raw, percent-encoded, base64), every
    ``NAME=value`` of a secret option name, URL user info and ``Basic``/``Bearer`` credential
    replaced by ``***``."""
    text = str(text)
    extra = set()
    for secret in secrets:
        if secret:
            extra |= _forms(secret)
    with _lock:
        forms = sorted(_known | extra, key=len, reverse=True)
    for form in forms:
        if form in text:
            text = text.replace(form, MASK)
    text = _OPTION.sub(_mask_option, text)
    text = _USERINFO.sub(rf"\1{MASK}@", text)
    return _CREDENTIAL.sub(lambda m: f"{m.group(1)} {MASK}", text)


def scrub_exception(exc: BaseException, secrets: Iterable[str] = ()) -> BaseException:
    """``exc`` with its message scrubbed (its ``args`` replaced when that changes anything)."""
    clean = scrub(str(exc), secrets)
    if clean != str(exc):
        exc.args = (clean,)
    return exc


class ScrubFilter(logging.Filter):
    """Scrubs a record's formatted message (and its exception text) before any handler sees it."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is the logging module's to report
            return True
        record.msg, record.args = scrub(message), None
        if record.exc_info and record.exc_info[1] is not None:
            scrub_exception(record.exc_info[1])
            record.exc_text = None
        return True


_FILTER = ScrubFilter()


def install_log_filter() -> None:
    """Scrub every record of the :data:`LOGGERS` (idempotent)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
