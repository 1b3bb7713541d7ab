"""Where an LLM judge sends its requests: base URL, API key and model.

Resolution order (explicit arguments win): ``base_url=`` / ``api_key=``
arguments, then the part after ``@`` in the spec string (base URL only), then
the standard ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` variables, then OpenAI's
own URL. Local servers (vLLM, Ollama, llama.cpp) need no key; a placeholder is
sent. The key is held only by :class:`Endpoint` (hidden from its repr) and the
client; only :func:`sanitize_url` versions of the URL are ever logged, cached
or reported. Credentials in the URL (``http://user:password@host/v1``) are sent
as HTTP Basic authentication by a client whose base URL has no user info, so
the client's request logging never sees them (:func:`client_options`); the
key and the credentials are masked in every message by :mod:`arts_metric.scrub`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Mapping
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

from arts_metric.scrub import install_log_filter, remember, userinfo

OPENAI_BASE_URL = "https://api.openai.com/v1"
PLACEHOLDER_KEY = "not-needed"  # sent to servers that take no key (vLLM, Ollama, llama.cpp)

_MODEL_AT_URL = re.compile(r"^(?P<model>.+?)@(?P<url>https?://.+)$", re.I)


def sanitize_url(url: str) -> str:
    """``url`` without user info, query or fragment (nothing secret survives)."""
    parts = urlsplit(split_userinfo(url)[0])
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def split_userinfo(url: str) -> tuple[str, tuple[str, str] | None]:
    """``url`` without its user info, and the ``(user, password)`` it held (percent-decoded), or None."""
    info = userinfo(url)
    if info is None:
        return url, None
    scheme, _, rest = url.partition("://")
    user, _, password = info.partition(":")
    return f"{scheme}://{rest[len(info) + 1 :]}", (unquote(user), unquote(password))


def client_options(endpoint: "Endpoint") -> dict:
    """Keyword arguments for ``openai.AsyncOpenAI``: key, base URL without user info, and an
    HTTP client that sends the URL's credentials (if any) as Basic authentication."""
    url, credentials = split_userinfo(endpoint.base_url)
    options: dict = {"api_key": endpoint.api_key, "base_url": url}
    if credentials is not None:
        from openai import DefaultAsyncHttpxClient

        options["http_client"] = DefaultAsyncHttpxClient(auth=credentials)
    return options


def parse_spec(rest: str) -> tuple[str, str | None, dict[str, str]]:
    """Split the part after ``openai:`` into ``(model, base_url, options)``.

    Form: ``MODEL[@BASE_URL][?key=value&key=value...]``, e.g.
    ``gpt-4o``, ``llama3.1:8b@http://localhost:11434/v1``,
    ``gpt-4o-mini?strategy=pointwise&concurrency=8``. Options follow the last
    ``?``; a base URL that itself needs a query string must be given as the
    ``base_url=`` argument instead.
    """
    if not isinstance(rest, str) or not rest.strip():
        raise ValueError("the openai judge needs a model: 'openai:<model>' (e.g. 'openai:gpt-4o')")
    head, sep, query = rest.strip().rpartition("?")
    if not sep:
        head, query = rest.strip(), ""
    options: dict[str, str] = {}
    if query:
        try:
            pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True)
        except ValueError:
            raise ValueError(f"judge options {query!r} are not of the form key=value&key=value") from None
        for key, value in pairs:
            if key in options:
                raise ValueError(f"judge option {key!r} is given twice in {rest!r}")
            options[key] = value
    m = _MODEL_AT_URL.match(head)
    model, base_url = (m.group("model"), m.group("url")) if m else (head, None)
    if not model or any(c.isspace() for c in model):
        raise ValueError(f"invalid model name {model!r} in judge spec {rest!r}")
    return model, base_url, options


@dataclass(frozen=True, repr=False)
class Endpoint:
    """An OpenAI-compatible chat-completions endpoint and the model to ask.
    Its repr shows neither the key nor credentials inside the URL."""

    base_url: str
    model: str
    api_key: str

    @property
    def display_url(self) -> str:
        return sanitize_url(self.base_url)

    def __repr__(self) -> str:
        return f"Endpoint(base_url={self.display_url!r}, model={self.model!r})"


def resolve_endpoint(
    model: str,
    base_url: str | None = None,
    api_key: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Endpoint:
    """Apply the resolution order of the module docstring."""
    env = os.environ if env is None else env
    url = base_url or env.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
    info = userinfo(url)
    remember([api_key or "", env.get("OPENAI_API_KEY") or "", info or "", (info or "").partition(":")[2]])
    install_log_filter()
    if not re.match(r"^https?://[^/\s]+", url):
        raise ValueError(f"base URL {sanitize_url(url)!r} must start with http:// or https://")
    url = url.rstrip("/")
    key = api_key if api_key is not None else env.get("OPENAI_API_KEY")
    if not key:
        if urlsplit(url).hostname == urlsplit(OPENAI_BASE_URL).hostname:
            raise ValueError(
                "no API key for api.openai.com: set OPENAI_API_KEY or pass api_key=...; "
                "for a local server set OPENAI_BASE_URL or use 'openai:<model>@http://host:port/v1'"
            )
        key = PLACEHOLDER_KEY
    return Endpoint(base_url=url, model=model, api_key=key)
