"""Throughput of the LLM judge against the replay test server.

Starts ``tests/llm_server.py`` in a subprocess (its own interpreter, so server
and client do not share a GIL) with a fixed latency per request (default 50 ms),
then judges N pairs of the ARTS3000 schedule through ``get_judge("openai:...")``
with a fresh cache at the given concurrency. Prints judgments per second with
the ideal (concurrency / latency) beside it and their ratio, then the same job
again from the cache (zero requests) and at concurrency 1 for comparison.

    PYTHONPATH=. .venv/bin/python benchmarks/llm_throughput.py [--pairs 2000] [--concurrency 32] [--latency 0.05]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from llm_server import server_process  # noqa: E402

from arts_metric import data as arts_data  # noqa: E402
from arts_metric.judges import get_judge  # noqa: E402


def timed_job(url: str, pairs: list, concurrency: int, cache_dir: str) -> tuple[float, dict]:
    judge = get_judge(f"openai:gpt-4-1106-preview@{url}", concurrency=concurrency, cache_dir=cache_dir, progress=False)
    t0 = time.perf_counter()
    decisions = judge.compare(pairs)
    seconds = time.perf_counter() - t0
    missing = sum(not isinstance(d, float) for d in decisions)  # unusable (None) or not obtained (UNANSWERED)
    if missing:
        raise RuntimeError(f"{missing} decisions missing")
    return seconds, judge.stats.as_dict()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pairs", type=int, default=2000)
    p.add_argument("--concurrency", type=int, default=32)
    p.add_argument("--latency", type=float, default=0.05, help="server latency per request, seconds")
    p.add_argument("--sequential-pairs", type=int, default=100, help="pairs for the concurrency-1 comparison")
    args = p.parse_args()

    texts = [r["text"] for r in arts_data.load_pool_rows("arts3000")]
    schedule = arts_data.load_pairs("arts3000")
    # Distinct ordered pairs, so every judgment is one request.
    seen, pairs = set(), []
    for a, b in schedule:
        key = (texts[a], texts[b])
        if key not in seen:
            seen.add(key)
            pairs.append(key)
    pairs = pairs[: args.pairs]

    with server_process("--latency", str(args.latency)) as url:
        with tempfile.TemporaryDirectory() as cache:
            secs, stats = timed_job(url, pairs, args.concurrency, cache)
            rate = len(pairs) / secs
            ideal = args.concurrency / args.latency
            print(f"pairs judged            : {len(pairs)} ({stats['requests']} requests, {stats['retried']} retried)")
            print(
                f"concurrency {args.concurrency:<3d} (fresh) : {rate:8.1f} judgments/s   ideal {ideal:.0f}/s   ratio {rate / ideal:.2f}"
            )
            secs_c, stats_c = timed_job(url, pairs, args.concurrency, cache)
            print(
                f"rerun from cache        : {len(pairs) / secs_c:8.1f} judgments/s   ({stats_c['requests']} requests, {stats_c['cached']} cached)"
            )
        with tempfile.TemporaryDirectory() as cache:
            n1 = pairs[: args.sequential_pairs]
            secs1, _ = timed_job(url, n1, 1, cache)
            rate1 = len(n1) / secs1
            print(
                f"concurrency 1           : {rate1:8.1f} judgments/s   ideal {1 / args.latency:.0f}/s   ratio {rate1 * args.latency:.2f}"
            )
            print(f"speed-up of concurrency {args.concurrency} over 1: {rate / rate1:.1f}x")


if __name__ == "__main__":
    main()
