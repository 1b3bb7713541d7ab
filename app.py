"""The ARTS Space: a Gradio app in four tabs, each a view of the package's public functions.

- **Score texts**: :func:`arts_metric.scoring.score_texts` (what ``evaluate.load("arts").compute``
  runs) on pasted texts, drawn on the reference pool's difficulty distribution
  (:func:`arts_metric.pool.load_pool`) at the ``pool_rating`` the table shows, with the
  readability formulas beside; the table downloads as CSV.
- **Original vs simplification**: the same function with ``sources=``: per pair
  ``source_arts``, ``arts``, ``arts_delta`` and ``p_output_easier`` with an
  easier/harder verdict, the same for FKGL, and a before-and-after plot.
- **Compare systems**: :func:`arts_metric.systems.compare_systems` on uploaded files:
  leaderboard (simplest first, shared ranks, a simplicity rating where higher = simpler,
  and with sources a meaning-kept guard, :func:`arts_metric.systems.meaning.meaning_kept`),
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
"""

from __future__ import annotations

import functools
import io
import os
import re
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gradio as gr
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from arts_metric.config import ScoringConfig
from arts_metric.data import BUILTIN_POOLS
from arts_metric.judges import Judge, get_judge
from arts_metric.judges.learned import DEFAULT_VERSION
from arts_metric.llm.endpoint import sanitize_url
from arts_metric.pool import load_pool
from arts_metric.readability import FORMULAS, HIGHER_IS_HARDER
from arts_metric.scoring import score_texts
from arts_metric.systems import VIEWS, compare_systems
from arts_metric.systems.meaning import MEANING_NOTE, SIMPLICITY_ONLY, meaning_kept
from arts_metric.systems.ranks import ALPHA, SIMPLICITY_NOTE
from arts_metric.textio import decode_text, read_texts

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE / "examples"
#: The metric card: metric_card.md in a checkout, README.md in a Space (its card).
CARD = next((p for p in (HERE / "metric_card.md", HERE / "README.md") if p.is_file()), HERE / "metric_card.md")
#: Measured agreement with the human raters of ARTS94: the learned judges beside length, formulas and GPT-4 ...
AGREEMENT = HERE / "benchmarks" / "results" / "learned_judge_accuracy.md"
#: ... and every approach, beside the ARTS paper's Table 3.
ALL_APPROACHES = HERE / "benchmarks" / "results" / "arts94_metrics.md"

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
TEXT_FILES = [".txt", ".csv", ".tsv", ".jsonl", ".json", ".parquet"]  # what arts_metric.textio reads
EASIER, HARDER, SAME = "easier", "harder", "no change"
#: Seconds an error or warning toast stays on screen.
TOAST_SECONDS = 12
VERDICT_COLORS = {EASIER: "#c8ecc9", HARDER: "#f8c9c4", SAME: "#eeeeee"}
#: One text per line: the boxes scroll sideways instead of wrapping, so line n is row n on both sides.
CSS = (
    ".one-per-line textarea { white-space: pre; overflow-x: auto; }\n"
    "#leaderboard td, #pairwise td { white-space: nowrap; }\n"
    "#leaderboard table, #pairwise table { display: block; max-width: 100%; overflow-x: auto; }\n"
    "#leaderboard th, #pairwise th { white-space: normal; min-width: 4em; }"
)
LEGEND = (
    "**How to read it.** `arts` in [0, 1] is the share of the reference pool's texts judged easier than "
    "the text: **higher = harder** (0.45 = harder than 45% of the pool). `pool_rating` is the same place on "
    "the pool's Elo scale, where the figure draws the text (Elo points, higher = harder). Formulas, **higher = harder**: "
    + ", ".join(f for f in FORMULAS if HIGHER_IS_HARDER[f])
    + "; **higher = easier**: "
    + ", ".join(f for f in FORMULAS if not HIGHER_IS_HARDER[f])
    + " (Flesch Reading Ease, about 0-100). "
    "Scores depend on the pool and the judge: report both."
)


# --------------------------------------------------------------------------- judges and settings


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


def current_settings() -> Settings:
    """The settings of the app built last, or of the environment now when none was built."""
    global SETTINGS
    if SETTINGS is None:
        SETTINGS = Settings(configured_judges())
    return SETTINGS


# --------------------------------------------------------------------------- reading inputs


