"""The ARTS signature: every setting that can change a score, in one string.

As sacrebleu's signature does for BLEU, ``arts_signature`` lets two papers tell
whether their ARTS numbers are comparable, e.g.::

    arts:1|judge:learned-4|pool:arts3000|placement:exhaustive(level=0.95,prior_sd=400,seed=0,slope=fit)|units:mean(sentences,weights=words)|version:0.7.0

Fields, in this order:

- ``arts``: the version of this signature's format;
- ``judge``: what decides (the judge's ``signature``): the learned judge's model
  version (``learned-4``), plus the weights' digest for weights of one's own, the
  device other than the CPU (``@cuda``) and ``+int8`` for ``precision="int8"``; an
  LLM judge's canonical name (model, endpoint without credentials, decision
  options), prompt version and sampling parameters;
- ``pool``: the reference pool's name, plus a digest of its ratings when it is
  not a built-in pool;
- ``language``: the language of the pool and judge, only when it is not English
  (``language:fr``);
- ``placement``: the method and every one of its options, defaults included;
- ``units``: how long texts are cut and combined (``long_texts`` and the
  settings it reads);
- ``version``: the arts-metric release, which fixes the rules that are not
  settings (e.g. that a text without a word scores ``arts`` 1.0).

Settings that never change a score are left out, each for a stated reason
(:data:`SCORE_NEUTRAL`); a test checks that every other setting is named.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from arts_metric import __version__
from arts_metric.data import BUILTIN_POOLS
from arts_metric.languages import POOL_NAMES as LANGUAGE_POOL_NAMES

#: Version of the signature's format (bumped when its fields change meaning).
FORMAT_VERSION = "1"

#: ScoringConfig settings that never change ``arts``, and why they are not in the signature.
SCORE_NEUTRAL: dict[str, str] = {
    "formulas": "the formulas are reported beside ARTS and never enter it",
    "judge_options": "they build the judge, whose own signature names what they change",
    "data_dir": "where a pool's texts are read from, not which texts",
}

#: Placement options that only change what is displayed.
DISPLAY_ONLY_OPTIONS = ("progress",)


def _digest(*arrays: Any) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes() if isinstance(a, np.ndarray) else str(a).encode("utf-8"))
    return h.hexdigest()[:12]


def _value(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return "auto" if v is None else str(v)


def pool_signature(pool: Any) -> str:
    """A built-in pool's name; another pool's name with a digest of its ids and ratings."""
    if pool.name in BUILTIN_POOLS or pool.name in LANGUAGE_POOL_NAMES:
        return str(pool.name)
    return f"{pool.name}#{_digest(list(pool.ids), np.asarray(pool.ratings, dtype=float))}"


def placement_signature(method: str, options: dict[str, Any]) -> str:
    """The method and all its options, the defaults of those not given included, sorted."""
    from arts_metric.placement import method_defaults

    values = {k: options.get(k, v) for k, v in method_defaults(method).items() if k not in DISPLAY_ONLY_OPTIONS}
    return f"{method}(" + ",".join(f"{k}={_value(values[k])}" for k in sorted(values)) + ")"


def units_signature(config: Any) -> str:
    """How long texts become judge units and how their values are combined."""
    if config.long_texts == "whole":
        return "whole"
    if config.long_texts == "chunks":
        return f"chunks(chunk_chars={config.chunk_chars},split_above={config.split_above})"
    if config.long_texts == "mean":
        return "mean(sentences,weights=words)"
    return f"{config.long_texts}(split_above={config.split_above})"


def arts_signature(config: Any, judge: Any, pool: Any, method: str, options: dict[str, Any]) -> str:
    """The signature of scores made with these settings, judge, pool and placement."""
    fields = [
        ("arts", FORMAT_VERSION),
        ("judge", judge.signature),
        ("pool", pool_signature(pool)),
        # English (the default) is not named, so English signatures are those of earlier releases.
        *([("language", config.language)] if getattr(config, "language", "en") != "en" else []),
        ("placement", placement_signature(method, options)),
        ("units", units_signature(config)),
        ("version", __version__),
    ]
    return "|".join(f"{k}:{v}" for k, v in fields)
