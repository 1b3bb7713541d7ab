"""What the Space offers and one click's scoring settings: the judges its owner configured,
the built-in pools, the limits per click, and the message a visitor sees for bad input."""

from __future__ import annotations

import functools
import os

import gradio as gr

from arts_metric.config import ScoringConfig
from arts_metric.data import BUILTIN_POOLS
from arts_metric.judges import Judge, get_judge
from arts_metric.scoring import score_texts

DEFAULT_POOL = ScoringConfig.default("pool")
POOLS = [DEFAULT_POOL, *(p for p in reversed(BUILTIN_POOLS) if p != DEFAULT_POOL)]  # the default first
POOL_NOTES = {
    "arts3000": "3000 texts, ratings from GPT-4's pairwise judgments",
    "arts300": "300 texts, ratings from GPT-4's pairwise judgments",
    "arts94": "94 texts, ratings from the majority of 16 human raters",
}
DEFAULT_FORMULAS = list(ScoringConfig.default("formulas"))
#: At most this many texts (or pairs, or inputs) per click: a public Space is shared.
MAX_TEXTS = int(os.environ.get("ARTS_SPACE_MAX_TEXTS", "2000"))
#: Up to this many texts (pairs) the figures label each one; more are drawn without labels.
MAX_LABELS = 30
#: Up to this many texts of several sentences the Score tab shows sentence by sentence.
MAX_BREAKDOWN = 200
TEXT_FILES = [".txt", ".csv", ".tsv", ".jsonl", ".json", ".parquet"]  # what arts_metric.textio reads

EASIER, HARDER, SAME = "easier", "harder", "no change"
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

    def config(self, judge: str, pool: str) -> ScoringConfig:
        """The scoring settings of one click: only the offered judges and the built-in pools
        (the values come from visitors: a path or a URL here would read files or call hosts)."""
        if judge not in self.judges:
            raise bad_input(f"Unknown judge {judge!r}; this Space offers {', '.join(self.judges)}.")
        if pool not in POOLS:
            raise bad_input(f"Unknown pool {pool!r}; choose one of {', '.join(POOLS)}.")
        if judge == "learned":
            return ScoringConfig(judge="learned", pool=pool)
        return ScoringConfig(judge=judge, pool=pool, judge_options={"max_requests": self.max_requests})

    def built(self, judge: str) -> dict[str, Judge]:
        """The judge this app built once, as the scoring functions take it (``judge=``), where
        ``judge`` names it (the learned judge); nothing for the judges built per click."""
        return {"judge": self.learned} if judge == "learned" else {}


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
