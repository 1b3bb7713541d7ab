"""Strict parsers for LLM answers.

Each parser takes the raw reply and returns the value or raises
:class:`UnusableAnswer`. "Strict" means the reply must *be* the answer: a
letter, a number, a level, a list of ids, a JSON object. Only formatting noise
is forgiven (surrounding whitespace, quotes, backticks, bold markers, a final
period, an ``Answer:`` label, a code fence, a leading ``<think>...</think>``
block of a reasoning model). A reply that talks around the
answer ("Text B is easier because ...") is unusable and gets asked again
(ARTS footnote 6), never guessed.

Every parser runs in time linear in the length of the reply: no pattern here
lets two quantifiers compete for the same characters, so a long or hostile
reply costs a scan, never a search through ways to split it.
"""

from __future__ import annotations

import json
import math
import re

from arts_metric.text.cefr import CEFR_LEVELS, cefr_number


class UnusableAnswer(ValueError):
    """The model's reply could not be parsed as the requested answer."""


_FENCE_LANG = re.compile(r"[a-zA-Z]*")
# Reasoning models served by vLLM / Ollama / llama.cpp may put their reasoning
# before the answer in <think>...</think>; that block is not part of the answer.
_THINK_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.I)
_WRAP = "\"'`*_()[] \t\r\n"
_ANSWER_LABEL = re.compile(r"(?:final\s+)?answer\s*[:\-]", re.I)
_RATING_LINE = re.compile(r"(?:answer|score|rating)\s*[:=]", re.I)
_REASON_LABEL = re.compile(r"reason\s*[:=]", re.I)
_ID_CHARS = re.compile(r"[\d\s,;]*")
_TEXT_LABEL = re.compile(r"text\s+", re.I)
_SCORE_LABEL = re.compile(r"score\s*[:=]", re.I)
_LEVEL_LABEL = re.compile(r"(?:cefr\s+)?level\s*[:\-]?", re.I)


def _drop(label: re.Pattern, text: str) -> str:
    """``text`` without ``label`` at its start (matched there only: one scan, never a search)."""
    m = label.match(text)
    return text[m.end() :] if m else text


def _clean(answer: str) -> str:
    if not isinstance(answer, str):
        raise UnusableAnswer(f"no text in reply ({type(answer).__name__})")
    text = answer.lstrip()
    m = _THINK_OPEN.match(text)
    if m:
        close = re.compile(f"</{m.group(1)}>", re.I).search(text, m.end())
        if close:
            text = text[close.end() :]
    text = text.strip()
    if len(text) >= 6 and text.startswith("```") and text.endswith("```"):
        inner = text[3:-3]
        text = inner[_FENCE_LANG.match(inner).end() :].strip()
    return text


def _unwrap(text: str) -> str:
    text = text.strip()
    text = _drop(_ANSWER_LABEL, text).strip(_WRAP)
    if text.endswith("."):
        text = text[:-1].strip(_WRAP)
    return text


def _short(answer: str, n: int = 60) -> str:
    s = answer.strip().replace("\n", " ")
    return s if len(s) <= n else s[: n - 3] + "..."


def parse_letter(answer: str) -> str:
    """``"A"`` or ``"B"`` (the text the model chose; in the ARTS prompts, the easier one)."""
    text = _unwrap(_clean(answer))
    text = _drop(_TEXT_LABEL, text).strip(_WRAP)
    if text.upper() in ("A", "B"):
        return text.upper()
    raise UnusableAnswer(f"expected the letter A or B, got {_short(answer)!r}")


def parse_unit_score(answer: str) -> float:
    """A single number in [0, 1] (ARTS A.2.4: 0 = very easy, 1 = very challenging)."""
    text = _unwrap(_clean(answer))
    text = _drop(_SCORE_LABEL, text).lstrip()
    if not re.fullmatch(r"[+]?(?:\d+(?:\.\d*)?|\.\d+)", text):
        raise UnusableAnswer(f"expected one number between 0 and 1, got {_short(answer)!r}")
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise UnusableAnswer(f"score {value} is outside [0, 1]")
    return value


def _json_object(text: str) -> dict | None:
    if not (text.startswith("{") and text.endswith("}")):
        return None
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, RecursionError):  # RecursionError: nested too deep to be an answer
        return None
    return obj if isinstance(obj, dict) else None


def parse_rating_with_reason(answer: str, low: int = 1, high: int = 5) -> tuple[float, str]:
    """``(rating, reason)`` from ``{"answer": 4, "reason": "..."}``; the rating must lie in
    ``[low, high]`` (half points allowed). ``Answer: 4`` / ``Reason: ...`` lines are accepted too."""
    text = _clean(answer)
    obj = _json_object(text)
    if obj is not None:
        keys = {k.lower(): v for k, v in obj.items()}
        value = next((keys[k] for k in ("answer", "score", "rating") if k in keys), None)
        reason = keys.get("reason", keys.get("explanation"))
    else:
        first, _, rest = text.partition("\n")
        rest = rest.lstrip()
        head, label = _RATING_LINE.match(first), _REASON_LABEL.match(rest)
        if not (head and label and first[head.end() :].strip()):
            raise UnusableAnswer(f"expected a JSON object with 'answer' and 'reason', got {_short(answer)!r}")
        value, reason = first[head.end() :].strip().strip(_WRAP), rest[label.end() :]
    if isinstance(value, str) and re.fullmatch(r"\d+(?:\.\d+)?", value.strip()):
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(float(value)):
        raise UnusableAnswer(f"rating is not a number: {value!r}")
    value = float(value)
    if not low <= value <= high or (value * 2) != int(value * 2):
        raise UnusableAnswer(f"rating {value} is not on the {low}-{high} scale")
    if not isinstance(reason, str) or not reason.strip():
        raise UnusableAnswer("the reply gives no reason")
    return value, reason.strip()


def parse_cefr(answer: str) -> int:
    """CEFR level as 1..6 (A1 = 1 ... C2 = 6)."""
    text = _unwrap(_clean(answer))
    text = _drop(_LEVEL_LABEL, text).strip(_WRAP)
    if text.upper() in CEFR_LEVELS:
        return cefr_number(text)
    raise UnusableAnswer(f"expected one CEFR level (A1..C2), got {_short(answer)!r}")


def parse_id_list(answer: str) -> list[int]:
    """A list of integer ids, separated by commas or whitespace, optionally in brackets."""
    text = _clean(answer).strip().rstrip(".").strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    ids = re.findall(r"\d+", text) if _ID_CHARS.fullmatch(text) else []
    seps = re.split(r"\d+", text)  # around and between the ids: whitespace, one ',' or ';' between, one ',' after
    if (
        not ids
        or seps[0].strip()
        or any(sep.count(",") + sep.count(";") > 1 for sep in seps[1:-1])
        or ";" in seps[-1]
        or seps[-1].count(",") > 1
    ):
        raise UnusableAnswer(f"expected a list of ids, got {_short(answer)!r}")
    return [int(x) for x in ids]
