"""The close-pair head's inputs: what an edit between two near-paraphrases removed
and added. Every column is antisymmetric: swapping the texts negates it."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np

from arts_metric.text.features import FEATURE_NAMES, text_features, word_zipf, words


def _words(text: str) -> Counter:
    return Counter(w.lower() for w in words(text))


def word_overlap(a: str, b: str) -> float:
    """Dice overlap of the two texts' word multisets (lower-cased): 1 = the same
    words, 0 = none shared. Near-paraphrases (an output vs its source) sit above
    ~0.7; two unrelated pool texts rarely exceed 0.3."""
    wa, wb = _words(a), _words(b)
    total = sum(wa.values()) + sum(wb.values())
    return 2.0 * sum((wa & wb).values()) / total if total else 1.0


def _edit_side(words: Counter) -> list[float]:
    """What one side of an edit contributes: log(1 + words), summed word rarity
    (6 - Zipf, floored at 0), log(1 + letters)."""
    w = list(words.elements())
    if not w:
        return [0.0, 0.0, 0.0]
    return [
        float(np.log1p(len(w))),
        float(sum(6.0 - min(word_zipf(x), 6.0) for x in w)),
        float(np.log1p(sum(len(x) for x in w))),
    ]


#: Input columns of the close-pair head (all antisymmetric: swapping a and b negates them).
EDIT_FEATURE_NAMES: tuple[str, ...] = ("edit_log_words", "edit_rarity", "edit_log_letters")
CLOSE_FEATURE_NAMES: tuple[str, ...] = (
    ("score_diff_over_T",) + EDIT_FEATURE_NAMES + tuple(f"diff_{n}" for n in FEATURE_NAMES)
)


def close_pair_inputs(
    a: Sequence[str],
    b: Sequence[str],
    score_a: np.ndarray,
    score_b: np.ndarray,
    temperature: float,
    feats_a: np.ndarray | None = None,
    feats_b: np.ndarray | None = None,
) -> np.ndarray:
    """Inputs of the close-pair head, ``(n, len(CLOSE_FEATURE_NAMES))``: the pointwise
    score difference in units of T, what the edit removed minus what it added
    (:func:`_edit_side` of the words only in ``a`` minus those only in ``b``), and
    the difference of the cheap features. Swapping the texts negates every column."""
    fa = text_features(a) if feats_a is None else feats_a
    fb = text_features(b) if feats_b is None else feats_b
    rows = []
    for ta, tb in zip(a, b):
        wa, wb = _words(ta), _words(tb)
        rows.append(np.subtract(_edit_side(wa - wb), _edit_side(wb - wa)))
    edit = np.asarray(rows, dtype=np.float64).reshape(len(a), len(EDIT_FEATURE_NAMES))
    diff = ((np.asarray(score_a, float) - np.asarray(score_b, float)) / temperature)[:, None]
    return np.hstack([diff, edit, np.asarray(fa, np.float64) - np.asarray(fb, np.float64)])
