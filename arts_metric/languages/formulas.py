"""Published readability formulas of the languages other than English, computed offline
with textstat (syllables by pyphen's hyphenation dictionaries, shipped in its wheel).

| language | formula | source | direction |
| --- | --- | --- | --- |
| French | ``kandel_moles``: 207 - 1.015 ASL - 73.6 ASW | Kandel & Moles (1958), "Application de l'indice de Flesch à la langue française", Cahiers Études de Radio-Télévision 19 | higher = easier |
| Russian | ``oborneva``: 206.835 - 1.3 ASL - 60.1 ASW | Oborneva (2006), "Automated estimation of complexity of educational texts on the basis of statistical parameters" (in Russian) | higher = easier |
| Arabic | ``osman``: OSMAN | El-Haj & Rayson (2016), "OSMAN: A Novel Arabic Readability Metric", LREC | higher = easier |
| Hindi | none | no published formula ships in a maintained package | |

ASL: words per sentence; ASW: syllables per word. Each is textstat's
implementation (``flesch_reading_ease(text, lang)`` with its French and Russian
constants, ``osman``).
"""

from __future__ import annotations

import math
from typing import Callable, Iterable

import numpy as np

from arts_metric.languages import LANGUAGES, check_language
from arts_metric.text.checks import check_text_list

#: Each language's formulas, in the order results list them.
LANGUAGE_FORMULAS: dict[str, tuple[str, ...]] = {
    "fr": ("kandel_moles",),
    "ru": ("oborneva",),
    "ar": ("osman",),
    "hi": (),
}
#: Direction of each formula: True when a larger value means a harder text.
HIGHER_IS_HARDER: dict[str, bool] = {"kandel_moles": False, "oborneva": False, "osman": False}


def _functions() -> dict[str, Callable[[str], float]]:
    from arts_metric.text.formulas import _textstat_backend

    metrics = _textstat_backend()  # textstat with its offline dictionaries
    return {
        "kandel_moles": lambda t: metrics.flesch_reading_ease(t, "fr"),
        "oborneva": lambda t: metrics.flesch_reading_ease(t, "ru"),
        "osman": metrics.osman,
    }


def check_language_formulas(formulas: Iterable[str], language: str) -> tuple[str, ...]:
    """``formulas`` (names, lower case) checked against ``language``'s; ``ValueError``
    naming a formula the language does not have and those it has."""
    code = check_language(language)
    known = LANGUAGE_FORMULAS[code]
    names = tuple(dict.fromkeys(str(f).strip().lower() for f in formulas))
    for name in names:
        if name not in known:
            have = ", ".join(known) or "none"
            raise ValueError(f"formula {name!r} is not one of {LANGUAGES[code]}'s formulas ({have})")
    return names


def compute_language_formulas(texts: Iterable[str], formulas: Iterable[str], language: str) -> dict[str, np.ndarray]:
    """Each named formula of ``language`` for each text (NaN where it is undefined: a text
    without a letter, or a value that is not finite)."""
    names = check_language_formulas(formulas, language)
    items = check_text_list(texts, "texts", allow_blank=True)
    funcs = _functions() if names else {}
    out = {name: np.empty(len(items), dtype=np.float64) for name in names}
    for i, text in enumerate(items):
        defined = any(c.isalpha() for c in text)
        for name in names:
            value = float(funcs[name](text)) if defined else math.nan
            out[name][i] = value if math.isfinite(value) else math.nan
    return out


def formula_values(texts: Iterable[str], formulas: Iterable[str], language: str) -> dict[str, np.ndarray]:
    """The formulas of any language, English included (:func:`arts_metric.text.formulas.compute_formulas`)."""
    if check_language(language) == "en":
        from arts_metric.text.formulas import compute_formulas

        return compute_formulas(texts, formulas)
    return compute_language_formulas(texts, formulas, language)


def formula_higher_is_harder(name: str) -> bool:
    """Whether a larger value of formula ``name`` (of any language) means a harder text."""
    from arts_metric.text.formulas import HIGHER_IS_HARDER as ENGLISH

    return HIGHER_IS_HARDER[name] if name in HIGHER_IS_HARDER else ENGLISH[name]
