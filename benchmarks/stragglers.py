"""Slowdown of adaptive placement when 5% of the requests hang, against the same run without hangs.

Starts ``tests/llm_server.py`` twice in subprocesses (their own interpreters)
over the ARTS3000 pool and GPT-4's recorded judgments, with a fixed latency
per request: once without faults, once with a share ``--rate`` of requests
that stall ``--hang`` seconds (longer than the client's ``--timeout``, so they
are hung, not slow). Places the same ``--newcomers`` texts (ARTS300 texts,
which the server judges by its deterministic rule) in ARTS3000 with the
default ``adaptive`` placement of an ``openai:`` judge, each run on a fresh
judgment cache so that every request is really sent, and prints each run's
seconds and requests and the slowdown (hangs / no hangs). The judge sends no
duplicate requests by default; the hung run is repeated with ``hedges=1`` (a
duplicate for a request far slower than the answered ones, counted and paid
like any request) to show what duplicates buy.

    .venv/bin/python benchmarks/stragglers.py [--newcomers 100] [--rate 0.05] [--hang 20] [--timeout 5]
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
from arts_metric.placement import place  # noqa: E402
from arts_metric.pool import load_pool  # noqa: E402


def timed_run(url: str, texts: list[str], args, **options) -> tuple[float, dict, float]:
    pool = load_pool("arts3000")
    with tempfile.TemporaryDirectory() as cache:
        judge = get_judge(
            f"openai:gpt-4-1106-preview@{url}",
            cache_dir=cache,
            concurrency=args.concurrency,
            timeout=args.timeout,
            progress=False,
            **options,
        )
        t0 = time.perf_counter()
        res = place(judge, pool, texts, method="adaptive", progress=False)
        seconds = time.perf_counter() - t0
    scored = sum(x == x for x in res.arts)  # not NaN
    return seconds, judge.stats.as_dict(), scored / len(texts)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--newcomers", type=int, default=100)
    p.add_argument("--rate", type=float, default=0.05, help="share of requests that hang")
    p.add_argument("--hang", type=float, default=20.0, help="seconds a hung request stalls (> --timeout)")
    p.add_argument("--timeout", type=float, default=5.0, help="the judge's per-request timeout, seconds")
    p.add_argument("--latency", type=float, default=0.05, help="server latency per request, seconds")
    p.add_argument("--concurrency", type=int, default=16)
    args = p.parse_args()
    texts = [r["text"] for r in arts_data.load_pool_rows("arts300")][: args.newcomers]
    rows = []
    hung = f"{args.rate:.0%} hung"
    for label, rate, options in [
        ("no hangs", 0.0, {}),
        (hung, args.rate, {}),
        (f"{hung}, hedges=1", args.rate, {"hedges": 1}),
    ]:
        hangs = ("--rate-hang", str(rate), "--hang", str(args.hang), "--unknown-noise", "0.1", "--seed", "1")
        with server_process("--latency", str(args.latency), *hangs, quiet=True) as url:
            seconds, stats, scored = timed_run(url, texts, args, **options)
        rows.append((label, seconds, stats, scored))
        print(
            f"{label:24s}: {seconds:7.1f} s  {stats['requests']:5d} requests for {stats['answered']:5d} judgments  "
            f"{stats['retried']:4d} retried  {stats['hedged']:4d} duplicates  {scored:.0%} of texts scored",
            flush=True,
        )
    base = rows[0][1]
    print(
        f"\n{args.newcomers} texts placed in ARTS3000 (adaptive, default settings), latency {args.latency:g} s, "
        f"concurrency {args.concurrency}, timeout {args.timeout:g} s, hung requests stall {args.hang:g} s"
    )
    for label, seconds, _, _ in rows[1:]:
        print(f"slowdown with {label}: {seconds / base:.1f}x ({seconds:.1f} s against {base:.1f} s)")


if __name__ == "__main__":
    main()
