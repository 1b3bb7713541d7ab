"""What an LLM judge's run cost, in one line: requests sent against judgments obtained.

By default a judgment costs exactly one request; the line shows every request
beyond that and why it was sent (a transport fault retried, an unusable answer
asked again, a duplicate of a slow request when ``hedges`` was turned on).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

#: The counters :func:`request_summary` reads (an ``openai:`` judge's ``stats``, a result's ``judge_stats``).
COUNTERS = ("requests", "asked", "answered", "cached", "retried", "reasked", "hedged")


def request_summary(stats: Mapping[str, Any]) -> str | None:
    """One line: judgments obtained (from the cache, answered by the model) and the requests
    sent for them, split into first asks, transport retries, re-asks and duplicates, plus
    judgments without an answer and the cost in US dollars when prices were given.

    Parameters
    ----------
    stats : an LLM judge's counters (``judge.stats.as_dict()``, ``judge_stats`` of a result,
        or a build rater's stats summed over its runs).

    Returns
    -------
    The line, or None when ``stats`` are not an LLM judge's (no requests counted).
    """
    if not all(isinstance(stats.get(k), int) for k in COUNTERS):
        return None
    n = {k: stats[k] for k in COUNTERS}
    line = (
        f"{n['cached'] + n['answered']} judgments ({n['cached']} from the cache, {n['answered']} answered "
        f"by the model); {n['requests']} requests sent: {n['asked']} first asks, {n['retried']} retries "
        f"after transport faults, {n['reasked']} re-asks after unusable answers, {n['hedged']} duplicates "
        "of slow requests"
    )
    missing = [f"{stats[k]} {k}" for k in ("failed", "skipped") if stats.get(k)]
    if missing:
        line += f"; without an answer: {', '.join(missing)}"
    if isinstance(stats.get("cost_usd"), (int, float)):
        line += f"; cost ${stats['cost_usd']:.4f}"
    return line


def stats_since(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """A judge's counters for one call or shard: numbers minus their values ``before`` it
    (float counters such as seconds and US dollars rounded to 1e-6), other values as ``after``."""

    def since(key: str, value: Any) -> Any:
        old = before.get(key, 0)
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (value, old))
        return (round(value - old, 6) if isinstance(value, float) else value - old) if numeric else value

    return {key: since(key, value) for key, value in after.items()}


def sum_stats(parts: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The counters of several parts of one run (shards scored by different workers) added up:
    numbers summed (floats rounded to 1e-6), other values taken from the last part."""
    total: dict[str, Any] = {}
    for part in parts:
        for key, value in part.items():
            old = total.get(key, 0)
            numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (value, old))
            total[key] = (
                (round(old + value, 6) if isinstance(old + value, float) else old + value) if numeric else value
            )
    return total
