"""Rater specs of a build: what a rater is, how it is named and written, and its secret-free form.

A rater is a judge spec (``openai:gpt-4o``, ``history:PATH``, ``learned``)
with judge options, or a person ``human:NAME`` who rates in the web
interface. This module parses the CLI form (``SPEC key=value ...``), gives
every rater a unique name and a group, and strips secrets (API keys, URL
credentials) from what is stored, printed and published: a rater's name, the
spec kept in the store, its options, the command line on the dataset card and
any error message that quotes them (:func:`public_spec`, :func:`public_kwargs`,
:func:`redact`, :meth:`RaterConfig.secrets`).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from arts_metric.llm.options import OPERATIONAL_OPTIONS
from arts_metric.options import convert_option, parse_options
from arts_metric.scrub import SECRET_KEYS, remember_spec, scrub, secrets_in

HUMAN_PREFIX = "human"
#: Rater-spec keys that configure the build, not the judge.
_RESERVED_KEYS = ("name", "group", "runs")
#: Judge options that change how, not what, a rater decides: left out of default rater names,
#: so that e.g. a resumed build with another concurrency or server port continues the same rater.
#: The LLM judges' transport options are declared once, in their option metadata.
_OPERATIONAL_KEYS = OPERATIONAL_OPTIONS | {"pool", "texts", "data_dir"}
#: A web login name: 1-64 letters, digits, spaces, '.', '@', '-' or '_', starting with a word character.
_LOGIN_NAME = re.compile(r"^[\w][\w .@-]{0,63}$")


def rater_id(name: str) -> str:
    """The store's rater name ``human:NAME`` for a person who logged in as ``name`` (ValueError if not allowed)."""
    name = (name or "").strip()
    if not _LOGIN_NAME.match(name):
        raise ValueError(f"rater name {name!r} is not allowed: use 1-64 letters, digits, spaces, '.', '@', '-' or '_'")
    return f"{HUMAN_PREFIX}:{name}"


def login_key(name: str) -> str:
    """The form under which two login names are the same person: NFKC-normalised and case-folded,
    so ``Alice``, ``alice`` and full-width ``ａｌｉｃｅ`` are one name."""
    return unicodedata.normalize("NFKC", name.removeprefix(f"{HUMAN_PREFIX}:")).casefold().strip()


@dataclass
class RaterConfig:
    """One rater of a build.

    ``spec`` is a judge spec (``openai:gpt-4o``, ``history:PATH``, ``learned``)
    or ``human:NAME`` for a person rating in the web interface; ``kwargs`` go to
    :func:`arts_metric.judges.get_judge` (e.g. ``persona="medical"``);
    ``name`` is unique within the build; ``group`` collects raters whose
    agreement is reported together (default: the persona, ``human`` for
    people, otherwise the spec).
    """

    spec: str
    name: str = ""
    group: str = ""
    kwargs: dict = field(default_factory=dict)
    #: A ready judge instance (Python API only); ``spec`` then defaults to its name.
    judge: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.judge is not None and not self.spec:
            self.spec = getattr(self.judge, "name", type(self.judge).__name__)
        if not isinstance(self.spec, str) or not self.spec.strip():
            raise ValueError(f"rater spec must be a non-empty string, got {self.spec!r}")
        if self.is_human:
            self._check_human()
        base = re.sub(r"@https?://[^?\s]*", "", public_spec(self.spec))  # no endpoint URL, no secret
        if not self.name:
            # the spec plus the options that shape decisions
            extra = " ".join(
                f"{k}={v}"
                for k, v in sorted(self.kwargs.items())
                if k not in _OPERATIONAL_KEYS and k.lower() not in SECRET_KEYS
            )
            self.name = f"{base} {extra}".strip()
        self.name = public_name(self.name)
        if not self.group:
            if self.is_human:
                self.group = HUMAN_PREFIX
            else:
                self.group = str(self.kwargs.get("persona") or base)

    def __repr__(self) -> str:  # secret-free, like everything else that shows a rater
        return (
            f"RaterConfig(spec={public_spec(self.spec)!r}, name={self.name!r}, group={self.group!r}, "
            f"kwargs={public_kwargs(self.kwargs)!r})"
        )

    @property
    def is_human(self) -> bool:
        return self.spec.split(":", 1)[0] == HUMAN_PREFIX

    def _check_human(self) -> None:
        """A person's decisions are stored under their web login ``human:NAME``, so that is their name."""
        if self.spec != f"{HUMAN_PREFIX}:*" and rater_id(self.spec.partition(":")[2]) != self.spec:
            raise ValueError(f"human rater {self.spec!r}: write it as human:NAME with the name used to log in")
        if self.name and self.name != self.spec:
            raise ValueError(
                f"human rater {self.spec!r}: a person is named by their login ({self.spec!r}), not name={self.name!r}"
            )
        if self.kwargs:
            raise ValueError(f"human rater {self.spec!r} takes no judge options, got {', '.join(sorted(self.kwargs))}")

    def as_dict(self) -> dict:
        """The rater as stored and reported: public spec and options (no secrets)."""
        return {
            "name": self.name,
            "spec": public_spec(self.spec),
            "group": self.group,
            "kwargs": public_kwargs(self.kwargs),
        }

    def secrets(self) -> list[str]:
        """The secret strings in this rater's spec and options (API keys, URL passwords), longest first,
        for :func:`redact` to remove from messages."""
        return secrets_in([self.spec], self.kwargs)


