"""Input files cut into shards, and one output file per shard.

A shard is a run of consecutive rows of one input file: ``shard_rows`` lines of
a ``.txt`` / ``.jsonl`` file (found by one streaming pass over the file, which
keeps only the byte offset where each shard starts), or one row group of a
``.parquet`` file. A shard is read, scored and written as a whole by one
worker; its output file ``part-NNNNN.<format>`` appears under its final name
only once complete (written to a temporary name, then renamed), so a shard
whose file exists is done and a rerun skips it.

Rows keep the checks of ``arts score``: a ``.txt`` file holds one text per
line (blank lines at its end are ignored, a blank line elsewhere is an
error), a ``.jsonl`` file one JSON object per line (blank lines skipped);
a line that is not UTF-8, not JSON or has no usable text is a ``ValueError``
naming the file and the line.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterator

from arts_metric.text.reading import json_object

SUFFIXES = (".txt", ".jsonl", ".parquet")
FORMATS = ("parquet", "jsonl")
#: Output columns naming each row's input: the file and its line (row number in a Parquet file), from 1.
SOURCE_COLUMNS = ("source_file", "source_line")
MANIFEST = "_arts_run.json"


@dataclass(frozen=True)
class Shard:
    """Rows ``first_line`` .. ``first_line + rows - 1`` of ``path`` (lines from 1), starting at byte
    ``offset`` (text files) or being row group ``offset`` (Parquet)."""

    index: int
    path: str
    offset: int
    first_line: int
    rows: int

    def as_row(self) -> dict[str, Any]:
        return asdict(self)


def input_files(inputs: list[str]) -> list[Path]:
    """The input files: each input is a file, or a folder whose ``.txt`` / ``.jsonl`` / ``.parquet``
    files are read in name order. ``ValueError`` for a missing path, an unsupported file or no files."""
    files: list[Path] = []
    for name in inputs:
        path = Path(name)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES)
            if not found:
                raise ValueError(f"{name}: no {', '.join(SUFFIXES)} files in this folder")
            files.extend(found)
        elif path.is_file():
            if path.suffix.lower() not in SUFFIXES:
                raise ValueError(f"{name}: unsupported input type {path.suffix!r} (use {', '.join(SUFFIXES)})")
            files.append(path)
        else:
            raise ValueError(f"input file not found: {name}")
    return files


def plan_shards(files: list[Path], shard_rows: int) -> list[Shard]:
    """The shards of ``files`` in order (numbered from 0); memory does not grow with the files' size."""
    if isinstance(shard_rows, bool) or not isinstance(shard_rows, int) or shard_rows < 1:
        raise ValueError(f"shard_rows must be a positive integer, got {shard_rows!r}")
    shards: list[Shard] = []
    for path in files:
        spans = _parquet_spans(path) if path.suffix.lower() == ".parquet" else _line_spans(path, shard_rows)
        for offset, first, rows in spans:
            shards.append(Shard(len(shards), str(path), offset, first, rows))
    return shards


def _line_spans(path: Path, shard_rows: int) -> Iterator[tuple[int, int, int]]:
    txt = path.suffix.lower() == ".txt"
    starts: list[tuple[int, int]] = []  # (byte offset, line) of each shard's first line
    offset, line, last_text = 0, 0, 0
    with open(path, "rb") as fh:
        for raw in fh:
            line += 1
            if (line - 1) % shard_rows == 0:
                starts.append((offset, line))
            offset += len(raw)
            if raw.strip():
                last_text = line
    end = last_text if txt else line  # a .txt file's blank lines at the end are not rows
    for offset, first in starts:
        if first <= end:
            yield offset, first, min(shard_rows, end - first + 1)


def _parquet_spans(path: Path) -> Iterator[tuple[int, int, int]]:
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    first = 1
    for group in range(meta.num_row_groups):
        rows = meta.row_group(group).num_rows
        if rows:
            yield group, first, rows
        first += rows


def read_shard(shard: Shard, field: str) -> tuple[list[str], list[dict[str, Any]]]:
    """``(texts, rows)`` of a shard; each row holds the input's fields and :data:`SOURCE_COLUMNS`.
    ``ValueError`` naming the file and line for a row that cannot be scored."""
    name = shard.path
    if name.lower().endswith(".parquet"):
        import pyarrow.parquet as pq

        records = pq.ParquetFile(name).read_row_group(shard.offset).to_pylist()
        items = [(shard.first_line + i, f"{name} row {shard.first_line + i}", r) for i, r in enumerate(records)]
    else:
        items = list(_text_rows(shard, field))
    texts, rows = [], []
    for line, label, record in items:
        if field not in record:
            raise ValueError(f"{label}: no {field!r} field (fields: {', '.join(map(str, record))})")
        text = record[field]
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{label}: the text is empty, missing or not a string ({text!r:.40})")
        texts.append(text)
        rows.append({**record, SOURCE_COLUMNS[0]: name, SOURCE_COLUMNS[1]: line})
    return texts, rows


def _text_rows(shard: Shard, field: str) -> Iterator[tuple[int, str, dict[str, Any]]]:
    jsonl = shard.path.lower().endswith(".jsonl")
    with open(shard.path, "rb") as fh:
        fh.seek(shard.offset)
        for line in range(shard.first_line, shard.first_line + shard.rows):
            raw = fh.readline()
            label = f"{shard.path} line {line}"
            try:
                text = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as exc:
                raise ValueError(
                    f"{label}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}); "
                    "save it as UTF-8"
                ) from None
            if line == 1:
                text = text.removeprefix("\ufeff")
            if not jsonl:
                if not text.strip():
                    raise ValueError(
                        f"{label}: blank line (one text per line: a blank line would shift every later "
                        "line's row; remove it)"
                    )
                yield line, label, {field: text}
                continue
            if not text.strip():
                continue
            yield line, label, json_object(text, label)


def shard_path(out_dir: str | os.PathLike, index: int, fmt: str) -> Path:
    """Where shard ``index``'s output goes."""
    return Path(out_dir) / f"part-{index:05d}.{fmt}"


def write_shard(rows: list[dict[str, Any]], path: Path, fmt: str) -> None:
    """Write ``rows`` to ``path`` as Parquet or JSON lines, under a temporary name renamed when complete."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), tmp)
    else:
        with open(tmp, "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def check_manifest(out_dir: Path, manifest: dict[str, Any]) -> None:
    """Write the run's manifest to ``out_dir``, or check that the one there is the same run's:
    ``ValueError`` when the folder holds the shards of other inputs or settings."""
    path = out_dir / MANIFEST
    if path.exists():
        found = json.loads(path.read_text(encoding="utf-8"))
        if found != manifest:
            diff = sorted(k for k in set(found) | set(manifest) if found.get(k) != manifest.get(k))
            raise ValueError(
                f"{out_dir} holds the output of another run (different {', '.join(diff)}); "
                "give another --out, or remove this folder to start again"
            )
        return
    if any(out_dir.glob("part-*")):
        raise ValueError(f"{out_dir} holds part-* files of an unknown run; give another --out")
    path.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
