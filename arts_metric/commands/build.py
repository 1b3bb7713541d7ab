"""``arts build INPUT --rater SPEC ... --out DIR``: build a new ARTS dataset (see :mod:`arts_metric.builder`)."""

from __future__ import annotations

import argparse
import shlex
import sys
import textwrap
import warnings
from contextlib import contextmanager
from typing import Iterator

from arts_metric.commands import CLIError
from arts_metric.llm.report import request_summary


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "build",
        help="build a new ARTS dataset: schedule, raters, majority, Elo, scores, HF dataset",
        # The epilog's rater table keeps its lines (raw text), so the description is wrapped here,
        # and every line fits 80 columns.
        description=textwrap.fill(
            "Rate texts the ARTS way and write OUT as a Hugging Face dataset (Parquet + dataset card + "
            "ARTS-format histories). Resumable: every answer is stored in OUT/build.sqlite as it comes; "
            "running the same command again asks exactly the matches without an answer (never started, "
            "failed after retries, or not sent within max_requests) and nothing twice. Nothing is exported "
            "while a rater lacks answers, unless --allow-incomplete. One build per OUT at a time. "
            "Human raters rate in the web interface (`arts rate OUT`); rerun the build once they are done.",
            width=78,
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "rater SPEC: a judge spec, then optional key=value settings, as one argument:\n"
            "  --rater openai:gpt-4o              an LLM judge (see the LLM-judge docs)\n"
            "  --rater 'openai:gpt-4o persona=medical runs=3'\n"
            "                                     three runs of a domain-expert persona\n"
            "  --rater history:runs/gpt4.jsonl    a recorded history on the same schedule\n"
            "  --rater learned                    the offline learned judge\n"
            "  --rater human:alice | --rater 'human:*'\n"
            "                                     people rating in `arts rate OUT`\n"
            "reserved keys: name=NAME (rater name), group=GROUP (agreement group; default:\n"
            "the persona, 'human' for people, else the spec), runs=N (N runs; run i gets\n"
            "the judge option seed=i); other keys go to the judge (e.g. persona=,\n"
            "temperature=, base_url=).\n"
            "\nexample:\n"
            "arts build texts.txt --rater openai:gpt-4o-mini --rater 'human:*' --out my-arts"
        ),
    )
    p.add_argument(
        "input",
        help="texts: .txt (one per line), .jsonl/.json/.csv/.tsv/.parquet with a text "
        "column, a datasets folder or Hub name (downloaded: needs network), or a built-in "
        "pool (arts94, arts300, arts3000)",
    )
    p.add_argument(
        "--rater", "-r", action="append", required=True, metavar="SPEC", help="a rater (repeatable); see below"
    )
    p.add_argument("--out", "-o", required=True, metavar="DIR", help="the build folder (created, or resumed)")
    p.add_argument(
        "--matches-per-text",
        type=int,
        default=4,
        metavar="M",
        help="M * N matches in total for N texts, so every text appears in exactly 2 * M matches "
        "(first/left in M of them); the paper uses 4 (376 matches, 8 per text, for 94 texts)",
    )
    p.add_argument(
        "--seed", type=int, default=0, help="seeds the schedule and the majority's tie-breaking coin (default 0)"
    )
    p.add_argument(
        "--pairs",
        metavar="FILE",
        help="use this fixed schedule instead of a seeded one: an ARTS "
        "pairs file ([[a, b], ...]) or a history (.jsonl) whose matches "
        "to replay",
    )
    p.add_argument("--name", help="dataset name (file names inside OUT/arts; default: the input's stem)")
    p.add_argument("--text-column", default="text", help="text column of tabular/JSON input (default text)")
    p.add_argument("--id-column", default="id", help="id column (default id; row numbers when absent)")
    p.add_argument("--split", default="train", help="split of a datasets input (default train)")
    p.add_argument(
        "--batch-size",
        type=int,
        default=32,
        help="pairs sent to a judge at once (concurrently by openai: judges, whose decisions are "
        "committed one by one as they arrive; other judges' per batch) (default 32)",
    )
    p.add_argument(
        "--retry-invalid",
        action="store_true",
        help="ask again where a rater's stored answer is invalid (unusable); an openai: judge answers "
        "from its cache unless given retry_invalid=true",
    )
    p.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="export even if raters lack answers (failed or unsent requests, humans still rating); "
        "the card and report.json say how many matches are missing per rater",
    )
    p.add_argument("--license", default="unknown", help="licence field of the dataset card (default unknown)")
    p.add_argument("--language", help="language code for the dataset card, e.g. en")
    p.add_argument(
        "--push-to-hub",
        metavar="REPO",
        help="after a verified local export, upload OUT to this Hub dataset repo (needs network and a write token)",
    )
    p.add_argument("--private", action="store_true", help="create the Hub repo as private")
    p.add_argument("--data-dir", help="ARTS data folder (for built-in pools as input)")
    p.add_argument("--json", action="store_true", help="print the full report as JSON instead of a table")
    p.add_argument("--no-progress", action="store_true", help="no progress bars on stderr")
    p.set_defaults(func=run)


