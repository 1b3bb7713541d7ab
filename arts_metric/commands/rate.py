"""``arts rate DIR``: serve the web rating interface for human raters on localhost and print its links."""

from __future__ import annotations

import argparse
import sys

from arts_metric.commands import CLIError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rate",
        help="serve the web rating interface for human raters (localhost)",
        description=(
            "Serve the ARTS rating page for a build folder: two texts side by side, 'click on the text which "
            "is easier to understand', the guideline in a sidebar, progress n/total, saved after every click "
            "per rater, and a 'Save history' download. Every rater gets the build's schedule. Nobody acts "
            "without a secret link: the coordinator link (printed at every start, new each time) shows every "
            "rater's progress and history and creates personal links; --rater NAME prints a personal link "
            "that rates as NAME only and stays valid across restarts until --revoke NAME; --signup prints a "
            "link with which new raters start by name. Afterwards run `arts build ... --rater 'human:*'` to "
            "combine them. Give --input to create the build folder first (no machine raters needed)."
        ),
    )
    p.add_argument("dir", metavar="DIR", help="a build folder (from `arts build`), or a new one with --input")
    p.add_argument("--input", help="texts to create DIR from (same forms as `arts build INPUT`)")
    p.add_argument(
        "--matches-per-text",
        type=int,
        default=4,
        metavar="M",
        help="with --input: M * N matches, every text in exactly 2 * M of them (default 4)",
    )
    p.add_argument("--seed", type=int, default=0, help="with --input: schedule seed (default 0)")
    p.add_argument("--pairs", metavar="FILE", help="with --input: a fixed schedule in the ARTS pairs format")
    p.add_argument("--text-column", default="text", help="with --input: text column (default text)")
    p.add_argument("--data-dir", help="ARTS data folder (built-in pools as --input)")
    p.add_argument(
        "--mode",
        choices=("pairwise", "rank-rate"),
        default="pairwise",
        help="pairwise (the ARTS interface, default) or rank-rate (README++: rank 5 texts, then rate each A1-C2)",
    )
    p.add_argument(
        "--guideline",
        metavar="FILE",
        help="sidebar guideline as plain text (first line = title, "
        "'- ' lines = questions); default: the ARTS guideline",
    )
    p.add_argument("--title", help="page title (default: the dataset name)")
    p.add_argument(
        "--rater",
        action="append",
        default=[],
        metavar="NAME",
        help="print a new personal link for rater NAME (repeatable); earlier links stay valid",
    )
    p.add_argument(
        "--revoke",
        action="append",
        default=[],
        metavar="NAME",
        help="end every personal link of rater NAME first (repeatable; their decisions stay)",
    )
    p.add_argument(
        "--signup",
        action="store_true",
        help="also print an open sign-up link: whoever holds it can start as a new rater by name",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1: this machine only; anything else warns)",
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name raters use to reach the server (repeatable); IP addresses and "
        "localhost are always accepted, other names are refused (DNS rebinding guard)",
    )
    p.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 = any free port)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from arts_metric.builder import STORE_NAME, load_input, prepare
    from arts_metric.ratings.schedule import load_schedule
    from arts_metric.web import make_server
    from arts_metric.web.guard import is_loopback

    try:
        if not (Path(args.dir) / STORE_NAME).is_file():
            if not args.input:
                raise CLIError(f"{args.dir} is not a build folder; create it with `arts build` or pass --input")
        if args.input:
            rows, desc = load_input(args.input, args.text_column, data_dir=args.data_dir)
            pairs = load_schedule(args.pairs) if args.pairs else None
            prepare(args.dir, rows, args.matches_per_text, args.seed, pairs, source=desc).close()
        server = make_server(
            args.dir,
            host=args.host,
            port=args.port,
            mode=args.mode,
            guideline=args.guideline,
            title=args.title,
            signup=args.signup,
            allowed_hosts=args.allow_host,
        )
    except (ValueError, OSError) as exc:
        raise CLIError(str(exc)) from None
    app = server.app
    try:
        revoked = {name: app.revoke(name) for name in args.revoke}
        personal = {name.removeprefix("human:"): server.link(app.new_link(name)) for name in args.rater}
    except ValueError as exc:
        server.server_close()
        app.close()
        raise CLIError(str(exc)) from None
    if not is_loopback(args.host):
        print(
            f"warning: --host {args.host} makes the rating page reachable from other machines over plain "
            "HTTP: anyone on the network path can read the links and tokens. Prefer the default 127.0.0.1 "
            "with an SSH tunnel (ssh -L PORT:127.0.0.1:PORT host), or put it behind HTTPS.",
            file=sys.stderr,
            flush=True,
        )
    for name, n in revoked.items():
        print(f"revoked {n} personal link(s) of {name}", file=sys.stderr)
    lines = [
        f"ARTS rating interface for {args.dir} at {server.url}",
        "These links are secrets: whoever holds one acts with it.",
        "coordinator (every rater's progress and history, new personal links; new at every start):",
        f"  {server.link(app.coordinator_token)}",
    ]
    for name, link in personal.items():
        lines += [f"personal link of {name} (rates as {name} only; valid until --revoke {name}):", f"  {link}"]
    if app.signup_token:
        lines += [
            "sign-up (whoever holds it can start as a new rater by name; new at every start):",
            f"  {server.link(app.signup_token)}",
        ]
    earlier = sorted(r.split(":", 1)[1] for r in app.access.link_counts() if r.split(":", 1)[1] not in personal)
    if earlier:
        lines.append(f"earlier personal links stay valid for: {', '.join(earlier)}")
    lines.append("Ctrl-C to stop; every decision is saved as it is made.")
    print("\n".join(lines), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped; every decision is saved", file=sys.stderr)
    finally:
        server.server_close()
        app.close()
    return 0
