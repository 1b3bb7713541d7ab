"""The ``arts`` command line. Each subcommand lives in ``arts_metric.commands.<name>``
and exposes ``register(subparsers)``; errors meant for the user are raised as
:class:`arts_metric.commands.CLIError` and printed as one line (no traceback), and
warnings as one line each, in the command line's words: a subcommand that names
texts by their lines sets ``args.warning_words`` (a function from a message to the
message with ``predictions[i]`` and the like in its words)."""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import warnings
from typing import Callable

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
    from arts_metric.evaluate_module.registry import registration_problem

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


#: The API's words in warnings, and the command line's for them.
_CLI_WORDS: tuple[tuple[str, str], ...] = (
    (r'\blanguage="(\w+)"', r"--language \1"),
    (r"\bset language= to\b", "set --language to"),
    (r'\(for (\w+) script: "(\w+)"\)', r"(for \1 script: --language \2)"),
)


def cli_words(message: str, words: Callable[[str], str] | None = None) -> str:
    """A warning's ``message`` in the command line's words: ``words`` (the subcommand's, if any)
    first, then the settings as flags (``language="en"`` -> ``--language en``), on one line."""
    text = words(message) if words is not None else message
    for pattern, repl in _CLI_WORDS:
        text = re.sub(pattern, repl, text)
    return " ".join(text.split())


def _show_warnings(args: argparse.Namespace) -> Callable[..., None]:
    def show(message, category, filename, lineno, file=None, line=None) -> None:  # warnings.showwarning's signature
        from tqdm import tqdm

        text = cli_words(str(message), getattr(args, "warning_words", None))
        tqdm.write(scrub(f"arts {args.command}: warning: {text}"), file=sys.stderr)  # above a progress bar

    return show


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warnings(args)
            return int(args.func(args) or 0)
    except CLIError as exc:
        print(scrub(f"arts {args.command}: error: {exc}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"arts {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
