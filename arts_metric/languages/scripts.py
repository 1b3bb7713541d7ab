"""Which script a text is written in, by Unicode ranges, to warn when texts do not
match the chosen language (Arabic text scored with ``language="en"``, French text
with ``language="ru"``, ...).

Not a language identifier: French and English share the Latin script, so only a
text in another script is caught for them.
"""

from __future__ import annotations

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
    counts: dict[str, int] = {}
    for char in text:
        script = char_script(char)
        if script is not None:
            counts[script] = counts.get(script, 0) + 1
    return max(counts, key=counts.__getitem__) if counts else None


def mismatched_texts(texts: Sequence[str], language: str) -> list[int]:
    """Indices of the texts whose letters are mostly not in ``language``'s script
    (texts without a letter are left out)."""
    expected = LANGUAGE_SCRIPTS[check_language(language)]
    return [i for i, t in enumerate(texts) if (s := text_script(t)) is not None and s != expected]


def script_warning(texts: Sequence[str], language: str, what: str = "texts") -> str | None:
    """The warning for texts not in ``language``'s script, naming the first of them and
    the ``language`` setting; None when every text matches."""
    code = check_language(language)
    bad = mismatched_texts(texts, code)
    if not bad:
        return None
    scripts = sorted({text_script(texts[i]) or "" for i in bad})
    shown = ", ".join(f"{what}[{i}]" for i in bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
    hint = ", ".join(f'"{c}"' for c, s in LANGUAGE_SCRIPTS.items() if s in scripts) or "none of them"
    return (
        f"{len(bad)} of {len(texts)} {what} are not written in {LANGUAGE_SCRIPTS[code]} script ({shown}: "
        f'{", ".join(scripts)}) but language="{code}" ({LANGUAGES[code]}) scores them against a '
        f"{LANGUAGES[code]} pool with a {LANGUAGES[code]} judge; set language= to the texts' language "
        f"(for {', '.join(scripts)} script: {hint})"
    )
