"""Toy pools for tests: evenly spaced ratings, the j-th text the j-th easiest."""

from __future__ import annotations

import numpy as np

from arts_metric.pool import Pool


def ladder_pool(n: int, name: str = "toy", step: float = 10.0, text: str | None = "pool text {j}", **more) -> Pool:
    """A fresh pool of ``n`` texts ``text.format(j=j)`` (none for ``text=None``) with ids
    ``"0"``, ``"1"``, ... rated 1000, 1000 + ``step``, ... Elo; ``more`` are further
    :class:`Pool` fields. Fresh each call: a pool keeps a pointwise judge's scores."""
    texts = None if text is None else [text.format(j=j) for j in range(n)]
    return Pool(name=name, ids=[str(j) for j in range(n)], ratings=1000.0 + step * np.arange(n), texts=texts, **more)
