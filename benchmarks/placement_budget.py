"""Judge calls per text against fidelity, for placing new texts in a frozen pool.

    .venv/bin/python benchmarks/placement_budget.py [--newcomers 200] [--reps 2]
        [--pools arts300 arts3000] [--ratings shipped|history] [--skip-learned]

Part 1, simulated judges. The pool is a built-in pool's shipped ratings
(``load_pool``; ``--ratings history`` recomputes them from the recorded
GPT-4 run instead). Newcomers get true ratings spread over the pool's range;
a :class:`~arts_metric.judges.simulated.SimulatedJudge` that knows every true
rating answers correctly with probability 100%, 90% or 75%. Each newcomer is
placed with ``elo``, ``mle`` and ``adaptive`` (run to its budget) at several
budgets, and with ``exhaustive`` placement (every pool text, N calls per
text). Fidelity = Spearman between a method's ARTS scores and the exhaustive
ones, both measured in the same run; also reported: Spearman with the truth,
coverage of the true position by the 95% interval, and ``adaptive-stop``
(the default stopping rule, interval width 0.1, at the default budget).
Goal: Spearman >= 0.95 with at most 2 log2(N) calls per text at 90%.
Calls per text are each newcomer's own; ``adaptive`` and ``mle`` also spend
the calls of their calibration on 16 pool texts once per placement (the
``calibration`` column: up to 16 x budget calls, shared by all newcomers).

Part 2, the learned judge. The 94 ARTS94 texts placed in ARTS3000 with
``get_judge("learned")`` at each budget and exhaustively; agreement with the
human majority (Spearman with the majority's Elo ratings, and the share of
the 376 majority decisions the placement orders the same way), next to the
recorded GPT-4 pairwise run's agreement computed from the data in this run.

Writes ``benchmarks/results/placement_budget.{csv,md,png}`` (the CSV grows
row by row while the benchmark runs) and prints the table.
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from arts_metric import data
from arts_metric.judges.simulated import SimulatedJudge
from arts_metric.placement import default_budget, place
from arts_metric.pool import Pool, load_pool
from arts_metric.ratings import elo

RESULTS = Path(__file__).resolve().parent / "results"
ACCURACIES = (1.0, 0.9, 0.75)
METHODS = ("elo", "mle", "adaptive")
FIELDS = [
    "part",
    "pool",
    "accuracy",
    "method",
    "budget",
    "rep",
    "calls_per_text",
    "calibration_calls",
    "spearman_vs_exhaustive",
    "spearman_vs_truth",
    "coverage",
    "interval_width",
    "seconds",
]


def simulated_pool(name: str, ratings: str) -> Pool:
    """A built-in pool's ratings with position ids as texts (no corpus text needed)."""
    if ratings == "shipped":
        base = load_pool(name)
        r = base.ratings
    else:
        n = len(data.load_pool_rows(name))
        r = elo.ratings_from_history(n, data.load_history(name, "gpt-4-1106-preview", "pairwise-run1"))
    return Pool(
        name=f"{name}-sim", ids=[str(j) for j in range(len(r))], ratings=r, texts=[f"pool:{j}" for j in range(len(r))]
    )


def newcomers(pool: Pool, n: int, rng: np.random.Generator) -> tuple[list[str], np.ndarray]:
    s = np.sort(pool.ratings)
    truth = np.interp(rng.random(n) * (len(s) - 1), np.arange(len(s)), s) + rng.normal(0, 1e-3, n)
    return [f"new:{i}" for i in range(n)], truth


def budgets_for(size: int) -> list[int]:
    return sorted({b for b in (2, 4, 8, 12, 16, default_budget(size), 32, 48) if b <= size})


