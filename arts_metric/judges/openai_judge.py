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
What the three judges share (endpoint, budget, sessions, cache keys, statistics)
is :class:`~arts_metric.judges.openai_base.OpenAIJudgeBase`.
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from arts_metric.judges.base import UNANSWERED, Decision, Judge, PointwiseJudge
from arts_metric.judges.openai_base import OpenAIJudgeBase, validate_pairs, validate_texts
from arts_metric.llm.endpoint import Endpoint
from arts_metric.llm.options import LLMOptions
from arts_metric.llm.protocol import Item
from arts_metric.llm.runner import run_sync
from arts_metric.llm.strategies import ListwiseStrategy, PairwiseStrategy, PointwiseStrategy


class OpenAIPairwiseJudge(OpenAIJudgeBase, Judge):
    """ARTS pairwise judging (A.2.2, or A.2.5 with a persona) over HTTP; with
    ``language`` other than English, A.2.2 naming the texts' language.

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
        if options.strategy == "pairwise_expert":
            self.strategy = PairwiseStrategy(topic=options.persona)
        else:
            self.strategy = PairwiseStrategy(language=options.language)

    def _item(self, a: str, b: str) -> Item:
        st = self.strategy
        messages = st.messages(a, b)
        extra = {"topic": st.topic} if st.language is None else {"topic": st.topic, "language": st.language}
        key = self._key(st.name, st.version, (a, b), messages, extra)
        return Item(key, messages, st.parse, (a, b), self.params["max_tokens"])

    def compare(self, pairs: Sequence[tuple[str, str]]) -> list[Decision]:
        return run_sync(lambda: self.compare_async(pairs))

    async def compare_async(self, pairs: Sequence[tuple[str, str]]) -> list[Decision]:
        pairs = validate_pairs(pairs)
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


class _LatentJudge(OpenAIJudgeBase):
    """Shared by pointwise and listwise judges: hard comparisons of latent scores."""

    def prob_harder(self, score_a: np.ndarray, score_b: np.ndarray) -> np.ndarray:
        """1 if a's latent is higher, 0 if lower, 0.5 on a tie; NaN if either is missing."""
        a = np.asarray(score_a, dtype=float)
        b = np.asarray(score_b, dtype=float)
        with np.errstate(invalid="ignore"):
            p = 0.5 * (1.0 + np.sign(a - b))
        return np.where(np.isnan(a) | np.isnan(b), np.nan, p)

    def compare(self, pairs: Sequence[tuple[str, str]]) -> list[Decision]:
        pairs = validate_pairs(pairs)
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
        texts = validate_texts(texts)
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
        texts = validate_texts(texts)
        order: list[int] = []
        for index, value, _ in self._rank_batches(texts):
            if value is not None:
                order.extend(index[i] for i in value["order"])
        return order

    def score_status(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Position in the model's ranking scaled to [0, 1] (higher = harder; NaN for
        texts the model left out or batches without a usable ranking), and the mask
        of texts whose batch got no answer at all (failed or not asked)."""
        texts = validate_texts(texts)
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
