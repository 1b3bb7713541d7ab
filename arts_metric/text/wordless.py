"""Texts without a word, and the fixed score they get without asking the judge.

**What counts as a word**: two or more letters in a row, in any alphabet
(Unicode letters; a combining mark after a letter counts with it). An
apostrophe or hyphen between two letters joins them, so "I'm" and "x-ray"
are words. "I am.", "Go!" and "Hi" have a word; punctuation, digits, symbols
or emoji alone ("!", "...", "42", "$%") and letters that stand alone ("A",
"I.", "U.S.", "x 2") do not. An empty or whitespace-only text has no word
either.

**The rule**: a text without a word tells the reader nothing, so it is put
at the hardest end of the scale: ``arts`` 1.0 (harder than every pool text)
and ``arts_elo`` at the top of the pool's Elo scale (:func:`top_rating`), with
no judge request. Lower ``arts`` means easier, i.e. better for a
simplification, so an empty or punctuation-only output can never look like a
good simplification. The score depends on the text alone: the same in any
batch, with any other texts.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import numpy as np

from arts_metric.ratings.elo import rating_of_pool_position

#: ``arts`` of a text without a word: the hardest end of the scale.
WORDLESS_ARTS = 1.0
#: Characters that join the letters on either side into one word (apostrophes, hyphens).
JOINERS = frozenset("'\u2019-\u2010\u2011")
#: The rule in a few words, for warnings.
RULE = f"scored as arts {WORDLESS_ARTS:.1f} (the hardest end of the scale) without asking the judge"


def leaderboard_note(count: int) -> str:
    """The note shown beside a leaderboard whose systems have ``count`` outputs without a word in all."""
    return (
        f"Without a word: {count} output{'s' if count != 1 else ''} with fewer than two letters in a row "
        f"(punctuation, digits or symbols only, or a letter alone); such an output counts as the hardest text "
        f"(arts {WORDLESS_ARTS:.1f}, and the harder output of every head-to-head match) and is not sent to the judge"
    )


def has_word(text: str) -> bool:
    """Whether ``text`` has a word: two or more letters in a row (see the module docstring)."""
    text = unicodedata.normalize("NFC", text)
    run = 0
    for i, char in enumerate(text):
        kind = unicodedata.category(char)[0]
        if kind == "L" or (kind == "M" and run):
            run += 1
            if run >= 2:
                return True
        elif not (char in JOINERS and run and i + 1 < len(text) and unicodedata.category(text[i + 1])[0] == "L"):
            run = 0
    return False


def wordless_indices(texts: Sequence[str]) -> list[int]:
    """Indices of the texts without a word (empty and whitespace-only texts included)."""
    return [i for i, text in enumerate(texts) if not has_word(text)]


def top_rating(pool_ratings: np.ndarray | Sequence[float]) -> float:
    """The ``arts_elo`` of a text without a word: the top of the pool's Elo scale, the
    highest rating ARTS gives (the rating at position 1 - 1e-9 on the pool's scale,
    :func:`arts_metric.ratings.elo.rating_of_pool_position`; about 1326 for ARTS3000, whose
    hardest text is rated 1262). Elo points, higher = harder."""
    return float(rating_of_pool_position(np.asarray(pool_ratings, dtype=float), WORDLESS_ARTS))