def run_simulated(args, writer, out) -> None:
    for pool_name in args.pools:
        pool = simulated_pool(pool_name, args.ratings)
        goal = default_budget(len(pool))
        for acc in ACCURACIES:
            for rep in range(args.reps):
                rng = np.random.default_rng([rep, int(acc * 100), len(pool)])
                texts, truth = newcomers(pool, args.newcomers, rng)
                truth_pos = pool.arts_of_rating(truth)

                def judge(seed: int) -> SimulatedJudge:
                    return SimulatedJudge(
                        pool.get_texts() + texts, np.r_[pool.ratings, truth], accuracy=acc, seed=seed
                    )

                t0 = time.perf_counter()
                ref = place(judge(10_000 + rep), pool, texts, method="exhaustive")
                row = {
                    "part": "simulated",
                    "pool": pool_name,
                    "accuracy": acc,
                    "method": "exhaustive",
                    "budget": len(pool),
                    "rep": rep,
                    "calls_per_text": ref.judge_calls / len(texts),
                    "calibration_calls": 0,
                    "spearman_vs_exhaustive": 1.0,
                    "spearman_vs_truth": spearmanr(ref.arts, truth_pos)[0],
                    "coverage": _coverage(ref.arts_interval, truth_pos),
                    "interval_width": float(np.mean(np.diff(ref.arts_interval, axis=1))),
                    "seconds": time.perf_counter() - t0,
                }
                _emit(writer, out, row)
                runs = [(m, b, {"budget": b}) for m in METHODS for b in budgets_for(len(pool))]
                runs.append(("adaptive-stop", goal, {"budget": goal}))
                for method, b, opts in runs:
                    if method == "adaptive":
                        opts = {**opts, "target_width": 0.0}
                    if method == "elo":
                        opts = {**opts, "bootstrap": 100}
                    if method.startswith("adaptive"):
                        opts = {**opts, "progress": False}
                    t0 = time.perf_counter()
                    res = place(judge(rep * 1000 + b), pool, texts, method=method.split("-")[0], seed=rep, **opts)
                    row = {
                        "part": "simulated",
                        "pool": pool_name,
                        "accuracy": acc,
                        "method": method,
                        "budget": b,
                        "rep": rep,
                        "calls_per_text": float(np.mean(res.calls_per_text)),
                        "calibration_calls": int(res.judge_calls - res.calls_per_text.sum()),
                        "spearman_vs_exhaustive": spearmanr(res.arts, ref.arts)[0],
                        "spearman_vs_truth": spearmanr(res.arts, truth_pos)[0],
                        "coverage": _coverage(res.arts_interval, truth_pos),
                        "interval_width": float(np.nanmean(np.diff(res.arts_interval, axis=1))),
                        "seconds": time.perf_counter() - t0,
                    }
                    _emit(writer, out, row)


def _coverage(interval: np.ndarray, truth_pos: np.ndarray) -> float:
    return float(np.mean((interval[:, 0] <= truth_pos + 1e-12) & (truth_pos <= interval[:, 1] + 1e-12)))


def _emit(writer, out, row: dict) -> None:
    writer.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in row.items()})
    out.flush()
    print(
        " ".join(f"{k}={row[k]:.3f}" if isinstance(row[k], float) else f"{k}={row[k]}" for k in FIELDS if k in row),
        flush=True,
    )


def pairwise_agreement(arts: np.ndarray, matches: list) -> float:
    """Share of recorded decisions that the scores order the same way (ties count half)."""
    agree = []
    for m in matches:
        if m.harder is None:
            continue
        other = m.b if m.harder == m.a else m.a
        d = arts[m.harder] - arts[other]
        agree.append(1.0 if d > 0 else 0.5 if d == 0 else 0.0)
    return float(np.mean(agree))


