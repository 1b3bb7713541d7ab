"""The one small interface every judge implements.

A judge answers "which of these two texts is harder to understand?". The
answer for a pair ``(a, b)`` is a :data:`Decision`: the probability that ``a``
is the harder text (1.0 or 0.0 for a hard decision, a fraction for a soft or
combined one), ``None`` when the judge answered but unusably (*invalid*:
counted, never replaced by a coin flip, and a judgment like any other), or
:data:`UNANSWERED` when no answer was obtained at all (*failed*: a transport or
server fault after retries, or a request a budget did not allow). Only a
model's own answer is a judgment: an unanswered pair is never recorded or
cached as decided, and a rerun asks it again.

Judges that can also score one text on its own (a learned regressor, an LLM
asked for a 0-1 score) additionally implement :class:`PointwiseJudge`: their
``score`` is a latent difficulty (higher = harder) and ``prob_harder`` turns
two such scores into a pairwise decision, so placement against a pool needs
no pairwise calls at all.

What callers may ask of any judge, without probing attributes:
:meth:`Judge.describe` (what to write in a report), :meth:`Judge.quiet` (no
progress bar of its own while the caller draws one), :attr:`Judge.preferred_batch`
(how many pairs one :meth:`Judge.compare` call should carry), and, when the
judge is made, a :class:`JudgeContext` (what the caller knows beyond the
judge's options). A remote judge (:attr:`Judge.concurrent`) also answers
:meth:`Judge.compare_async` inside one :meth:`Judge.session`, so that a caller
can keep many small questions in flight and go on with each as its answer
arrives instead of waiting for the slowest of a batch.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np


class _Unanswered:
    """The type of :data:`UNANSWERED` (a singleton, falsy, not a number: code that
    forgets to handle it fails loudly instead of counting it as a decision)."""

    __slots__ = ()
    _instance: "_Unanswered | None" = None

    def __new__(cls) -> "_Unanswered":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNANSWERED"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "UNANSWERED"  # pickles (e.g. to worker processes) as the same singleton


#: No answer was obtained for this pair (failed or not asked): ask again later.
UNANSWERED = _Unanswered()

Decision = float | None | _Unanswered


def is_unanswered(decision: Any) -> bool:
    """True for :data:`UNANSWERED` (failed or not asked), False for a judgment (even an invalid one)."""
    return decision is UNANSWERED


@dataclass
class JudgeStats:
    """Counters a judge keeps across calls (reported in results)."""

    calls: int = 0  # decisions asked for (pairs or texts)
    cached: int = 0  # answered from a cache without a request
    requests: int = 0  # requests actually sent to a remote endpoint
    retried: int = 0
    invalid: int = 0  # decisions that stayed unusable (None)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        d = {k: v for k, v in self.__dict__.items() if k != "extra"}
        d.update(self.extra)
        return d


@dataclass(frozen=True)
class JudgeContext:
    """What the caller knows besides the judge's own options, offered to every
    judge factory that takes it (``get_judge(spec, context=...)``); judges that
    need none of it ignore it.

    Attributes
    ----------
    texts : the texts being judged, in index order (a build's inputs): a
        recorded history maps texts back to these indices.
    data_dir : the ARTS data folder, for judges that read recorded data.
    """

    texts: tuple[str, ...] | None = None
    data_dir: str | os.PathLike | None = None

    def __post_init__(self) -> None:
        if self.texts is not None:
            if isinstance(self.texts, str):
                raise ValueError("JudgeContext.texts must be a sequence of strings, not one string")
            object.__setattr__(self, "texts", tuple(self.texts))


class Judge(ABC):
    """Decides which of two texts is harder. Subclasses set ``name`` (the spec string)."""

    name: str = "judge"
    #: Longest text (in characters) the judge reads; longer texts are cut with a warning.
    max_chars: int = 4000
    #: Whether the judge may draw its own progress bar (stderr); None = the judge
    #: decides (e.g. only for long jobs). Callers use :meth:`quiet`, not this flag.
    progress: bool | None = True
    #: Pairs one :meth:`compare` call should carry when a caller splits a long job
    #: (e.g. to store decisions as they come); None = every pair in one call,
    #: because the answers depend on the whole call (a recorded history replays a
    #: repeated pair's k-th record only within one call).
    preferred_batch: int | None = 32
    #: True when :meth:`compare_async` calls inside one :meth:`session` run
    #: concurrently (a remote judge): a caller may then keep many one-pair calls
    #: in flight and use each answer as it arrives. False: every call answers at
    #: once (a local judge), so callers batch their pairs into one :meth:`compare`.
    concurrent: bool = False

    def __init__(self) -> None:
        self.stats = JudgeStats()

    @abstractmethod
    def compare(self, pairs: Sequence[tuple[str, str]]) -> list[Decision]:
        """P(first text is harder) for every pair; None where the judge's answer was
        unusable, :data:`UNANSWERED` where no answer was obtained."""

    async def compare_async(self, pairs: Sequence[tuple[str, str]]) -> list[Decision]:
        """:meth:`compare` for callers on an event loop; concurrent judges answer
        many such calls at once (use them inside :meth:`session`)."""
        return self.compare(pairs)

    @asynccontextmanager
    async def session(self) -> AsyncIterator["Judge"]:
        """Within ``async with judge.session():`` :meth:`compare_async` calls share
        one connection, cache and progress bar (a no-op for local judges)."""
        yield self

    @property
    def score_key(self) -> str:
        """What identifies this judge's scores of a text: the key under which a
        pool keeps the judge's scores of its texts. Defaults to ``name``; judges
        whose scores also depend on settings not in the name (an endpoint,
        sampling parameters) extend it."""
        return self.name

    @property
    def signature(self) -> str:
        """What names this judge in a score's ``arts_signature``
        (:mod:`arts_metric.scoring.signature`): ``name`` here; judges whose decisions depend on
        more (a model version, weights, a prompt, sampling parameters) extend it."""
        return self.name

    @contextmanager
    def quiet(self) -> Iterator["Judge"]:
        """Within the ``with`` block the judge draws no progress bar of its own
        (for a caller that shows one bar for a whole multi-call job)."""
        saved = self.progress
        self.progress = False
        try:
            yield self
        finally:
            self.progress = saved

    def describe(self) -> dict[str, Any]:
        """What a report should say about this judge: ``judge`` (the name) and
        ``stats`` (:meth:`JudgeStats.as_dict`); judges add what identifies them
        further (model, endpoint without secrets, strategy, prompt version, ...)."""
        return {"judge": self.name, "stats": self.stats.as_dict()}

    def close(self) -> None:
        """Release resources (connections, caches). Safe to call twice."""

    def __enter__(self) -> "Judge":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class PointwiseJudge(Judge):
    """A judge that can score a single text; pairwise decisions follow from the scores."""

    #: Judge calls that scoring one text counts as in placement results: 0 for a
    #: local model that scores for free (the learned judge), 1 for a judge asked
    #: once per text (an LLM); pool texts scored for a placement count too.
    calls_per_score: int = 0

    @abstractmethod
    def score(self, texts: Sequence[str]) -> np.ndarray:
        """Latent difficulty per text (float, higher = harder; NaN = no usable answer)."""

    @abstractmethod
    def prob_harder(self, score_a: np.ndarray, score_b: np.ndarray) -> np.ndarray:
        """P(a harder than b) from latent scores; broadcasts like numpy."""

    def score_status(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`score` plus a boolean mask of the texts that got no answer at all
        (failed or not asked: :data:`UNANSWERED`). Their scores are NaN like an
        invalid answer's, but they are not judgments: a rerun asks them again."""
        scores = np.asarray(self.score(texts), dtype=float)
        return scores, np.zeros(len(scores), dtype=bool)

    def compare(self, pairs: Sequence[tuple[str, str]]) -> list[Decision]:
        if not pairs:
            return []
        a, lost_a = self.score_status([p[0] for p in pairs])
        b, lost_b = self.score_status([p[1] for p in pairs])
        p = self.prob_harder(a, b)
        return [UNANSWERED if la or lb else None if np.isnan(x) else float(x) for x, la, lb in zip(p, lost_a, lost_b)]
