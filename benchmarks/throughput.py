"""Throughput of ``compute()`` against bare MiniLM encoding, measured in the same run.

    .venv/bin/python benchmarks/throughput.py [--n 1000] [--repeats 3]

Scores ``n`` ARTS3000 texts (read from the ARTS data at run time) with
``evaluate.load(<module script>).compute`` (learned judge, default pool, three
formulas) and encodes the same texts with the bare MiniLM model
(sentence-transformers' own ``encode``, padded batches of 64: the full
six-layer sentence embedding, whatever the judge reads); prints texts
per second for both and their ratio (goal: compute >= 0.7x the encoder). The
two are interleaved and the best of ``repeats`` is kept for each, so a noisy
shared machine hurts both alike.
"""

from __future__ import annotations

import argparse
import time

import evaluate
import numpy as np

from arts_metric.data import load_pool_rows
from arts_metric.judges import get_judge
from arts_metric.judges.learned import embed_texts
from arts_metric.registry import module_script_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rows = load_pool_rows("arts3000")
    rng = np.random.default_rng(args.seed)
    texts = [rows[i]["text"] for i in rng.choice(len(rows), size=args.n, replace=False)]
    metric = evaluate.load(str(module_script_path()))
    judge = get_judge("learned")
    # Warm-up: load the model, the dictionaries and the shipped pool once.
    embed_texts(texts[:32])
    metric.compute(predictions=texts[:32])

    encode_times, compute_times = [], []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        embed_texts(texts)
        encode_times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        out = metric.compute(predictions=texts)
        compute_times.append(time.perf_counter() - t0)
        assert len(out["arts"]) == args.n
    enc = args.n / min(encode_times)
    comp = args.n / min(compute_times)
    print(f"texts: {args.n} ARTS3000 texts, best of {args.repeats}; default judge {judge.model.version}")
    print(f"bare MiniLM encoding : {enc:8.1f} texts/s")
    print(f"compute() (judge + fkgl, fre, dale_chall): {comp:8.1f} texts/s")
    print(f"ratio compute / encoding: {comp / enc:.2f}x (goal >= 0.70x)")


if __name__ == "__main__":
    main()
