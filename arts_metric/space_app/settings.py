"""What the Space offers and one click's scoring settings: the judges its owner configured,
the built-in pools, the limits per click, and the message a visitor sees for bad input."""

from __future__ import annotations

import functools
import os

import gradio as gr

from arts_metric.data import BUILTIN_POOLS
from arts_metric.judges import Judge, get_judge
from arts_metric.languages import DEFAULT_LANGUAGE, LANGUAGES, judge_spec, pool_name
from arts_metric.languages.formulas import LANGUAGE_FORMULAS
from arts_metric.scoring.api import score_texts
from arts_metric.scoring.config import ScoringConfig

DEFAULT_POOL = ScoringConfig.default("pool")
POOLS = [DEFAULT_POOL, *(p for p in reversed(BUILTIN_POOLS) if p != DEFAULT_POOL)]  # the default first
POOL_NOTES = {
    "arts3000": "3000 texts, ratings from GPT-4's pairwise judgments",
    "arts300": "300 texts, ratings from GPT-4's pairwise judgments",
    "arts94": "94 texts, ratings from the majority of 16 human raters",
}
#: The notes of the pools of the other languages, shown when a text of that language is scored.
LANGUAGE_POOL_NOTES = {
    pool_name(code): f"{name} sentences of README++, ratings from their human CEFR levels"
    for code, name in LANGUAGES.items()
    if code != DEFAULT_LANGUAGE
}
DEFAULT_FORMULAS = list(ScoringConfig.default("formulas"))
#: The languages the Score tab offers, as (shown name, code): English first.
LANGUAGE_CHOICES = [(name, code) for code, name in LANGUAGES.items()]
#: At most this many texts (or pairs, or inputs) per click: a public Space is shared.
MAX_TEXTS = int(os.environ.get("ARTS_SPACE_MAX_TEXTS", "2000"))
#: Up to this many texts (pairs) the figures label each one; more are drawn without labels.
MAX_LABELS = 30
#: Up to this many texts of several sentences the Score tab shows sentence by sentence.
MAX_BREAKDOWN = 200
TEXT_FILES = [".txt", ".csv", ".tsv", ".jsonl", ".json", ".parquet"]  # what arts_metric.text.reading reads

EASIER, HARDER, SAME = "easier", "harder", "no change"
#: The label of the menu that sets the texts' language (messages name it where the package says ``language=``).
LANGUAGE_MENU = "Language of the texts"
#: Seconds an error or warning toast stays on screen.
TOAST_SECONDS = 12
VERDICT_COLORS = {EASIER: "#c8ecc9", HARDER: "#f8c9c4", SAME: "#eeeeee"}


def bad_input(message: str) -> gr.Error:
    """The message a visitor sees for bad input: a toast that closes after
    :data:`TOAST_SECONDS` (toasts would otherwise pile up), and no traceback in the server log."""
    return gr.Error(message, duration=TOAST_SECONDS, print_exception=False)


def configured_judges(env: dict[str, str] | None = None) -> list[str]:
    """``learned`` and, when the Space's owner configured an endpoint (``OPENAI_BASE_URL``
    or ``OPENAI_API_KEY``), ``openai:<model>`` for each model in ``ARTS_LLM_MODELS``."""
    env = os.environ if env is None else env
    if not (env.get("OPENAI_BASE_URL") or env.get("OPENAI_API_KEY")):
        return ["learned"]
    models = [m.strip() for m in env.get("ARTS_LLM_MODELS", "gpt-4o-mini").split(",") if m.strip()]
    return ["learned", *(f"openai:{m}" for m in models)]


def offered_language(language: str) -> str:
    """``language`` if this app offers it (a code of :data:`LANGUAGE_CHOICES`), else the visitor's message."""
    if language not in LANGUAGES:
        offered = ", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())
        raise bad_input(f"Unknown language {language!r}; choose one of {offered}.")
    return language


def language_pool(pool: str, language: str) -> str:
    """The pool a click scores against: ``pool`` for English texts; for another language, that
    language's pool (the pools offered beside it are English)."""
    return pool if language == DEFAULT_LANGUAGE else pool_name(language)


def language_formulas(formulas: list[str] | None, language: str) -> list[str]:
    """The formulas reported beside ARTS: ``formulas`` for English texts; for another language,
    those of its own formulas that were chosen, or all of them where only English ones were."""
    formulas = list(formulas or [])
    if language == DEFAULT_LANGUAGE:
        return formulas
    own = list(LANGUAGE_FORMULAS[language])
    return [f for f in formulas if f in own] or (own if formulas else [])


@functools.cache
def language_judge(language: str) -> Judge:
    """The offline judge of a language other than English, built once per process (on the first
    click in that language)."""
    return get_judge(judge_spec(language))


@functools.cache
def learned_judge() -> Judge:
    """The learned judge, built and run once per process (its model loads at start-up, not on a
    click); it draws tqdm bars, which ``gr.Progress(track_tqdm=True)`` shows on long inputs."""
    judge = get_judge("learned", progress=True)
    score_texts(["The cat sat on the mat."], sources=["The feline sat upon the mat."], judge=judge, formulas=["fkgl"])
    return judge


class Settings:
    """What this app offers (the judges configured when it was built, the built-in pools)
    and the scoring settings of one click."""

    def __init__(self, judges: list[str]) -> None:
        self.judges = judges
        self.learned = learned_judge()
        #: Requests one click may send to the owner's endpoint (LLM judges), from ARTS_LLM_MAX_REQUESTS.
        self.max_requests = int(os.environ.get("ARTS_LLM_MAX_REQUESTS", "2000"))

    def config(self, judge: str, pool: str, language: str = DEFAULT_LANGUAGE) -> ScoringConfig:
        """The scoring settings of one click: only the offered judges, the built-in pools and the
        offered languages (the values come from visitors: a path or a URL here would read files
        or call hosts). Texts in another language than English are scored against that
        language's pool (:func:`language_pool`), with its offline judge for ``learned``."""
        if judge not in self.judges:
            raise bad_input(f"Unknown judge {judge!r}; this Space offers {', '.join(self.judges)}.")
        if pool not in POOLS:
            raise bad_input(f"Unknown pool {pool!r}; choose one of {', '.join(POOLS)}.")
        language = offered_language(language)
        chosen = {"pool": language_pool(pool, language), "language": language}
        if judge == "learned":
            return ScoringConfig(judge="learned", **chosen)
        return ScoringConfig(judge=judge, judge_options={"max_requests": self.max_requests}, **chosen)

    def built(self, judge: str, language: str = DEFAULT_LANGUAGE) -> dict[str, Judge]:
        """The judge this app built once, as the scoring functions take it (``judge=``), where
        ``judge`` names it (the learned judge, or for another language its offline judge);
        nothing for the judges built per click."""
        if judge != "learned":
            return {}
        return {"judge": self.learned if language == DEFAULT_LANGUAGE else language_judge(language)}


#: The settings of the app built last (:func:`build_app`); one app per process.
SETTINGS: Settings | None = None


def use_settings(judges: list[str]) -> Settings:
    """Make the settings offering ``judges`` the current ones (:func:`current_settings`)."""
    global SETTINGS
    SETTINGS = Settings(judges)
    return SETTINGS


def current_settings() -> Settings:
    """The settings of the app built last, or of the environment now when none was built."""
    global SETTINGS
    if SETTINGS is None:
        SETTINGS = Settings(configured_judges())
    return SETTINGS
