"""The paper's simulation (section 3.3, Figure 2): how good an Elo ranking gets
as the number of annotated pairs grows, for judges of known reliability.

Setting, as in the paper: 94 hypothetical texts
with known true difficulty; each annotation is a pair of two distinct texts
drawn at random; the decisions update every text's Elo rating (start 1200,
K = 16, winner = harder text, all texts free); the quality of the ranking is
Spearman's rank correlation between the final ratings and the truth, averaged
over 20 runs per setting. Pairs from ``0.5 * 94 = 47`` to ``10 * 94 = 940``.

Judges (:mod:`arts_metric.judges.simulated`): the ``oracle`` (always right),
user ``u1`` (right 90% of the time), user ``u2`` (75%), and ``majority16``:
16 independent simulated users (75% each, like ``u2``) whose majority vote,
ties broken at random, is the decision. Within a run all judges see the same
texts and the same pairs (common random numbers), so the gaps between them
are measured with less noise than independent runs would give.

The paper reports: u1 trails the oracle by about .09 at the start and .02 at
940 pairs, u2 by .21 and .12; the majority vote nearly equals the oracle; at
376 pairs the rank correlation lies between .65 (u2) and .87 (oracle).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
from scipy.stats import spearmanr
from tqdm.auto import tqdm

from arts_metric.judges.base import Judge
from arts_metric.judges.simulated import MajorityJudge, SimulatedJudge
from arts_metric.ratings.elo import K_FACTOR, START_RATING, run_elo

N_TEXTS = 94
#: the paper's x axis: 0.5, 1, 2, ..., 10 annotations per text, times 94 texts
PAIRS = tuple(int(f * N_TEXTS) for f in (0.5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10))
RUNS = 20
SECONDS_PER_ANNOTATION = 15.0


@dataclass(frozen=True)
class Setting:
    """A simulated annotator: one user of ``accuracy``, or the majority of ``voters`` such users."""

    name: str
    accuracy: float
    voters: int = 1

    def judge(self, texts: Sequence[str], truth: np.ndarray, seed: int) -> Judge:
        if self.voters == 1:
            return SimulatedJudge(texts, truth, accuracy=self.accuracy, seed=seed, name=self.name)
        users = [
            SimulatedJudge(texts, truth, accuracy=self.accuracy, seed=seed * 1000 + v) for v in range(self.voters)
        ]
        return MajorityJudge(users, seed=seed, name=self.name)


SETTINGS = (
    Setting("oracle", 1.0),
    Setting("u1", 0.9),
    Setting("u2", 0.75),
    Setting("majority16", 0.75, voters=16),
)


def random_pairs(n_texts: int, n_pairs: int, rng: np.random.Generator) -> np.ndarray:
    """``(n_pairs, 2)`` pairs of two distinct texts, each drawn uniformly at random."""
    if n_texts < 2:
        raise ValueError(f"need at least 2 texts, got {n_texts}")
    a = rng.integers(0, n_texts, size=n_pairs)
    b = (a + rng.integers(1, n_texts, size=n_pairs)) % n_texts
    return np.stack([a, b], axis=1)


def rank_quality(
    judge: Judge, texts: Sequence[str], truth: np.ndarray, pairs: np.ndarray, k: float = K_FACTOR
) -> float:
    """Spearman between the truth and the Elo ratings that ``judge``'s decisions
    on ``pairs`` produce (every text starts at 1200)."""
    decisions = judge.compare([(texts[a], texts[b]) for a, b in pairs])
    ratings = run_elo(
        len(texts), ((int(a), int(b), d) for (a, b), d in zip(pairs, decisions)), k=k, start=START_RATING
    )
    return float(spearmanr(truth, ratings)[0])


def run_simulation(
    n_texts: int = N_TEXTS,
    pairs: Sequence[int] = PAIRS,
    runs: int = RUNS,
    settings: Sequence[Setting] = SETTINGS,
    seed: int = 0,
    seconds_per_annotation: float = SECONDS_PER_ANNOTATION,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Run the simulation; one row per (setting, number of pairs).

    Columns: ``setting``, ``accuracy``, ``voters``, ``pairs``, ``pairs_per_text``,
    ``rank_correlation`` (mean Spearman over ``runs``), ``std``, ``runs``,
    ``gap_to_oracle`` (oracle's mean minus this setting's, NaN without an
    oracle setting), ``minutes`` (annotation effort at ``seconds_per_annotation``).
    """
    if runs < 1:
        raise ValueError(f"runs must be >= 1, got {runs}")
    bad = [p for p in pairs if int(p) < 1]
    if bad:
        raise ValueError(f"number of pairs must be >= 1, got {bad[0]}")
    texts = [f"text:{i}" for i in range(n_texts)]
    scores = {(s.name, int(p)): [] for s in settings for p in pairs}
    rng = np.random.default_rng(seed)
    with tqdm(
        total=runs * len(pairs), desc="simulation", unit="setting", disable=None if progress is None else not progress
    ) as bar:
        for run in range(runs):
            for p in pairs:
                truth = rng.normal(0.5, 0.1, n_texts)  # only the order matters
                schedule = random_pairs(n_texts, int(p), rng)
                judge_seed = int(rng.integers(2**31))
                for s in settings:
                    scores[(s.name, int(p))].append(
                        rank_quality(s.judge(texts, truth, judge_seed), texts, truth, schedule)
                    )
                bar.update(1)
    rows = []
    for s in settings:
        for p in pairs:
            vals = np.array(scores[(s.name, int(p))])
            rows.append(
                {
                    "setting": s.name,
                    "accuracy": s.accuracy,
                    "voters": s.voters,
                    "pairs": int(p),
                    "pairs_per_text": int(p) / n_texts,
                    "rank_correlation": float(vals.mean()),
                    "std": float(vals.std(ddof=1)) if len(vals) > 1 else float("nan"),
                    "runs": len(vals),
                    "minutes": int(p) * seconds_per_annotation / 60.0,
                }
            )
    table = pd.DataFrame(rows)
    oracle = table[table.setting == "oracle"].set_index("pairs")["rank_correlation"]
    table["gap_to_oracle"] = [oracle.get(p, np.nan) - r for p, r in zip(table.pairs, table.rank_correlation)]
    return table


