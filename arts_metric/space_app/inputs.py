"""Reading what visitors paste or upload: numbered lines, aligned pairs, a two-column
CSV, text files; each error names the visitor's line or file."""

from __future__ import annotations

import io
from pathlib import Path

import gradio as gr
import pandas as pd

from arts_metric.space_app.settings import MAX_TEXTS, bad_input
from arts_metric.text.reading import BlankLineError, decode_text, read_texts, text_lines

#: Why a blank line between texts is refused, here as in ``arts score`` (:func:`arts_metric.text.reading.text_lines`).
BLANK_LINE = "one text per line, no blank line between texts (blank lines at the end are fine)"


def numbered_lines(text: str | None) -> list[tuple[int, str]]:
    """``(line number, text)`` for every line of a box of one text per line (numbers from 1);
    blank lines at the end are ignored and a blank line before a text is an error naming it,
    the rule of ``arts score`` (:func:`~arts_metric.text.reading.text_lines`)."""
    try:
        lines = text_lines((text or "").splitlines())
    except BlankLineError as exc:
        raise bad_input(f"Line {exc.line} is blank: {BLANK_LINE}.") from None
    return [(i, line.strip()) for i, line in enumerate(lines, start=1)]


def paired_lines(originals: str | None, outputs: str | None) -> list[tuple[int, str, str]]:
    """``(line number, original, simplification)`` from two boxes with one text per line,
    aligned by line; blank lines at the end are ignored, and a line blank in either box is an
    error naming it (:func:`numbered_lines`)."""
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
        if not a.strip() and not b.strip():
            raise bad_input(f"Line {i} is blank in both boxes: {BLANK_LINE}.")
        if not a.strip() or not b.strip():
            missing = "simplification" if a.strip() else "original"
            raise bad_input(f"Line {i}: the {missing} is empty (one pair per line, in the same order).")
        pairs.append((i, a.strip(), b.strip()))
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


def check_count(n: int, what: str) -> None:
    if n == 0:
        raise bad_input(f"Enter at least one {what}.")
    if n > MAX_TEXTS:
        raise bad_input(
            f"{n} {what}s: this Space scores at most {MAX_TEXTS} per click; install the package (pip) for more."
        )
