"""Reading rows of texts from the files users hand us (pools, CLI input, builds).

One reader for every entry point, so that ``.txt``, ``.jsonl``, ``.json``,
``.csv``, ``.tsv`` and ``.parquet`` (and text on stdin) mean the same thing
everywhere and errors name the offending line. Rows are returned as
``(label, row)`` pairs where the label ("texts.jsonl line 3") is what an error
message should quote.

Text is UTF-8 (a leading byte-order mark is dropped); anything else is a
``ValueError`` naming the line. In a ``.txt`` file (one text per line) blank
lines at the end are ignored, and a blank line anywhere else is an error
naming it: it would shift every later text by one row and misalign them with
their sources or ids.
"""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

SUFFIXES = (".txt", ".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".parquet")


def decode_text(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text (a leading byte-order mark dropped).

    Raises ``ValueError`` naming ``name``, the line and the first byte that is
    not UTF-8, the same message for a file and for stdin.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ValueError(
            f"{name} line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column}); save it as UTF-8"
        ) from None
    return text.removeprefix("\ufeff")


def read_labelled_rows(path: str | os.PathLike, text_column: str = "text") -> list[tuple[str, dict]]:
    """Rows of a text file as ``(label, dict)``.

    ``.txt`` is one text per line (``{text_column: line}``; trailing blank
    lines ignored, any other blank line an error naming it); ``.jsonl`` one
    JSON object per line (blank lines skipped); ``.json`` a list of objects or
    strings; ``.csv`` / ``.tsv`` / ``.parquet`` a table that must have
    ``text_column``. Raises ``ValueError`` naming the file and line for
    anything malformed, including text that is not UTF-8.
    """
    path = Path(path)
    name = str(path)
    if not path.is_file():
        raise ValueError(f"input file not found: {name}")
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"{name}: unsupported input type {suffix!r} (use {', '.join(SUFFIXES)})")
    if suffix == ".parquet":
        import pandas as pd

        df = pd.read_parquet(path)
        _require_column(df, name, text_column)
        return [(f"{name} row {i}", row) for i, row in enumerate(df.to_dict("records"))]
    text = decode_text(path.read_bytes(), name)
    if suffix == ".txt":
        return labelled_lines(text.splitlines(), name, "txt", text_column)
    if suffix in (".jsonl", ".ndjson"):
        return labelled_lines(text.splitlines(), name, "jsonl", text_column)
    if suffix == ".json":
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{name} line {exc.lineno}: invalid JSON ({exc.msg})") from None
        if not isinstance(obj, list):
            raise ValueError(f"{name}: expected a JSON list of objects or strings")
        out = []
        for i, item in enumerate(obj):
            if isinstance(item, str):
                item = {text_column: item}
            if not isinstance(item, dict):
                raise ValueError(f"{name} item {i}: expected an object or a string, got {type(item).__name__}")
            out.append((f"{name} item {i}", item))
        return out
    import pandas as pd

    # keep_default_na=False: an empty cell is an empty text (rejected by the
    # caller with its line), not a float NaN.
    df = pd.read_csv(
        io.StringIO(text), sep="\t" if suffix == ".tsv" else ",", keep_default_na=False, dtype={text_column: str}
    )
    _require_column(df, name, text_column)
    return [(f"{name} line {i + 2}", row) for i, row in enumerate(df.to_dict("records"))]  # line 1: header


def read_texts(path: str | os.PathLike, text_column: str = "text") -> list[str]:
    """The texts of a file, one per input (formats as :func:`read_labelled_rows`).

    Raises ``ValueError`` naming the file and line for a malformed file, a row
    whose text is empty, missing or not a string, and a file without texts.
    """
    texts = []
    for label, row in read_labelled_rows(path, text_column):
        if text_column not in row:
            raise ValueError(missing_field(label, text_column, row))
        text = row[text_column]
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{label}: the text is empty, missing or not a string ({text!r:.40})")
        texts.append(text)
    if not texts:
        raise ValueError(f"{path} has no texts")
    return texts


def missing_field(label: str, field: str, row: dict, hint: str = "") -> str:
    """The message for a row without ``field``, listing the fields it has (and ``hint``)."""
    found = ", ".join(map(repr, row)) if row else "none"
    return f"{label}: no {field!r} field (fields found: {found}{'; ' + hint if hint else ''})"


def _require_column(df, name: str, text_column: str) -> None:
    if text_column not in df.columns:
        raise ValueError(f"{name}: no {text_column!r} column (columns: {', '.join(map(str, df.columns))})")


class BlankLineError(ValueError):
    """A blank line between texts of one-text-per-line input (:func:`text_lines`), at ``line`` (from 1)."""

    def __init__(self, line: int) -> None:
        super().__init__(f"line {line}: blank line")
        self.line = line


def text_lines(lines: list[str]) -> list[str]:
    """The texts of one-text-per-line input (a ``.txt`` file, stdin, the Space's boxes): the
    lines without the blank ones at the end. The rule every entry point applies.

    Parameters
    ----------
    lines : list of str
        The input's lines, in order.

    Returns
    -------
    list of str
        ``lines`` up to the last one that is not blank; text ``i`` (from 1) is line ``i``.

    Raises
    ------
    BlankLineError
        A blank (or whitespace-only) line before the last text: it would shift every later
        text by one and misalign them with their sources or ids. Its ``line`` counts from 1.
    """
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    for i, line in enumerate(lines[:end], start=1):
        if not line.strip():
            raise BlankLineError(i)
    return lines[:end]


#: Where a row label names its place: ``... line 3`` (lines from 1), ``... row 0`` / ``... item 0`` (from 0).
_PLACE = re.compile(r" (line|row|item) (\d+)$")


def label_line(label: str) -> int:
    """Where a row of :func:`read_labelled_rows` is in its input, from 1: the line its label
    names (``texts.csv line 3`` -> 3; the header is line 1 of a CSV file), or its row or item
    counted from 1 (``data.parquet row 0`` -> 1).

    Parameters
    ----------
    label : str
        A label of :func:`read_labelled_rows` or :func:`labelled_lines`.

    Returns
    -------
    int
        The row's line (or row, or item) number, from 1.

    Raises
    ------
    ValueError
        A label that names no place.
    """
    found = _PLACE.search(label)
    if found is None:
        raise ValueError(f"{label!r} names no line, row or item")
    return int(found[2]) + (found[1] != "line")


def labelled_lines(lines: list[str], name: str, fmt: str, text_column: str = "text") -> list[tuple[str, dict]]:
    """Rows from lines already read (e.g. stdin): ``fmt`` is ``"txt"`` (one text
    per line, :func:`text_lines`: trailing blank lines ignored, any other blank line
    a ``ValueError`` naming it) or ``"jsonl"`` (one JSON object per line, blank lines
    skipped; the other lines keep their numbers)."""
    if fmt == "txt":
        try:
            texts = text_lines(lines)
        except BlankLineError as exc:
            raise ValueError(
                f"{name} line {exc.line}: blank line (one text per line: a blank line would shift every later "
                "text by one; remove it, or use .jsonl)"
            ) from None
        return [(f"{name} line {i}", {text_column: line}) for i, line in enumerate(texts, start=1)]
    if fmt != "jsonl":
        raise ValueError(f"fmt must be 'txt' or 'jsonl', got {fmt!r}")
    rows = []
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        rows.append((f"{name} line {i}", json_object(line, f"{name} line {i}")))
    return rows


def json_object(line: str, label: str) -> dict:
    """The JSON object on one line of a JSON-lines file; a ``ValueError`` naming ``label``
    (the file and line) when the line is not valid JSON or not an object."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{label}: invalid JSON ({exc.msg})") from None
    if not isinstance(row, dict):
        raise ValueError(f"{label}: expected a JSON object, got {type(row).__name__}")
    return row


def read_rows(path: str | os.PathLike, text_column: str = "text") -> list[dict]:
    """:func:`read_labelled_rows` without the labels."""
    return [row for _, row in read_labelled_rows(path, text_column)]
