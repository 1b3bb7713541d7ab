"""Corpus-scale throughput: one process against Ray Data with 1 and 2 actors, in one run.

    .venv/bin/python benchmarks/scale.py [--small 300] [--large 2000] [--shard-rows 250]

Sentences of the ARTS3000 pool texts and of the development sets (read at run time;
distinct sentences only, so that no text is a repeat the judge reads once) are
written to a JSONL file of ``--large`` lines, and a second of ``--small`` lines.
Each configuration runs in a fresh Python process (its own peak memory):

- ``one process``: ``score_dataset`` on the file's texts (learned judge, default threads);
- ``ray N actors``: ``score_files`` on a local Ray cluster started with 2 CPUs, ``N``
  actors of 1 CPU and 1 thread each, shard files written as Parquet.

Prints texts per second on the large file for each (time from the call to the last
output, the actors' start-up included, the cluster's start-up not), the ratios
Ray 1 actor / one process and Ray 2 / Ray 1 actors, the Ray driver's peak memory
(``ru_maxrss``) for the small and the large file, and a projection of what
10 million texts would take on N CPU actors from the measured rates (a
projection, not a measurement). The machine is shared: the figures are as measured
under its load at the time, which the run prints.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _sentences(n: int) -> list[str]:
    from arts_metric.data import find_dev_dir, load_pool_rows
    from arts_metric.segment import split_sentences

    seen: dict[str, None] = {}
    docs = [row["text"] for row in load_pool_rows("arts3000")]
    for name, fields in (
        ("cochrane_pls_val.jsonl", ("abstract", "plain_language_summary")),
        ("onestopenglish_dev.jsonl", ("text",)),
    ):
        path = Path(find_dev_dir()) / name
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        docs += [row[f] for row in rows for f in fields if isinstance(row.get(f), str)]
    for doc in docs:
        for s in split_sentences(doc):
            s = " ".join(s.split())
            if 20 <= len(s) <= 400:
                seen.setdefault(s)
    texts = list(seen)
    if len(texts) < n:
        raise SystemExit(f"only {len(texts)} distinct sentences available; ask for at most that many")
    return texts[:n]


def _child(mode: str, path: str, actors: int, shard_rows: int, out: str) -> None:
    """One configuration, in this fresh process; prints a JSON line."""
    if mode == "one":
        from datasets import Dataset

        from arts_metric.bulk import score_dataset

        texts = [json.loads(line)["text"] for line in open(path, encoding="utf-8")]
        score_dataset(Dataset.from_dict({"text": texts[:8]}))  # load the judge and pool once
        start = time.perf_counter()
        score_dataset(Dataset.from_dict({"text": texts}), batch_size=256)
        seconds = time.perf_counter() - start
        rows = len(texts)
    else:
        import ray

        from arts_metric.distributed import score_files

        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        ray.data.DataContext.get_current().enable_progress_bars = False
        start = time.perf_counter()
        counts = score_files([path], out, shard_rows=shard_rows, actors=actors, threads=1)
        seconds = time.perf_counter() - start
        rows = counts["rows_scored"]
        ray.shutdown()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"rows": rows, "seconds": seconds, "peak_mb": peak_mb}))


def _run(mode: str, path: Path, actors: int, shard_rows: int, tmp: Path) -> dict:
    out = tmp / f"out-{mode}-{actors}-{path.stem}"
    cmd = [sys.executable, __file__, "--child", mode, str(path), str(actors), str(shard_rows), str(out)]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    if proc.returncode != 0:
        raise SystemExit(f"{mode} {actors} failed:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["rate"] = result["rows"] / result["seconds"]
    return result


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        mode, path, actors, shard_rows, out = sys.argv[2:7]
        _child(mode, path, int(actors), int(shard_rows), out)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=300, help="sentences in the small file (driver memory)")
    parser.add_argument("--large", type=int, default=2000, help="sentences in the large file (rates, memory)")
    parser.add_argument("--shard-rows", type=int, default=250)
    args = parser.parse_args()

    texts = _sentences(max(args.small, args.large))
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start (shared machine)")
    print("device: CPU only (no GPU in this run)")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        files = {}
        for name, n in (("small", args.small), ("large", args.large)):
            files[name] = tmp / f"{name}.jsonl"
            files[name].write_text("".join(json.dumps({"text": t}) + "\n" for t in texts[:n]), encoding="utf-8")
        one = _run("one", files["large"], 1, args.shard_rows, tmp)
        ray1 = _run("ray", files["large"], 1, args.shard_rows, tmp)
        ray2 = _run("ray", files["large"], 2, args.shard_rows, tmp)
        ray2_small = _run("ray", files["small"], 2, args.shard_rows, tmp)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    print(f"\n{args.large} sentences (texts/s, higher = faster; Ray timings include actor start-up):")
    print(f"  one process       {one['rate']:8.1f} texts/s   ({one['seconds']:.0f} s, peak {one['peak_mb']:.0f} MB)")
    print(f"  Ray, 1 actor      {ray1['rate']:8.1f} texts/s   ({ray1['seconds']:.0f} s)")
    print(f"  Ray, 2 actors     {ray2['rate']:8.1f} texts/s   ({ray2['seconds']:.0f} s)")
    print(f"  Ray 1 actor / one process: {ray1['rate'] / one['rate']:.2f}x   (goal >= 0.9x)")
    print(f"  Ray 2 actors / 1 actor:    {ray2['rate'] / ray1['rate']:.2f}x   (goal >= 1.6x where 2 cores are free)")
    print("\nRay driver peak memory (ru_maxrss), 2 actors:")
    print(f"  {args.small:>7} sentences: {ray2_small['peak_mb']:.0f} MB")
    print(f"  {args.large:>7} sentences: {ray2['peak_mb']:.0f} MB")
    print(
        f"  ratio large/small: {ray2['peak_mb'] / ray2_small['peak_mb']:.2f} for {args.large / args.small:.0f}x the input"
    )
    per_actor = ray1["rate"]
    efficiency = ray2["rate"] / (2 * ray1["rate"])
    print("\nPROJECTION (not measured): 10 million sentences on N CPU actors of one thread,")
    print(f"from the measured {per_actor:.1f} texts/s per actor and the measured 2-actor efficiency {efficiency:.2f}:")
    for n in (2, 16, 64, 256):
        hours = 1e7 / (per_actor * n * min(1.0, efficiency)) / 3600
        print(f"  {n:>4} actors: {hours:8.1f} h")


if __name__ == "__main__":
    main()
