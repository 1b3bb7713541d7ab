"""The options of ``arts score`` that choose where scoring runs: ``--engine``, ``--address``,
``--actors``, ``--threads``, ``--device``, ``--shard-rows`` and ``--out-format``, and the Ray engine's run."""

from __future__ import annotations

import argparse
import sys

from arts_metric.commands import CLIError
from arts_metric.config import ScoringConfig


def add_engine_flags(p: argparse.ArgumentParser) -> None:
    """Add the engine and device flags to ``arts score``."""
    g = p.add_argument_group("where scoring runs")
    g.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local: this process (default); ray: Ray Data actors, streaming INPUT (a file or a folder of "
        ".txt/.jsonl/.parquet files) shard by shard into the --out folder, skipping shards written by an "
        "earlier run (needs pip install 'arts-metric[ray]')",
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
        "--shard-rows", type=int, default=10_000, help="--engine ray: input lines per shard (default 10000)"
    )
    g.add_argument(
        "--out-format",
        choices=("parquet", "jsonl"),
        default="parquet",
        help="--engine ray: the format of the shard files in the --out folder (default parquet)",
    )


def judge_settings(args: argparse.Namespace, config: ScoringConfig) -> ScoringConfig:
    """``config`` with ``--threads`` / ``--device`` among the learned judge's options."""
    options = {k: getattr(args, k) for k in ("threads", "device") if getattr(args, k, None) is not None}
    if not options:
        return config
    if not (isinstance(config.judge, str) and config.judge.strip().split(":")[0] == "learned"):
        raise CLIError(f"--{' and --'.join(options)} apply to the learned judge, not to --judge {config.judge}")
    if options.get("threads") is not None and options["threads"] < 1:
        raise CLIError(f"--threads must be a positive integer, got {options['threads']}")
    if args.engine == "ray":
        return config  # the engine gives each actor its threads and device
    return config.replace(judge_options={**config.judge_options, **options})


def run_ray(args: argparse.Namespace, config: ScoringConfig) -> int:
    """``arts score --engine ray``: score INPUT into the ``--out`` folder on a Ray cluster."""
    from tqdm import tqdm

    from arts_metric.llm.report import request_summary

    if not args.out:
        raise CLIError("--engine ray writes shard files: give --out FOLDER")
    if args.input == "-":
        raise CLIError("--engine ray reads files, not stdin: give a file or a folder")
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
            args.out,
            field=args.field,
            fmt=args.out_format,
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
    print(
        f"{counts['rows']} texts in {counts['shards']} shards under {args.out} "
        f"({counts['skipped']} shards already written, {counts['rows_scored']} texts scored now)",
        file=sys.stderr,
    )
    print(f"signature: {counts['signature']}", file=sys.stderr)
    requests = request_summary(counts["judge_stats"])
    if requests:  # an LLM judge: what the actors paid for, summed
        print(f"requests: {requests}", file=sys.stderr)
    return 0
