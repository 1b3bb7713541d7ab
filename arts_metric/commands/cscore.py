"""``arts cscore LOG.csv --variant simple|complete|textsize``: C-Score per text.

Writes CSV rows ``text_id,c_score`` (higher = better comprehension = easier
text) to stdout or ``--output``. Units: see :mod:`arts_metric.cscore`.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from arts_metric.commands import CLIError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "cscore",
        help="C-Score per text from a comprehension-test log (higher = easier)",
        description=(
            "Compute the C-Score (Temnikova & Maneva 2013) of every text in a comprehension-test "
            "log: a CSV with one row per answer and the columns participant,text_id,question_id,"
            "correct,time_ms (correct is 0/1, time in milliseconds); the complete and textsize "
            "variants also need n_answers,question_words,answers_words and (textsize) text_words. "
            "Pr is a percentage and times are in seconds unless changed; no variant is multiplied "
            "by 100. Higher C-Score = better comprehension = easier text."
        ),
    )
    p.add_argument("log", type=Path, help="comprehension-test log (CSV with a header row)")
    p.add_argument("--variant", choices=("simple", "complete", "textsize"), default="simple")
    p.add_argument("-o", "--output", type=Path, help="write the CSV here instead of stdout")
    p.add_argument("--fraction", action="store_true", help="use Pr as a fraction in [0, 1] instead of a percentage")
    p.add_argument(
        "--time-unit-ms",
        type=float,
        default=1000.0,
        metavar="MS",
        help="length of one time unit in milliseconds (default 1000: seconds)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arts_metric.cscore import compute_cscores, read_log

    if not args.log.is_file():
        raise CLIError(f"no such file: {args.log}")
    try:
        rows = compute_cscores(
            read_log(args.log),
            args.variant,
            pr_unit="fraction" if args.fraction else "percent",
            time_unit_ms=args.time_unit_ms,
        )
    except (ValueError, UnicodeDecodeError, csv.Error) as exc:
        raise CLIError(f"{args.log}: {exc}" if str(args.log) not in str(exc) else str(exc)) from None
    try:
        out = open(args.output, "w", newline="", encoding="utf-8") if args.output else sys.stdout
    except OSError as exc:
        raise CLIError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    try:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["text_id", "c_score"])
        for r in rows:
            writer.writerow([r.text_id, repr(r.c_score)])
    finally:
        if args.output:
            out.close()
    return 0
