"""Everything random about one text's placement, derived from the seed and the text alone.

A newcomer's opponents, the side it takes in each match and its bootstrap
draws come from a generator seeded by ``(seed, SHA-256 of the text, stream)``,
never from a stream shared by a batch. So a text gets the same matches, the
same judge calls and the same score alone, next to other texts, at any
``batch_size`` and in any worker process.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np

#: ``stream`` numbers of the generators a placement draws from. They are part of
#: what a seed means: renumbering one changes every seeded score made with it, so
#: they stay these values across versions (published numbers then reproduce).
OPPONENTS, BOOTSTRAP, CALIBRATION = 0, 1, 2


def text_digest(text: str) -> int:
    """A 64-bit integer from the SHA-256 of ``text`` (UTF-8)."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def text_rng(seed: int, text: str, stream: int = OPPONENTS) -> np.random.Generator:
    """The generator of one text's draws of one kind (``stream``), from ``seed`` and the text."""
    return np.random.default_rng([stream, seed, text_digest(text)])


def first_sides(texts: Sequence[str]) -> np.ndarray:
    """``(n,)`` 0 or 1 per text, from its digest: in its match number ``k`` (0, 1, ...)
    a newcomer is shown first (text A) when ``(side + k)`` is even, so its sides
    alternate from match to match (cancelling a judge's position bias) and
    half of all newcomers start on each side."""
    return np.array([text_digest(t) >> 63 for t in texts], dtype=np.int64)


def check_seed(seed: int) -> int:
    """``seed`` as an int, or ``ValueError`` unless it is a non-negative integer."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)