def run_learned(args, writer, out) -> list[str]:
    from arts_metric.judges import get_judge

    judge = get_judge("learned")
    pool = load_pool("arts3000")
    texts = [r["text"] for r in data.load_pool_rows("arts94")]
    majority = data.load_history("arts94", "human", "majority")
    human = elo.ratings_from_history(len(texts), majority)
    gpt4 = elo.ratings_from_history(len(texts), data.load_history("arts94", "gpt-4-1106-preview", "pairwise-run1"))
    notes = [
        f"Reference, recorded GPT-4 pairwise run on ARTS94 (376 matches, Elo): Spearman with the human majority "
        f"{spearmanr(gpt4, human)[0]:.3f}, agreement with the majority's decisions {pairwise_agreement(gpt4, majority):.3f}.",
    ]

    def emit(method: str, budget: int, rep: int, res, seconds: float) -> None:
        row = {
            "part": "learned-arts94-in-arts3000",
            "pool": "arts3000",
            "accuracy": float("nan"),
            "method": method,
            "budget": budget,
            "rep": rep,
            "calls_per_text": float(np.mean(res.calls_per_text)),
            "calibration_calls": int(res.judge_calls - res.calls_per_text.sum()),
            "spearman_vs_exhaustive": float("nan"),
            "spearman_vs_truth": spearmanr(res.arts, human)[0],
            "coverage": pairwise_agreement(res.arts, majority),
            "interval_width": float(np.nanmean(np.diff(res.arts_interval, axis=1))),
            "seconds": seconds,
        }
        _emit(writer, out, row)

    t0 = time.perf_counter()
    ex = place(judge, pool, texts, method="exhaustive")
    emit("exhaustive", len(pool), 0, ex, time.perf_counter() - t0)
    for method in METHODS:
        for b in budgets_for(len(pool)):
            for rep in range(args.reps):
                opts = {"budget": b, "seed": rep}
                if method == "adaptive":
                    opts.update(target_width=0.0, progress=False)
                t0 = time.perf_counter()
                res = place(judge, pool, texts, method=method, **opts)
                emit(method, b, rep, res, time.perf_counter() - t0)
    return notes


