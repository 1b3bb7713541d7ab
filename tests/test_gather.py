"""One output file from the part files of `arts score --engine ray --out NAME.jsonl|NAME.parquet`:
part files as the actors write them, gathered in shard order (the Ray runs are in test_ray_scoring.py)."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from arts_metric.distributed.gather import gather_parts, parts_folder, remove_parts
from arts_metric.distributed.shards import MANIFEST, shard_path, write_shard

# Shards differ as real input does: a field null in every row of one shard, a field only in a later
# shard, whole numbers in one shard and fractions in another.
SHARDS = [
    [{"id": 0, "text": "a", "note": None}, {"id": 1, "text": "b", "note": None}],
    [{"id": 2.5, "text": "c", "note": "kept", "extra": 3}],
    [{"id": 3, "text": "d", "note": None}],
]


def _parts(tmp_path, fmt: str, shards=SHARDS):
    parts = parts_folder(tmp_path / f"scores.{fmt}")
    parts.mkdir()
    (parts / MANIFEST).write_text("{}\n")
    for i, rows in enumerate(shards):
        write_shard(rows, shard_path(parts, i, fmt), fmt)
    return parts


def test_parquet_parts_of_different_columns_make_one_file_in_shard_order(tmp_path):
    parts = _parts(tmp_path, "parquet")
    out = tmp_path / "scores.parquet"
    gather_parts(parts, len(SHARDS), "parquet", out)
    rows = pq.read_table(out).to_pylist()
    assert [r["text"] for r in rows] == ["a", "b", "c", "d"]
    assert [r["id"] for r in rows] == [0.0, 1.0, 2.5, 3.0]
    assert [r["note"] for r in rows] == [None, None, "kept", None]
    assert [r["extra"] for r in rows] == [None, None, 3, None]
    assert remove_parts(parts, len(SHARDS), "parquet") and sorted(tmp_path.iterdir()) == [out]


def test_jsonl_parts_are_joined_line_for_line(tmp_path):
    parts = _parts(tmp_path, "jsonl")
    out = tmp_path / "scores.jsonl"
    gather_parts(parts, len(SHARDS), "jsonl", out)
    assert [json.loads(line) for line in out.read_text().splitlines()] == [r for rows in SHARDS for r in rows]


def test_parts_that_one_parquet_file_cannot_hold_are_one_line_and_kept(tmp_path):
    parts = _parts(tmp_path, "parquet", [[{"id": 1, "text": "a"}], [{"id": "x", "text": "b"}]])
    out = tmp_path / "scores.parquet"
    with pytest.raises(ValueError) as info:
        gather_parts(parts, 2, "parquet", out)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"the part files in {parts} cannot make one Parquet file")
    assert "--out NAME.jsonl" in message and f"--out {parts}/" in message
    assert sorted(p.name for p in tmp_path.iterdir()) == [parts.name]  # no file, no temporary file


def test_a_missing_part_is_named_and_a_folder_with_other_files_is_kept(tmp_path):
    parts = _parts(tmp_path, "jsonl")
    shard_path(parts, 1, "jsonl").unlink()
    with pytest.raises(ValueError, match=r"part-00001\.jsonl is missing; run the same command again"):
        gather_parts(parts, len(SHARDS), "jsonl", tmp_path / "scores.jsonl")
    (parts / "notes.txt").write_text("mine")
    assert not remove_parts(parts, len(SHARDS), "jsonl")
    assert sorted(p.name for p in parts.iterdir()) == ["notes.txt"]
