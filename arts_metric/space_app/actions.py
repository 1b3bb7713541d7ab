"""The functions behind the tabs' buttons (Score texts, Original vs simplification, Compare
systems): each parses the visitor's input, calls the package and returns what the page shows."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import gradio as gr
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from arts_metric.languages import DEFAULT_LANGUAGE, LANGUAGES
from arts_metric.scoring.api import score_texts
from arts_metric.space_app.calls import call_package
from arts_metric.space_app.figures import pairs_figure, pool_figure
from arts_metric.space_app.inputs import check_count, numbered_lines, paired_lines, read_text_file
from arts_metric.space_app.sentences import sentence_breakdown
from arts_metric.space_app.settings import (
    EASIER,
    HARDER,
    LANGUAGE_POOL_NOTES,
    POOL_NOTES,
    SAME,
    VERDICT_COLORS,
    bad_input,
    current_settings,
    language_formulas,
)
from arts_metric.systems import compare_systems
from arts_metric.systems.meaning import MEANING_NOTE
from arts_metric.systems.ranks import ALPHA, SIMPLICITY_NOTE
from arts_metric.text.wordless import RULE, leaderboard_note

#: Above the pairwise tests, once there are some.
PAIRWISE_HEADING = (
    "#### Pairwise tests (p: paired randomization over inputs, not corrected for multiple comparisons)\n\n"
)
#: The columns of the Original vs simplification table (``p_output_easier`` with the learned judge only).
PAIRS_COLUMNS = (
    "line",
    "ARTS verdict",
    "p_output_easier",
    "source_arts",
    "arts",
    "arts_delta",
    "FKGL verdict",
    "source_fkgl",
    "fkgl",
    "original",
    "simplification",
)


def counted(n: int, what: str) -> str:
    """``1 text``, ``2 texts``: a count with its noun in the right number."""
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _num(value: Any, digits: int = 3, signed: bool = False) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "-"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _judge_words(result: dict) -> str:
    judge = result["judge"]
    if judge.startswith("learned"):
        return "the learned judge (offline)"
    if judge.startswith("multilingual:"):
        return f"the {LANGUAGES[judge.partition(':')[2]]} judge (offline)"
    return f"the LLM judge {judge}"


def score(
    texts: str,
    pool: str,
    formulas: list[str],
    judge: str = "learned",
    language: str = DEFAULT_LANGUAGE,
    progress: gr.Progress = gr.Progress(track_tqdm=True),
) -> tuple[Any, Figure, str, str, str]:
    """Score the pasted texts (one per line) written in ``language``: a table, the pool
    figure, a summary, the table as a CSV file (every digit, the same columns) and each
    text's sentences (HTML, :func:`~arts_metric.space_app.sentences.sentence_breakdown`).
    Texts in another language than English are scored against that language's pool, whatever
    English pool is chosen, with its formulas (:func:`~arts_metric.space_app.settings.language_formulas`)."""
    items = numbered_lines(texts)
    check_count(len(items), "text")
    settings = current_settings()
    config = call_package(
        lambda: settings.config(judge, pool, language).replace(formulas=language_formulas(formulas, language) or None),
        {},
    )
    progress(0, desc=f"placing {len(items)} texts in {config.pool}")
    lines = [i for i, _ in items]
    built = settings.built(judge, language)
    res = call_package(
        lambda: score_texts([t for _, t in items], config=config, return_sentences=True, **built),
        {"predictions": lines},
    )
    table = pd.DataFrame({"line": lines, "arts": res["arts"], "arts_elo": res["arts_elo"]})
    for f in config.formulas:
        table[f] = res[f]
    table["text"] = [t for _, t in items]
    order = sorted(range(len(lines)), key=lambda k: (res["arts"][k] is None, res["arts"][k] or 0.0))
    easiest, hardest = lines[order[0]], lines[order[-1]]
    notes = {**POOL_NOTES, **LANGUAGE_POOL_NOTES}
    summary = (
        f"**{counted(len(items), 'text')}** placed in **{res['pool']}** ({notes.get(res['pool'], 'your pool')}) "
        f"by {_judge_words(res)}. Mean ARTS **{_num(res['arts_mean'])}** (0 = easiest, 1 = hardest)"
        + (f"; easiest: line {easiest}, hardest: line {hardest}." if len(items) > 1 else ".")
    )
    if config.language != DEFAULT_LANGUAGE:
        name = LANGUAGES[config.language]
        summary += f" {name} texts are scored against the {name} pool" + (
            f", not {pool}, whose texts are English." if pool != res["pool"] else "."
        )
    if res["n_wordless"]:
        summary += f" {res['n_wordless']} without a word (fewer than two letters in a row): {RULE}."
    # shown rounded (Elo points to one decimal); the data (and the API) keep every digit
    styled = table.style.format(precision=3, na_rep="-").format(precision=1, na_rep="-", subset=["arts_elo"])
    csv_path = Path(tempfile.mkdtemp(prefix="arts-scores-")) / "arts_scores.csv"
    table.to_csv(csv_path, index=False)
    sentences = sentence_breakdown(lines, res["arts"], res["sentences"])
    return styled, pool_figure(res["pool"], lines, res["arts_elo"]), summary, str(csv_path), sentences


def _verdict(difference: float | None) -> str:
    """``easier`` for a positive difference (before - after), ``harder`` for a negative one."""
    if difference is None:
        return "-"
    return EASIER if difference > 0 else HARDER if difference < 0 else SAME


def compare_pairs(
    originals: str,
    simplifications: str,
    pool: str,
    judge: str = "learned",
    progress: gr.Progress = gr.Progress(track_tqdm=True),
) -> tuple[Any, Figure, str]:
    """Score aligned (original, simplification) pairs: per pair ARTS and FKGL before and
    after with a verdict, a before-and-after figure and a summary."""
    pairs = paired_lines(originals, simplifications)
    check_count(len(pairs), "pair")
    config = current_settings().config(judge, pool)
    progress(0, desc=f"placing {len(pairs)} pairs in {pool}")
    lines = [i for i, _, _ in pairs]
    res = call_package(
        lambda: score_texts(
            [b for _, _, b in pairs],
            sources=[a for _, a, _ in pairs],
            config=config,
            formulas=["fkgl"],
            **current_settings().built(judge),
        ),
        {"predictions": lines, "sources": lines},
    )
    p_easier = res.get("p_output_easier")
    # The learned judge's close-pair head reads both texts: it says whether an edit simplifies
    # better than the difference of two scores (metric card); other judges: the sign of arts_delta.
    arts_verdicts = (
        [_verdict(None if p is None else p - 0.5) for p in p_easier]
        if p_easier is not None
        else [_verdict(d) for d in res["arts_delta"]]
    )
    fkgl_verdicts = [
        _verdict(None if s is None or o is None else s - o) for s, o in zip(res["source_fkgl"], res["fkgl"])
    ]
    table = pd.DataFrame({"line": lines, "ARTS verdict": arts_verdicts})
    if p_easier is not None:
        table["p_output_easier"] = p_easier
    table["source_arts"], table["arts"], table["arts_delta"] = res["source_arts"], res["arts"], res["arts_delta"]
    table["FKGL verdict"], table["source_fkgl"], table["fkgl"] = fkgl_verdicts, res["source_fkgl"], res["fkgl"]
    table["original"], table["simplification"] = [a for _, a, _ in pairs], [b for _, _, b in pairs]
    styled = table.style.map(
        lambda v: f"background-color: {VERDICT_COLORS.get(v, 'transparent')}", subset=["ARTS verdict", "FKGL verdict"]
    ).format(precision=3, na_rep="-")
    n = len(pairs)
    easier_arts, easier_fkgl = arts_verdicts.count(EASIER), fkgl_verdicts.count(EASIER)
    basis = (
        f"mean P(output easier) {_num(res.get('p_output_easier_mean'))}, the learned judge's close-pair "
        "reading of both texts"
        if p_easier is not None
        else "the sign of arts_delta"
    )
    summary = (
        f"**{counted(n, 'pair')}**, {res['pool']}, {_judge_words(res)}. ARTS: **{easier_arts} of {n}** "
        f"simplifications easier ({basis}); mean `arts_delta` **{_num(res['arts_delta_mean'], signed=True)}** "
        f"(source ARTS - output ARTS: positive = easier). FKGL: **{easier_fkgl} of {n}** lower."
    )
    figure = pairs_figure(
        lines,
        {"ARTS": res["source_arts"], "FKGL": res["source_fkgl"]},
        {"ARTS": res["arts"], "FKGL": res["fkgl"]},
        {"ARTS": arts_verdicts, "FKGL": fkgl_verdicts},
    )
    return styled, figure, summary


def system_names(paths: list[str], names: str | None) -> list[str]:
    """One name per uploaded system file: the names typed (comma-separated, in upload
    order) or else the file names without their extension."""
    typed = [n.strip() for n in (names or "").split(",") if n.strip()]
    if typed and len(typed) != len(paths):
        raise bad_input(
            f"{len(typed)} system names for {len(paths)} files: give one name per file, "
            "comma-separated in upload order, or none (the file names are used)."
        )
    chosen = typed or [Path(p).stem for p in paths]
    twice = sorted({n for n in chosen if chosen.count(n) > 1})
    if twice:
        raise bad_input(f"System name(s) {', '.join(map(repr, twice))} given twice: rename the files or type names.")
    return chosen


def compare(
    sources: str | None,
    systems: list[str] | None,
    names: str,
    pool: str,
    views: list[str],
    judge: str = "learned",
    progress: gr.Progress = gr.Progress(track_tqdm=True),
) -> tuple[str, Figure, str, pd.DataFrame, list[str]]:
    """Rank the uploaded systems: leaderboard (Markdown), figure, pairwise tests (Markdown),
    the full leaderboard table and the files written by ``SystemComparison.to_dir``."""
    paths = [str(p) for p in (systems or [])]
    if not paths:
        raise bad_input("Upload one file per system (one output per line, in input order).")
    if not views:
        raise bad_input("Choose at least one view (pool, head_to_head).")
    outputs = {name: read_text_file(p, f"system {name!r}") for name, p in zip(system_names(paths, names), paths)}
    src = read_text_file(sources, "sources") if sources else None
    check_count(len(src) if src else max(len(v) for v in outputs.values()), "input")
    config = current_settings().config(judge, pool)
    progress(0, desc=f"comparing {len(outputs)} systems")
    built = current_settings().built(judge)
    comparison = call_package(lambda: compare_systems(outputs, sources=src, config=config, views=views, **built), {})
    folder = Path(tempfile.mkdtemp(prefix="arts-compare-"))
    files = comparison.to_dir(folder)
    info = comparison.info
    summary = (
        f"**{counted(len(outputs), 'system')} x {counted(info['n_inputs'], 'input')}**, {info['pool']}, judge "
        f"{info['judge'].get('judge', judge)}. Simplest first; systems share a rank when their pairwise test "
        f"is not significant (p >= {ALPHA:g}). `arts` higher = harder, `arts_delta` positive = easier than the "
        f"source; {SIMPLICITY_NOTE}. Intervals: 95% bootstrap over inputs."
        + (f"\n\n*{MEANING_NOTE}.*" if src is not None else "")
    )
    wordless = int(comparison.leaderboard["n_wordless"].sum())
    if wordless:
        summary += f"\n\n*{leaderboard_note(wordless)}.*"
    # The CSVs only: comparison.json describes the judge's endpoint, which stays the Space owner's.
    downloads = [str(files[n]) for n in ("leaderboard.csv", "pairwise.csv", "win_rates.csv", "per_output.csv")]
    return (
        summary + "\n\n" + comparison.to_markdown(),
        comparison.figure(),
        PAIRWISE_HEADING + comparison.pairwise_markdown(),
        comparison.leaderboard,
        downloads,
    )
