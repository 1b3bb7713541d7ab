"""Reading what visitors paste or upload: numbered lines, aligned pairs, a two-column
CSV, text files; each error names the visitor's line or file."""

from __future__ import annotations

import io
from pathlib import Path

import gradio as gr
import pandas as pd

from arts_metric.space_app.settings import MAX_TEXTS, bad_input
from arts_metric.textio import decode_text, read_texts


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


def check_count(n: int, what: str) -> None:
    if n == 0:
        raise bad_input(f"Enter at least one {what}.")
    if n > MAX_TEXTS:
        raise bad_input(
            f"{n} {what}s: this Space scores at most {MAX_TEXTS} per click; install the package (pip) for more."
        )
