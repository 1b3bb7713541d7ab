"""Cutting texts into judge units.

Every ARTS pool text is one or two sentences of at most ~400 characters, judged
whole. How a text to score becomes judge units depends on ``long_texts``:

- ``sentence_units`` (the default, ``long_texts="mean"``): every text is cut
  into its sentences, whatever its length, one unit per sentence, never merged.
  :mod:`arts_metric.scoring.units` rates the text as the mean of its sentences' ratings
  weighted by their words, so a text and the same text written twice score
  alike and no length threshold makes a score jump.
- ``team_units`` (``long_texts="team"``, the default of release 0.2): a text
  up to ``split_above`` characters (400, the longest pool texts) is judged
  whole, a longer one is cut into its sentences, combined by the Bradley-Terry
  team rule (:func:`arts_metric.ratings.elo.team_rating`).
- ``chunk_text`` (``long_texts="chunks"``, the scoring of releases up to 0.1):
  consecutive sentences packed into units of at most ``chunk_chars`` (150)
  characters, scored as the length-weighted mean of the units' scores.

The default reads curly quotes as quotes (``He said: “Go.” Then ...`` ends a
sentence after the closing quote) and does not end a sentence at "et al.", at a title
or place abbreviation before a name ("Gov. Hickenlooper", "Ft. Hood") or at a month
before a date ("Feb. 1"), but does after an abbreviation or initial followed by a word
that starts sentences ("... hepatitis C. This review ..."); ``team`` and ``chunks`` keep
the splitter of their releases (ASCII quotes only, fewer abbreviations, no such words),
so that they reproduce those releases' scores.

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
_SENT_END_ASCII = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
# The default's: the same boundaries with typographic quotes and guillemets (closing
# ” ’ », opening “ ‘ «); the end of a sentence, its closing quotes included, is the match.
_SENT_END = re.compile(r"[.!?][\"')\]\u201d\u2019\u00bb]*(?=\s+[\"'(\[\u201c\u2018\u00ab]?[A-Z0-9])")
_ABBREV_END = re.compile(r"(?:\b(?:Mr|Ms|Mrs|Dr|Prof|Sr|Jr|St|vs|etc|e\.g|i\.e|Fig|No|Vol|approx|U\.S|[A-Z])\.)$")
# The default's further abbreviations (releases up to 0.4.0 cut after them): "et al.",
# titles and place names that precede a name (Gov., Capt., Ft. or FT., Mt., ...), and
# references (cf., Eq., Refs., pp.); a month (Jan. ... Dec.) only before a number.
_ABBREV_END_MORE = re.compile(
    r"(?:\bet al|\b(?:Gov|Capt|Sgt|Lt|Col|Gen|Sen|Rep|Rev|Adm|Cmdr|Maj|Ft|FT|Mt)"
    r"|\b(?:cf|Eqs?|Figs|Refs?|Secs?|pp))\.$"
)
_MONTH_END = re.compile(r"\b(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.$")
# Words that start a sentence and hardly ever follow an abbreviation or an initial inside
# one: before them the default ends the sentence ("... hepatitis C. This review ...",
# "... in the U.S. The study ..."), where release 0.2's splitter glued the two.
_STARTS_SENTENCE = re.compile(
    r"[\"'(\[\u201c\u2018\u00ab]?(?:The|This|These|That|Those|It|Its|We|Our|They|Their|He|His|She|Her|There"
    r"|In|On|At|For|However|A|An|One|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten)\b(?!\.)"
)
_PARAGRAPH = re.compile(r"\n\s*\n|\r\n\s*\r\n")


def split_sentences(text: str, *, legacy: bool = False) -> list[str]:
    """Split ``text`` into sentences (paragraph breaks always split); whitespace runs
    inside a sentence become one space.

    ``legacy=True`` is the splitter of releases up to 0.2, which knew ASCII quotes only
    and the shorter list of abbreviations (``long_texts="team"`` and ``"chunks"`` use it,
    so that they reproduce those releases' scores)."""
    out: list[str] = []
    for para in _PARAGRAPH.split(text):
        para = " ".join(para.split())
        if not para:
            continue
        if not legacy:
            cuts = [0, *(m.end() for m in _SENT_END.finditer(para)), len(para)]
            pieces = [para[a:b].strip() for a, b in zip(cuts, cuts[1:]) if para[a:b].strip()]
        else:  # release 0.2's splitter: the closing quotes of a sentence were dropped with the space
            pieces = [p for p in _SENT_END_ASCII.split(para) if p.strip()]
        merged: list[str] = []
        for piece in pieces:
            if merged and _continues(merged[-1], piece, legacy):
                merged[-1] = f"{merged[-1]} {piece}"
            else:
                merged.append(piece)
        out.extend(m.strip() for m in merged)
    return out


def _continues(piece: str, following: str, legacy: bool) -> bool:
    """Whether the cut between ``piece`` and ``following`` is not a sentence end: ``piece``
    ends in an abbreviation or an initial. The default's further abbreviations, and a word
    that starts sentences after them ("... hepatitis C. This review ..." ends a sentence;
    "I. A storm ...", a piece that is the abbreviation alone, never does), are not
    ``legacy``'s."""
    if legacy:
        return bool(_ABBREV_END.search(piece))
    if " " in piece and _STARTS_SENTENCE.match(following):
        return False
    return bool(
        _ABBREV_END.search(piece)
        or _ABBREV_END_MORE.search(piece)
        or (_MONTH_END.search(piece) and following[:1].isdigit())
    )


def chunk_text(text: str, chunk_chars: int = DEFAULT_CHUNK_CHARS, split_above: int = DEFAULT_SPLIT_ABOVE) -> list[str]:
    """Units to judge for ``text``: the text itself when it has at most
    ``split_above`` characters, else consecutive sentences packed into units of
    at most ``chunk_chars`` characters (a single longer sentence is its own unit)."""
    if len(text) <= split_above:
        return [text]
    chunks: list[str] = []
    current = ""
    for sentence in split_sentences(text, legacy=True):
        if current and len(current) + 1 + len(sentence) > chunk_chars:
            chunks.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}" if current else sentence
    if current:
        chunks.append(current)
    return chunks or [text]


def sentence_units(text: str) -> list[str]:
    """Units to judge for ``text`` under ``long_texts="mean"``: its sentences
    (:func:`split_sentences`: whitespace runs read as one space), one unit each, at any
    length, so that a text written twice is its units twice."""
    return split_sentences(text) or [text]


def team_units(text: str, split_above: int = DEFAULT_SPLIT_ABOVE) -> list[str]:
    """Units to judge for ``text`` under ``long_texts="team"`` (release 0.2): the text
    itself when it has at most ``split_above`` characters, else its sentences
    (:func:`split_sentences` with ASCII quotes), one unit each."""
    if len(text) <= split_above:
        return [text]
    return split_sentences(text, legacy=True) or [text]