def numbered_lines(text: str | None) -> list[tuple[int, str]]:
    """``(line number, text)`` for every non-blank line (numbers count from 1, blank lines included)."""
    return [(i, line.strip()) for i, line in enumerate((text or "").splitlines(), start=1) if line.strip()]


def paired_lines(originals: str | None, outputs: str | None) -> list[tuple[int, str, str]]:
    """``(line number, original, simplification)`` from two boxes with one text per line,
    aligned by line; a line blank in both is skipped, blank in one is an error naming it."""
    left, right = (originals or "").splitlines(), (outputs or "").splitlines()
    while left and not left[-1].strip():
        left.pop()
    while right and not right[-1].strip():
        right.pop()
    if len(left) != len(right):
        raise bad_input(
            f"The originals have {len(left)} lines but the simplifications have {len(right)}: "
            "one pair per line, in the same order."
        )
    pairs = []
    for i, (a, b) in enumerate(zip(left, right), start=1):
        if a.strip() and b.strip():
            pairs.append((i, a.strip(), b.strip()))
        elif a.strip() or b.strip():
            missing = "simplification" if a.strip() else "original"
            raise bad_input(f"Line {i}: the {missing} is empty (one pair per line, in the same order).")
    return pairs


def read_pairs_file(path: str | None) -> tuple[str, str]:
    """The two columns of an uploaded CSV/TSV (header row; first column the original,
    second the simplification) as the two boxes' text, one pair per line."""
    if not path:
        return gr.skip(), gr.skip()
    name = Path(path).name
    try:
        text = decode_text(Path(path).read_bytes(), name)
        df = pd.read_csv(
            io.StringIO(text), sep="\t" if name.lower().endswith(".tsv") else ",", dtype=str, keep_default_na=False
        )
    except (ValueError, pd.errors.ParserError) as exc:
        raise bad_input(f"{name}: {exc}") from None
    if df.shape[1] < 2:
        raise bad_input(
            f"{name}: needs two columns (original, simplification) with a header row; "
            f"found {', '.join(map(str, df.columns))}."
        )
    left, right = [], []
    for i, (a, b) in enumerate(zip(df.iloc[:, 0], df.iloc[:, 1]), start=2):  # line 1 is the header
        for what, cell in (("original", a), ("simplification", b)):
            if not cell.strip():
                raise bad_input(f"{name} line {i}: the {what} is empty.")
            if "\n" in cell.strip():
                raise bad_input(f"{name} line {i}: the {what} has a line break; one text per cell, on one line.")
        left.append(a.strip())
        right.append(b.strip())
    if not left:
        raise bad_input(f"{name}: no rows below the header.")
    return "\n".join(left), "\n".join(right)


def read_text_file(path: str, what: str) -> list[str]:
    """The texts of an uploaded file, one per input: .txt (one per line) or
    .csv/.tsv/.jsonl/.json/.parquet with a ``text`` field; errors name the file's line."""
    try:
        return read_texts(path, "text")
    except ValueError as exc:
        raise bad_input(f"{what}: {str(exc).replace(str(path), Path(path).name)}") from None


def _check_count(n: int, what: str) -> None:
    if n == 0:
        raise bad_input(f"Enter at least one {what}.")
    if n > MAX_TEXTS:
        raise bad_input(
            f"{n} {what}s: this Space scores at most {MAX_TEXTS} per click; install the package (pip) for more."
        )


# --------------------------------------------------------------------------- running the package


def hide_endpoint(message: str) -> str:
    """``message`` without the Space's secrets: the endpoint's URL (as configured and as the
    package displays it) and the key, should a message ever quote them."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        value = os.environ.get(name, "").strip()
        for form in {value, sanitize_url(value).rstrip("/"), value.rstrip("/")} - {""}:
            message = message.replace(form, "[the Space's endpoint]" if name == "OPENAI_BASE_URL" else "[key]")
    return message


def call_package(call: Callable[[], Any], names: dict[str, list[int]]) -> Any:
    """Run ``call``; its ``ValueError`` becomes a ``gr.Error`` and its warnings ``gr.Warning``
    messages, with ``predictions[i]`` / ``sources[i]`` replaced by the visitor's line numbers."""
    labels = (
        {"predictions": "line", "sources": "line"}
        if set(names) == {"predictions"}
        else {"predictions": "simplification on line", "sources": "original on line"}
    )

    def named(message: str) -> str:
        return hide_endpoint(
            re.sub(
                r"\b(predictions|sources)\[(\d+)\]",
                lambda m: f"{labels[m[1]]} {names[m[1]][int(m[2])]}" if m[1] in names else m[0],
                message,
            )
        )

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call()
        except (ValueError, FileNotFoundError) as exc:  # bad input; FileNotFoundError: the ARTS data
            raise bad_input(named(str(exc))) from None
    # The package's own warnings (UserWarning: undefined formulas, non-English texts, cut texts), not
    # the libraries' resource or deprecation notes.
    for message in dict.fromkeys(named(str(w.message)) for w in caught if issubclass(w.category, UserWarning)):
        gr.Warning(message, duration=TOAST_SECONDS)
    return result


