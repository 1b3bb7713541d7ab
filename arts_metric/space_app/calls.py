"""Running the package for the Space: its errors become messages that name the visitor's
lines, its warnings toasts, and the owner's endpoint and key never show."""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable
from typing import Any

import gradio as gr

from arts_metric.languages import LANGUAGES
from arts_metric.llm.endpoint import sanitize_url
from arts_metric.space_app.settings import LANGUAGE_MENU, TOAST_SECONDS, bad_input


def hide_endpoint(message: str) -> str:
    """``message`` without the Space's secrets: the endpoint's URL (as configured and as the
    package displays it) and the key, should a message ever quote them."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        value = os.environ.get(name, "").strip()
        for form in {value, sanitize_url(value).rstrip("/"), value.rstrip("/")} - {""}:
            message = message.replace(form, "[the Space's endpoint]" if name == "OPENAI_BASE_URL" else "[key]")
    return message


#: The API's words in the package's messages, and the page's for them.
_PAGE_WORDS: tuple[tuple[str, str], ...] = (
    (r'\blanguage="\w+" \(([^)]+)\)', rf'"{LANGUAGE_MENU}: \1"'),
    (r"\bset language= to the texts' language", f'choose the texts\' language in "{LANGUAGE_MENU}"'),
    (r'(\(for [\w ,]+ script: )"(\w+)"\)', lambda m: m[1] + LANGUAGES.get(m[2], m[2]) + ")"),
    (r"\b(\d+) of (\d+) predictions\b", r"\1 of \2 texts"),
)


def page_words(message: str) -> str:
    """A package ``message`` in the page's words: settings by the menus that set them
    (``language="en" (English)`` -> ``"Language of the texts: English"``)."""
    for pattern, repl in _PAGE_WORDS:
        message = re.sub(pattern, repl, message)
    return message


def call_package(call: Callable[[], Any], names: dict[str, list[int]]) -> Any:
    """Run ``call``; its ``ValueError`` becomes a ``gr.Error`` and its warnings ``gr.Warning``
    messages, with ``predictions[i]`` / ``sources[i]`` replaced by the visitor's line numbers."""
    labels = (
        {"predictions": "line", "sources": "line"}
        if set(names) == {"predictions"}
        else {"predictions": "simplification on line", "sources": "original on line"}
    )

    def named(message: str) -> str:
        message = re.sub(
            r"\b(predictions|sources)\[(\d+)\]",
            lambda m: f"{labels[m[1]]} {names[m[1]][int(m[2])]}" if m[1] in names else m[0],
            message,
        )
        return hide_endpoint(page_words(message))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call()
        except (ValueError, FileNotFoundError) as exc:  # bad input; FileNotFoundError: the ARTS data
            raise bad_input(named(str(exc))) from None
    # The package's own warnings (UserWarning: undefined formulas, non-English texts, cut texts), not
    # the libraries' resource or deprecation notes.
    for message in dict.fromkeys(named(str(w.message)) for w in caught if issubclass(w.category, UserWarning)):
        gr.Warning(message, duration=TOAST_SECONDS)
    return result
