"""``arts publish-space DIR``: assemble (and optionally upload) the metric's Hugging Face Space."""

from __future__ import annotations

import argparse

from arts_metric.commands import CLIError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "publish-space",
        help="assemble the Hub Space folder of the metric (module script, card, app and its files, the package, "
        "its requirements)",
        description=(
            "Write DIR as a Hugging Face Space for the metric: NAME.py (the evaluate module script; NAME "
            "defaults to DIR's folder name, so use a folder named like the Space, e.g. spaces/arts), "
            "README.md from metric_card.md, app.py with the files it shows (examples/ and the agreement tables "
            "of benchmarks/results/), the package as arts_metric/ (unpacked from the wheel built from the "
            "checkout) and requirements.txt with its runtime dependencies and matplotlib for the app's figures "
            "(gradio comes with the Space's SDK). Then check that "
            "evaluate.load(DIR) works offline, and upload with --push-to-hub USER/NAME if asked."
        ),
    )
    p.add_argument("dir", metavar="DIR", help="the Space folder to write (e.g. spaces/arts)")
    p.add_argument("--name", help="Space / script name (default: DIR's folder name)")
    p.add_argument(
        "--source",
        help="checkout with metric_card.md, app.py, the files it shows and the package sources "
        "(default: beside the package)",
    )
    p.add_argument("--force", action="store_true", help="write into an existing non-empty folder")
    p.add_argument("--no-check", action="store_true", help="skip the offline evaluate.load(DIR) check")
    p.add_argument("--push-to-hub", metavar="REPO", help="upload DIR as this Space (needs network and a write token)")
    p.add_argument("--private", action="store_true", help="create the Space as private")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from arts_metric.space_app.publish import assemble_space, check_space, push_space

    try:
        out = assemble_space(args.dir, name=args.name, source=args.source, overwrite=args.force)
        files = sorted(p.name for p in out.iterdir())
        print(f"wrote {out}: {', '.join(files)}")
        if not args.no_check:
            if args.name and args.name != Path(args.dir).resolve().name:
                print(f"skipped the evaluate.load check: the folder is not named {args.name!r}")
            else:
                module = check_space(out)
                print(f"evaluate.load({str(out)!r}) works: module {module.name!r}")
        if args.push_to_hub:
            info = push_space(out, args.push_to_hub, private=args.private or None)
            print(f"pushed to https://huggingface.co/spaces/{args.push_to_hub} ({getattr(info, 'commit_url', info)})")
    except (ValueError, FileNotFoundError) as exc:
        raise CLIError(str(exc)) from None
    return 0
