"""How well do the learned judges (learned-4, the default, and learned-1 to learned-3) agree
with the ARTS94 human majority?

Measures, in one run, the Spearman / Pearson / Kendall correlation with the
Elo ratings of the human majority (``histories/arts94/human/majority.jsonl``,
K=16, start 1200, higher = harder) of:

- the four learned judges' latent scores (shipped weights; ARTS94 never used in
  training), each text read whole,
- ``arts`` as ``compute`` returns it at its defaults (learned-4; a text of two sentences
  is rated as the word-weighted mean of its sentences), and with ``judge="learned:v1"``,
- text length in characters,
- FKGL, FRE and Dale-Chall (``arts_metric.text.formulas``; signed so that a
  positive correlation means agreement: FRE is higher = easier, so it is negated),
- the Elo ratings of the recorded GPT-4 pairwise run1 on ARTS94 (what the paper's
  LLM judge reached).

Also a 95% bootstrap interval (texts resampled, seeded) for each Spearman, the
margin of the default ``compute`` (learned-4) and of ``compute`` with learned-1 over each
row on the same resamples, and the
Spearman within the easier half of ARTS94 (texts below the human median: the easy
end).

A second table scores the learned judges the way GPT-4 is scored: each judge
decides the 376 scheduled ARTS94 matches (text ``a`` harder when its score is
higher) and is represented by the Elo of those decisions, replayed in the
schedule's order (K=16, start 1200). The human majority's Elo comes from the
same schedule, so this protocol shares its noise with the target, as GPT-4's
row does (``benchmarks/arts94_ceiling.py``: a noiseless judge reaches about .94
this way, .91 by its scores). Writes ``benchmarks/results/learned_judge_accuracy.md``.

    .venv/bin/python benchmarks/learned_judge_accuracy.py [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau, pearsonr, rankdata, spearmanr

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from arts_metric import data as arts_data  # noqa: E402
from arts_metric.judges.learned import LearnedJudge  # noqa: E402
from arts_metric.ratings.elo import ratings_from_history, run_elo  # noqa: E402
from arts_metric.ratings.stats import bootstrap_ci  # noqa: E402
from arts_metric.scoring.api import score_texts  # noqa: E402
from arts_metric.text.formulas import compute_formulas  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
#: Every 95% CI here: a percentile bootstrap over texts, N_BOOT resamples from seed SEED
#: (arts_metric.ratings.stats.bootstrap_ci, as benchmarks/compare_metrics.py computes its intervals).
N_BOOT = 2000
SEED = 0
PAPER = {"GPT-4 pairwise run1 Elo": 0.7949}  # ARTS paper Table 3, shown for comparison only


def _spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman per row of ``x`` (bootstrap resamples) against the matching rows of ``y``."""
    rx = np.apply_along_axis(rankdata, 1, x)
    ry = np.apply_along_axis(rankdata, 1, y)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    return (rx * ry).sum(1) / np.sqrt((rx**2).sum(1) * (ry**2).sum(1))


def _ci(values: np.ndarray) -> str:
    lo, hi = np.percentile(values, [2.5, 97.5])
    return f"({lo:+.3f}, {hi:+.3f})"


