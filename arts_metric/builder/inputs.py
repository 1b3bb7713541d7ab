"""The texts a build rates: reading them from any source into checked rows, and fingerprinting them.

Every row becomes ``{"id": str, "text": str, **extra}``: ids are unique,
texts non-empty, other scalar columns kept. A build folder belongs to exactly
one text list (:func:`texts_fingerprint`).
"""

from __future__ import annotations

import hashlib
import math
import os
from pathlib import Path
from typing import Any, Sequence

from arts_metric import data as arts_data
from arts_metric.text.reading import SUFFIXES as TEXT_SUFFIXES
from arts_metric.text.reading import read_rows


def load_input(
    source: Any,
    text_column: str = "text",
    id_column: str = "id",
    split: str = "train",
    data_dir: str | os.PathLike | None = None,
) -> tuple[list[dict], str]:
    """Read the texts to rate. Returns ``(rows, description)``.

    ``source`` is a built-in pool name (``arts94``: read from the ARTS data at
    run time), a file (``.txt`` one text per line; ``.jsonl``/``.json``/
    ``.csv``/``.tsv``/``.parquet`` with a ``text_column``), a folder saved with
    ``datasets.Dataset.save_to_disk``, a ``datasets`` name or folder for
    :func:`datasets.load_dataset` (``split``; a Hub name is downloaded, i.e. this
    reaches the network), a ``datasets.Dataset``, or a list
    of strings or dicts. Every row gets ``text`` and a string ``id`` (the
    ``id_column`` or the row number); other scalar columns are kept.
    """
    if isinstance(source, str) and source in arts_data.BUILTIN_POOLS:
        raw = arts_data.load_pool_rows(source, data_dir)
        desc = f"ARTS pool {source}"
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source).expanduser()
        if path.is_file():
            raw = read_rows(path, text_column)
            desc = f"file {path.name} (sha256 {sha256_file(path)[:16]})"
        elif path.is_dir() and ((path / "state.json").is_file() or (path / "dataset_dict.json").is_file()):
            import datasets

            ds = datasets.load_from_disk(str(path))
            if isinstance(ds, datasets.DatasetDict):
                if split not in ds:
                    raise ValueError(f"{path}: no split {split!r} (splits: {', '.join(ds)})")
                ds = ds[split]
            raw, desc = ds.to_list(), f"dataset folder {path.name} split {split}"
        elif path.suffix.lower() in TEXT_SUFFIXES:  # a file name, not a Hub dataset: do not go online for it
            raise ValueError(f"input file not found: {path}")
        else:
            import datasets

            try:
                ds = datasets.load_dataset(str(source), split=split)
            except Exception as exc:  # datasets raises many types; name the input in one message
                raise ValueError(
                    f"input {str(source)!r} is not a file, a built-in pool or a loadable dataset: {exc}"
                ) from None
            raw, desc = ds.to_list(), f"dataset {source} split {split}"
    elif hasattr(source, "column_names") and hasattr(source, "to_list"):
        raw, desc = source.to_list(), "datasets.Dataset"
    elif isinstance(source, Sequence):
        raw = [{"text": x} if isinstance(x, str) else x for x in source]
        desc = "Python list"
    else:
        raise ValueError(f"unsupported input {source!r}: give a path, a pool name, a dataset or a list")
    return normalise_rows(raw, text_column, id_column, desc), desc


def sha256_file(path: str | os.PathLike) -> str:
    """The hex sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def normalise_rows(raw: Sequence[Any], text_column: str, id_column: str, desc: str) -> list[dict]:
    """Checked rows ``{"id", "text", **scalar extras}``; ValueError naming ``desc`` and the row otherwise."""
    rows: list[dict] = []
    seen_ids: dict[str, int] = {}
    for i, r in enumerate(raw):
        if not isinstance(r, dict):
            raise ValueError(f"{desc}: row {i} is not an object with a {text_column!r} field: {r!r:.80}")
        if text_column not in r:
            raise ValueError(f"{desc}: row {i} has no {text_column!r} field (fields: {', '.join(map(str, r))})")
        text = r[text_column]
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{desc}: row {i} has an empty or non-string text: {text!r:.80}")
        rid = r.get(id_column)
        rid = str(i) if rid is None or (isinstance(rid, float) and math.isnan(rid)) else str(rid)
        if rid in seen_ids:
            raise ValueError(f"{desc}: rows {seen_ids[rid]} and {i} share the id {rid!r}")
        seen_ids[rid] = i
        extra = {
            k: v
            for k, v in r.items()
            if k not in (text_column, id_column, "index", "id", "text")
            and (v is None or isinstance(v, (str, int, float, bool)))
        }
        rows.append({"id": rid, "text": text, **extra})
    if len(rows) < 2:
        raise ValueError(f"{desc}: a dataset needs at least 2 texts, got {len(rows)}")
    return rows


def texts_fingerprint(texts: Sequence[str]) -> str:
    """sha256 over the texts in order: a build folder belongs to exactly one text list."""
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()
