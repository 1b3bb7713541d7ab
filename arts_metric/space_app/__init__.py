"""The ARTS Space: a Gradio app in four tabs, each a view of the package's public functions
(``app.py`` beside the package runs it).

- **Score texts**: :func:`arts_metric.scoring.api.score_texts` (what ``evaluate.load("arts").compute``
  runs) on pasted texts, drawn beside the reference pool's ratings
  (:func:`arts_metric.pool.load_pool`) at the ``arts_elo`` the table shows, with the
  readability formulas beside; the table downloads as CSV. Below it, each text of several
  sentences sentence by sentence (``return_sentences=True``), its hardest sentence marked.
  A language menu (English, Arabic, French, Hindi, Russian) scores texts of another language
  than English against that language's pool, with its judge and formulas (``language=``).
- **Original vs simplification**: the same function with ``sources=``: per pair
  ``source_arts``, ``arts``, ``arts_delta`` and ``p_output_easier`` with an
  easier/harder verdict, the same for FKGL, and a before-and-after plot.
- **Compare systems**: :func:`arts_metric.systems.compare_systems` on uploaded files:
  leaderboard (simplest first, shared ranks, a simplicity rating where higher = simpler,
  and with sources what each system keeps of them, :mod:`arts_metric.systems.meaning`),
  figure, pairwise tests and the CSV files.
- **About**: the metric card, the measured agreement with human raters, how to cite.

The app computes no score itself: it parses what visitors paste or upload,
calls the package and draws what comes back. Conventions: ``arts`` in [0, 1],
**higher = harder** (the share of the pool's texts judged easier); FRE is the
other way round (higher = easier).

Run ``python app.py``: it loads the learned judge, then serves on
http://127.0.0.1:7860 (port from ``GRADIO_SERVER_PORT``; a Hugging Face Space
sets ``GRADIO_SERVER_NAME`` itself). ``arts publish-space`` ships this file
with the files it shows (``examples/``, the agreement tables). LLM judges are
offered only when the Space's owner configures an endpoint in the Space's
secrets (``OPENAI_BASE_URL`` and/or ``OPENAI_API_KEY``; models in
``ARTS_LLM_MODELS``, comma-separated, default ``gpt-4o-mini``; at most
``ARTS_LLM_MAX_REQUESTS`` requests per click, default 2000; they read the
pool's texts from the ARTS data, ``ARTS_DATA_DIR``); visitors are never asked
for a key, and neither the key nor the URL is shown or logged. A click scores
at most ``ARTS_SPACE_MAX_TEXTS`` texts (default 2000).

| module | its job |
| --- | --- |
| :mod:`~arts_metric.space_app.settings` | the judges and pools offered, limits per click, one click's settings |
| :mod:`~arts_metric.space_app.inputs` | reading pasted lines, pairs and uploaded files |
| :mod:`~arts_metric.space_app.calls` | calling the package: errors naming lines, warnings as toasts, secrets hidden |
| :mod:`~arts_metric.space_app.figures` | the pool figure and the before-and-after figure |
| :mod:`~arts_metric.space_app.sentences` | the Score tab's sentence breakdown of each text |
| :mod:`~arts_metric.space_app.actions` | the functions behind the buttons |
| :mod:`~arts_metric.space_app.about` | the files shown beside the app, the About tab |
| :mod:`~arts_metric.space_app.layout` | the page and its wiring |
"""

from arts_metric.space_app.about import (
    DEFAULT_FILES,
    LONG_TEXTS,
    SpaceFiles,
    about_markdown,
    card_section,
    documents_summary,
    judge_summary,
)
from arts_metric.space_app.actions import compare, compare_pairs, score, system_names
from arts_metric.space_app.calls import call_package, hide_endpoint
from arts_metric.space_app.figures import pairs_figure, pool_bins, pool_figure
from arts_metric.space_app.inputs import numbered_lines, paired_lines, read_pairs_file, read_text_file
from arts_metric.space_app.layout import CSS, LEGEND, build_app, launch
from arts_metric.space_app.sentences import SENTENCES_LEGEND, sentence_breakdown
from arts_metric.space_app.settings import MAX_TEXTS, POOLS, Settings, configured_judges, current_settings

__all__ = [
    "CSS",
    "DEFAULT_FILES",
    "LEGEND",
    "LONG_TEXTS",
    "MAX_TEXTS",
    "POOLS",
    "SENTENCES_LEGEND",
    "Settings",
    "SpaceFiles",
    "about_markdown",
    "documents_summary",
    "judge_summary",
    "build_app",
    "call_package",
    "card_section",
    "compare",
    "compare_pairs",
    "configured_judges",
    "current_settings",
    "hide_endpoint",
    "launch",
    "numbered_lines",
    "paired_lines",
    "pairs_figure",
    "pool_bins",
    "pool_figure",
    "read_pairs_file",
    "read_text_file",
    "score",
    "sentence_breakdown",
    "system_names",
]
