"""The ARTS Space: ``python app.py`` serves the Gradio app of :mod:`arts_metric.space_app`
(Score texts, Original vs simplification, Compare systems, About) with the files beside
this one (``examples/``, the metric card, the agreement and documents tables).

It loads the learned judge, then serves on http://127.0.0.1:7860 (port from
``GRADIO_SERVER_PORT``; a Hugging Face Space sets ``GRADIO_SERVER_NAME`` itself).
``arts publish-space`` ships this file with the package and the files it shows.
"""

from __future__ import annotations

from pathlib import Path

import gradio as gr

from arts_metric import space_app
from arts_metric.space_app import (  # noqa: F401  (the app's functions, as a Space and its tests call them)
    CSS,
    SpaceFiles,
    compare,
    compare_pairs,
    configured_judges,
    hide_endpoint,
    pairs_figure,
    pool_bins,
    pool_figure,
    read_pairs_file,
    score,
)

HERE = Path(__file__).resolve().parent
FILES = SpaceFiles(HERE)
EXAMPLES, CARD = FILES.examples, FILES.card


def about_markdown() -> tuple[str, str, str, str]:
    """The About tab from the files beside this app: agreement, every approach, how to cite, the card."""
    return space_app.about_markdown(FILES)


def documents_summary() -> str:
    """The About tab's figures on documents, from the results file beside this app."""
    return space_app.documents_summary(FILES)


def build_app() -> gr.Blocks:
    """The Blocks app with the examples and the About tab of the files beside this app, not launched."""
    return space_app.build_app(FILES)


if __name__ == "__main__":
    space_app.launch(FILES)
