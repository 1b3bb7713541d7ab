"""Judges, selected everywhere by a spec string.

| spec | judge | module |
| --- | --- | --- |
| ``learned`` | the embedded offline default (MiniLM embeddings + cheap features) | :mod:`arts_metric.judges.learned` |
| ``history:PATH`` | answers from a recorded history (ARTS format) | :mod:`arts_metric.judges.history` |
| ``multilingual:CODE`` | the offline judge of Arabic, French, Hindi or Russian (``ar``, ``fr``, ``hi``, ``ru``) | :mod:`arts_metric.judges.multilingual` |
| ``openai:MODEL[@BASE_URL][?opt=v&...]`` | an LLM over any OpenAI-compatible endpoint (pairwise, listwise, pointwise, 1-5 ease, CEFR) | :mod:`arts_metric.judges.openai_judge` |

New judges register a prefix in ``_FACTORIES``; the factory gets the part after
the colon (or ``""``) and the keyword arguments given to :func:`get_judge`, and,
if it has a ``context`` parameter, the caller's :class:`JudgeContext`. Option
values may arrive as text (a spec's ``?k=v``, a build's ``--rater 'SPEC k=v'``):
each factory converts them by its declared types
(:func:`arts_metric.options.convert_options`).
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from arts_metric.judges.base import (
    UNANSWERED,
    Decision,
    Judge,
    JudgeContext,
    JudgeStats,
    PointwiseJudge,
    is_unanswered,
)
from arts_metric.scrub import remember_spec, scrub, scrub_exception

# prefix -> "module:factory"; imported lazily so that e.g. the openai client is
# only needed by users of the LLM judges.
_FACTORIES: dict[str, str] = {
    "learned": "arts_metric.judges.learned:from_spec",
    "history": "arts_metric.judges.history:from_spec",
    "openai": "arts_metric.judges.openai_spec:from_spec",
    "multilingual": "arts_metric.judges.multilingual:from_spec",
}


def available_judges() -> list[str]:
    """The registered spec prefixes."""
    return sorted(_FACTORIES)


def get_judge(spec: str | Judge, context: JudgeContext | None = None, **kwargs: Any) -> Judge:
    """Turn a spec string (``"learned"``, ``"openai:gpt-4o"``, ...) into a judge.

    ``kwargs`` are the judge's options (values or their text); ``context`` is
    passed to the factories that take one (the ``history:`` judge reads
    ``context.texts`` and ``context.data_dir``; options given explicitly win).
    A :class:`Judge` instance is returned unchanged.
    """
    if isinstance(spec, Judge):
        return spec
    secrets = remember_spec(spec, kwargs)  # masked in every message from here on, whatever goes wrong
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(scrub(f"judge must be a spec string or a Judge, got {spec!r}"))
    prefix, _, rest = spec.partition(":")
    target = _FACTORIES.get(prefix)
    if target is None:
        raise ValueError(scrub(f"unknown judge {spec!r}; known prefixes: {', '.join(available_judges())}"))
    module_name, _, attr = target.partition(":")
    factory = getattr(importlib.import_module(module_name), attr)
    if context is not None and "context" in inspect.signature(factory).parameters:
        kwargs["context"] = context
    try:
        return factory(rest, **kwargs)
    except (ValueError, TypeError) as exc:  # e.g. a malformed spec or URL, quoted in the message
        raise scrub_exception(exc, secrets) from None


__all__ = [
    "UNANSWERED",
    "is_unanswered",
    "Decision",
    "Judge",
    "JudgeContext",
    "JudgeStats",
    "PointwiseJudge",
    "get_judge",
    "available_judges",
]
