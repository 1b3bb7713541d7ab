"""Which script a text is written in, by Unicode ranges, to warn when texts do not
match the chosen language (Arabic text scored with ``language="en"``, French text
with ``language="ru"``, ...).

Not a language identifier: French and English share the Latin script, so only a
text in another script is caught for them.
"""

from __future__ import annotations

import re
from typing import Sequence

from arts_metric.languages import LANGUAGES, check_language

#: The script each language is written in.
LANGUAGE_SCRIPTS: dict[str, str] = {"en": "Latin", "fr": "Latin", "ar": "Arabic", "hi": "Devanagari", "ru": "Cyrillic"}

#: Unicode blocks of each script (inclusive code point ranges).
_RANGES: dict[str, tuple[tuple[int, int], ...]] = {
    "Latin": ((0x41, 0x5A), (0x61, 0x7A), (0xC0, 0x24F), (0x1E00, 0x1EFF)),
    "Arabic": ((0x600, 0x6FF), (0x750, 0x77F), (0x8A0, 0x8FF), (0xFB50, 0xFDFF), (0xFE70, 0xFEFF)),
    "Devanagari": ((0x900, 0x97F), (0xA8E0, 0xA8FF)),
    "Cyrillic": ((0x400, 0x52F), (0x1C80, 0x1C8F), (0x2DE0, 0x2DFF), (0xA640, 0xA69F)),
}


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ranges)


#: Per script, a pattern matching its characters; and one matching the non-ASCII characters of none.
_SCRIPT_RE = {script: re.compile(f"[{_class(ranges)}]") for script, ranges in _RANGES.items()}
_OUTSIDE_RE = re.compile(f"[^\\x00-\\x7f{''.join(_class(r) for r in _RANGES.values())}]")


def char_script(char: str) -> str | None:
    """The script of one character (``"Latin"``, ``"Arabic"``, ``"Devanagari"``,
    ``"Cyrillic"``), ``"other"`` for a letter of another script, None for a character
    that is not a letter or mark of any (digits, punctuation, spaces)."""
    cp = ord(char)
    for script, ranges in _RANGES.items():
        if any(lo <= cp <= hi for lo, hi in ranges):
            return script
    return "other" if char.isalpha() else None


def text_script(text: str) -> str | None:
    """The script of most of ``text``'s letters; None for a text without a letter."""
    if text.isascii():  # the common case, without a lookup per character
        return "Latin" if any(c.isalpha() for c in text) else None
    # As counting char_script over the characters, by regular expressions: each script's
    # characters, and the letters of no listed script (never ASCII: its letters are Latin).
    # Ties go to the script seen first, as a count kept in order of first appearance.
    first: dict[str, int] = {}
    counts: dict[str, int] = {}
    for script, pattern in _SCRIPT_RE.items():
        found = pattern.findall(text)
        if found:
            first[script], counts[script] = text.index(found[0]), len(found)
    other = [c for c in _OUTSIDE_RE.findall(text) if c.isalpha()]
    if other:
        first["other"], counts["other"] = text.index(other[0]), len(other)
    in_order = sorted(counts, key=first.__getitem__)
    return max(in_order, key=counts.__getitem__) if counts else None


def mismatched_texts(texts: Sequence[str], language: str) -> list[int]:
    """Indices of the texts whose letters are mostly not in ``language``'s script
    (texts without a letter are left out)."""
    expected = LANGUAGE_SCRIPTS[check_language(language)]
    return [i for i, t in enumerate(texts) if (s := text_script(t)) is not None and s != expected]


#: Said of English-setting texts in another script: the English formulas read Latin-script words only.
FORMULAS_NOTE = ", and the readability formulas, which read Latin-script words, are None on those without one"


def _a(word: str) -> str:
    """``word`` with its indefinite article ("an English", "a French")."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def script_warning(texts: Sequence[str], language: str, what: str = "texts") -> str | None:
    """The warning for texts not in ``language``'s script, naming the first of them and
    the ``language`` setting; None when every text matches."""
    code = check_language(language)
    bad = mismatched_texts(texts, code)
    if not bad:
        return None
    scripts = sorted({text_script(texts[i]) or "" for i in bad})
    shown = ", ".join(f"{what}[{i}]" for i in bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
    named = ", ".join("a script ARTS has no language for" if s == "other" else s for s in scripts)
    known = [s for s in scripts if s != "other"]
    hint = ", ".join(f'"{c}"' for c, s in LANGUAGE_SCRIPTS.items() if s in known)
    advice = (
        f"; set language= to the texts' language (for {', '.join(known)} script: {hint})"
        if hint
        else "; ARTS has no pool or judge in their script"
    )
    return (
        f"{len(bad)} of {len(texts)} {what} are not written in {LANGUAGE_SCRIPTS[code]} script ({shown}: "
        f'{named}) but language="{code}" ({LANGUAGES[code]}) scores them against '
        f"{_a(LANGUAGES[code])} pool with {_a(LANGUAGES[code])} judge"
        + (FORMULAS_NOTE if code == "en" else "")
        + advice
    )
