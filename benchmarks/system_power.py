"""How many inputs are needed to separate two systems: power of the head-to-head
test against the number of inputs, by simulation with judges of known accuracy.

    .venv/bin/python benchmarks/system_power.py [--reps 200] [--permutations 2000] [--seed 0]

The budget question the ARTS paper asks for annotation (how many judgments
until the ranking is right), asked for systems. Two systems A and B answer
the same inputs; on input ``i`` the true difficulties of their outputs are
``mu_i + e_Ai`` and ``mu_i + delta + e_Bi`` (input difficulty ``mu_i ~ N(0,
1)``, output noise ``e ~ N(0, 1)``). The *true difference* is the share ``w``
of inputs on which B's output is truly the harder one (``w = Phi(delta /
sqrt 2)``; 0.5 = no difference). A :class:`~arts_metric.judges.simulated.SimulatedJudge`
that knows the truth answers right with probability ``q`` (the paper's
simulated users: oracle 1.0, u1 0.9, u2 0.75).

Each experiment runs the package's own code: the outputs are checked by
:func:`arts_metric.systems.inputs.check_entries`, the matches are played by
:func:`arts_metric.systems.head_to_head.play_matches` against the simulated
judge, and the head-to-head p-value is
:func:`arts_metric.systems.resampling.paired_randomization_test` on
``P(B harder) - 0.5`` per input, exactly as ``compare_systems`` computes
``win_rate_p_value``. Power = the share of experiments with p < 0.05 and B
judged harder more often than A.

The comparison measured in the same run: with one hard decision per input,
the judge calls B harder with probability ``pi = w q + (1 - w)(1 - q)``, and
the test is then the two-sided sign test, whose exact power the binomial
distribution gives. Every simulated cell is printed next to that prediction,
with the largest gap in units of the simulation's standard error; the null
rows (w = 0.5) are the false-positive rate. Last, the inputs needed for 80%
power: the smallest simulated grid point that reaches it, and the exact
binomial answer (the n from which the power stays at 80% or more).

Writes ``benchmarks/results/system_power.{csv,md}`` and prints the tables.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as sps

from arts_metric.judges.simulated import SimulatedJudge
from arts_metric.systems.head_to_head import play_matches
from arts_metric.systems.inputs import check_entries
from arts_metric.systems.resampling import paired_randomization_test

RESULTS = Path(__file__).resolve().parent / "results"
ACCURACIES = (1.0, 0.9, 0.75)
SHARES = (0.5, 0.55, 0.6, 0.7)
INPUTS = (25, 50, 100, 200, 400, 800)
ALPHA = 0.05
TARGET = 0.8


def one_experiment(n: int, w: float, q: float, rng: np.random.Generator, permutations: int) -> tuple[float, float]:
    """(p-value, win rate of B) of one simulated comparison over ``n`` inputs."""
    delta = math.sqrt(2.0) * sps.norm.ppf(w)
    mu = rng.normal(size=n)
    truth_a = mu + rng.normal(size=n)
    truth_b = mu + delta + rng.normal(size=n)
    texts_a = [f"A:{i}" for i in range(n)]
    texts_b = [f"B:{i}" for i in range(n)]
    entries = check_entries({"A": texts_a, "B": texts_b})
    judge = SimulatedJudge(
        texts_a + texts_b, np.concatenate([truth_a, truth_b]), accuracy=q, seed=int(rng.integers(2**32))
    )
    matches = play_matches(entries, judge)
    p_b = matches.prob[:, 1, 0]  # P(B's output harder)
    p = paired_randomization_test(p_b - 0.5, permutations, seed=int(rng.integers(2**32)))
    return p, float(np.nanmean(p_b))


def sign_test_power(n: np.ndarray | int, pi: float, alpha: float = ALPHA) -> np.ndarray:
    """Exact power of the two-sided sign test at ``alpha`` to find B harder, when each of
    ``n`` decisions says B is harder with probability ``pi`` (vectorised over ``n``).
    It rejects towards B when B's count ``k`` has ``2 P(X >= k) < alpha`` under 1/2,
    i.e. ``k >= c(n)``, the critical value from the binomial quantile."""
    n = np.asarray(n)
    c = sps.binom.isf(alpha / 2, n, 0.5) + 1  # smallest c with P(X >= c) <= alpha / 2
    c = np.where(2 * sps.binom.sf(c - 1, n, 0.5) < alpha, c, c + 1)  # strict < alpha, as the test uses
    return sps.binom.sf(c - 1, n, pi)


def inputs_for_power(pi: float, target: float = TARGET, limit: int = 20000) -> int | None:
    """Smallest n from which the exact sign-test power stays at or above ``target`` (up to
    ``limit``; None if it never does). The power of a discrete test zigzags in n, so
    the first n that reaches ``target`` can be followed by ones that do not."""
    if pi <= 0.5:
        return None
    power = sign_test_power(np.arange(1, limit + 1), pi)
    stays = np.minimum.accumulate(power[::-1])[::-1] >= target
    return int(np.argmax(stays)) + 1 if stays.any() else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200, help="experiments per cell (default 200)")
    ap.add_argument("--permutations", type=int, default=2000, help="sign flips per test (default 2000)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    rows = []
    start = time.perf_counter()
    for q in ACCURACIES:
        for w in SHARES:
            pi = w * q + (1 - w) * (1 - q)
            for n in INPUTS:
                results = [one_experiment(n, w, q, rng, args.permutations) for _ in range(args.reps)]
                p = np.array([r[0] for r in results])
                rate = np.array([r[1] for r in results])
                power = float(np.mean((p < ALPHA) & (rate > 0.5)))
                rows.append(
                    {
                        "accuracy": q,
                        "share_b_harder": w,
                        "pi": round(pi, 4),
                        "inputs": n,
                        "reps": args.reps,
                        "power": power,
                        "exact_sign_test": float(sign_test_power(n, pi)) if w > 0.5 else None,
                        "rejected_any_direction": float(np.mean(p < ALPHA)),
                        "se": math.sqrt(max(power * (1 - power), 1.0 / args.reps) / args.reps),
                    }
                )
    seconds = time.perf_counter() - start
    df = pd.DataFrame(rows)
    RESULTS.mkdir(exist_ok=True)
    df.to_csv(RESULTS / "system_power.csv", index=False)

    lines = [
        f"Power to find B harder than A (p < {ALPHA}, head-to-head randomization test, one match per input); "
        f"{args.reps} simulated comparisons per cell, {args.permutations} sign flips per test; "
        "cell = simulated / exact sign-test power. w = share of inputs on which B's output is truly harder; "
        "q = judge accuracy; pi = chance the judge calls B harder.",
        "",
        "| judge q | w | pi | " + " | ".join(f"n={n}" for n in INPUTS) + " |",
        "|---:|---:|---:|" + "---:|" * len(INPUTS),
    ]
    for (q, w), part in df.groupby(["accuracy", "share_b_harder"], sort=False):
        cells = []
        for r in part.itertuples():
            if w > 0.5:
                cells.append(f"{r.power:.2f} / {r.exact_sign_test:.2f}")
            else:
                cells.append(f"{r.rejected_any_direction:.3f} (false pos.)")
        lines.append(f"| {q:g} | {w:g} | {part['pi'].iloc[0]:.3f} | " + " | ".join(cells) + " |")
    alt = df[df["share_b_harder"] > 0.5]
    gap = (alt["power"] - alt["exact_sign_test"]).abs()
    z = (gap / alt["se"]).max()
    null = df[df["share_b_harder"] == 0.5]["rejected_any_direction"]
    lines += [
        "",
        f"Simulated vs exact power: largest gap {gap.max():.3f} ({z:.1f} simulation standard errors; "
        f"mean gap {gap.mean():.3f}). False-positive rate at w = 0.5: {null.min():.3f}-{null.max():.3f} "
        f"(nominal {ALPHA}).",
        "",
        f"Inputs needed for {TARGET:.0%} power (one match per input and pair of systems; an LLM judge sends one "
        "request per match, two with both_orders):",
        "",
        "| judge q | w | pi | simulated: first grid n with power >= 0.8 | exact sign test: n from which power stays >= 0.8 |",
        "|---:|---:|---:|---:|---:|",
    ]
    for (q, w), part in alt.groupby(["accuracy", "share_b_harder"], sort=False):
        reached = part[part["power"] >= TARGET]["inputs"]
        pi = part["pi"].iloc[0]
        exact_n = inputs_for_power(pi)
        lines.append(
            f"| {q:g} | {w:g} | {pi:.3f} | {reached.min() if len(reached) else f'> {INPUTS[-1]}'} | "
            f"{exact_n if exact_n is not None else '> 20000'} |"
        )
    lines += ["", f"({seconds:.0f} s for {len(df) * args.reps} simulated comparisons)"]
    text = "\n".join(lines) + "\n"
    (RESULTS / "system_power.md").write_text(
        "# Inputs needed to separate two systems\n\n`.venv/bin/python benchmarks/system_power.py`\n\n" + text
    )
    print(text)


if __name__ == "__main__":
    main()
