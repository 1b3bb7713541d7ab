"""Cutting long texts into judge units.

Every ARTS pool text is one or two sentences of at most ~400 characters, so a
text up to ``split_above`` characters (400, the longest pool texts) is judged
whole, as the pool's own texts were. A longer text is cut into units:

- ``sentence_units`` (the default, ``long_texts="sentences"``): one unit per
  sentence, never merged, so a text of short sentences keeps its short
  sentences (the strongest single cue of every judge) and a long sentence
  stays whole. :mod:`arts_metric.units` combines the sentences' ratings by the
  Bradley-Terry team rule (:func:`arts_metric.elo.team_rating`).
- ``chunk_text`` (``long_texts="chunks"``, the scoring of releases up to 0.1):
  consecutive sentences packed into units of at most ``chunk_chars`` (150)
  characters, scored as the length-weighted mean of the units' scores. Packing
  merges short sentences into one long-looking unit, and the mean ignores how
  much there is to read; both lose what tells a paragraph's easier rewrite
  apart (``benchmarks/levels.py``).

Sentence boundaries come from a small regular expression rather than a
library: NLTK's punkt needs a download at run time (this package must work
offline) and pysbd is unmaintained and slow; a boundary off by one
abbreviation changes a unit's difficulty little.
"""

from __future__ import annotations

import re

DEFAULT_CHUNK_CHARS = 150
DEFAULT_SPLIT_ABOVE = 400

# A sentence ends at . ! ? (optionally followed by closing quotes/brackets)
# before whitespace and an upper-case letter, digit or opening quote; a piece
# ending in a common abbreviation or an initial is glued to the next one.
_SENT_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_ABBREV_END = re.compile(r"(?:\b(?:Mr|Ms|Mrs|Dr|Prof|Sr|Jr|St|vs|etc|e\.g|i\.e|Fig|No|Vol|approx|U\.S|[A-Z])\.)$")
_PARAGRAPH = re.compile(r"\n\s*\n|\r\n\s*\r\n")


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences (paragraph breaks always split)."""
    out: list[str] = []
    for para in _PARAGRAPH.split(text):
        para = " ".join(para.split())
        if not para:
            continue
        pieces = [p for p in _SENT_END.split(para) if p.strip()]
        merged: list[str] = []
        for piece in pieces:
            if merged and _ABBREV_END.search(merged[-1]):
                merged[-1] = f"{merged[-1]} {piece}"
            else:
                merged.append(piece)
        out.extend(m.strip() for m in merged)
    return out


def chunk_text(text: str, chunk_chars: int = DEFAULT_CHUNK_CHARS, split_above: int = DEFAULT_SPLIT_ABOVE) -> list[str]:
    """Units to judge for ``text``: the text itself when it has at most
    ``split_above`` characters, else consecutive sentences packed into units of
    at most ``chunk_chars`` characters (a single longer sentence is its own unit)."""
    if len(text) <= split_above:
        return [text]
    chunks: list[str] = []
    current = ""
    for sentence in split_sentences(text):
        if current and len(current) + 1 + len(sentence) > chunk_chars:
            chunks.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}" if current else sentence
    if current:
        chunks.append(current)
    return chunks or [text]


def sentence_units(text: str, split_above: int = DEFAULT_SPLIT_ABOVE) -> list[str]:
    """Units to judge for ``text``: the text itself when it has at most ``split_above``
    characters, else its sentences (:func:`split_sentences`), one unit each."""
    if len(text) <= split_above:
        return [text]
    return split_sentences(text) or [text]
