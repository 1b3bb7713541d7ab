"""Checking what a caller passes to ``compute()`` before anything is paid for.

Texts (predictions, sources), references and human scores are checked here,
each error a ``ValueError`` that names the offending item by its index
(``predictions[3]``, ``references[2][0]``, ``human_scores[5]``). Nothing here
calls a judge; :func:`arts_metric.scoring.api.score_texts` runs every check before
it builds the judge, so a bad input never costs a request.

What counts as a text: a ``str`` that encodes as UTF-8 (a lone surrogate such
as ``"\\ud800"`` does not). An empty or whitespace-only text is an error
unless the caller passes ``empty="score"`` (see :data:`EMPTY_POLICIES`): an
empty system output is usually a pipeline bug worth stopping for.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from arts_metric.ratings.directions import check_direction

#: What to do with empty or whitespace-only texts: ``"error"`` (a ValueError naming
#: the index) or ``"score"`` (scored as a text without a word, :mod:`arts_metric.text.wordless`:
#: ``arts`` 1.0, the hardest end, with no judge request; formulas None; counted as ``n_empty``).
EMPTY_POLICIES = ("error", "score")
EmptyPolicy = Literal["error", "score"]
#: Correlations need at least this many paired values.
MIN_HUMAN_SCORES = 3


def check_empty_policy(empty: Any) -> str:
    """``empty`` itself: one of :data:`EMPTY_POLICIES`."""
    if empty not in EMPTY_POLICIES:
        raise ValueError(f"empty must be one of {', '.join(map(repr, EMPTY_POLICIES))}, got {empty!r:.60}")
    return empty


def _as_list(items: Any, name: str) -> list:
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__") or isinstance(items, dict):
        raise ValueError(f"{name} must be a list, got {type(items).__name__}")
    return list(items)


def check_text(text: Any, label: str, *, allow_empty: bool = False) -> str:
    """One text: a string, valid Unicode, and non-blank unless ``allow_empty``."""
    if text is None:
        raise ValueError(f"{label} is None; every item must be a non-empty string")
    if not isinstance(text, str):
        raise ValueError(f"{label} is a {type(text).__name__}, not a string: {text!r:.60}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        raise ValueError(
            f"{label} is not valid Unicode: {bad!r} at character {exc.start} is a lone surrogate "
            "(decode the text with errors='replace' or fix its source)"
        ) from None
    if not allow_empty and not text.strip():
        raise ValueError(f"{label} is empty or whitespace only (pass empty='score' to score such texts)")
    return text


def check_text_list(texts: Any, name: str = "texts", *, allow_blank: bool = False) -> list[str]:
    """``texts`` (any sequence but a single string) as a list of strings, for the parts
    that take texts directly (judges, placement, features, formulas); ``ValueError``
    naming the first item, as ``name[i]``, that is not a string or, unless
    ``allow_blank``, is empty or whitespace only. An empty list passes."""
    if isinstance(texts, (str, bytes)):
        raise ValueError(f"{name} must be a list of strings, not a single string")
    out = list(texts)
    for i, text in enumerate(out):
        if not isinstance(text, str):
            raise ValueError(f"{name}[{i}] is a {type(text).__name__}, not a string: {text!r:.60}")
        if not allow_blank and not text.strip():
            raise ValueError(f"{name}[{i}] is empty or whitespace only")
    return out


def check_texts(texts: Any, name: str = "predictions", *, allow_empty: bool = False) -> list[str]:
    """A non-empty list of texts; raises ``ValueError`` naming the first bad index."""
    items = _as_list(texts, f"{name}")
    if not items:
        raise ValueError(f"{name} is empty: give at least one text")
    return [check_text(t, f"{name}[{i}]", allow_empty=allow_empty) for i, t in enumerate(items)]


def check_references(references: Any, n: int, *, allow_empty: bool = False) -> list[list[str]]:
    """References: one list of reference texts per prediction (``n`` lists, each
    non-empty). A plain string in place of a list is taken as a single reference."""
    items = _as_list(references, "references")
    if len(items) != n:
        raise ValueError(f"references has {len(items)} items but predictions has {n}")
    out = []
    for i, refs in enumerate(items):
        if isinstance(refs, str):
            refs = [refs]
        refs = _as_list(refs, f"references[{i}]") if refs is not None else None
        if not refs:
            raise ValueError(f"references[{i}] is {'None' if refs is None else 'empty'}: give at least one reference")
        out.append([check_text(r, f"references[{i}][{j}]", allow_empty=allow_empty) for j, r in enumerate(refs)])
    return out


def check_same_length(values: Sequence, name: str, n: int) -> None:
    """``values`` must be aligned with ``n`` predictions."""
    if len(values) != n:
        raise ValueError(f"{name} has {len(values)} items but predictions has {n}")


def check_human_scores(human_scores: Any, n: int, direction: Any = "harder") -> np.ndarray:
    """Human scores: ``n`` finite numbers, at least :data:`MIN_HUMAN_SCORES`, not all equal
    (a correlation with constant scores is undefined: refused before any judge call)."""
    check_direction(direction, "human_higher_is")
    values = _as_list(human_scores, "human_scores")
    check_same_length(values, "human_scores", n)
    out = np.empty(n)
    for i, v in enumerate(values):
        ok = not isinstance(v, bool) and isinstance(v, (int, float, np.integer, np.floating))
        if not ok or not math.isfinite(float(v)):
            raise ValueError(f"human_scores[{i}] is not a finite number: {v!r:.60}")
        out[i] = float(v)
    if n < MIN_HUMAN_SCORES:
        raise ValueError(f"human_scores has {n} values; correlations need at least {MIN_HUMAN_SCORES}")
    if np.all(out == out[0]):
        raise ValueError(f"human_scores are all {out[0]:g}: a correlation with constant scores is undefined")
    return out


def blank_indices(texts: Sequence[str]) -> list[int]:
    """Indices of the empty or whitespace-only texts."""
    return [i for i, t in enumerate(texts) if not t.strip()]
