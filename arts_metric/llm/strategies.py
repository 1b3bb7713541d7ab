"""The prompting strategies: how texts become chat messages and answers become values.

| strategy | prompt | answer | value |
| --- | --- | --- | --- |
| ``pairwise`` | ARTS A.2.2 (naming the language for texts not in English) | ``A`` / ``B`` (the easier text) | P(first harder) 0/1 |
| ``pairwise_expert`` | ARTS A.2.5 with a topic | same | same |
| ``listwise`` | ARTS A.2.3 | ids sorted, easiest first | position, scaled to [0, 1] |
| ``pointwise`` | ARTS A.2.4 | a number in [0, 1], 1 = very challenging | the number |
| ``ease_1to5`` | Evaluating-the-Evaluators, 3 styles | ``{"answer": 1-5, "reason": ...}``, 5 = very easy | ``(5 - answer) / 4`` |
| ``cefr`` | README++ descriptors + k examples | ``A1`` ... ``C2`` | ``(level - 1) / 5`` |

Every latent value is in [0, 1] with **higher = harder**.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from arts_metric.languages import DEFAULT_LANGUAGE, LANGUAGES, check_language
from arts_metric.llm.parsing import (
    UnusableAnswer,
    parse_cefr,
    parse_id_list,
    parse_letter,
    parse_rating_with_reason,
    parse_unit_score,
)
from arts_metric.llm.prompts import load_template
from arts_metric.text.cefr import CEFR_LEVELS

PAIRWISE = ("pairwise", "pairwise_expert")
POINTWISE = ("pointwise", "ease_1to5", "cefr")
LISTWISE = ("listwise",)
STRATEGIES = PAIRWISE + LISTWISE + POINTWISE
EASE_STYLES = {"simple": "ease_simple", "ascb": "ease_ascb", "own_reasoning": "ease_own_reasoning"}

DEFAULT_MAX_TOKENS = {
    "pairwise": 16,
    "pairwise_expert": 16,
    "pointwise": 16,
    "ease_1to5": 400,
    "cefr": 16,
    "listwise": 8192,
}


def _user(content: str) -> list[dict[str, str]]:
    # The ARTS authors sent each prompt as a single user message (no system prompt).
    return [{"role": "user", "content": content}]


def messages_digest(messages: list[dict[str, str]]) -> str:
    blob = json.dumps(messages, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class PairwiseStrategy:
    """ARTS A.2.2 (or A.2.5 with ``topic``): the model names the EASIER text.

    ``language`` (a code of :data:`arts_metric.languages.LANGUAGES`): for texts in a
    language other than English, the A.2.2 prompt that also names their language
    (template ``arts_pairwise_language``); English (``None`` or ``"en"``) is A.2.2 as
    the paper wrote it. It does not apply with a ``topic``.
    """

    topic: str | None = None
    language: str | None = None

    def __post_init__(self) -> None:
        code = None if self.language is None else check_language(self.language)
        if code == DEFAULT_LANGUAGE:
            code = None
        if code is not None and self.topic:
            raise ValueError("the pairwise prompt with a topic (pairwise_expert) does not take a language")
        object.__setattr__(self, "language", code)

    @property
    def name(self) -> str:
        return "pairwise_expert" if self.topic else "pairwise"

    @property
    def template_name(self) -> str:
        if self.topic:
            return "arts_pairwise_expert"
        return "arts_pairwise_language" if self.language else "arts_pairwise"

    @property
    def version(self) -> str:
        return load_template(self.template_name).version

    def messages(self, a: str, b: str) -> list[dict[str, str]]:
        fill = {"TOPIC": self.topic} if self.topic else {"LANGUAGE": LANGUAGES[self.language]} if self.language else {}
        return _user(load_template(self.template_name).render(**fill, TEXT_A=a, TEXT_B=b))

    @staticmethod
    def parse(answer: str) -> str:
        return parse_letter(answer)

    @staticmethod
    def prob_first_harder(letter: str) -> float:
        """``"A"`` (text A is easier) means the first text is NOT the harder one."""
        return 0.0 if letter == "A" else 1.0


@dataclass(frozen=True)
class PointwiseStrategy:
    """One text per request: ARTS 0-1 score, 1-5 reading ease, or CEFR level."""

    name: str  # "pointwise" | "ease_1to5" | "cefr"
    style: str = "own_reasoning"  # ease_1to5 only
    examples: tuple[tuple[str, str], ...] = ()  # cefr only: (text, level)
    k: int = 5  # cefr only: in-context examples per request
    rng_seed: int = 0

    def __post_init__(self) -> None:
        if self.name not in POINTWISE:
            raise ValueError(f"pointwise strategy must be one of {POINTWISE}, got {self.name!r}")
        if self.name == "ease_1to5" and self.style not in EASE_STYLES:
            raise ValueError(f"style must be one of {', '.join(EASE_STYLES)}, got {self.style!r}")
        for i, ex in enumerate(self.examples):
            if (
                len(ex) != 2
                or not isinstance(ex[0], str)
                or not ex[0].strip()
                or str(ex[1]).upper() not in CEFR_LEVELS
            ):
                raise ValueError(f"examples[{i}] must be (text, level) with level in {CEFR_LEVELS}, got {ex!r}")
        if not isinstance(self.k, int) or self.k < 0:
            raise ValueError(f"k must be a non-negative integer, got {self.k!r}")

    @property
    def template_name(self) -> str:
        return {"pointwise": "arts_pointwise", "ease_1to5": EASE_STYLES.get(self.style, ""), "cefr": "cefr"}[self.name]

    @property
    def version(self) -> str:
        v = load_template(self.template_name).version
        return v + ("+" + load_template("cefr_example").version if self.name == "cefr" else "")

    def _examples_for(self, text: str) -> str:
        pool = [ex for ex in self.examples if ex[0].strip() != text.strip()]
        if not pool or self.k == 0:
            return ""
        # Seeded by the text, so the same text always gets the same examples (stable cache keys).
        seed = int(hashlib.sha256(f"{self.rng_seed}:{text}".encode("utf-8")).hexdigest()[:16], 16)
        chosen = random.Random(seed).sample(pool, min(self.k, len(pool)))
        tpl = load_template("cefr_example")
        return "".join(tpl.render(TEXT=t, LEVEL=str(level).upper()) for t, level in chosen)

    def messages(self, text: str) -> list[dict[str, str]]:
        tpl = load_template(self.template_name)
        if self.name == "cefr":
            return _user(tpl.render(EXAMPLES=self._examples_for(text), TEXT=text))
        return _user(tpl.render(TEXT=text))

    def parse(self, answer: str) -> Any:
        if self.name == "pointwise":
            return parse_unit_score(answer)
        if self.name == "ease_1to5":
            value, reason = parse_rating_with_reason(answer, 1, 5)
            return {"answer": value, "reason": reason}
        return parse_cefr(answer)

    def latent(self, value: Any) -> float:
        """The parsed value on [0, 1], higher = harder."""
        if self.name == "pointwise":
            return float(value)
        if self.name == "ease_1to5":
            return (5.0 - float(value["answer"])) / 4.0
        return (int(value) - 1) / 5.0


@dataclass(frozen=True)
class ListwiseStrategy:
    """ARTS A.2.3: all texts of a batch in one prompt, ids returned easiest first.

    Parsing keeps the first appearance of each known id; unknown ids and
    repeats are counted, missing texts get no position (NaN). An answer that
    places fewer than ``min_coverage`` of the texts is unusable.
    """

    min_coverage: float = 0.5
    name: str = "listwise"

    @property
    def version(self) -> str:
        return load_template("arts_listwise").version + "+" + load_template("arts_listwise_item").version

    def messages(self, texts: Sequence[str]) -> list[dict[str, str]]:
        item = load_template("arts_listwise_item")
        listing = "\n".join(item.render(ID=str(i), TEXT=t) for i, t in enumerate(texts))
        return _user(load_template("arts_listwise").render(TEXTS=listing))

    def parser(self, n: int) -> Callable[[str], dict]:
        def parse(answer: str) -> dict:
            ids = parse_id_list(answer)
            order: list[int] = []
            seen: set[int] = set()
            unknown = duplicates = 0
            for i in ids:
                if not 0 <= i < n:
                    unknown += 1
                elif i in seen:
                    duplicates += 1
                else:
                    seen.add(i)
                    order.append(i)
            if len(order) < self.min_coverage * n:
                raise UnusableAnswer(f"the ranking places only {len(order)} of {n} texts")
            return {"order": order, "unknown": unknown, "duplicates": duplicates, "missing": n - len(order)}

        return parse

    @staticmethod
    def positions(order: Sequence[int], n: int) -> list[float]:
        """Position of each text scaled to [0, 1] (0 = easiest), NaN where missing."""
        pos = [float("nan")] * n
        denom = max(n - 1, 1)
        for rank, i in enumerate(order):
            pos[i] = rank / denom
        return pos
