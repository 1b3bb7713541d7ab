"""The ``arts`` command line. Each subcommand lives in ``arts_metric.commands.<name>``
and exposes ``register(subparsers)``; errors meant for the user are raised as
:class:`arts_metric.commands.CLIError` and printed as one line (no traceback)."""

from __future__ import annotations

import argparse
import importlib
import sys

from arts_metric import __version__
from arts_metric.commands import CLIError
from arts_metric.scrub import scrub

# Subcommand modules under arts_metric.commands, in the order `arts --help` lists them.
SUBCOMMANDS: tuple[str, ...] = (
    "score",
    "register",
    "cscore",
    "build",
    "rate",
    "publish_space",
    "compare",
)


def _registration_line() -> str:
    """Whether ``evaluate.load("arts")`` finds this package's metric, and the one step if not."""
    from arts_metric.registry import registration_problem

    problem = registration_problem()
    if problem is None:
        return 'evaluate.load("arts") finds this metric (`arts register` has been run).'
    return f"First step after installing: {problem}."


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arts",
        description="ARTS: Assessing Readability & Text Simplicity (higher score = harder text).",
        epilog=_registration_line(),
    )
    parser.add_argument("--version", action="version", version=f"arts-metric {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"arts_metric.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CLIError as exc:
        print(scrub(f"arts {args.command}: error: {exc}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"arts {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
