"""Corpus-scale throughput on the CPU: one process against Ray Data with 1 and 2 actors, in one run.

    .venv/bin/python benchmarks/scale.py [--sentences 2000] [--small 300] [--paragraphs 300] [--write]

Texts (read at run time): distinct sentences of the ARTS3000 pool texts and of the
development sets, and paragraphs of four consecutive sentences of the same documents
(the 3,339 distinct ones repeated in order past that number; no batch or shard holds a
text twice). Each configuration runs in a fresh Python process (its own peak memory):

- ``one process``: ``score_dataset`` on the file's texts (learned judge, default threads);
- ``Ray, N actors``: ``score_files`` on a local Ray cluster started with 2 CPUs, ``N``
  actors of 1 CPU and 1 thread each, shard files written as Parquet.

Prints texts per second for each (time from the call to the last output, the actors'
start-up included, the cluster's start-up not), the ratios Ray 1 actor / one process and
Ray 2 / Ray 1 actors, the Ray driver's peak memory (``ru_maxrss``) for ``--small`` and
``--sentences`` sentences, and a projection of what 10 million texts would take on N
CPU actors from the measured rates (a projection, not a measurement). The machine may
be shared: the figures are as measured under its load, which the output states.
``--write`` also writes the tables to ``benchmarks/results/scale.md``.
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
RESULTS = REPO / "benchmarks" / "results" / "scale.md"


def _documents() -> list[str]:
    """The ARTS3000 pool texts and the development sets' texts (read at run time)."""
    from arts_metric.data import find_dev_dir, load_pool_rows

    docs = [row["text"] for row in load_pool_rows("arts3000")]
    for name, fields in (
        ("cochrane_pls_val.jsonl", ("abstract", "plain_language_summary")),
        ("onestopenglish_dev.jsonl", ("text",)),
    ):
        path = Path(find_dev_dir()) / name
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        docs += [row[f] for row in rows for f in fields if isinstance(row.get(f), str)]
    return docs


def _sentences(n: int, repeat: bool = False) -> list[str]:
    """``n`` sentences of :func:`_documents`: distinct ones, or with ``repeat`` the distinct
    ones repeated in order up to ``n``."""
    from arts_metric.text.sentences import split_sentences

    seen: dict[str, None] = {}
    for doc in _documents():
        for s in split_sentences(doc):
            s = " ".join(s.split())
            if 20 <= len(s) <= 400:
                seen.setdefault(s)
    texts = list(seen)
    if repeat:
        return [texts[i % len(texts)] for i in range(n)]
    if len(texts) < n:
        raise SystemExit(f"only {len(texts)} distinct sentences available; ask for at most that many")
    return texts[:n]


def _child(mode: str, path: str, actors: int, shard_rows: int, out: str) -> None:
    """One configuration, in this fresh process; prints a JSON line."""
    if mode == "one":
        from datasets import Dataset

        from arts_metric.scoring.bulk import score_dataset

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


def _paragraphs(n: int) -> list[str]:
    """``n`` paragraphs of four consecutive sentences of :func:`_documents` (200-1,200
    characters), the distinct ones repeated in order up to ``n``."""
    from arts_metric.text.sentences import split_sentences

    seen: dict[str, None] = {}
    for doc in _documents():
        sents = [" ".join(s.split()) for s in split_sentences(doc)]
        for i in range(0, len(sents) - 3, 4):
            para = " ".join(sents[i : i + 4])
            if 200 <= len(para) <= 1200:
                seen.setdefault(para)
    texts = list(seen)
    return [texts[i % len(texts)] for i in range(n)]


def _rates(name: str, path: Path, shard_rows: int, tmp: Path) -> dict[str, dict]:
    return {
        "one process": _run("one", path, 1, shard_rows, tmp),
        "Ray, 1 actor": _run("ray", path, 1, shard_rows, tmp),
        "Ray, 2 actors": _run("ray", path, 2, shard_rows, tmp),
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        mode, path, actors, shard_rows, out = sys.argv[2:7]
        _child(mode, path, int(actors), int(shard_rows), out)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=2000, help="sentences (rates, and the large file's memory)")
    parser.add_argument("--small", type=int, default=300, help="sentences of the small file (driver memory)")
    parser.add_argument("--paragraphs", type=int, default=300, help="paragraphs of four sentences (rates)")
    parser.add_argument("--shard-rows", type=int, default=250)
    parser.add_argument("--write", action="store_true", help=f"also write {RESULTS.relative_to(REPO)}")
    args = parser.parse_args()

    sentences = _sentences(max(args.small, args.sentences))
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        files = {
            "sentences": sentences[: args.sentences],
            "small": sentences[: args.small],
            "paragraphs": _paragraphs(args.paragraphs),
        }
        for name, texts in files.items():
            files[name] = tmp / f"{name}.jsonl"
            files[name].write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
        rates = {kind: _rates(kind, files[kind], args.shard_rows, tmp) for kind in ("sentences", "paragraphs")}
        small = _run("ray", files["small"], 2, args.shard_rows, tmp)
    large = rates["sentences"]["Ray, 2 actors"]
    lines = [
        "# Scoring on Ray against one process (CPU)",
        "",
        f"`python benchmarks/scale.py --sentences {args.sentences} --small {args.small} "
        f"--paragraphs {args.paragraphs} --shard-rows {args.shard_rows}`: {os.cpu_count()} CPUs, load average "
        f"{load_start:.1f} at the start and {os.getloadavg()[0]:.1f} at the end; the learned judge, each "
        "configuration in a fresh process; Ray on a local cluster of 2 CPUs, actors of one CPU and one "
        "thread, timed from the call to the last shard written (actor start-up included). "
        "Texts per second, higher = faster.",
        "",
        "| texts | one process | Ray, 1 actor | Ray, 2 actors | 1 actor / one process | 2 actors / 1 actor |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for kind, r in rates.items():
        one, r1, r2 = (r[k]["rate"] for k in ("one process", "Ray, 1 actor", "Ray, 2 actors"))
        n = args.sentences if kind == "sentences" else args.paragraphs
        lines.append(f"| {n:,} {kind} | {one:.1f} | {r1:.1f} | {r2:.1f} | {r1 / one:.2f}x | {r2 / r1:.2f}x |")
    lines += [
        "",
        f"Peak memory of the Ray driver (2 actors): {small['peak_mb']:.0f} MB for {args.small:,} sentences, "
        f"{large['peak_mb']:.0f} MB for {args.sentences:,} ({args.sentences / args.small:.0f}x the input): "
        f"a ratio of {large['peak_mb'] / small['peak_mb']:.2f}.",
        "",
        "PROJECTION (not measured): 10 million texts on N CPU actors of one thread each, from the rate of one "
        "actor above and the measured efficiency of two (capped at 1):",
        "",
        "| actors | sentences | paragraphs |",
        "| ---: | ---: | ---: |",
    ]
    eff = {k: min(1.0, r["Ray, 2 actors"]["rate"] / (2 * r["Ray, 1 actor"]["rate"])) for k, r in rates.items()}
    for n in (16, 64, 256):
        hours = [1e7 / (rates[k]["Ray, 1 actor"]["rate"] * n * eff[k]) / 3600 for k in ("sentences", "paragraphs")]
        lines.append(f"| {n} | {hours[0]:.1f} h | {hours[1]:.1f} h |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
