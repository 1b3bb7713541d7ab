"""The Space's page: four tabs (Score texts, Original vs simplification, Compare systems,
About) wired to :mod:`~arts_metric.space_app.actions`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import gradio as gr

from arts_metric.languages import DEFAULT_LANGUAGE, LANGUAGES
from arts_metric.languages.formulas import LANGUAGE_FORMULAS, formula_higher_is_harder
from arts_metric.space_app.about import DEFAULT_FILES, LONG_TEXTS, SpaceFiles, about_markdown, documents_summary
from arts_metric.space_app.actions import PAIRS_COLUMNS, compare, compare_pairs, score
from arts_metric.space_app.inputs import read_pairs_file
from arts_metric.space_app.settings import (
    DEFAULT_FORMULAS,
    DEFAULT_POOL,
    LANGUAGE_CHOICES,
    LANGUAGE_MENU,
    POOL_NOTES,
    POOLS,
    TEXT_FILES,
    configured_judges,
    use_settings,
)
from arts_metric.systems import VIEWS
from arts_metric.systems.meaning import SIMPLICITY_ONLY
from arts_metric.text.formulas import FORMULAS, HIGHER_IS_HARDER

#: The page's style, from a phone (390 px) to a desktop: one text per line in the boxes (they scroll
#: sideways instead of wrapping, so line n is row n on both sides); tables that scroll sideways
#: rather than squeeze or clip their columns; figures that keep a readable size (scrolling sideways
#: on a phone) below their label.
#: The Markdown tables of results (leaderboard, pairwise tests, the About tab's agreement tables).
RESULT_TABLES = ("leaderboard", "pairwise", "agreement", "approaches", "documents")


def _for_tables(element: str, body: str) -> str:
    """The CSS rule ``element { body }`` for every table of :data:`RESULT_TABLES`."""
    return ", ".join(f"#{t} {element}" for t in RESULT_TABLES) + f" {{ {body} }}\n"


CSS = (
    ".one-per-line textarea { white-space: pre; overflow-x: auto; }\n"
    + _for_tables("td", "white-space: nowrap;")
    + _for_tables("table", "display: block; max-width: 100%; overflow-x: auto;")
    + _for_tables(
        "th", "white-space: normal; overflow-wrap: normal; word-break: normal; hyphens: none; min-width: 4em;"
    )
    + ".arts-plot .matplotlib.layout { overflow-x: auto; padding-top: 2.4rem; align-items: safe center; }\n"
    "#score-plot img { min-width: 640px; }\n"
    "#pairs-plot img { min-width: 690px; }\n"
    "#compare-plot img { min-width: 1000px; }\n"
    # The sentence breakdown fits any width: its numbers on one line each, the sentence wrapping beside them.
    "#score-sentences .arts-text table { width: 100%; }\n"
    "#score-sentences .arts-text td, #score-sentences .arts-text th { white-space: nowrap; width: 1%; "
    "padding: 4px 6px; }\n"
    "#score-sentences .arts-text td:last-child, #score-sentences .arts-text th:last-child "
    "{ white-space: normal; overflow-wrap: anywhere; width: auto; }"
)
#: At most this many characters of a text in a table cell; a click on the cell shows it whole.
CELL_CHARS = 70
LEGEND = (
    "**How to read it.** `arts` in [0, 1] is the share of the reference pool's texts judged easier than "
    "the text: **higher = harder** (0.45 = harder than 45% of the pool). `arts_elo` is the same position on "
    "the pool's own rating scale (Elo points, **higher = harder**): the rating of a pool text at that "
    "position, so 0.45 reads as the rating 45% of the pool lies below. The figure draws each text there, "
    "beside the pool's ratings; only a text easier or harder than every pool text lies a little outside "
    "the shaded range (dashed), still in order. A text of several sentences gets the mean of its "
    "sentences' `arts_elo` weighted by their words, and the `arts` of that rating. Formulas, "
    "**higher = harder**: "
    + ", ".join(f for f in FORMULAS if HIGHER_IS_HARDER[f])
    + "; **higher = easier**: "
    + ", ".join(f for f in FORMULAS if not HIGHER_IS_HARDER[f])
    + " (Flesch Reading Ease, about 0-100), and those of the other languages: "
    + ", ".join(f"{f} ({LANGUAGES[code]})" for code, names in LANGUAGE_FORMULAS.items() for f in names)
    + ". Scores depend on the pool and the judge: report both."
)


#: What the language choice does, under it.
LANGUAGE_INFO = (
    "Arabic, French, Hindi or Russian texts are scored against a pool of README++ sentences in that language, "
    "by a judge for it"
)


def formula_choices(language: str) -> dict:
    """The Score tab's formulas for texts in ``language``: the English formulas, or that language's own
    (none for Hindi), all ticked but for English, whose defaults are ticked."""
    if language not in LANGUAGES or language == DEFAULT_LANGUAGE:
        return gr.update(choices=list(FORMULAS), value=DEFAULT_FORMULAS, info=None)
    own = list(LANGUAGE_FORMULAS[language])
    info = None if own else f"No published {LANGUAGES[language]} formula is available"
    return gr.update(choices=own, value=own, info=info)


def _example(examples: Path, name: str) -> str:
    path = examples / name
    return path.read_text(encoding="utf-8").strip() if path.is_file() else ""


def table_label(formulas: list[str] | None) -> str:
    """The score table's label: the direction of ``arts``, and of each chosen formula that reads the
    other way round (higher = easier)."""
    easier = [f.upper() if f == "fre" else f for f in formulas or [] if not formula_higher_is_harder(f)]
    turned = f"; {', '.join(easier)}: higher = easier" if easier else ""
    return f"Scores (arts: higher = harder{turned}). Click a text to read it whole."


#: Run in the page before each click's work: closes the toasts of earlier runs (an error that no
#: longer holds must not stand beside a later success).
CLOSE_TOASTS = "() => { document.querySelectorAll('.toast-close').forEach((b) => b.click()); }"


def _cleared(outputs: list) -> Callable[[], tuple]:
    """A function that empties ``outputs`` (run before each click's work)."""
    return lambda: tuple(None for _ in outputs)


def build_app(files: SpaceFiles = DEFAULT_FILES) -> gr.Blocks:
    """Load the learned judge (once per process) and build the Blocks app without launching it;
    the judges offered are those configured in the environment now (see :func:`configured_judges`),
    the examples and the About tab come from ``files``."""
    settings = use_settings(configured_judges())
    examples = files.examples
    pairs_example = read_pairs_file(str(examples / "pairs.csv")) if (examples / "pairs.csv").is_file() else ("", "")
    compare_example = examples / "compare"
    with gr.Blocks(title="ARTS: Assessing Readability & Text Simplicity") as demo:
        gr.Markdown(
            "# ARTS: how hard is a text to read?\n"
            'Each text plays *"which text is harder?"* matches against a **reference pool** of texts whose '
            "difficulty is known, and scores its rank among them: `arts` in [0, 1], **higher = harder**. "
            "The default judge is a small learned model that runs offline on a CPU; how well it agrees with "
            "human raters is in *About*. Texts in Arabic, French, Hindi or Russian: choose their language on "
            "*Score texts*."
        )
        with gr.Row(equal_height=True):
            pool = gr.Dropdown(POOLS, value=DEFAULT_POOL, label="Reference pool (the ruler)", scale=1)
            gr.Markdown("\n".join(f"- **{p}**: {POOL_NOTES[p]}" for p in POOLS))
            judge = gr.Dropdown(
                settings.judges,
                value="learned",
                label="Judge",
                scale=1,
                visible=len(settings.judges) > 1,
                info="LLM judges configured by this Space's owner (they need the ARTS data for the pool's texts)",
            )
        with gr.Tabs(overflow_behavior="wrap"):  # every tab one tap away, also on a phone
            with gr.Tab("Score texts", id="score"):
                with gr.Row():
                    with gr.Column(scale=3):
                        texts = gr.Textbox(
                            label="Texts, one per line",
                            lines=7,
                            value=_example(examples, "texts.txt"),
                            elem_classes=["one-per-line"],
                            elem_id="texts",
                        )
                    with gr.Column(scale=1):
                        language = gr.Dropdown(
                            LANGUAGE_CHOICES,
                            value=DEFAULT_LANGUAGE,
                            label=LANGUAGE_MENU,
                            info=LANGUAGE_INFO,
                            elem_id="language",
                        )
                        formulas = gr.CheckboxGroup(
                            list(FORMULAS), value=DEFAULT_FORMULAS, label="Readability formulas beside ARTS"
                        )
                        score_button = gr.Button("Score", variant="primary")
                score_summary = gr.Markdown(elem_id="score-summary")
                score_plot = gr.Plot(
                    label="The reference pool's difficulty distribution",
                    elem_id="score-plot",
                    elem_classes=["arts-plot"],
                )
                score_table = gr.Dataframe(
                    label=table_label(DEFAULT_FORMULAS),
                    headers=["line", "arts", "arts_elo", *DEFAULT_FORMULAS, "text"],
                    max_chars=CELL_CHARS,
                    interactive=False,
                    elem_id="score-table",
                )
                score_sentences = gr.HTML(elem_id="score-sentences")
                score_csv = gr.File(label="Download the scores (CSV)", interactive=False, elem_id="score-csv")
                gr.Markdown(LEGEND)
            with gr.Tab("Original vs simplification", id="pairs"):
                gr.Markdown(
                    "One pair per line: the original on the left, its simplification on the right, in the same "
                    "order (or upload a CSV with a header row: original, simplification). A simplification is "
                    "**easier** when the learned judge, reading both texts, finds it easier (`p_output_easier` "
                    "> 0.5); `arts_delta` = source ARTS - output ARTS, positive = easier."
                )
                with gr.Row():
                    originals = gr.Textbox(
                        label="Originals, one per line",
                        lines=6,
                        value=pairs_example[0],
                        elem_classes=["one-per-line"],
                        elem_id="originals",
                    )
                    simplified = gr.Textbox(
                        label="Simplifications, same lines",
                        lines=6,
                        value=pairs_example[1],
                        elem_classes=["one-per-line"],
                        elem_id="simplifications",
                    )
                with gr.Row():
                    pairs_file = gr.File(
                        label="...or upload a two-column CSV (fills the boxes)",
                        scale=3,
                        file_types=[".csv", ".tsv"],
                        height=110,
                        elem_id="pairs-file",
                    )
                    pairs_button = gr.Button("Compare pairs", variant="primary", scale=1)
                pairs_summary = gr.Markdown(elem_id="pairs-summary")
                pairs_table = gr.Dataframe(
                    label="Per pair (green: easier, red: harder). Click a text to read it whole.",
                    headers=list(PAIRS_COLUMNS),
                    max_chars=CELL_CHARS,
                    interactive=False,
                    elem_id="pairs-table",
                )
                pairs_plot = gr.Plot(label="Before and after", elem_id="pairs-plot", elem_classes=["arts-plot"])
            with gr.Tab("Compare systems", id="systems"):
                gr.Markdown(
                    "Upload the inputs (sources) and one file per system with its outputs, one per line in "
                    "input order (.txt; or .csv/.jsonl with a `text` column). Each system's outputs are placed "
                    "in the pool (*pool view*) and play head-to-head matches against the other systems' outputs "
                    "of the same input (*head-to-head view*).\n\n"
                    f"**Simplicity is half the story.** {SIMPLICITY_ONLY}."
                )
                with gr.Row():
                    sources_file = gr.File(
                        label="Sources (optional: adds arts_delta)",
                        file_types=TEXT_FILES,
                        height=110,
                        elem_id="sources-file",
                    )
                    system_files = gr.File(  # no fixed height: the list shows every uploaded file
                        label="System outputs, one file per system",
                        file_count="multiple",
                        file_types=TEXT_FILES,
                        elem_id="system-files",
                    )
                with gr.Row(equal_height=True):
                    names = gr.Textbox(
                        label="System names (optional)",
                        scale=2,
                        placeholder="comma-separated, in upload order; default: the file names",
                    )
                    views = gr.CheckboxGroup(list(VIEWS), value=list(VIEWS), label="Views", scale=1)
                    compare_button = gr.Button("Compare systems", variant="primary", scale=1)
                if compare_example.is_dir():
                    gr.Examples(
                        [
                            [
                                str(compare_example / "sources.txt"),
                                [str(compare_example / "light.txt"), str(compare_example / "strong.txt")],
                                "",
                            ]
                        ],
                        inputs=[sources_file, system_files, names],
                        label="Example: a light and a strong rewrite",
                    )
                leaderboard = gr.Markdown(elem_id="leaderboard")
                compare_plot = gr.Plot(
                    label="Leaderboard with 95% intervals", elem_id="compare-plot", elem_classes=["arts-plot"]
                )
                pairwise = gr.Markdown(elem_id="pairwise")
                with gr.Accordion("Every leaderboard column", open=False):
                    leaderboard_table = gr.Dataframe(
                        headers=["rank", "system", "kind", "n"], interactive=False, elem_id="leaderboard-table"
                    )
                downloads = gr.File(
                    label="Download the tables", file_count="multiple", interactive=False, elem_id="downloads"
                )
            with gr.Tab("About", id="about"):
                agreement, approaches, cite, card = about_markdown(files)
                gr.Markdown("## Agreement with human raters (ARTS94)\n" + agreement, elem_id="agreement")
                with gr.Accordion("Every approach, beside the ARTS paper's Table 3", open=False):
                    gr.Markdown(approaches, elem_id="approaches")
                gr.Markdown("## How long texts are scored\n" + LONG_TEXTS, elem_id="long-texts")
                with gr.Accordion("How well it works on documents", open=False):
                    gr.Markdown(documents_summary(files), elem_id="documents")
                gr.Markdown("## How to cite\n" + cite, elem_id="cite")
                with gr.Accordion("The metric card", open=False):
                    gr.Markdown(card, elem_id="card")

        common = {"concurrency_id": "judge", "concurrency_limit": 1}  # one scoring job at a time
        # Each click first clears the previous results, so that an error never stands beside them.
        score_outputs = [score_table, score_plot, score_summary, score_csv, score_sentences]
        score_button.click(
            _cleared(score_outputs), None, score_outputs, queue=False, api_name=False, js=CLOSE_TOASTS
        ).then(score, [texts, pool, formulas, judge, language], score_outputs, api_name="score", **common)
        language.change(formula_choices, [language], [formulas], queue=False, api_name=False)
        formulas.change(
            lambda chosen: gr.update(label=table_label(chosen)), [formulas], [score_table], queue=False, api_name=False
        )
        pairs_file.change(read_pairs_file, [pairs_file], [originals, simplified], api_name=False)
        pairs_outputs = [pairs_table, pairs_plot, pairs_summary]
        pairs_button.click(
            _cleared(pairs_outputs), None, pairs_outputs, queue=False, api_name=False, js=CLOSE_TOASTS
        ).then(
            compare_pairs,
            [originals, simplified, pool, judge],
            pairs_outputs,
            api_name="compare_pairs",
            **common,
        )
        compare_outputs = [leaderboard, compare_plot, pairwise, leaderboard_table, downloads]
        compare_button.click(
            _cleared(compare_outputs), None, compare_outputs, queue=False, api_name=False, js=CLOSE_TOASTS
        ).then(
            compare,
            [sources_file, system_files, names, pool, views, judge],
            compare_outputs,
            api_name="compare_systems",
            **common,
        )
    return demo


def launch(files: SpaceFiles = DEFAULT_FILES) -> None:
    """Build the app and serve it; host and port from ``GRADIO_SERVER_NAME`` /
    ``GRADIO_SERVER_PORT`` (default 127.0.0.1:7860)."""
    examples = files.examples
    build_app(files).launch(css=CSS, allowed_paths=[str(examples)] if examples.is_dir() else None)
