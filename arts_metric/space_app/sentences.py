"""The Score tab's sentence breakdown: each text of two or more sentences with its
sentences' ``arts`` and words, its hardest sentence marked, as HTML (the visitor's text
escaped)."""

from __future__ import annotations

import html
import math

from arts_metric.space_app.settings import MAX_BREAKDOWN

#: The mark before the hardest sentence of a text, and its row's colours (legible in dark mode too).
HARDEST_MARK = "▲"
HARDEST_STYLE = "background-color: #ffe08a; color: #1a1a1a; font-weight: 600;"
SENTENCES_LEGEND = (
    "Every text is scored by its sentences: each sentence is placed in the reference pool on its own, "
    "and the text's rating is the mean of its sentences' ratings <b>weighted by their words</b> (a sentence "
    "of 20 words counts twice as much as one of 10), so a text's <code>arts</code> lies between its easiest "
    f"and its hardest sentence's. <b>{HARDEST_MARK} on a highlighted row</b> marks the hardest sentence of "
    "each text. A text of one sentence is not broken down: its score is its sentence's."
)


def _arts(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.3f}"


def _text_table(line: int, arts: float | None, sentences: list[dict]) -> str:
    """One text: a heading with its line, ``arts`` and size, and a row per sentence."""
    hardest = max(range(len(sentences)), key=lambda k: sentences[k]["arts_elo"])
    words = sum(s["words"] for s in sentences)
    rows = []
    for k, s in enumerate(sentences):
        mine = k == hardest
        opening = f'<tr class="hardest" style="{HARDEST_STYLE}">' if mine else "<tr>"
        rows.append(
            f"{opening}<td>{HARDEST_MARK + ' ' if mine else ''}{k + 1}</td><td>{_arts(s['arts'])}</td>"
            f"<td>{s['words']}</td><td>{html.escape(s['text'])}</td></tr>"
        )
    return (
        f'<div class="arts-text" data-line="{line}">'
        f"<p><b>Line {line}</b>: arts {_arts(arts)}, {len(sentences)} sentences, {words} words</p>"
        "<table><thead><tr><th>#</th><th>arts</th><th>words</th><th>sentence</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def sentence_breakdown(lines: list[int], arts: list[float | None], sentences: list[list[dict]]) -> str:
    """The sentence breakdown of scored texts, as HTML: the legend (:data:`SENTENCES_LEGEND`), then
    each text of two or more sentences (up to :data:`MAX_BREAKDOWN` of them) with a row per sentence,
    its hardest (highest rating) marked with :data:`HARDEST_MARK` on a highlighted row.

    Parameters
    ----------
    lines : the texts' line numbers, as the visitor sees them.
    arts : each text's ``arts``.
    sentences : each text's sentences, as ``score_texts(..., return_sentences=True)`` gives them
        (dicts with ``text``, ``arts``, ``arts_elo`` and ``words``, in reading order).

    Returns
    -------
    str
        HTML for the Score tab.
    """
    several = [(line, a, s) for line, a, s in zip(lines, arts, sentences) if len(s) >= 2]
    parts = ["<h4>Sentence by sentence</h4>", f'<p class="arts-legend">{SENTENCES_LEGEND}</p>']
    if not several:
        parts.append("<p>Each of these texts is one sentence.</p>")
    for line, a, s in several[:MAX_BREAKDOWN]:
        parts.append(_text_table(line, a, s))
    if len(several) > MAX_BREAKDOWN:
        parts.append(
            f"<p>The first {MAX_BREAKDOWN} of {len(several)} texts of several sentences are shown; "
            "<code>arts score --sentences</code> writes every text's sentences.</p>"
        )
    return f'<div class="arts-sentences">{"".join(parts)}</div>'