def report(table: pd.DataFrame, notes: list[str], args) -> str:
    lines = [
        "# Placement: judge calls per text vs fidelity",
        "",
        f"{args.newcomers} simulated newcomers per setting, {args.reps} repetitions, pool ratings: {args.ratings}.",
        "Fidelity = Spearman with exhaustive placement (every pool text) measured in the same run; "
        "truth = Spearman with the true position; coverage = share of true positions inside the 95% interval; "
        "calls/text = each newcomer's own calls; calibration = calls of the placement's calibration on 16 pool "
        "texts (adaptive, mle), spent once per placement and shared by its newcomers.",
        "",
    ]
    sim = table[table.part == "simulated"]
    if len(sim):
        agg = sim.groupby(["pool", "accuracy", "method", "budget"], sort=False).mean(numeric_only=True).reset_index()
        lines += [
            "| pool | judge accuracy | method | budget | calls/text | calibration | fidelity | vs truth | coverage | width |",
            "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for _, r in agg.iterrows():
            lines.append(
                f"| {r.pool} | {r.accuracy:.0%} | {r.method} | {int(r.budget)} | {r.calls_per_text:.1f} | "
                f"{r.calibration_calls:.0f} | {r.spearman_vs_exhaustive:.3f} | {r.spearman_vs_truth:.3f} | "
                f"{r.coverage:.2f} | {r.interval_width:.3f} |"
            )
        lines += ["", "## Goal: Spearman >= 0.95 with at most 2 log2(N) calls per text at 90% accuracy", ""]
        for pool_name in agg.pool.unique():
            n = len(data.load_pool_rows(pool_name))
            goal = default_budget(n)
            for method in METHODS:
                hit = agg[
                    (agg.pool == pool_name) & (agg.accuracy == 0.9) & (agg.method == method) & (agg.budget == goal)
                ]
                if len(hit):
                    rho = float(hit.spearman_vs_exhaustive.iloc[0])
                    cal = float(hit.calibration_calls.iloc[0])
                    lines.append(
                        f"- {pool_name} (N = {n}, 2 log2 N = {2 * math.log2(n):.1f} -> budget {goal}): {method} "
                        f"Spearman {rho:.3f} with {hit.calls_per_text.iloc[0]:.1f} calls/text = "
                        f"{hit.calls_per_text.iloc[0] / n:.2%} of exhaustive's {n}"
                        + (f" (+ {cal:.0f} calibration calls per placement)" if cal else "")
                        + f": {'MET' if rho >= 0.95 else 'not met'}"
                    )
            stop = agg[(agg.pool == pool_name) & (agg.accuracy == 0.9) & (agg.method == "adaptive-stop")]
            if len(stop):
                lines.append(
                    f"- {pool_name}: adaptive with the default stopping rule (95% interval <= 0.1) used "
                    f"{stop.calls_per_text.iloc[0]:.1f} calls/text (+ {stop.calibration_calls.iloc[0]:.0f} "
                    f"calibration calls per placement) for Spearman {stop.spearman_vs_exhaustive.iloc[0]:.3f}, "
                    f"coverage {stop.coverage.iloc[0]:.2f}"
                )
    learned = table[table.part != "simulated"]
    if len(learned):
        agg = learned.groupby(["method", "budget"], sort=False).mean(numeric_only=True).reset_index()
        lines += [
            "",
            "## The learned judge: ARTS94 placed in ARTS3000, agreement with the human majority",
            "",
            "| method | budget | calls/text | Spearman with majority Elo | agreement with majority decisions |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        for _, r in agg.iterrows():
            lines.append(
                f"| {r.method} | {int(r.budget)} | {r.calls_per_text:.1f} | {r.spearman_vs_truth:.3f} | {r.coverage:.3f} |"
            )
        lines += [""] + notes
    return "\n".join(lines) + "\n"


def plot(table: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sim = table[(table.part == "simulated") & (table.method.isin(METHODS))]
    pools = list(sim.pool.unique())
    learned = table[table.part != "simulated"]
    ncols = len(ACCURACIES) + (1 if len(learned) else 0)
    fig, axes = plt.subplots(max(len(pools), 1), ncols, figsize=(4 * ncols, 3.4 * max(len(pools), 1)), squeeze=False)
    colours = {"elo": "tab:red", "mle": "tab:orange", "adaptive": "tab:green"}
    for i, pool_name in enumerate(pools):
        goal = default_budget(len(data.load_pool_rows(pool_name)))
        for j, acc in enumerate(ACCURACIES):
            ax = axes[i, j]
            part = sim[(sim.pool == pool_name) & (sim.accuracy == acc)]
            for method, g in part.groupby("method", sort=False):
                m = g.groupby("budget").mean(numeric_only=True)
                ax.plot(
                    m.calls_per_text, m.spearman_vs_exhaustive, marker="o", ms=3, label=method, color=colours[method]
                )
            ax.axhline(0.95, color="grey", lw=0.8, ls=":")
            ax.axvline(goal, color="grey", lw=0.8, ls="--")
            ax.set_xscale("log", base=2)
            ax.set_ylim(0.3, 1.01)
            ax.set_title(f"{pool_name}, judge {acc:.0%} right", fontsize=9)
            ax.set_xlabel("judge calls per text")
            ax.set_ylabel("Spearman with exhaustive")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7, loc="lower right")
    if len(learned):
        ax = axes[0, -1]
        for method, g in learned[learned.method.isin(METHODS)].groupby("method", sort=False):
            m = g.groupby("budget").mean(numeric_only=True)
            ax.plot(m.calls_per_text, m.spearman_vs_truth, marker="o", ms=3, label=method, color=colours[method])
        ex = learned[learned.method == "exhaustive"]
        if len(ex):
            ax.axhline(
                float(ex.spearman_vs_truth.mean()), color="tab:blue", ls="--", lw=1, label="exhaustive (soft, 0 calls)"
            )
        ax.set_xscale("log", base=2)
        ax.set_title("learned judge: ARTS94 in ARTS3000", fontsize=9)
        ax.set_xlabel("judge calls per text")
        ax.set_ylabel("Spearman with human majority")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
        for k in range(1, axes.shape[0]):
            axes[k, -1].axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pools", nargs="+", default=["arts300", "arts3000"])
    parser.add_argument("--newcomers", type=int, default=200)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--ratings", choices=("shipped", "history"), default="shipped")
    parser.add_argument("--skip-learned", action="store_true")
    parser.add_argument("--skip-simulated", action="store_true")
    args = parser.parse_args()

    RESULTS.mkdir(parents=True, exist_ok=True)
    csv_path = RESULTS / "placement_budget.csv"
    notes: list[str] = []
    with open(csv_path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=FIELDS)
        writer.writeheader()
        if not args.skip_simulated:
            run_simulated(args, writer, out)
        if not args.skip_learned:
            notes = run_learned(args, writer, out)
    table = pd.read_csv(csv_path)
    text = report(table, notes, args)
    (RESULTS / "placement_budget.md").write_text(text, encoding="utf-8")
    plot(table, RESULTS / "placement_budget.png")
    print(text)
    print(f"wrote {RESULTS / 'placement_budget.png'}")


if __name__ == "__main__":
    main()
