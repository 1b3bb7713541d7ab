"""One output file from a run's part files.

``arts score --engine ray --out NAME.jsonl`` (or ``NAME.parquet``) scores shard by
shard into the folder ``NAME.jsonl.parts/`` (:func:`parts_folder`), which keeps
the resume of :func:`arts_metric.distributed.ray_data.score_files`: a run stopped
midway and started again skips the shards written. Once every shard is written,
the driver copies the part files in shard order, which is input order, into the
one file (:func:`gather_parts`, one part in memory at a time, the file appearing
under its name only once complete) and removes the folder (:func:`remove_parts`).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from arts_metric.distributed.shards import MANIFEST, shard_path


def parts_folder(out: str | os.PathLike) -> Path:
    """The folder that holds the part files of the one file ``out`` while it is scored.

    Parameters
    ----------
    out : str or PathLike
        The one output file, e.g. ``scores.jsonl``.

    Returns
    -------
    Path
        The folder beside it, e.g. ``scores.jsonl.parts``.
    """
    out = Path(out)
    return out.with_name(out.name + ".parts")


def gather_parts(parts: Path, shards: int, fmt: str, out: Path) -> None:
    """Write the part files ``part-00000`` .. of ``shards`` shards in ``parts`` (format ``fmt``,
    ``"jsonl"`` or ``"parquet"``) into the one file ``out``, in shard order.

    Parameters
    ----------
    parts : Path
        The folder of part files, every shard written.
    shards : int
        The number of shards of the run.
    fmt : str
        The format of the part files and of ``out``.
    out : Path
        The file to write; replaced only once complete.

    Raises
    ------
    ValueError
        A part file is missing, or the columns of Parquet parts have types that one file cannot hold.
    OSError
        ``out`` cannot be written.
    """
    files = [shard_path(parts, i, fmt) for i in range(shards)]
    missing = [p for p in files if not p.is_file()]
    if missing:
        raise ValueError(f"{missing[0]} is missing; run the same command again to score its shard")
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        if fmt == "parquet":
            _join_parquet(files, tmp, parts)
        else:
            with open(tmp, "wb") as dst:
                for path in files:
                    with open(path, "rb") as src:
                        shutil.copyfileobj(src, dst)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)


def _join_parquet(files: list[Path], tmp: Path, parts: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    # Shards may differ: a field missing from one, or null in all its rows, or int in one and float in another.
    try:
        schema = pa.unify_schemas([pq.read_schema(p) for p in files], promote_options="permissive")
        with pq.ParquetWriter(tmp, schema) as writer:
            for path in files:
                table = pq.read_table(path)
                for field in schema:
                    if field.name not in table.column_names:
                        table = table.append_column(field.name, pa.nulls(len(table), field.type))
                writer.write_table(table.select(schema.names).cast(schema))
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
        reason = str(exc).splitlines()[0]
        raise ValueError(
            f"the part files in {parts} cannot make one Parquet file ({reason}); write JSON lines "
            f"(--out NAME.jsonl) or keep the part files (--out {parts}/ takes them as they are)"
        ) from None


def remove_parts(parts: Path, shards: int, fmt: str) -> bool:
    """Remove the folder ``parts``: its part files, its manifest and the temporary files of stopped workers.

    Parameters
    ----------
    parts : Path
        The folder of part files, gathered.
    shards : int
        The number of shards of the run.
    fmt : str
        The format of the part files.

    Returns
    -------
    bool
        True when the folder is gone; False (the folder left, without the run's files) when it
        holds other files.
    """
    for path in [*(shard_path(parts, i, fmt) for i in range(shards)), parts / MANIFEST, *parts.glob(".part-*.tmp")]:
        path.unlink(missing_ok=True)
    try:
        parts.rmdir()
    except OSError:
        return False
    return True
