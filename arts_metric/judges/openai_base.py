"""What every ``openai:`` judge shares (:mod:`arts_metric.judges.openai_judge`): its endpoint,
options and budget, the sessions that run its requests (:mod:`arts_metric.llm.runner`), its
cache keys, its statistics and report, and the checks of the texts and pairs it is given."""

from __future__ import annotations

import hashlib
import json
import random
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Sequence

from arts_metric.llm.budget import Budget
from arts_metric.llm.cache import judgment_key
from arts_metric.llm.endpoint import Endpoint
from arts_metric.llm.hedging import Latencies
from arts_metric.llm.options import LLMOptions
from arts_metric.llm.protocol import EndpointHealth, Item, Outcome, RunReport, RunSettings
from arts_metric.llm.runner import Session, run_sync
from arts_metric.llm.strategies import messages_digest


def validate_texts(texts: Sequence[str], label: str = "texts") -> list[str]:
    """``texts`` as a list, or a ``ValueError`` naming the first that is not a non-empty string.

    Parameters
    ----------
    texts : the texts given to a judge.
    label : their name in the error (``texts[3] must be ...``).

    Returns
    -------
    list of str
    """
    if isinstance(texts, str):
        raise ValueError(f"{label} must be a sequence of strings, not a single string")
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str) or not t.strip():
            raise ValueError(f"{label}[{i}] must be a non-empty string, got {t!r}")
    return out


def validate_pairs(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``pairs`` as a list of tuples, or a ``ValueError`` naming the first that is not two non-empty texts.

    Parameters
    ----------
    pairs : the pairs given to a judge's ``compare``.

    Returns
    -------
    list of tuple of str
    """
    out = []
    for i, pair in enumerate(pairs):
        if isinstance(pair, str) or len(pair) != 2:
            raise ValueError(f"pairs[{i}] must be a pair of two texts, got {pair!r}")
        a, b = pair
        for j, t in enumerate((a, b)):
            if not isinstance(t, str) or not t.strip():
                raise ValueError(f"pairs[{i}][{j}] must be a non-empty string, got {t!r}")
        out.append((a, b))
    return out


class OpenAIJudgeBase:
    """Shared plumbing: endpoint, options, budget, running items, statistics."""

    def _setup(self, endpoint: Endpoint, options: LLMOptions, name: str) -> None:
        self.endpoint = endpoint
        self.options = options
        self.name = name
        self.progress = options.progress
        # One budget for the judge's lifetime: max_requests / max_cost bound all its calls together.
        self.budget = Budget(options.max_requests, options.max_cost, options.price_in, options.price_out)
        self.last_report: RunReport | None = None
        self._session: Session | None = None
        self._health = EndpointHealth()  # an endpoint that answered once is not "unreachable" later
        self._latencies = Latencies(options.hedge_percentile, options.hedge_after)  # across sessions
        self.stats.extra.update(
            {"model": endpoint.model, "endpoint": endpoint.display_url, "strategy": options.strategy}
        )

    @property
    def score_key(self) -> str:
        """The name plus the endpoint and sampling parameters: two judges that
        differ only in, say, temperature must not share a pool's cached scores."""
        params = json.dumps(self.params, sort_keys=True, default=str)
        return f"{self.name}|{self.endpoint.display_url}|{params}"

    @property
    def signature(self) -> str:
        """The canonical name (model, endpoint without credentials, decision options), the
        prompt's version and the sampling parameters: what :mod:`arts_metric.scoring.signature` names."""
        params = ",".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        return f"{self.name}+prompt:{self.strategy.version}+{params}"

    @property
    def params(self) -> dict[str, Any]:
        """The sampling parameters sent with every request (part of every cache key)."""
        return self.options.request_params()

    def describe(self) -> dict[str, Any]:
        """Name, model, endpoint (no credentials), strategy, prompt version, persona, statistics."""
        info: dict[str, Any] = {
            "judge": self.name,
            "model": self.endpoint.model,
            "endpoint": self.endpoint.display_url,
            "strategy": self.strategy.name,
            "prompt_version": self.strategy.version,
        }
        if self.options.persona is not None:
            info["persona"] = self.options.persona
        info["stats"] = self.stats.as_dict()
        return info

    def _key(
        self, strategy: str, version: str, texts: Sequence[str], messages: list, extra: dict | None = None
    ) -> str:
        extra = dict(extra or {})
        extra["prompt_sha"] = messages_digest(messages)
        return judgment_key(self.endpoint.model, strategy, version, self.params, texts, extra)

    def _settings(self) -> RunSettings:
        st = self.strategy
        return RunSettings(
            self.endpoint,
            st.name,
            st.version,
            self.params,
            self.budget,
            self.options,
            progress=bool(self.progress),
            desc=f"{self.endpoint.model} {st.name}",
            health=self._health,
            latencies=self._latencies,
        )

    @asynccontextmanager
    async def session(self) -> AsyncIterator["OpenAIJudgeBase"]:
        """One client, cache connection, progress bar and report for every call made
        inside the block (nested blocks join the outer one); statistics are added
        when it closes."""
        if self._session is not None:
            yield self
            return
        session = Session(self._settings())
        self._session = session
        try:
            async with session:
                yield self
        finally:
            self._session = None
            self._account(session.report)

    async def _run_async(self, items: list[Item]) -> list[Outcome]:
        if self._session is None:
            async with self.session():
                return await self._session.run(items)
        return await self._session.run(items)

    def _run(self, items: list[Item]) -> list[Outcome]:
        return run_sync(lambda: self._run_async(items))

    def _account(self, report: RunReport) -> None:
        """Add a closed session's counters to :attr:`stats`."""
        self.last_report = report
        st = self.stats
        st.cached += report.cached
        st.requests += report.requests
        st.retried += report.retried
        st.prompt_tokens += report.prompt_tokens
        st.completion_tokens += report.completion_tokens
        ex = st.extra
        for name in ("asked", "answered", "reasked", "failed", "skipped", "hedged"):
            ex[name] = ex.get(name, 0) + getattr(report, name)
        ex["unique_judgments"] = ex.get("unique_judgments", 0) + report.unique
        ex["seconds"] = round(ex.get("seconds", 0.0) + report.seconds, 3)
        if self.budget.priced:
            ex["cost_usd"] = round(self.budget.spent, 6)
        if report.stopped:
            ex["stopped"] = report.stopped
        answered = report.unique - report.failed - report.skipped  # from the model or the cache
        if report.unusable and 2 * report.invalid >= max(answered, 1):  # at least half of them unusable
            shown = ", ".join(repr(a if len(a) <= 40 else a[:37] + "...") for a in dict.fromkeys(report.unusable))
            warnings.warn(
                f"{report.invalid} of {answered} answers of model {self.endpoint.model!r} were unusable after "
                f"every re-ask (e.g. {shown}); they count as no judgment, so scores may be missing (None): "
                "check that the model follows the prompt's answer format (language, labels)",
                RuntimeWarning,
                stacklevel=4,
            )

    def _coin(self, key: str) -> float:
        seed = int(hashlib.sha256(f"{self.options.rng_seed}:{key}".encode()).hexdigest()[:16], 16)
        return float(random.Random(seed).random() < 0.5)

    def report(self) -> dict:
        """All counters as one dict (what results show under ``judge_stats``)."""
        return self.stats.as_dict()
