"""Scoring in languages other than English: Arabic, French, Hindi and Russian.

``language="fr"`` (and ``"ar"``, ``"hi"``, ``"ru"``) scores against a reference
pool of README++ sentences in that language (:mod:`arts_metric.languages.pools`),
with an offline judge trained for it (:mod:`arts_metric.judges.multilingual`) and the
published readability formulas of that language
(:mod:`arts_metric.languages.formulas`). ``"en"``, the default, is the English
metric, unchanged. :mod:`arts_metric.languages.scripts` warns when texts are not
written in the chosen language's script.
"""

from __future__ import annotations

from typing import Any

DEFAULT_LANGUAGE = "en"

#: Every language ARTS scores, by ISO 639-1 code, with its English name.
LANGUAGES: dict[str, str] = {"en": "English", "ar": "Arabic", "fr": "French", "hi": "Hindi", "ru": "Russian"}

#: The languages with pools and a judge of their own (every language but English).
OTHER_LANGUAGES: tuple[str, ...] = tuple(code for code in LANGUAGES if code != DEFAULT_LANGUAGE)


def check_language(value: Any) -> str:
    """``value`` as a language code (``"fr"``, case and spaces ignored); ``ValueError``
    naming the valid codes for anything else."""
    code = value.strip().lower() if isinstance(value, str) else value
    if code not in LANGUAGES:
        listed = ", ".join(f"{c} ({n})" for c, n in LANGUAGES.items())
        raise ValueError(f"language must be one of {listed}, got {value!r:.80}")
    return code


def language_name(code: str) -> str:
    """``"fr"`` -> ``"French"``."""
    return LANGUAGES[check_language(code)]


def pool_name(code: str) -> str:
    """The built-in pool of a language other than English: ``"fr"`` -> ``"readmepp_fr"``."""
    code = check_language(code)
    if code == DEFAULT_LANGUAGE:
        raise ValueError("English has the ARTS pools (arts94, arts300, arts3000), not a README++ pool")
    return f"readmepp_{code}"


#: The built-in pools of the languages other than English (read by :func:`arts_metric.pool.load_pool`).
POOL_NAMES: tuple[str, ...] = tuple(pool_name(code) for code in OTHER_LANGUAGES)


def judge_spec(code: str) -> str:
    """The offline judge of a language other than English: ``"fr"`` -> ``"multilingual:fr"``."""
    code = check_language(code)
    if code == DEFAULT_LANGUAGE:
        raise ValueError("English's offline judge is 'learned'")
    return f"multilingual:{code}"
