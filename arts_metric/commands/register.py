"""``arts register``: make ``evaluate.load("arts")`` resolve offline."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "register",
        help='install the metric script where evaluate.load("arts") finds it offline',
        description="Copy the ARTS module script into the evaluate modules cache "
        "($HF_MODULES_CACHE/evaluate_modules/metrics/evaluate-metric--arts/<sha256>/arts.py).",
    )
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arts_metric.evaluate_module.registry import register as do_register

    path = do_register()
    if not args.quiet:
        print(f'registered: evaluate.load("arts") -> {path}')
    return 0