def _fmt(x: object) -> str:
    return "-" if x is None else f"{x:.4f}" if isinstance(x, float) else str(x)


def print_report(report: dict, out: str, file=None) -> None:
    """A short human-readable summary of a build report (to ``file``, default stdout)."""
    file = file or sys.stdout
    w = max([len(r["name"]) for r in report["raters"]] + [5])
    print(
        f"{report['texts']} texts, {report['matches']} matches, {report['majority']['raters']} rater(s); "
        f"majority ties broken: {report['majority']['ties_broken']} (seed {report['seed']})",
        file=file,
    )
    print(
        f"{'rater':<{w}}  {'group':<16} {'agree':>7} {'kappa':>7} {'rho':>7} {'invalid':>7} {'missing':>7}", file=file
    )
    for r in report["raters"]:
        print(
            f"{r['name']:<{w}}  {r['group'][:16]:<16} {_fmt(r['agreement']):>7} {_fmt(r['kappa']):>7} "
            f"{_fmt(r['spearman']):>7} {r['invalid']:>7} {r.get('missing', 0):>7}",
            file=file,
        )
    if report.get("missing"):
        print(
            f"INCOMPLETE (--allow-incomplete): {sum(report['missing'].values())} rater-matches without an "
            "answer; run the build again to ask them",
            file=file,
        )
    for r in report["raters"]:
        requests = request_summary((r.get("info") or {}).get("stats") or {})
        if requests:
            print(f"{r['name']}: {requests}", file=file)
    print(f"Krippendorff's alpha, all raters: {_fmt(report['alpha'])}", file=file)
    for g, v in report["groups"].items():
        print(
            f"  group {g}: alpha {_fmt(v['alpha'])} ({len(v['raters'])} raters), "
            f"mean agreement with majority {_fmt(v['mean_agreement'])}",
            file=file,
        )
    print(f"wrote {out} (datasets.load_dataset({out!r}, split='train'))", file=file)


def _command_line(secrets: list[str]) -> str | None:
    """The command as typed (for the dataset card), with API keys and URL credentials masked."""
    from arts_metric.builder.specs import redact

    if sys.argv[1:2] != ["build"]:
        return None
    return redact("arts " + " ".join(shlex.quote(a) for a in sys.argv[1:]), secrets)


@contextmanager
def _one_line_warnings(secrets: list[str]) -> Iterator[None]:
    """Warnings printed as one line each, without the raters' secrets."""
    from arts_metric.builder.specs import redact

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        print(f"arts build: warning: {redact(str(message), secrets)}", file=file or sys.stderr)

    saved = warnings.showwarning
    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = saved


def run(args: argparse.Namespace) -> int:
    import json

    from arts_metric.builder import IncompleteRatingsError, build, parse_rater, push_to_hub
    from arts_metric.builder.lock import BuildInProgressError
    from arts_metric.builder.specs import redact
    from arts_metric.data import ARTSDataNotFoundError
    from arts_metric.llm.protocol import EndpointError
    from arts_metric.ratings.schedule import load_schedule

    secrets: list[str] = []
    try:
        raters = [c for spec in args.rater for c in parse_rater(spec)]
        secrets = sorted({x for c in raters for x in c.secrets()}, key=len, reverse=True)
        pairs = load_schedule(args.pairs) if args.pairs else None
        with _one_line_warnings(secrets):
            result = build(
                args.input,
                raters,
                args.out,
                matches_per_text=args.matches_per_text,
                seed=args.seed,
                pairs=pairs,
                name=args.name,
                text_column=args.text_column,
                id_column=args.id_column,
                split=args.split,
                batch_size=args.batch_size,
                retry_invalid=args.retry_invalid,
                allow_incomplete=args.allow_incomplete,
                license=args.license,
                language=args.language,
                progress=not args.no_progress,
                data_dir=args.data_dir,
                command=_command_line(secrets),
            )
    except IncompleteRatingsError as exc:
        machines = [r for r in exc.missing if r not in exc.humans]
        steps = []
        if machines:
            steps.append(
                "run this command again to ask the unanswered matches (requests that failed or were not "
                "sent), or add --allow-incomplete to export without them"
            )
        if exc.humans or not exc.missing:
            steps.append(f"humans rate with `arts rate {args.out}`; run this command again when they are done")
        raise CLIError(
            redact(f"{exc}. Nothing was exported; every answer so far is saved: " + "; ".join(steps), secrets)
        ) from None
    except (ValueError, OSError, BuildInProgressError, EndpointError, ARTSDataNotFoundError) as exc:
        raise CLIError(redact(str(exc), secrets)) from None
    if args.json:
        print(json.dumps(result.report, indent=2, ensure_ascii=False))
    else:
        print_report(result.report, args.out)
    if args.push_to_hub:
        try:
            info = push_to_hub(args.out, args.push_to_hub, private=args.private or None)
        except ValueError as exc:  # the local verification failed: nothing was uploaded
            raise CLIError(str(exc)) from None
        print(f"pushed to https://huggingface.co/datasets/{args.push_to_hub} ({getattr(info, 'commit_url', info)})")
    return 0
