"""The options of ``arts score`` that choose where scoring runs: ``--engine``, ``--address``,
``--actors``, ``--threads``, ``--device``, ``--precision``, ``--shard-rows`` and ``--out-format``, and the Ray engine's run."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from arts_metric.commands import CLIError
from arts_metric.judges.learned.int8 import PRECISIONS
from arts_metric.scoring.config import ScoringConfig


def add_engine_flags(p: argparse.ArgumentParser) -> None:
    """Add the engine and device flags to ``arts score``."""
    g = p.add_argument_group("where scoring runs")
    g.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local: this process (default); ray: Ray Data actors, streaming INPUT (a file or a folder of "
        ".txt/.jsonl/.parquet files) shard by shard, skipping shards written by an earlier run, into --out: "
        "NAME.jsonl or NAME.parquet for one file in input order, or DIR/ (a name without a suffix, or an "
        "existing folder) for one part file per shard (needs pip install 'arts-metric[ray]')",
    )
    g.add_argument("--address", help="--engine ray: the Ray cluster to join (default: start one on this machine)")
    g.add_argument("--actors", type=int, help="--engine ray: actors scoring at once (default: one per GPU, else CPUs)")
    g.add_argument(
        "--threads",
        type=int,
        help="learned judge: encoder passes run at once on the CPU, one torch thread each (per actor with --engine "
        "ray; default: every core, shared among actors; never changes a score)",
    )
    g.add_argument(
        "--device",
        choices=("auto", "cpu", "cuda"),
        help="learned judge: where MiniLM runs (default auto: a CUDA GPU when there is one)",
    )
    g.add_argument(
        "--precision",
        choices=PRECISIONS,
        help="learned judge: fp32 (default) or int8 (MiniLM in int8 on the CPU with ONNX Runtime: about 1.2x "
        "faster; arts moves by up to about .005 and the signature says +int8)",
    )
    g.add_argument(
        "--shard-rows", type=int, default=10_000, help="--engine ray: input lines per shard (default 10000)"
    )
    g.add_argument(
        "--out-format",
        choices=("parquet", "jsonl"),
        default=None,
        help="--engine ray with --out DIR/: the format of the part files (default parquet); a file "
        "--out NAME.jsonl or NAME.parquet takes the format of its suffix",
    )


def judge_settings(args: argparse.Namespace, config: ScoringConfig) -> ScoringConfig:
    """``config`` with ``--threads`` / ``--device`` / ``--precision`` among the learned judge's
    options (with ``--engine ray`` only ``--precision``: the engine gives each actor its threads and device)."""
    options = {k: getattr(args, k) for k in ("threads", "device", "precision") if getattr(args, k, None) is not None}
    if not options:
        return config
    if not (isinstance(config.judge, str) and config.judge.strip().split(":")[0] == "learned"):
        raise CLIError(f"--{' and --'.join(options)} apply to the learned judge, not to --judge {config.judge}")
    if options.get("threads") is not None and options["threads"] < 1:
        raise CLIError(f"--threads must be a positive integer, got {options['threads']}")
    if args.engine == "ray":
        options = {k: v for k, v in options.items() if k == "precision"}  # threads and device: per actor
    return config.replace(judge_options={**config.judge_options, **options}) if options else config


#: The one-file ``--out`` suffixes of ``--engine ray`` and their format.
RAY_FILES = {".jsonl": "jsonl", ".parquet": "parquet"}


def ray_out(out: str, out_format: str | None) -> tuple[Path, Path | None, str]:
    """Where ``--engine ray`` writes ``--out``, checked before any scoring.

    ``DIR/``, an existing folder or a name without a suffix is a folder of part files in
    ``out_format`` (default parquet); ``NAME.jsonl`` / ``NAME.parquet`` is one file of that
    format, scored into the folder ``NAME.jsonl.parts/`` first.

    Parameters
    ----------
    out : str
        The ``--out`` argument.
    out_format : str or None
        The ``--out-format`` argument (None when not given).

    Returns
    -------
    tuple of (Path, Path or None, str)
        The folder of part files, the one file (None for a folder ``--out``) and the format.

    Raises
    ------
    CLIError
        Another suffix, an ``out_format`` that is not the file's, or a parent folder that is
        missing or read-only.
    """
    from arts_metric.distributed.gather import parts_folder

    path = Path(out)
    if out.endswith(("/", os.sep)) or path.is_dir() or not path.suffix:
        return path, None, out_format or "parquet"
    fmt = RAY_FILES.get(path.suffix.lower())
    if fmt is None:
        raise CLIError(
            f"--out {out}: --engine ray writes one {' or '.join(RAY_FILES)} file, or one part file per "
            f"shard into a folder (--out DIR/)"
        )
    if out_format not in (None, fmt):
        raise CLIError(
            f"--out {out} is a {path.suffix} file; --out-format {out_format} is for a folder of part files "
            f"(--out DIR/)"
        )
    if not path.parent.is_dir():
        raise CLIError(f"--out {out}: the folder {path.parent} does not exist")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise CLIError(f"--out {out} cannot be written: the folder {path.parent} is read-only")
    parts = parts_folder(path)
    if parts.exists() and not parts.is_dir():
        raise CLIError(f"--out {out}: {parts} is a file; the part files go to that folder while scoring")
    return parts, path, fmt


def run_ray(args: argparse.Namespace, config: ScoringConfig) -> int:
    """``arts score --engine ray``: score INPUT on a Ray cluster into ``--out``, one file or a folder."""
    from tqdm import tqdm

    from arts_metric.llm.report import request_summary

    if not args.out:
        raise CLIError(
            "--engine ray needs --out: NAME.jsonl or NAME.parquet for one file, or DIR/ for one part file per shard"
        )
    if args.input == "-":
        raise CLIError("--engine ray reads files, not stdin: give a file or a folder")
    folder, single, fmt = ray_out(args.out, args.out_format)
    for name in ("actors", "shard_rows"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise CLIError(f"--{name.replace('_', '-')} must be a positive integer, got {value}")
    try:
        from arts_metric.distributed.ray_data import _ray, score_files

        ray = _ray()
    except ImportError as exc:
        raise CLIError(str(exc)) from None
    from arts_metric.distributed.shards import input_files

    try:
        input_files([args.input])
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    ray.init(address=args.address, include_dashboard=False, log_to_driver=False, logging_level="WARNING")
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False  # one bar, counted in texts, below
    ctx.print_on_execution_start = False
    bar = tqdm(unit="text", desc="arts score (ray)", disable=args.no_progress, file=sys.stderr)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    try:
        counts = score_files(
            [args.input],
            str(folder),
            field=args.field,
            fmt=fmt,
            shard_rows=args.shard_rows,
            actors=args.actors,
            threads=args.threads or 1,
            device=args.device,
            config=config,
            progress=progress,
        )
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    finally:
        bar.close()
        ray.shutdown()
    where = f"under {folder}" if single is None else f"gathered into {single}"
    if single is not None:
        _gather(folder, counts["shards"], fmt, single)
    print(
        f"{counts['rows']} texts in {counts['shards']} shards {where} "
        f"({counts['skipped']} shards already written, {counts['rows_scored']} texts scored now)",
        file=sys.stderr,
    )
    print(f"signature: {counts['signature']}", file=sys.stderr)
    requests = request_summary(counts["judge_stats"])
    if requests:  # an LLM judge: what the actors paid for, summed
        print(f"requests: {requests}", file=sys.stderr)
    return 0


def _gather(parts: Path, shards: int, fmt: str, out: Path) -> None:
    """The part files of ``parts`` into the one file ``out``, then the folder removed."""
    from arts_metric.distributed.gather import gather_parts, remove_parts

    try:
        gather_parts(parts, shards, fmt, out)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    except OSError as exc:
        raise CLIError(
            f"cannot write {out}: {exc.strerror or exc}; the scores stay in {parts}/, and the same command "
            "run again writes the file without scoring them again"
        ) from None
    if not remove_parts(parts, shards, fmt):
        print(f"kept {parts}/: it holds files of its own beside the part files", file=sys.stderr)