def plot_simulation(table: pd.DataFrame, path: str) -> None:
    """Figure 2 as a PNG: rank correlation per setting (left axis) and annotation
    minutes (dashed, right axis) against the number of pairs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colours = {"oracle": "tab:green", "u1": "tab:orange", "u2": "tab:red", "majority16": "tab:purple"}
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for name, group in table.groupby("setting", sort=False):
        label = f"{name} ({group.accuracy.iloc[0]:.0%}" + (
            f" x {group.voters.iloc[0]} voters)" if group.voters.iloc[0] > 1 else ")"
        )
        ax.errorbar(
            group.pairs,
            group.rank_correlation,
            yerr=group["std"],
            marker="o",
            ms=3,
            capsize=2,
            color=colours.get(name),
            label=label,
        )
    ax.set_xlabel("number of annotated pairs")
    ax.set_ylabel("Spearman rank correlation with the truth")
    ax.grid(alpha=0.3)
    effort = table.drop_duplicates("pairs")
    ax2 = ax.twinx()
    ax2.plot(effort.pairs, effort.minutes, "--", color="tab:blue", label="effort (minutes)")
    ax2.set_ylabel("annotation time per person (minutes)")
    lines = ax.get_legend_handles_labels()
    lines2 = ax2.get_legend_handles_labels()
    ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], loc="lower right", fontsize=8)
    ax.set_title(f"Elo ranking quality vs annotations ({int(table.runs.iloc[0])} runs per point)")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