def elo_on_schedule(scores: np.ndarray, schedule: list) -> np.ndarray:
    """Elo (K=16, start 1200) of a pointwise judge's decisions on ``schedule``'s
    matches, in order: ``a`` wins (is harder) when its score is higher, a tie is 0.5."""
    decisions = ((m.a, m.b, float(np.sign(scores[m.a] - scores[m.b]) + 1.0) / 2.0) for m in schedule)
    return run_elo(len(scores), decisions)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--out", type=Path, default=RESULTS / "learned_judge_accuracy.md")
    args = ap.parse_args(argv)
    data_dir = arts_data.find_data_dir(args.data_dir)
    rows = arts_data.load_pool_rows("arts94", data_dir)
    texts = [r["text"] for r in rows]
    n = len(texts)
    majority = arts_data.load_history("arts94", "human", "majority", data_dir)
    human = ratings_from_history(n, majority)
    gpt4 = ratings_from_history(n, arts_data.load_history("arts94", "gpt-4-1106-preview", "pairwise-run1", data_dir))

    judges, timings = {}, {}
    for version in ("v4", "v3", "v2", "v1"):
        t = time.perf_counter()
        judge = LearnedJudge(version)
        judges[version] = (judge, judge.score(texts))
        timings[version] = time.perf_counter() - t
    t = time.perf_counter()
    formulas = compute_formulas(texts, ("fkgl", "fre", "dale_chall"))
    t_formulas = time.perf_counter() - t

    # What compute() returns at its defaults: a text of two sentences (9 of the 94) is rated
    # as the word-weighted mean of its sentences, not read whole.
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        default = score_texts(texts, formulas=[])
        timings["default"] = time.perf_counter() - t
        t = time.perf_counter()
        default_v1 = score_texts(texts, formulas=[], judge="learned:v1")
        timings["default_v1"] = time.perf_counter() - t
    n_split = sum(u > 1 for u in default["units"])

    label = {v: f"learned judge ({j.model.version}, `learned:{v}`)" for v, (j, _) in judges.items()}
    default_label = "ARTS as `compute` scores it (learned-4, the default, sentences averaged)"
    v1_label = 'ARTS as `compute` scores it with `judge="learned:v1"` (learned-1, sentences averaged)'
    approaches = {
        default_label: np.asarray(default["arts"], dtype=float),
        v1_label: np.asarray(default_v1["arts"], dtype=float),
        label["v4"]: judges["v4"][1],
        label["v3"]: judges["v3"][1],
        label["v2"]: judges["v2"][1],
        label["v1"]: judges["v1"][1],
        "length in characters": np.array([len(x) for x in texts], dtype=float),
        "FKGL": formulas["fkgl"],
        "FRE (negated: higher = easier)": -formulas["fre"],
        "Dale-Chall": formulas["dale_chall"],
        "GPT-4 pairwise run1 Elo": gpt4,
    }
    # The resamples bootstrap_ci draws (the same generator, the same draw), kept for the margins.
    rng = np.random.default_rng(SEED)
    boot = rng.integers(0, n, size=(N_BOOT, n))
    boot_sp = {name: _spearman_rows(v[boot], human[boot]) for name, v in approaches.items()}
    easy = human < np.median(human)
    boot_easy = rng.integers(0, easy.sum(), size=(N_BOOT, easy.sum()))
    sp = {name: spearmanr(v, human)[0] for name, v in approaches.items()}

    def easier_half(values: np.ndarray) -> str:
        """Spearman with the humans among the easier half, with its bootstrap CI."""
        ve, he = values[easy], human[easy]
        lo_, hi_ = np.percentile(_spearman_rows(ve[boot_easy], he[boot_easy]), [2.5, 97.5])
        return f"{spearmanr(ve, he)[0]:.4f} ({lo_:.3f}, {hi_:.3f})"

    lines = [
        "# Learned judges vs the ARTS94 human majority",
        "",
        f"Correlation with the Elo ratings of the human majority on ARTS94 (n = {n}; K=16, start 1200, "
        "higher = harder). Signed so that positive = agrees with the humans. 95% CI: percentile "
        f"bootstrap over texts ({N_BOOT} resamples, seed {SEED}). Margins: the default `compute` (learned-4) or "
        "`compute` with learned-1 minus the row, on the same resamples (CI excluding 0 = a difference beyond resampling noise). Easier half: "
        f"Spearman among the {easy.sum()} texts below the human median (the easy end), with its bootstrap CI. "
        'The learned judges\' rows read each text whole (as `long_texts="team"` and `"whole"` do for texts '
        f"of at most 400 characters); the `compute` row is the default scoring, which rates the {n_split} texts of "
        "two sentences as the word-weighted mean of their sentences.",
        "",
        "| approach | Spearman | 95% CI | Pearson | Kendall | default − row (95% CI) | learned-1 − row (95% CI) "
        "| easier half (95% CI) | paper |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    print(
        f"{'approach':44s} {'Spearman':>8s} {'95% CI':>15s} {'Pearson':>8s} {'Kendall':>8s} "
        f"{'default - row (95% CI)':>26s} {'learned-1 - row (95% CI)':>26s} {'easier half (95% CI)':>24s}"
    )
    for name, v in approaches.items():
        pe, ke = pearsonr(v, human)[0], kendalltau(v, human)[0]
        lo, hi = bootstrap_ci(v, human, "spearman", n_resamples=N_BOOT, seed=SEED, method="percentile")
        margins = []
        for ref in (default_label, v1_label):
            if name == ref:
                margins.append("-")
            else:
                margins.append(f"{sp[ref] - sp[name]:+.4f} {_ci(boot_sp[ref] - boot_sp[name])}")
        easy_txt = easier_half(v)
        paper = f"{PAPER[name]:.4f}" if name in PAPER else ""
        print(
            f"{name:44s} {sp[name]:8.4f} ({lo:.3f}, {hi:.3f}) {pe:8.4f} {ke:8.4f} {margins[0]:>26s} {margins[1]:>26s} {easy_txt:>24s}"
        )
        lines.append(
            f"| {name} | {sp[name]:.4f} | ({lo:.3f}, {hi:.3f}) | {pe:.4f} | {ke:.4f} | {margins[0]} | {margins[1]} "
            f"| {easy_txt} | {paper} |"
        )
    # GPT-4's protocol for the learned judges: the Elo of their decisions on the same schedule.
    gpt_name = "GPT-4 pairwise run1 Elo"
    lines += [
        "",
        "## Scored as GPT-4 is: the Elo of each judge's decisions on the ARTS94 schedule",
        "",
        f"Each judge decides the {len(majority)} scheduled matches (the harder text by its score) and is "
        "represented by the Elo of those decisions in the schedule's order, like the GPT-4 row above. Same "
        "bootstrap resamples; margin: the row minus GPT-4 pairwise run1.",
        "",
        "| judge, Elo on the schedule | Spearman | 95% CI | row − GPT-4 (95% CI) | easier half (95% CI) |",
        "|---|---|---|---|---|",
    ]
    print("scored as GPT-4 is (Elo of the decisions on the ARTS94 schedule):")
    for v, (judge, scores) in judges.items():
        elo_v = elo_on_schedule(np.asarray(scores, dtype=float), majority)
        sp_v = spearmanr(elo_v, human)[0]
        boot_v = _spearman_rows(elo_v[boot], human[boot])
        lo, hi = bootstrap_ci(elo_v, human, "spearman", n_resamples=N_BOOT, seed=SEED, method="percentile")
        margin = f"{sp_v - sp[gpt_name]:+.4f} {_ci(boot_v - boot_sp[gpt_name])}"
        easy_txt = easier_half(elo_v)
        name = f"{label[v]}, Elo on the schedule"
        print(f"{name:62s} {sp_v:8.4f} ({lo:.3f}, {hi:.3f}) {margin:>26s} {easy_txt:>24s}")
        lines.append(f"| {name} | {sp_v:.4f} | ({lo:.3f}, {hi:.3f}) | {margin} | {easy_txt} |")
    for v, (judge, _) in judges.items():
        meta = judge.model.meta
        lines.append("")
        extra = [
            name
            for key, name in (
                ("readmepp", "README++ English train sentences"),
                ("cochrane", "the sentences of half the Cochrane development reviews"),
            )
            if key in meta["training"]
        ]
        trained = "and " + " and ".join(extra) if extra else "only"
        lines.append(
            f"{judge.model.version}: trained on the GPT-4 histories of ARTS300/ARTS3000 {trained}; CV choice "
            f"`{meta['cv'].get('setting', meta['cv']['selected'])}`; temperature {judge.temperature:.3f} Elo points; "
            f"{timings[v]:.2f} s for {n} texts (including model load)."
        )
    lines += [
        f"Three formulas: {t_formulas:.2f} s. `compute` at its defaults: {timings['default']:.2f} s; "
        f"with learned-1: {timings['default_v1']:.2f} s.",
        "",
        "Regenerate: `.venv/bin/python benchmarks/learned_judge_accuracy.py`",
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
