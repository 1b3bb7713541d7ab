"""LLM judges over any OpenAI-compatible chat-completions endpoint.

Spec: ``openai:MODEL[@BASE_URL][?option=value&...]``, e.g.

- ``openai:gpt-4o`` (endpoint from ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``,
  else api.openai.com),
- ``openai:llama3.1:8b@http://localhost:11434/v1`` (Ollama; vLLM and
  llama.cpp alike),
- ``openai:gpt-4o-mini?strategy=ease_1to5&style=simple``.

``base_url=`` / ``api_key=`` arguments win over the spec and the environment;
other keyword arguments win over spec options (see
:class:`arts_metric.llm.options.LLMOptions` for the full list).

Pairwise strategies (``pairwise``, ``pairwise_expert``) answer
:meth:`Judge.compare` (P(first harder), the paper's Elo input); pointwise
ones (``pointwise``, ``ease_1to5``, ``cefr``) give a latent difficulty per
text via :meth:`PointwiseJudge.score` (higher = harder, NaN where no usable
answer). ``listwise`` ranks texts together (``rank``, ``score``); its
positions mean something only among the texts of one ranking, so it is not a
:class:`PointwiseJudge` and its ``compare`` ranks the texts of all pairs in
one request. Every judge keeps :attr:`stats` (requests, cache hits, judgments
asked and answered, retries, re-asks, duplicates, invalid, failed, skipped,
tokens, cost; :func:`arts_metric.llm.report.request_summary` puts them in one
line) and :attr:`last_report` for its most recent session.

What is a judgment: an answer the model gave (usable, or unusable after every
re-ask: *invalid*, ``None``, cached like any answer). A pair or text for which
no answer was obtained (the request failed after its retries, the budget did
not allow it) is :data:`~arts_metric.judges.base.UNANSWERED` (NaN scores
flagged by :meth:`score_status`): never cached, never coin-flipped, asked again
on the next run. The pairwise judge is :attr:`~arts_metric.judges.base.Judge.concurrent`:
inside ``async with judge.session():`` many :meth:`compare_async` calls share
one client and cache, and each returns as soon as its own answers are in.
"""

from __future__ import annotations

import hashlib
import json
import random
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Sequence

import numpy as np

from arts_metric.judges.base import UNANSWERED, Decision, Judge, PointwiseJudge
from arts_metric.llm.budget import Budget
from arts_metric.llm.cache import judgment_key
from arts_metric.llm.endpoint import (
    Endpoint,
)
from arts_metric.llm.hedging import Latencies
from arts_metric.llm.options import LLMOptions
from arts_metric.llm.protocol import EndpointHealth, Item, Outcome, RunReport, RunSettings
from arts_metric.llm.runner import Session, run_sync
from arts_metric.llm.strategies import (
    ListwiseStrategy,
    PairwiseStrategy,
    PointwiseStrategy,
    messages_digest,
)


def _validate_texts(texts: Sequence[str], label: str = "texts") -> list[str]:
    if isinstance(texts, str):
        raise ValueError(f"{label} must be a sequence of strings, not a single string")
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str) or not t.strip():
            raise ValueError(f"{label}[{i}] must be a non-empty string, got {t!r}")
    return out


