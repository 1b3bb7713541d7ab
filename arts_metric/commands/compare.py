"""``arts compare --system NAME=FILE ... [--out DIR]``: rank simplification systems
(see :mod:`arts_metric.systems`): leaderboard with intervals, pairwise tests,
head-to-head ratings and win rates, printed as Markdown (and written to DIR).

Its scoring flags are the settings of :class:`arts_metric.scoring.config.ScoringConfig`
(the same flags as ``arts score``, defaults and help taken from there).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from arts_metric.commands import CLIError
from arts_metric.commands.settings import add_setting_flags, config_from_args
from arts_metric.ratings.directions import DIRECTIONS
from arts_metric.text.reading import read_labelled_rows, read_texts


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="rank systems by the difficulty of their outputs, with intervals and significance",
        description=(
            "Compare simplification systems over the same inputs. Pool view: every output placed in the "
            "reference pool as `arts score` does; per system the mean ARTS (and ARTS delta with --sources) "
            "and formulas with 95% bootstrap intervals over inputs, and a paired randomization test for every "
            "pair. Head-to-head view: for each input the systems' outputs play 'which text is harder?' matches; "
            "Bradley-Terry ratings on the Elo scale with intervals, and win rates. Higher ARTS = harder; in the "
            "CSV files rating and win_rate are higher = harder, simplicity_rating and judged_simpler (the mean "
            "probability of being judged the simpler one) higher = simpler. Writes leaderboard.csv/.md/.json, "
            "pairwise.csv/.md, win_rates.csv, per_output.csv, comparison.json and leaderboard.png to --out (if "
            "given), and prints the leaderboard and the pairwise tests. The leaderboard lists the simplest system first, "
            "with a simplicity rating (head-to-head, higher = simpler); systems whose difference is not "
            "significant share a rank."
        ),
    )
    p.add_argument(
        "--system",
        "-s",
        action="append",
        required=True,
        metavar="NAME=FILE",
        help="a system's outputs, one per input in input order (repeatable): .txt (one per line), "
        ".jsonl/.json/.csv/.tsv/.parquet with a text field (--field)",
    )
    p.add_argument(
        "--sources",
        metavar="FILE",
        help="the inputs before simplification (adds ARTS delta, positive = output easier)",
    )
    p.add_argument(
        "--references",
        nargs="+",
        metavar="FILE",
        help="reference simplifications, each file one reference set, compared like systems and "
        "marked as references (named reference, or reference-1, reference-2, ...)",
    )
    p.add_argument(
        "--human",
        metavar="FILE",
        help="human scores of the outputs: .csv/.jsonl/... with columns system, score and optionally "
        "index (0-based input number; else each system's rows are in input order); adds system- "
        "and segment-level correlations of every measure with the humans",
    )
    p.add_argument(
        "--human-higher-is",
        choices=DIRECTIONS,
        default="harder",
        help="what a higher human score means (default harder)",
    )
    p.add_argument("--field", default="text", help="text field of .jsonl/.csv inputs (default text)")
    p.add_argument(
        "--out",
        "-o",
        metavar="DIR",
        help="output folder for the tables, the figure and the JSON (created if needed); without it only the "
        "leaderboard and the pairwise tests are printed",
    )
    add_setting_flags(p)
    p.add_argument("--budget", type=int, default=None, help="judge calls per text for adaptive/mle/elo placement")
    p.add_argument(
        "--views",
        default="pool,head_to_head",
        help="comma-separated: pool, head_to_head (default both); an LLM judge's head-to-head costs "
        "inputs x pairs of systems requests",
    )
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of the inputs (default 1000)")
    p.add_argument(
        "--permutations",
        type=int,
        default=10000,
        help="random sign flips of each paired randomization test (default 10000)",
    )
    p.add_argument("--level", type=float, default=0.95, help="interval level (default 0.95)")
    p.add_argument("--seed", type=int, default=0, help="seeds the resampling (default 0)")
    p.add_argument(
        "--no-meaning",
        action="store_true",
        help="leave out the meaning kept column (source recall of the worse-kept end, the first or last 40%% of the source, each counting what the rest of the source does not already say; computed offline when --sources is given)",
    )
    p.set_defaults(func=run)


def _texts(path: str, field: str, what: str) -> list[str]:
    try:
        return read_texts(path, field)
    except ValueError as exc:
        raise CLIError(f"{what}: {exc}") from None


def _systems(specs: list[str], field: str) -> dict[str, list[str]]:
    systems: dict[str, list[str]] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        name = name.strip()
        if not sep or not name or not path:
            raise CLIError(f"--system {spec!r}: expected NAME=FILE")
        if name in systems:
            raise CLIError(f"--system {name!r} is given twice")
        systems[name] = _texts(path, field, f"system {name!r}")
    return systems


def read_human_file(path: str, names: list[str], n_inputs: int) -> dict[str, list[float]]:
    """Human scores by system from ``path`` (columns ``system``, ``score``, optional ``index``);
    every row and every gap is reported with its line."""
    try:
        rows = read_labelled_rows(path, "system")
    except ValueError as exc:
        raise CLIError(f"--human: {exc}") from None
    slots: dict[str, list[float | None]] = {}
    for label, row in rows:
        system, score = str(row.get("system", "")).strip(), row.get("score")
        if system not in names:
            raise CLIError(f"--human: {label}: unknown system {system!r} (systems: {', '.join(names)})")
        try:
            value = float(score.strip() if isinstance(score, str) else score)
        except (TypeError, ValueError):
            raise CLIError(f"--human: {label}: score={score!r} is not a number") from None
        values = slots.setdefault(system, [None] * n_inputs)
        if "index" in row and str(row["index"]).strip() != "":
            try:
                i = int(str(row["index"]).strip())
            except ValueError:
                raise CLIError(f"--human: {label}: index={row['index']!r} is not an integer") from None
        else:
            i = next((j for j, v in enumerate(values) if v is None), n_inputs)
        if not 0 <= i < n_inputs:
            raise CLIError(f"--human: {label}: input index {i} is outside 0..{n_inputs - 1}")
        if values[i] is not None:
            raise CLIError(f"--human: {label}: system {system!r} input {i} has a score already")
        values[i] = value
    out: dict[str, list[float]] = {}
    for system, values in slots.items():
        missing = [i for i, v in enumerate(values) if v is None]
        if missing:
            raise CLIError(f"--human: system {system!r} has no score for input(s) {missing[:10]}")
        out[system] = [float(v) for v in values]  # type: ignore[arg-type]
    return out


def report(result) -> str:
    """What ``arts compare`` prints: the leaderboard (simplest first, shared ranks), what its
    simplicity rating means, and the pairwise significance table, in Markdown."""
    from arts_metric.systems.meaning import MEANING_NOTE
    from arts_metric.systems.ranks import ALPHA, SIMPLICITY_NOTE
    from arts_metric.text.wordless import leaderboard_note

    wordless = int(result.leaderboard["n_wordless"].sum())
    return (
        result.to_markdown()
        + (f"\n{leaderboard_note(wordless)}.\n" if wordless else "")
        + (f"\n{MEANING_NOTE[0].upper() + MEANING_NOTE[1:]}.\n" if "meaning_kept" in result.leaderboard else "")
        + f"\nSimplest first; systems share a rank when their pairwise test is not significant (p >= {ALPHA:g}); "
        + SIMPLICITY_NOTE.replace("**", "")
        + ".\n\nPairwise tests (p: paired randomization over inputs, not corrected for multiple comparisons):\n\n"
        + result.pairwise_markdown()
    )


def run(args: argparse.Namespace) -> int:
    from arts_metric.data import ARTSDataNotFoundError
    from arts_metric.llm.protocol import EndpointError
    from arts_metric.llm.report import request_summary
    from arts_metric.systems import compare_systems
    from arts_metric.systems.meaning import SIMPLICITY_ONLY

    out = Path(args.out) if args.out else None
    if out is not None and out.exists() and not out.is_dir():
        raise CLIError(f"--out {out} exists and is not a folder")
    config = config_from_args(args, placement_flags=("budget",))
    systems = _systems(args.system, args.field)
    sources = _texts(args.sources, args.field, "--sources") if args.sources else None
    references = None
    if args.references:
        refs = [_texts(path, args.field, f"--references {path}") for path in args.references]
        references = refs[0] if len(refs) == 1 else refs
    human = None
    if args.human:
        names = list(systems) + (
            ["reference"]
            if len(args.references or ()) == 1
            else [f"reference-{k + 1}" for k in range(len(args.references or ()))]
        )
        human = read_human_file(args.human, names, len(next(iter(systems.values()))))
    try:
        result = compare_systems(
            systems,
            sources=sources,
            references=references,
            human_scores=human,
            human_higher_is=args.human_higher_is,
            views=args.views,
            n_resamples=args.resamples,
            n_permutations=args.permutations,
            level=args.level,
            seed=args.seed,
            meaning=not args.no_meaning,
            config=config,
        )
        files = result.to_dir(out) if out is not None else []
    except (ARTSDataNotFoundError, EndpointError, ValueError, OSError) as exc:
        raise CLIError(str(exc)) from None
    sys.stdout.write(report(result))
    h2h = result.info.get("head_to_head")
    if h2h:
        print(
            f"head-to-head: {h2h['decided']} of {h2h['matches']} matches decided ({h2h['identical']} identical "
            f"outputs drawn, {h2h['wordless']} with an output without a word, not asked, {h2h['invalid']} invalid, "
            f"{h2h['unanswered']} unanswered), "
            f"{h2h['requests']} requests",
            file=sys.stderr,
        )
    requests = request_summary(result.info["judge"].get("stats") or {})
    if requests:  # an LLM judge: what both views paid for
        print(f"requests: {requests}", file=sys.stderr)
    print(f"note: {SIMPLICITY_ONLY}.", file=sys.stderr)
    if out is not None:
        print(f"wrote {', '.join(sorted(files))} to {out}", file=sys.stderr)
    return 0
