"""The ``openai:`` judge spec: ``openai:MODEL[@BASE_URL][?option=value&...]`` to a judge
of :mod:`arts_metric.judges.openai_judge` (see there for the forms and options)."""

from __future__ import annotations

import importlib.util
from typing import Any

from arts_metric.judges.openai_judge import OpenAIListwiseJudge, OpenAIPairwiseJudge, OpenAIPointwiseJudge
from arts_metric.llm.endpoint import parse_spec, resolve_endpoint, sanitize_url
from arts_metric.llm.options import ALIASES, LLMOptions
from arts_metric.llm.strategies import LISTWISE, PAIRWISE


def _judge_name(model: str, explicit_url: str | None, options: LLMOptions) -> str:
    """``openai:MODEL[@URL]`` plus the named decision options (:meth:`LLMOptions.name_tags`)."""
    name = f"openai:{model}"
    if explicit_url:
        name += "@" + sanitize_url(explicit_url)
    tags = options.name_tags()
    return name + ("?" + "&".join(tags) if tags else "")


def build_openai_judge(
    model: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    **options: Any,
) -> OpenAIPairwiseJudge | OpenAIPointwiseJudge | OpenAIListwiseJudge:
    """Build the judge for ``model`` with keyword options (see :class:`LLMOptions`)."""
    if importlib.util.find_spec("openai") is None:
        raise ImportError("the openai judges need the openai package: pip install 'arts-metric[llm]'")
    opts = options.pop("_options", None) or LLMOptions.from_mapping(options, "openai judge arguments")
    endpoint = resolve_endpoint(model, base_url, api_key)
    name = _judge_name(model, base_url, opts)
    if opts.strategy in PAIRWISE:
        return OpenAIPairwiseJudge(endpoint, opts, name)
    if opts.strategy in LISTWISE:
        return OpenAIListwiseJudge(endpoint, opts, name)
    return OpenAIPointwiseJudge(endpoint, opts, name)


def from_spec(rest: str, **kwargs: Any) -> OpenAIPairwiseJudge | OpenAIPointwiseJudge | OpenAIListwiseJudge:
    """Factory for ``get_judge("openai:...")``; see the module docstring for the spec form.
    Keyword arguments win over spec options, ``base_url=`` over the ``@URL`` part;
    values given as text are converted by the options' declared types."""
    model, spec_url, spec_options = parse_spec(rest)
    base_url = kwargs.pop("base_url", None) or spec_url
    api_key = kwargs.pop("api_key", None)
    merged = {ALIASES.get(k, k): v for k, v in spec_options.items()}
    merged.update({ALIASES.get(k, k): v for k, v in kwargs.items()})
    shown = f"openai:{model}" + (f"@{sanitize_url(spec_url)}" if spec_url else "")  # no credentials in errors
    opts = LLMOptions.from_mapping(merged, f"judge {shown!r} and its arguments")
    return build_openai_judge(model, base_url=base_url, api_key=api_key, _options=opts)