def _validate_pairs(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
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


class _OpenAIJudgeBase:
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
        prompt's version and the sampling parameters: what :mod:`arts_metric.signature` names."""
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
    async def session(self) -> AsyncIterator["_OpenAIJudgeBase"]:
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


class OpenAIPairwiseJudge(_OpenAIJudgeBase, Judge):
    """ARTS pairwise judging (A.2.2, or A.2.5 with a persona) over HTTP.

    ``compare`` asks every pair concurrently and returns P(first text harder):
    1.0 / 0.0, or 0.5 when ``both_orders`` gave contradicting answers; None
    when the model's answer stayed unusable (counted in ``stats.invalid``; with
    ``invalid="coin_flip"`` replaced by a seeded coin flip, counted in
    ``stats.extra["coin_flips"]``); :data:`UNANSWERED` when no answer was
    obtained (counted in ``stats.extra["failed"]`` / ``["skipped"]``).
    """

    concurrent = True

    def __init__(self, endpoint: Endpoint, options: LLMOptions, name: str) -> None:
        Judge.__init__(self)
        self._setup(endpoint, options, name)
        self.strategy = PairwiseStrategy(topic=options.persona if options.strategy == "pairwise_expert" else None)

    def _item(self, a: str, b: str) -> Item:
        st = self.strategy
        messages = st.messages(a, b)
        key = self._key(st.name, st.version, (a, b), messages, {"topic": st.topic})
        return Item(key, messages, st.parse, (a, b), self.params["max_tokens"])

    def compare(self, pairs: Sequence[tuple[str, str]]) -> list[Decision]:
        return run_sync(lambda: self.compare_async(pairs))

    async def compare_async(self, pairs: Sequence[tuple[str, str]]) -> list[Decision]:
        pairs = _validate_pairs(pairs)
        if not pairs:
            return []
        both = self.options.both_orders
        items = []
        for a, b in pairs:
            items.append(self._item(a, b))
            if both:
                items.append(self._item(b, a))
        outcomes = await self._run_async(items)
        step = 2 if both else 1
        decisions: list[Decision] = []
        ex = self.stats.extra
        for i in range(len(pairs)):
            asked = outcomes[i * step : i * step + step]
            if any(o.status in ("failed", "skipped") for o in asked):
                decisions.append(UNANSWERED)  # incomplete: never a judgment, never a coin flip
                continue
            first = asked[0]
            d1 = self.strategy.prob_first_harder(first.value) if first.status == "ok" else None
            d = d1
            if both:
                second = asked[1]
                d2 = 1.0 - self.strategy.prob_first_harder(second.value) if second.status == "ok" else None
                if d1 is not None and d2 is not None:
                    ex["order_pairs"] = ex.get("order_pairs", 0) + 1
                    if d1 != d2:
                        ex["order_inconsistent"] = ex.get("order_inconsistent", 0) + 1
                    d = (d1 + d2) / 2.0
                else:
                    d = d1 if d1 is not None else d2
            if d is None:  # every answer of the pair stayed unusable
                self.stats.invalid += 1
                if self.options.invalid == "coin_flip":
                    d = self._coin(items[i * step].key)
                    ex["coin_flips"] = ex.get("coin_flips", 0) + 1
            decisions.append(d)
        self.stats.calls += len(pairs)
        if both:
            ex["order_inconsistency_rate"] = round(
                ex.get("order_inconsistent", 0) / max(ex.get("order_pairs", 0), 1), 6
            )
        return decisions


class _LatentJudge(_OpenAIJudgeBase):
    """Shared by pointwise and listwise judges: hard comparisons of latent scores."""

    def prob_harder(self, score_a: np.ndarray, score_b: np.ndarray) -> np.ndarray:
        """1 if a's latent is higher, 0 if lower, 0.5 on a tie; NaN if either is missing."""
        a = np.asarray(score_a, dtype=float)
        b = np.asarray(score_b, dtype=float)
        with np.errstate(invalid="ignore"):
            p = 0.5 * (1.0 + np.sign(a - b))
        return np.where(np.isnan(a) | np.isnan(b), np.nan, p)

    def compare(self, pairs: Sequence[tuple[str, str]]) -> list[Decision]:
        pairs = _validate_pairs(pairs)
        if not pairs:
            return []
        unique = list(dict.fromkeys(t for pair in pairs for t in pair))
        scores, lost = self.score_status(unique)
        latent = dict(zip(unique, scores))
        unasked = {t for t, x in zip(unique, lost) if x}  # failed or skipped (budget): never coin-flipped
        out: list[Decision] = []
        for a, b in pairs:
            if a in unasked or b in unasked:
                out.append(UNANSWERED)
                continue
            p = float(self.prob_harder(latent[a], latent[b]))
            if np.isnan(p) and self.options.invalid == "coin_flip":
                p = self._coin(a + "\x00" + b)
                self.stats.extra["coin_flips"] = self.stats.extra.get("coin_flips", 0) + 1
            out.append(None if np.isnan(p) else p)
        return out


class OpenAIPointwiseJudge(_LatentJudge, PointwiseJudge):
    """One request per text: ARTS 0-1 score (``pointwise``), 1-5 reading ease with a
    reason (``ease_1to5``, three prompt styles) or CEFR level (``cefr``, k examples)."""

    def __init__(self, endpoint: Endpoint, options: LLMOptions, name: str) -> None:
        PointwiseJudge.__init__(self)
        self._setup(endpoint, options, name)
        self.strategy = PointwiseStrategy(
            options.strategy,
            style=options.style,
            examples=options.examples or (),
            k=options.k,
            rng_seed=options.rng_seed,
        )

    #: one request per text: scoring a text is one judge call
    calls_per_score = 1

    def _rate(self, texts: Sequence[str]) -> tuple[list[Any], np.ndarray]:
        texts = _validate_texts(texts)
        st = self.strategy
        items = []
        for t in texts:
            messages = st.messages(t)
            extra = {"style": st.style} if st.name == "ease_1to5" else {}
            key = self._key(st.name, st.version, (t,), messages, extra)
            items.append(Item(key, messages, st.parse, (t,), self.params["max_tokens"]))
        outcomes = self._run(items)
        lost = np.array([o.status in ("failed", "skipped") for o in outcomes], dtype=bool)
        self.stats.calls += len(texts)
        self.stats.invalid += sum(o.status == "invalid" for o in outcomes)
        return [o.value if o.status == "ok" else None for o in outcomes], lost

    def rate(self, texts: Sequence[str]) -> list[Any]:
        """The parsed answer per text (a float for ``pointwise``, ``{"answer", "reason"}``
        for ``ease_1to5``, the level 1..6 for ``cefr``); None where the answer stayed
        unusable, :data:`UNANSWERED` where none was obtained."""
        values, lost = self._rate(texts)
        return [UNANSWERED if x else v for v, x in zip(values, lost)]

    def score_status(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Latent difficulty in [0, 1] per text (higher = harder; NaN = no usable
        answer) and the mask of texts that got no answer at all (asked again on a rerun)."""
        values, lost = self._rate(texts)
        return np.array([np.nan if v is None else self.strategy.latent(v) for v in values], dtype=float), lost

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """Latent difficulty in [0, 1] per text (higher = harder; NaN = no usable answer)."""
        return self.score_status(texts)[0]


class OpenAIListwiseJudge(_LatentJudge, Judge):
    """ARTS A.2.3: the model sorts a batch of texts by simplicity in one request.

    Deliberately not a :class:`PointwiseJudge`: a position is relative to the
    texts ranked with it, so scores of two separate calls (say a pool and the
    newcomers) cannot be compared. ``compare`` therefore ranks the texts of all
    its pairs together (one request per ``batch_size`` texts).
    """

    def __init__(self, endpoint: Endpoint, options: LLMOptions, name: str) -> None:
        Judge.__init__(self)
        self._setup(endpoint, options, name)
        self.strategy = ListwiseStrategy(min_coverage=options.min_coverage)

    def _rank_batches(self, texts: list[str]) -> list[tuple[list[int], dict | None, str]]:
        st = self.strategy
        size = self.options.batch_size
        batches = [texts[i : i + size] for i in range(0, len(texts), size)]
        if len(batches) > 1:
            warnings.warn(
                f"listwise: {len(texts)} texts are ranked in {len(batches)} separate batches of at most "
                f"{size}; positions are comparable only within a batch (raise batch_size to avoid this)",
                RuntimeWarning,
                stacklevel=3,
            )
        items = []
        for batch in batches:
            messages = st.messages(batch)
            key = self._key(st.name, st.version, batch, messages)
            items.append(Item(key, messages, st.parser(len(batch)), tuple(batch), self.params["max_tokens"]))
        outcomes = self._run(items)
        ex = self.stats.extra
        out = []
        offset = 0
        for batch, o in zip(batches, outcomes):
            if o.status == "ok":
                for name in ("unknown", "duplicates", "missing"):
                    ex[f"listwise_{name}"] = ex.get(f"listwise_{name}", 0) + int(o.value[name])
            out.append((list(range(offset, offset + len(batch))), o.value if o.status == "ok" else None, o.status))
            offset += len(batch)
        return out

    def rank(self, texts: Sequence[str]) -> list[int]:
        """Indices into ``texts`` from easiest to hardest, as the model sorted them
        (texts it left out are missing; one ranking per batch, concatenated)."""
        texts = _validate_texts(texts)
        order: list[int] = []
        for index, value, _ in self._rank_batches(texts):
            if value is not None:
                order.extend(index[i] for i in value["order"])
        return order

    def score_status(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Position in the model's ranking scaled to [0, 1] (higher = harder; NaN for
        texts the model left out or batches without a usable ranking), and the mask
        of texts whose batch got no answer at all (failed or not asked)."""
        texts = _validate_texts(texts)
        latent = np.full(len(texts), np.nan)
        lost = np.zeros(len(texts), dtype=bool)
        for index, value, status in self._rank_batches(texts):
            if status in ("failed", "skipped"):  # not asked is not "unusable"
                lost[index] = True
            elif status == "invalid":
                self.stats.invalid += len(index)
            if value is None:
                continue
            pos = self.strategy.positions(value["order"], len(index))
            latent[index[0] : index[0] + len(index)] = pos
        self.stats.calls += len(texts)
        return latent, lost

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """Position in the model's ranking scaled to [0, 1] (higher = harder); NaN for
        texts the model left out or batches without a usable ranking."""
        return self.score_status(texts)[0]
