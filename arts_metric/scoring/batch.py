"""The texts of one ``score_texts`` call, gathered and placed: the first two steps of the
path of a score after the checks.

:func:`gather` puts predictions, sources and references in one list (each group keeps its
offset), warns about texts in another language's script before any judge request, and finds
the empty texts and the texts without a word. :func:`place_batch` places every text that has a
word (:func:`arts_metric.scoring.units.place_texts`) and gives the others the fixed values of
a text without a word.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arts_metric.languages.scripts import mismatched_texts, script_warning
from arts_metric.scoring.scorer import Scorer
from arts_metric.scoring.units import PlacedTexts, place_texts
from arts_metric.text.checks import blank_indices
from arts_metric.text.wordless import WORDLESS_ARTS, top_rating, wordless_indices
from arts_metric.userwarnings import warn as warn_user


@dataclass
class Batch:
    """The texts of one call: ``groups`` (``predictions``, and ``sources`` and the flattened
    ``references`` when given) in one list ``texts``, group ``name`` starting at
    ``offsets[name]``; per group, the indices of its ``blank`` texts, of its texts without a
    word (``fixed``, the blank ones included) and of its texts in another script (``foreign``)."""

    groups: dict[str, list[str]]
    texts: list[str] = field(default_factory=list)
    offsets: dict[str, int] = field(default_factory=dict)
    blank: dict[str, set[int]] = field(default_factory=dict)
    fixed: dict[str, set[int]] = field(default_factory=dict)
    foreign: dict[str, set[int]] = field(default_factory=dict)

    def part(self, values: Any, name: str) -> Any:
        """The slice of ``values`` (one entry per text of the batch) that belongs to group ``name``."""
        return values[self.offsets[name] : self.offsets[name] + len(self.groups[name])]

    def by_group(self, indices: set[int]) -> dict[str, set[int]]:
        """Indices into :attr:`texts`, as indices into each group."""
        return {
            name: {i - self.offsets[name] for i in indices if 0 <= i - self.offsets[name] < len(ts)}
            for name, ts in self.groups.items()
        }


def gather(
    predictions: list[str], sources: list[str] | None, references: list[list[str]] | None, language: str
) -> Batch:
    """The :class:`Batch` of a call; warns (before any judge request) about each group's texts
    written in another script than ``language``'s."""
    groups = {"predictions": predictions}
    if sources is not None:
        groups["sources"] = sources
    if references is not None:
        groups["references"] = [r for refs in references for r in refs]
    batch = Batch(groups)
    for name, texts in groups.items():
        batch.offsets[name] = len(batch.texts)
        batch.texts += texts
        batch.foreign[name] = set(mismatched_texts(texts, language))
        if (message := script_warning(texts, language, name)) is not None:
            warn_user(message)
    batch.blank = batch.by_group(set(blank_indices(batch.texts)))
    batch.fixed = batch.by_group(set(wordless_indices(batch.texts)))  # the blank texts too: they have no word
    return batch


@dataclass
class Placement:
    """Every text of a :class:`Batch` placed: ``arts``, ``arts_elo`` and ``units`` per text,
    ``bounds`` (``(n, 2)``) when the placement gives intervals, each text's sentence rows when
    asked for, the :class:`~arts_metric.scoring.units.PlacedTexts` of the texts with a word (None
    when there are none) and how many predictions were placed."""

    arts: np.ndarray
    elo: np.ndarray
    units: np.ndarray
    bounds: np.ndarray | None
    sentences: list[list[dict[str, Any]]]
    placed: PlacedTexts | None
    n_predictions_placed: int


def place_batch(batch: Batch, scorer: Scorer, return_sentences: bool) -> Placement:
    """Place every text of ``batch`` with a word; a text without one gets ``arts`` 1.0, the
    hardest end, and ``arts_elo`` at the top of the pool's scale, without a judge request."""
    fixed = {batch.offsets[name] + i for name, idx in batch.fixed.items() for i in idx}
    size, n = len(batch.texts), len(batch.groups["predictions"])
    scored = [i for i in range(size) if i not in fixed]
    arts, elo, units = np.full(size, np.nan), np.full(size, np.nan), np.zeros(size, dtype=int)
    sentences: list[list[dict[str, Any]]] = [[] for _ in range(size)]  # texts without a word have none
    bounds, placed = None, None
    n_scored = sum(i < n for i in scored)
    if scored:
        names = [f"{name}[{i}]" for name, ts in batch.groups.items() for i in range(len(ts))]
        placed = place_texts(
            [batch.texts[i] for i in scored], scorer, n_mean=n_scored or None, names=[names[i] for i in scored]
        )
        arts[scored], elo[scored], units[scored] = placed.arts, placed.arts_elo, placed.units
        if return_sentences:
            for k, i in enumerate(scored):
                sentences[i] = _sentence_rows(placed, k)
        if placed.arts_interval is not None:
            bounds = np.full((size, 2), np.nan)
            bounds[scored] = placed.arts_interval
            bounds[sorted(fixed)] = WORDLESS_ARTS
    arts[sorted(fixed)] = WORDLESS_ARTS  # the hardest end: a text without a word tells the reader nothing
    elo[sorted(fixed)] = top_rating(scorer.pool.ratings)
    return Placement(arts, elo, units, bounds, sentences, placed, n_scored)


def _sentence_rows(placed: Any, k: int) -> list[dict[str, Any]]:
    """The ``k``-th placed text's sentences with their values, in reading order."""
    return [
        {"text": text, "arts": float(a), "arts_elo": float(r), "words": int(w)}
        for text, a, r, w in zip(placed.unit_texts[k], placed.unit_arts[k], placed.unit_elo[k], placed.unit_weights[k])
    ]