def _num(value: Any, digits: int = 3, signed: bool = False) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "-"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _judge_words(result: dict) -> str:
    judge = result["judge"]
    return "the learned judge (offline)" if judge.startswith("learned") else f"the LLM judge {judge}"


# --------------------------------------------------------------------------- figures


def pool_rating(pool_name: str, arts: list[float | None]) -> list[float | None]:
    """Each text's place on the pool's own Elo scale: the pool rating at the text's ARTS (Elo
    points, higher = harder). The figure draws texts there and the table shows this number."""
    pool = load_pool(pool_name)
    ratings = np.sort(pool.ratings)
    share = pool.arts_of_rating(ratings)
    return [None if a is None else float(np.interp(a, share, ratings)) for a in arts]


def pool_figure(pool_name: str, lines: list[int], arts: list[float | None]) -> Figure:
    """The pool's ratings as a histogram (Elo points, higher = harder) with each scored text
    at its :func:`pool_rating`: a labelled line each up to :data:`MAX_LABELS` texts, beyond
    that a second histogram of the scored texts on the same axis."""
    pool = load_pool(pool_name)
    ratings = np.sort(pool.ratings)
    share = pool.arts_of_rating(ratings)  # each pool text's own ARTS position
    fig = Figure(figsize=(8.5, 3.6), layout="constrained")
    ax = fig.subplots()
    bins = np.linspace(ratings[0], ratings[-1], min(40, max(10, len(ratings) // 10)) + 1)
    ax.hist(ratings, bins=bins, color="#c9d3df", edgecolor="white", label="pool texts")
    ax.set_xlabel(f"pool rating, Elo points ({pool_name}: {POOL_NOTES.get(pool_name, '')})  ->  harder")
    ax.set_ylabel("pool texts")
    top = ax.secondary_xaxis(
        "top", functions=(lambda r: np.interp(r, ratings, share), lambda a: np.interp(a, share, ratings))
    )
    top.set_xticks([0.05, 0.25, 0.5, 0.75, 0.95])
    top.set_xlabel("ARTS: share of the pool judged easier (higher = harder)")
    placed = [(line, x) for line, x in zip(lines, pool_rating(pool_name, arts)) if x is not None]
    if len(lines) <= MAX_LABELS:
        height = ax.get_ylim()[1]
        for k, (line, x) in enumerate(placed):
            ax.axvline(x, color="#1f4e79", linewidth=2)
            ax.annotate(
                str(line),
                (x, height * (0.93 - 0.09 * (k % 4))),
                ha="center",
                va="center",
                fontsize=9,
                bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "#1f4e79"},
            )
        title = " (labels: line numbers)"
    else:
        mine = ax.twinx()
        mine.hist([x for _, x in placed], bins=bins, histtype="step", color="#1f4e79", linewidth=2)
        mine.set_ylabel("your texts", color="#1f4e79")
        title = f" ({len(placed)} texts: the blue outline)"
    ax.set_xlim(ratings[0], ratings[-1])
    ax.set_title("Where each text falls in the reference pool" + title, fontsize=10)
    return fig


def pairs_figure(
    lines: list[int], before: dict[str, list], after: dict[str, list], verdicts: dict[str, list[str]]
) -> Figure:
    """Before (original) and after (simplification) per pair and measure: an arrow per pair
    (up to :data:`MAX_LABELS` pairs), else one dot per pair against the diagonal; green when
    the verdict is easier, red when harder."""
    panels = list(before)
    arrows = len(lines) <= MAX_LABELS
    height = 0.42 * len(lines) + 1.6 if arrows else 4.2
    fig = Figure(figsize=(4.6 * len(panels), height), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    colors = {EASIER: "#2e7d32", HARDER: "#c62828", SAME: "#777777"}
    y = np.arange(len(lines))[::-1]
    for ax, panel in zip(axes, panels):
        shown = [
            (yi, b, a, v)
            for yi, b, a, v in zip(y, before[panel], after[panel], verdicts[panel])
            if b is not None and a is not None
        ]
        if arrows:
            for yi, b, a, v in shown:
                ax.plot([b], [yi], "o", color="#555555", markersize=5)
                ax.annotate(
                    "",
                    xy=(a, yi),
                    xytext=(b, yi),
                    arrowprops={"arrowstyle": "-|>", "color": colors.get(v, "#777777"), "lw": 2},
                    annotation_clip=False,
                )
            ends = [x for _, b, a, _ in shown for x in (b, a)]
            if ends:  # the range holds both ends of every arrow, not only the originals
                low, high = min(ends), max(ends)
                pad = 0.08 * (high - low) or 0.05
                ax.set_xlim(low - pad, high + pad)
            ax.set_yticks(y)
            ax.set_yticklabels([f"line {line}" for line in lines])
            ax.set_xlabel(f"{panel} (higher = harder)")
        else:
            ax.scatter(
                [b for _, b, _, _ in shown],
                [a for _, _, a, _ in shown],
                s=12,
                alpha=0.7,
                c=[colors.get(v, "#777777") for *_, v in shown],
            )
            low, high = ax.get_xlim()[0], ax.get_xlim()[1]
            ax.plot([low, high], [low, high], color="#999999", linewidth=1)
            ax.set_xlabel(f"{panel} of the original (higher = harder)")
            ax.set_ylabel(f"{panel} of the simplification")
        ax.grid(alpha=0.3)
    axes[0].set_title(
        "dot = original, arrow head = simplification"
        if arrows
        else f"{len(lines)} pairs: below the diagonal = easier",
        fontsize=10,
    )
    return fig


# --------------------------------------------------------------------------- the tabs' functions


def score(
    texts: str,
    pool: str,
    formulas: list[str],
    judge: str = "learned",
    progress: gr.Progress = gr.Progress(track_tqdm=True),
) -> tuple[Any, Figure, str, str]:
    """Score the pasted texts (one per line): a table, the pool figure, a summary and the
    table as a CSV file (every digit, the same columns)."""
    items = numbered_lines(texts)
    _check_count(len(items), "text")
    config = call_package(lambda: current_settings().config(judge, pool).replace(formulas=formulas or None), {})
    progress(0, desc=f"placing {len(items)} texts in {pool}")
    lines = [i for i, _ in items]
    built = current_settings().built(judge)
    res = call_package(lambda: score_texts([t for _, t in items], config=config, **built), {"predictions": lines})
    placed = pool_rating(res["pool"], res["arts"])
    table = pd.DataFrame({"line": lines, "arts": res["arts"], "pool_rating": placed})
    for f in config.formulas:
        table[f] = res[f]
    table["text"] = [t for _, t in items]
    order = sorted(range(len(lines)), key=lambda k: (res["arts"][k] is None, res["arts"][k] or 0.0))
    easiest, hardest = lines[order[0]], lines[order[-1]]
    summary = (
        f"**{len(items)} texts** placed in **{res['pool']}** ({POOL_NOTES.get(res['pool'], 'your pool')}) "
        f"by {_judge_words(res)}. Mean ARTS **{_num(res['arts_mean'])}** (0 = easiest, 1 = hardest); "
        f"easiest: line {easiest}, hardest: line {hardest}."
    )
    styled = table.style.format(precision=3, na_rep="-")  # shown rounded; the data (and the API) keep every digit
    csv_path = Path(tempfile.mkdtemp(prefix="arts-scores-")) / "arts_scores.csv"
    table.to_csv(csv_path, index=False)
    return styled, pool_figure(res["pool"], lines, res["arts"]), summary, str(csv_path)


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
    _check_count(len(pairs), "pair")
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
        f"**{n} pairs**, {res['pool']}, {_judge_words(res)}. ARTS: **{easier_arts} of {n}** simplifications "
        f"easier ({basis}); mean `arts_delta` **{_num(res['arts_delta_mean'], signed=True)}** "
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
    _check_count(len(src) if src else max(len(v) for v in outputs.values()), "input")
    config = current_settings().config(judge, pool)
    progress(0, desc=f"comparing {len(outputs)} systems")
    built = current_settings().built(judge)
    comparison = call_package(lambda: compare_systems(outputs, sources=src, config=config, views=views, **built), {})
    if src is not None:
        guard = meaning_kept(outputs, src).set_index("system")
        for column in ("meaning_kept", "meaning_flagged"):
            comparison.leaderboard[column] = comparison.leaderboard["system"].map(guard[column])
    folder = Path(tempfile.mkdtemp(prefix="arts-compare-"))
    files = comparison.to_dir(folder)
    info = comparison.info
    summary = (
        f"**{len(outputs)} systems x {info['n_inputs']} inputs**, {info['pool']}, judge "
        f"{info['judge'].get('judge', judge)}. Simplest first; systems share a rank when their pairwise test "
        f"is not significant (p >= {ALPHA:g}). `arts` higher = harder, `arts_delta` positive = easier than the "
        f"source; {SIMPLICITY_NOTE}. Intervals: 95% bootstrap over inputs."
        + (f"\n\n*{MEANING_NOTE}.*" if src is not None else "")
    )
    # The CSVs only: comparison.json describes the judge's endpoint, which stays the Space owner's.
    downloads = [str(files[n]) for n in ("leaderboard.csv", "pairwise.csv", "win_rates.csv", "per_output.csv")]
    return (
        summary + "\n\n" + comparison.to_markdown(),
        comparison.figure(),
        comparison.pairwise_markdown(),
        comparison.leaderboard,
        downloads,
    )


# --------------------------------------------------------------------------- the About tab


def _without_front_matter(text: str) -> str:
    return re.sub(r"^---\n.*?\n---\n", "", text, count=1, flags=re.S)


def card_section(title: str) -> str:
    """One ``## title`` section of the metric card (without its heading)."""
    text = _without_front_matter(CARD.read_text(encoding="utf-8"))
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, flags=re.S | re.M)
    return match.group(1).strip() if match else ""


#: Paragraphs of a benchmark report that speak to its developers (model-selection settings,
#: timings, how to regenerate it), left out of the About tab.
INTERNALS = re.compile(r"CV choice|Regenerate|\.py\b|\bs for \d+ texts|^Three formulas", re.M)


def _results(path: Path) -> str:
    """A benchmark's Markdown report without its title line and its developer notes (:data:`INTERNALS`)."""
    if not path.is_file():
        return f"_{path.relative_to(HERE)} is missing from this folder (`arts publish-space` copies it)._"
    body = path.read_text(encoding="utf-8").split("\n", 1)[1].strip()
    return "\n\n".join(p for p in re.split(r"\n\s*\n", body) if not INTERNALS.search(p))


def about_markdown() -> tuple[str, str, str, str]:
    """The About tab: the learned judges' agreement with humans, every approach's, how to cite, the card."""
    agreement = f"This app's judge is the shipped default, `learned:{DEFAULT_VERSION}`.\n\n" + _results(AGREEMENT)
    cite = card_section("Citation")
    card = _without_front_matter(CARD.read_text(encoding="utf-8")) if CARD.is_file() else ""
    # the card's map of the source code is for developers
    card = re.sub(r"^## Where the code lives\n.*?(?=^## |\Z)", "", card, flags=re.S | re.M)
    return agreement, _results(ALL_APPROACHES), cite, card


# --------------------------------------------------------------------------- layout


def _example(name: str) -> str:
    path = EXAMPLES / name
    return path.read_text(encoding="utf-8").strip() if path.is_file() else ""


def _cleared(outputs: list) -> Callable[[], tuple]:
    """A function that empties ``outputs`` (run before each click's work)."""
    return lambda: tuple(None for _ in outputs)


def build_app() -> gr.Blocks:
    """Load the learned judge (once per process) and build the Blocks app without launching it;
    the judges offered are those configured in the environment now (see :func:`configured_judges`)."""
    global SETTINGS
    SETTINGS = Settings(configured_judges())
    pairs_example = read_pairs_file(str(EXAMPLES / "pairs.csv")) if (EXAMPLES / "pairs.csv").is_file() else ("", "")
    compare_example = EXAMPLES / "compare"
    with gr.Blocks(title="ARTS: Assessing Readability & Text Simplicity") as demo:
        gr.Markdown(
            "# ARTS: how hard is a text to read?\n"
            'Each text plays *"which text is harder?"* matches against a **reference pool** of texts whose '
            "difficulty is known, and scores its rank among them: `arts` in [0, 1], **higher = harder**. "
            "The default judge is a small learned model that runs offline on a CPU; how well it agrees with "
            "human raters is in *About*."
        )
        with gr.Row(equal_height=True):
            pool = gr.Dropdown(POOLS, value=DEFAULT_POOL, label="Reference pool (the ruler)", scale=1)
            gr.Markdown("\n".join(f"- **{p}**: {POOL_NOTES[p]}" for p in POOLS))
            judge = gr.Dropdown(
                SETTINGS.judges,
                value="learned",
                label="Judge",
                scale=1,
                visible=len(SETTINGS.judges) > 1,
                info="LLM judges configured by this Space's owner (they need the ARTS data for the pool's texts)",
            )
        with gr.Tabs():
            with gr.Tab("Score texts", id="score"):
                with gr.Row():
                    with gr.Column(scale=3):
                        texts = gr.Textbox(
                            label="Texts, one per line",
                            lines=7,
                            value=_example("texts.txt"),
                            elem_classes=["one-per-line"],
                            elem_id="texts",
                        )
                    with gr.Column(scale=1):
                        formulas = gr.CheckboxGroup(
                            list(FORMULAS), value=DEFAULT_FORMULAS, label="Readability formulas beside ARTS"
                        )
                        score_button = gr.Button("Score", variant="primary")
                score_summary = gr.Markdown(elem_id="score-summary")
                score_plot = gr.Plot(label="The reference pool's difficulty distribution", elem_id="score-plot")
                score_table = gr.Dataframe(
                    label="Scores (arts: higher = harder; FRE: higher = easier)",
                    wrap=True,
                    interactive=False,
                    elem_id="score-table",
                )
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
                    label="Per pair (green: easier, red: harder)", wrap=True, interactive=False, elem_id="pairs-table"
                )
                pairs_plot = gr.Plot(label="Before and after", elem_id="pairs-plot")
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
                compare_plot = gr.Plot(label="Leaderboard with 95% intervals", elem_id="compare-plot")
                gr.Markdown(
                    "#### Pairwise tests (p: paired randomization over inputs, not corrected for multiple comparisons)"
                )
                pairwise = gr.Markdown(elem_id="pairwise")
                with gr.Accordion("Every leaderboard column", open=False):
                    leaderboard_table = gr.Dataframe(interactive=False, elem_id="leaderboard-table")
                downloads = gr.File(
                    label="Download the tables", file_count="multiple", interactive=False, elem_id="downloads"
                )
            with gr.Tab("About", id="about"):
                agreement, approaches, cite, card = about_markdown()
                gr.Markdown("## Agreement with human raters (ARTS94)\n" + agreement, elem_id="agreement")
                with gr.Accordion("Every approach, beside the ARTS paper's Table 3", open=False):
                    gr.Markdown(approaches, elem_id="approaches")
                gr.Markdown("## How to cite\n" + cite, elem_id="cite")
                with gr.Accordion("The metric card", open=False):
                    gr.Markdown(card, elem_id="card")

        common = {"concurrency_id": "judge", "concurrency_limit": 1}  # one scoring job at a time
        # Each click first clears the previous results, so that an error never stands beside them.
        score_outputs = [score_table, score_plot, score_summary, score_csv]
        score_button.click(_cleared(score_outputs), None, score_outputs, queue=False, api_name=False).then(
            score, [texts, pool, formulas, judge], score_outputs, api_name="score", **common
        )
        pairs_file.change(read_pairs_file, [pairs_file], [originals, simplified], api_name=False)
        pairs_outputs = [pairs_table, pairs_plot, pairs_summary]
        pairs_button.click(_cleared(pairs_outputs), None, pairs_outputs, queue=False, api_name=False).then(
            compare_pairs,
            [originals, simplified, pool, judge],
            pairs_outputs,
            api_name="compare_pairs",
            **common,
        )
        compare_outputs = [leaderboard, compare_plot, pairwise, leaderboard_table, downloads]
        compare_button.click(_cleared(compare_outputs), None, compare_outputs, queue=False, api_name=False).then(
            compare,
            [sources_file, system_files, names, pool, views, judge],
            compare_outputs,
            api_name="compare_systems",
            **common,
        )
    return demo


if __name__ == "__main__":
    # Host and port from GRADIO_SERVER_NAME / GRADIO_SERVER_PORT (default 127.0.0.1:7860).
    build_app().launch(css=CSS, allowed_paths=[str(EXAMPLES)] if EXAMPLES.is_dir() else None)
