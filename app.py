"""Gradio app: paste texts, get ARTS scores (higher = harder) next to the formulas.

Run ``python app.py`` (serves on http://127.0.0.1:7860). On a Hugging Face Space
this file is the Space's entry point (see ``arts publish-space``).
"""

from __future__ import annotations

import gradio as gr
import pandas as pd

from arts_metric.config import ScoringConfig
from arts_metric.data import BUILTIN_POOLS
from arts_metric.readability import FORMULAS
from arts_metric.scoring import score_texts

DEFAULT_POOL = ScoringConfig.default("pool")
POOLS = [DEFAULT_POOL, *(p for p in reversed(BUILTIN_POOLS) if p != DEFAULT_POOL)]  # the default first
DEFAULT_FORMULAS = list(ScoringConfig.default("formulas"))
EXAMPLE = (
    "The dog ran to the park.\n"
    "The committee postponed its decision until the auditors had reviewed the annual accounts.\n"
    "Allosteric modulation of metabotropic glutamate receptors attenuates excitotoxic neurodegeneration."
)


def score(texts: str, pool: str, formulas: list[str], one_per_line: bool) -> tuple[pd.DataFrame, str]:
    """Score the pasted texts; returns a table and a one-line summary."""
    items = [t.strip() for t in texts.splitlines()] if one_per_line else [texts.strip()]
    items = [t for t in items if t]
    if not items:
        raise gr.Error("Paste at least one text.")
    try:
        res = score_texts(items, pool=pool, formulas=formulas)
    except ValueError as exc:
        raise gr.Error(str(exc)) from None
    table = pd.DataFrame({"text": items, "arts": res["arts"], "arts_elo": res["arts_elo"]})
    for f in formulas:
        table[f] = res[f]
    summary = f"mean ARTS {res['arts_mean']:.3f} over {len(items)} text(s) against {pool} (0 = easiest, 1 = hardest)"
    return table.round(3), summary


def build_app() -> gr.Blocks:
    """Build the Blocks app without launching it."""
    with gr.Blocks(title="ARTS: Assessing Readability & Text Simplicity") as demo:
        gr.Markdown(
            "# ARTS: Assessing Readability & Text Simplicity\n"
            "Each text is judged against a reference pool whose difficulty is known. "
            "`arts` is the share of pool texts that are easier (0 = easiest, 1 = hardest); "
            "`arts_elo` is the unbounded rating on the pool's Elo scale. "
            "The default judge runs offline on a CPU. FRE is higher = easier; the other formulas higher = harder."
        )
        with gr.Row():
            with gr.Column(scale=2):
                texts = gr.Textbox(label="Texts", lines=8, value=EXAMPLE)
                one_per_line = gr.Checkbox(label="One text per line", value=True)
            with gr.Column(scale=1):
                pool = gr.Dropdown(POOLS, value=DEFAULT_POOL, label="Reference pool")
                formulas = gr.CheckboxGroup(list(FORMULAS), value=DEFAULT_FORMULAS, label="Readability formulas")
                button = gr.Button("Score", variant="primary")
        summary = gr.Markdown()
        table = gr.Dataframe(label="Scores", wrap=True)
        button.click(score, inputs=[texts, pool, formulas, one_per_line], outputs=[table, summary])
    return demo


if __name__ == "__main__":
    build_app().launch()
