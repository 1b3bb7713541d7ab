"""The request checks of the rating server: Host, Origin, bearer token, body size and strict JSON fields.

A refusal raises :class:`Refused` carrying the HTTP status to answer; a bad
value inside an accepted body raises ``ValueError`` (answered 400).
"""

from __future__ import annotations

import ipaddress
import json
import math
import socket
from collections.abc import Collection, Mapping
from typing import Any
from urllib.parse import urlsplit

#: The largest request body read, in bytes (a decision is ~100 bytes).
MAX_BODY = 1 << 20


class Refused(Exception):
    """A request the server answers with ``status`` and does not act on.

    ``unread_body`` is True when the request's body was not read: the server
    then closes the connection after answering (and drains what the client still sends).
    """

    def __init__(self, status: int, message: str, unread_body: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.unread_body = unread_body


def _ip(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    """True for a bind address reachable from this machine only (127.0.0.0/8, ::1, localhost)."""
    host = host.strip("[]").lower()
    ip = _ip(host)
    return ip.is_loopback if ip is not None else host == "localhost"


def _host_name(header: str) -> str:
    """The host part of a ``Host`` header, lower case, without port or brackets."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else ""
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def allowed_host_names(bound: str, extra: Collection[str] = ()) -> frozenset[str]:
    """Host names (not IP literals) a request may name besides ``localhost``: the extra ones, and when the
    server listens beyond loopback, the bound name and this machine's names."""
    names = {n.strip().lower().rstrip(".") for n in extra if n.strip()}
    if not is_loopback(bound):
        names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
        if _ip(bound.strip("[]")) is None and bound:
            names.add(bound.lower())
    return frozenset(names)


def host_allowed(header: str | None, bound: str, names: Collection[str]) -> bool:
    """Whether a request's ``Host`` header may reach a server bound to ``bound`` (the DNS-rebinding guard).

    A page on a rebinding domain sends that domain's name: only IP literals,
    ``localhost`` and the given ``names`` pass; on a loopback-only server an IP
    must be a loopback one.
    """
    if not header:
        return False
    name = _host_name(header).rstrip(".")
    ip = _ip(name)
    if ip is not None:
        return ip.is_loopback or not is_loopback(bound)
    return name == "localhost" or name.endswith(".localhost") or name in names


def check_same_origin(headers: Mapping[str, str]) -> None:
    """Refuse (403) a request a browser marks as coming from another origin (``Sec-Fetch-Site``, ``Origin``)."""
    site = headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        raise Refused(403, f"cross-origin request refused (Sec-Fetch-Site: {site})")
    origin = headers.get("Origin")
    if origin is not None:
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or parts.netloc.lower() != (headers.get("Host") or "").lower():
            raise Refused(403, f"cross-origin request refused (Origin: {origin[:100]})")


def bearer_token(headers: Mapping[str, str]) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, or None."""
    value = headers.get("Authorization") or ""
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


def body_length(headers: Mapping[str, str]) -> int:
    """The declared body length in bytes (0 when none); refuses chunked, malformed or too large bodies."""
    if headers.get("Transfer-Encoding"):
        raise Refused(411, "send the body with a Content-Length (chunked bodies are not accepted)", True)
    value = (headers.get("Content-Length") or "0").strip()
    if not (value.isascii() and value.isdigit()):
        raise Refused(400, f"bad Content-Length {value[:40]!r}", True)
    length = int(value)
    if length > MAX_BODY:
        raise Refused(413, f"request body of {length} bytes is over the limit of {MAX_BODY} bytes", True)
    return length


def check_json_type(headers: Mapping[str, str]) -> None:
    """Refuse (415) a write whose ``Content-Type`` is not ``application/json`` (as a cross-site form's would be)."""
    ctype = (headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
    if ctype != "application/json":
        raise Refused(415, f"a write needs Content-Type: application/json, not {ctype or 'none'!r}")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_object(raw: bytes) -> dict:
    """A request body as a JSON object (ValueError for anything else: bad UTF-8, NaN, deep nesting, a list)."""
    try:
        body = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise ValueError("the body is not UTF-8") from None
    except RecursionError:
        raise ValueError("the body is nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"the body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise ValueError(f"expected a JSON object body, got {type(body).__name__}")
    return body


def int_field(body: Mapping[str, Any], key: str) -> int:
    """``body[key]`` as an integer: a JSON integer only (3.5, "3", true and null are refused)."""
    if key not in body:
        raise ValueError(f"missing integer {key!r}")
    value = body[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key!r} must be an integer, got {value!r}"[:200])
    return value


def str_field(body: Mapping[str, Any], key: str, required: bool = True) -> str | None:
    """``body[key]`` as a string (None when absent and not required)."""
    if key not in body and not required:
        return None
    value = body.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{key!r} must be a string, got {value!r}"[:200])
    return value


def elapsed_seconds(body: Mapping[str, Any]) -> float | None:
    """The optional ``elapsed_ms`` (a finite number >= 0, in milliseconds) in seconds."""
    value = body.get("elapsed_ms")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"'elapsed_ms' must be a number of milliseconds >= 0, got {value!r}"[:200])
    return float(value) / 1000.0
