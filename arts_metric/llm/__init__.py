"""Machinery of the LLM judges (:mod:`arts_metric.judges.openai_judge`).

| module | job |
| --- | --- |
| :mod:`~arts_metric.llm.endpoint` | base URL / key / model resolution, spec parsing |
| :mod:`~arts_metric.llm.options` | every judge option, declared once with its kind (transport / decision) |
| :mod:`~arts_metric.llm.prompts` | versioned templates in :mod:`arts_metric.prompts` |
| :mod:`~arts_metric.llm.strategies` | texts -> messages, answers -> values (higher = harder) |
| :mod:`~arts_metric.llm.parsing` | strict answer parsers |
| :mod:`~arts_metric.llm.cache` | the SQLite judgment cache (WAL) |
| :mod:`~arts_metric.llm.budget` | request / cost limits |
| :mod:`~arts_metric.llm.runner` | async concurrency, retries, progress, sync facade |
| :mod:`~arts_metric.llm.contact` | first contact: an endpoint that cannot be reached fails fast |
"""
