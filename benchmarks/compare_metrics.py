"""Which readability metric agrees with humans? Regenerates the comparison table.

Default: ARTS94 against the human majority (ARTS paper, Table 3 layout), writing
``benchmarks/results/arts94_metrics.{csv,md,png}``::

    python benchmarks/compare_metrics.py

Any human-judged file (CSV or JSONL with a text and a human score)::

    python benchmarks/compare_metrics.py --human-file ratings.jsonl --score-column ease \
        --human-higher-is easier --name mydata

C-Scores from a comprehension-test log as the human side (``texts.csv`` has
``text_id,text``)::

    python benchmarks/compare_metrics.py --cscore-log log.csv --texts texts.csv --variant complete

Rows on ARTS94: the nine formulas, text length, GPT-3.5 and GPT-4 pairwise
(every recorded run replayed through the history judge, then Elo with K=16),
GPT-4 ranking (the recorded listwise answer parsed by the LLM package's
listwise strategy), GPT-4 and GPT-3.5 individual scores (recorded answers
parsed by the pointwise strategy), our learned judge, and RSRS when
``--rsrs-model`` names a local causal LM. The human side is the ARTS score
(rank-scaled Elo, higher = harder) of the majority history; agreement and
kappa compare each pairwise run's decisions with the majority's on the same
376 matches. Every correlation has a 95% percentile bootstrap interval over
texts (2000 resamples, seed 0: the bootstrap of
``benchmarks/learned_judge_accuracy.py``, so that a figure both report has one
interval); Williams' test (one-sided) compares each row with the best formula.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from arts_metric.analysis import comparison_report  # noqa: E402
from arts_metric.analysis import metric_comparison as compare  # noqa: E402
from arts_metric.analysis.metric_comparison import Approach  # noqa: E402
from arts_metric.data import (  # noqa: E402
    find_data_dir,
    list_histories,
    load_history,
    load_listwise,
    load_pointwise,
    load_pool_rows,
)
from arts_metric.ratings.elo import rank_scale, ratings_from_history  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
GPT4, GPT35 = "gpt-4-1106-preview", "gpt-3.5-turbo-1106"
# ARTS paper, Table 3 (published numbers, shown beside ours for comparison only).
PAPER_TABLE3 = {
    "Dale-Chall": (None, None, 0.4234, 0.2992),
    "FRE": (None, None, 0.519, 0.3514),
    "GPT-3.5 pairwise": (0.6702, 0.437, 0.6081, 0.4445),
    "GPT-4 ranking": (None, None, 0.3759, 0.2562),
    "GPT-4 individual scores": (None, None, 0.7128, 0.5727),
    "GPT-4 pairwise": (0.8085, 0.6293, 0.7949, 0.6189),
}


def _warn(msg: str) -> None:
    print(f"compare_metrics: {msg}", file=sys.stderr)


def arts94_pairwise(texts: list[str], reference_schedule: list[tuple[int, int]], data_dir) -> list[Approach]:
    """Every recorded pairwise run, replayed through the history judge (our judge path)."""
    from arts_metric.judges import get_judge

    out = []
    for model, label in ((GPT35, "GPT-3.5 pairwise"), (GPT4, "GPT-4 pairwise")):
        for run in list_histories("arts94", model, data_dir):
            if not run.startswith("pairwise"):
                continue
            history = load_history("arts94", model, run, data_dir)
            schedule = [(m.a, m.b) for m in history]
            judge = get_judge(f"history:arts94/{model}/{run}", texts=texts, data_dir=data_dir)
            suffix = run.removeprefix("pairwise-")
            out.append(compare.pairwise_approach(f"{label} ({suffix})", judge, texts, schedule, reference_schedule))
    return out


def arts94_listwise(n: int, data_dir) -> Approach:
    """The recorded GPT-4 ranking (ids easiest first), parsed by the listwise strategy."""
    from arts_metric.llm.strategies import ListwiseStrategy

    strategy = ListwiseStrategy()
    parsed = strategy.parser(n)(json.dumps(load_listwise("arts94", GPT4, data_dir)))
    positions = strategy.positions(parsed["order"], n)  # 0 = easiest, NaN = not ranked
    return Approach(
        "GPT-4 ranking",
        positions,
        "harder",
        "ranking",
        extra={k: parsed[k] for k in ("unknown", "duplicates", "missing")},
    )


def arts94_pointwise(n: int, model: str, label: str, data_dir) -> Approach:
    """Recorded individual-score answers (prompt A.2.4: 0 = very easy, 1 = very hard)."""
    from arts_metric.llm.parsing import UnusableAnswer
    from arts_metric.llm.strategies import PointwiseStrategy

    strategy = PointwiseStrategy("pointwise")
    scores = np.full(n, np.nan)
    unusable = 0
    for row in load_pointwise("arts94", model, data_dir):
        try:
            scores[int(row["index"])] = strategy.latent(strategy.parse(row["answer"]))
        except UnusableAnswer:
            unusable += 1
    return Approach(label, scores, "harder", "pointwise", extra={"unusable": unusable})


def learned_approach(texts: list[str], schedule: list[tuple[int, int]] | None = None) -> Approach | None:
    """Our learned judge: its latent score per text; with a ``schedule``, also its
    pairwise decisions there (``prob_harder`` of the two scores, as ARTS uses it)."""
    try:
        from arts_metric.judges import get_judge

        judge = get_judge("learned")
        approach = compare.judge_score_approach("Learned judge (ours)", judge, texts)
    except (ImportError, FileNotFoundError) as exc:  # module or shipped weights missing
        _warn(f"learned judge unavailable, row left out: {exc}")
        return None
    if schedule:
        s = np.asarray(approach.scores)
        a, b = (np.array(x) for x in zip(*schedule))
        approach.decisions = [float(p) for p in judge.prob_harder(s[a], s[b])]
    return approach


def resampling(args: argparse.Namespace) -> str:
    """How the intervals were made, as the notes under the table say it."""
    return f"95% intervals: {args.ci_method} bootstrap over texts ({args.n_boot} resamples, seed {args.seed})"


def run_arts94(args: argparse.Namespace) -> tuple[list[dict], str]:
    data_dir = find_data_dir(args.data_dir)
    texts = [r["text"] for r in load_pool_rows("arts94", data_dir)]
    n = len(texts)
    majority = load_history("arts94", "human", "majority", data_dir)
    human = rank_scale(ratings_from_history(n, majority))  # published ARTS scores, higher = harder
    human_decisions = [m.outcome_a for m in majority]
    schedule = [(m.a, m.b) for m in majority]

    approaches = compare.formula_approaches(texts)
    approaches.append(compare.length_approach(texts))
    approaches += arts94_pairwise(texts, schedule, data_dir)
    ranking = arts94_listwise(n, data_dir)
    approaches.append(ranking)
    approaches.append(arts94_pointwise(n, GPT4, "GPT-4 individual scores", data_dir))
    approaches.append(arts94_pointwise(n, GPT35, "GPT-3.5 individual scores", data_dir))
    if not args.no_learned:
        learned = learned_approach(texts, schedule)
        if learned is not None:
            approaches.append(learned)
    if args.rsrs_model:
        from arts_metric.analysis.rsrs import RSRS

        approaches.append(Approach("RSRS", RSRS(args.rsrs_model).score(texts), "harder", "lm"))
    rows = compare.evaluate_approaches(
        approaches,
        human,
        "harder",
        human_decisions=human_decisions,
        n_boot=args.n_boot,
        seed=args.seed,
        ci_method=args.ci_method,
    )
    notes = [
        f"Human side: ARTS score (rank-scaled Elo, K=16, higher = harder) of the majority of 16 raters, "
        f"{n} texts; agreement (A) and Cohen's κ against the majority's {len(schedule)} decisions.",
        f"Correlations are signed so that positive = agrees with humans; {resampling(args)}. p: one-sided "
        "Williams' test that the row correlates better with humans than the reference (the best formula by "
        "Spearman).",
        "Pairwise rows: Elo ratings (K=16, start 1200) from replaying each recorded run through the "
        "history judge. The learned judge's A and κ are its decisions on the same matches (prob_harder of its "
        "two scores, as ARTS asks it), i.e. how often its ranking orders a scheduled pair like the majority.",
        "GPT-4 ranking: the recorded list parsed by the listwise strategy ({unknown} unknown id(s), {duplicates} "
        "repeat(s), {missing} text(s) without a position, left out of that row).".format(**ranking.extra),
    ]
    paper = [
        "",
        "ARTS paper, Table 3 (published, for comparison):",
        "",
        "| Approach | A | κ | ρ | τ |",
        "|---|---|---|---|---|",
    ]
    for name, vals in PAPER_TABLE3.items():
        paper.append("| " + name + " | " + " | ".join("-" if v is None else f"{v:.4f}" for v in vals) + " |")
    return rows, "\n".join(f"- {x}" for x in notes) + "\n" + "\n".join(paper) + "\n"


def run_file(args: argparse.Namespace) -> tuple[list[dict], str]:
    if args.cscore_log:
        if not args.texts:
            raise SystemExit("--cscore-log needs --texts (a CSV with text_id,text)")
        texts, human = compare.cscore_human_scores(args.cscore_log, args.texts, args.variant)
        direction = "easier"
        what = f"C-Score {args.variant} from {args.cscore_log} (higher = easier)"
    else:
        texts, human = compare.load_human_file(args.human_file, args.text_column, args.score_column)
        direction = args.human_higher_is
        what = f"{args.score_column} from {args.human_file} (higher = {direction})"
    rsrs = None
    if args.rsrs_model:
        from arts_metric.analysis.rsrs import RSRS

        rsrs = RSRS(args.rsrs_model)
    extra = []
    if not args.no_learned:
        learned = learned_approach(texts)
        if learned is not None:
            extra.append(learned)
    rows = compare.compare_metrics(
        texts,
        human,
        direction,
        learned=False,
        rsrs_model=rsrs,
        extra=extra,
        n_boot=args.n_boot,
        seed=args.seed,
        ci_method=args.ci_method,
    )
    notes = [
        f"Human side: {what}, {len(texts)} texts.",
        f"Correlations signed so that positive = agrees with humans; {resampling(args)}; p: one-sided "
        "Williams' test against the best formula.",
    ]
    return rows, "\n".join(f"- {x}" for x in notes) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = p.add_mutually_exclusive_group()
    src.add_argument("--human-file", type=Path, help="CSV/JSONL with a text and a human score per row")
    src.add_argument("--cscore-log", type=Path, help="comprehension-test log; C-Scores are the human side")
    p.add_argument("--text-column", default="text")
    p.add_argument("--score-column", default="score")
    p.add_argument("--human-higher-is", choices=("harder", "easier"), default="harder")
    p.add_argument("--texts", type=Path, help="with --cscore-log: CSV with text_id,text")
    p.add_argument("--variant", choices=("simple", "complete", "textsize"), default="simple")
    p.add_argument("--name", help="output name (default arts94, or the input file's stem)")
    p.add_argument("--out", type=Path, default=RESULTS, help="output folder")
    p.add_argument("--data-dir", help="ARTS data folder (default: ARTS_DATA_DIR or ../shared/arts)")
    p.add_argument("--n-boot", type=int, default=2000, help="bootstrap resamples of the texts (default 2000)")
    p.add_argument("--seed", type=int, default=0, help="seeds the resampling (default 0)")
    p.add_argument(
        "--ci-method",
        choices=("percentile", "BCa", "basic"),
        default="percentile",
        help="how the resamples make an interval (default percentile)",
    )
    p.add_argument("--no-learned", action="store_true", help="leave out our learned judge")
    p.add_argument("--rsrs-model", help="local causal LM folder (or cached name) for an RSRS row")
    args = p.parse_args(argv)

    start = time.perf_counter()
    if args.human_file or args.cscore_log:
        rows, notes = run_file(args)
        name = args.name or (args.human_file or args.cscore_log).stem
        title = f"Metrics vs human judgments: {name}"
    else:
        rows, notes = run_arts94(args)
        name = args.name or "arts94"
        title = "Metrics vs the human majority on ARTS94"
    args.out.mkdir(parents=True, exist_ok=True)
    csv_path, md_path, png_path = (args.out / f"{name}_metrics.{ext}" for ext in ("csv", "md", "png"))
    comparison_report.write_csv(rows, csv_path)
    md_path.write_text(f"# {title}\n\n" + comparison_report.to_markdown(rows) + "\n" + notes, encoding="utf-8")
    comparison_report.plot_rows(rows, png_path, title=title)
    print(comparison_report.to_markdown(rows))
    print(f"wrote {csv_path}, {md_path}, {png_path} in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