def parse_rater(value: str) -> list[RaterConfig]:
    """Parse a CLI rater: ``SPEC [key=value ...]``.

    ``name=``, ``group=`` and ``runs=N`` configure the build (``runs=3`` makes
    three raters ``NAME #1..#3``, e.g. the paper's three runs per persona; run
    ``i`` gets the judge option ``seed=i``, the sampling seed an ``openai:``
    judge sends, which also keeps the runs apart in its answer cache);
    every other ``key=value`` is a judge keyword argument, kept as text: the
    judge converts it by the type it declares (:mod:`arts_metric.options`), so
    ``temperature=0.7`` is a float and ``persona=1`` a string.
    """
    remember_spec(value)  # its secrets are masked in every later message, whatever goes wrong
    parts = value.split(None, 1)
    if not parts:
        raise ValueError("empty rater spec")
    spec, rest = parts[0], (parts[1] if len(parts) > 1 else "")
    try:
        given = parse_options(rest.strip(), sep=None, source=value) if rest.strip() else {}
        runs = convert_option("runs", int, given.pop("runs", "1"))
    except ValueError as exc:
        raise ValueError(redact(f"rater {value!r}: {exc}")) from None
    opts = {k: given.pop(k) for k in _RESERVED_KEYS if k in given}
    kwargs = given
    if runs < 1:
        raise ValueError(redact(f"rater {value!r}: runs must be a positive integer, got {runs!r}"))
    base = RaterConfig(spec, opts.get("name", ""), opts.get("group", ""), dict(kwargs))
    if runs == 1:
        return [base]
    return [RaterConfig(spec, f"{base.name} #{i}", base.group, {**kwargs, "seed": i}) for i in range(1, runs + 1)]


def unique_names(raters: Sequence[RaterConfig]) -> list[RaterConfig]:
    """The raters with repeated names numbered ``NAME #2``, ``NAME #3``, ... (first one unchanged)."""
    seen: Counter = Counter()
    out = []
    for r in raters:
        seen[r.name] += 1
        if seen[r.name] > 1:
            r = RaterConfig(r.spec, f"{r.name} #{seen[r.name]}", r.group, dict(r.kwargs), r.judge)
        out.append(r)
    return out


def slug(name: str) -> str:
    """A file-name-safe form of a rater or group name."""
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")
    return s or "rater"


def public_kwargs(kwargs: dict) -> dict:
    """Rater options as stored and published: secrets and bulky values left out."""
    from arts_metric.llm.endpoint import sanitize_url

    return {
        k: (sanitize_url(v) if k == "base_url" else redact(v)) if isinstance(v, str) else v
        for k, v in kwargs.items()
        if k.lower() not in SECRET_KEYS and k != "texts" and (v is None or isinstance(v, (str, int, float, bool)))
    }


def public_spec(spec: str) -> str:
    """A spec without secrets: an endpoint URL without user info, options without ``api_key``.

    ``openai:m@http://user:pw@host/v1?api_key=sk&temperature=0`` becomes
    ``openai:m@http://host/v1?temperature=0``; a spec without secrets is
    returned unchanged (so rater names stay stable).
    """

    def clean(m: re.Match) -> str:
        p = urlsplit(m.group(1))
        host = (p.hostname or "") + (f":{p.port}" if p.port else "")
        return "@" + urlunsplit((p.scheme, host, p.path, "", ""))

    head, sep, query = spec.rpartition("?")
    if sep and any(k.lower() in SECRET_KEYS for k, _ in parse_qsl(query, keep_blank_values=True)):
        kept = [t for t in query.split("&") if t.partition("=")[0].lower() not in SECRET_KEYS]
        spec = head + ("?" + "&".join(kept) if kept else "")
    return re.sub(r"@(https?://[^?\s]*)", clean, spec)


def public_name(name: str) -> str:
    """A rater name without secrets: its spec part through :func:`public_spec`, ``key=value``
    words with a secret key left out (what names made by earlier versions may hold)."""
    words = name.split(" ")
    words[0] = public_spec(words[0])
    kept = [w for w in words[1:] if w.partition("=")[0].lower() not in SECRET_KEYS or "=" not in w]
    return redact(" ".join([words[0], *kept]))


def redact(text: str, secrets: Sequence[str] = ()) -> str:
    """``text`` through :func:`arts_metric.scrub.scrub`: every given or remembered secret (raw,
    encoded, base64), any ``NAME=value`` of a secret option name and URL user info masked."""
    return scrub(text, secrets)
