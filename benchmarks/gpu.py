"""The learned judge on a CUDA GPU against the CPU of the same machine, in one run.

    python benchmarks/gpu.py [--sentences 200000] [--paragraphs 20000] [--check 1000] [--batch 4096] [--write]
                             [--note TEXT]

Texts: the distinct sentences of the ARTS3000 pool texts and of the development sets
(read at run time), and paragraphs of four consecutive sentences of the same documents,
each list repeated in order up to the size asked for. A batch never holds a text twice
(``--batch`` is below the number of distinct texts), so every row is encoded and placed.

Per kind of text, through the scoring path of ``score_dataset`` (``place_texts`` with the
learned judge and the default pool, ``--batch`` texts per call):

- ``GPU``: texts per second on ``cuda`` (after a warm-up batch), the share of the run the
  GPU was busy (NVML's utilization, sampled every 50 ms), and its peak memory;
- ``bare encoding``: sentence-transformers' own ``encode`` of the same texts on the same
  GPU in the same run (for paragraphs: of their sentences, the units they are scored
  by), in batches of 32 (its default) and of 512, with the GPU's busy share; the ratio of
  the scoring path to the faster of the two says how far the scoring is from what the
  encoder alone allows;
- ``CPU``: texts per second on the same machine's CPU (the judge's default threads) on
  the first ``--check`` texts, and the largest difference between the CPU's and the GPU's
  ARTS score (in [0, 1]) and Elo rating of those texts.

Without a CUDA GPU it says so and measures the CPU only: nothing here needs a GPU.
``--write`` also writes the tables to ``benchmarks/results/gpu.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale import _paragraphs, _sentences  # noqa: E402  (the same texts as benchmarks/scale.py)

RESULTS = Path(__file__).resolve().parent / "results" / "gpu.md"


class _Busy:
    """The GPU's utilization (NVML: share of time a kernel ran), sampled in a thread."""

    def __init__(self) -> None:
        import pynvml

        pynvml.nvmlInit()
        self._nvml = pynvml
        self._handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        self.samples: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            self.samples.append(self._nvml.nvmlDeviceGetUtilizationRates(self._handle).gpu)

    def __enter__(self) -> _Busy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def share(self) -> float:
        return float(np.mean(self.samples)) / 100 if self.samples else float("nan")


def _scorer(device: str):
    from arts_metric.judges.learned import LearnedJudge
    from arts_metric.scoring.scorer import Scorer

    return Scorer.prepare(judge=LearnedJudge(device=device, progress=False))


def _score(scorer, texts: list[str], batch: int) -> tuple[np.ndarray, np.ndarray, float]:
    """ARTS scores, Elo ratings and seconds for ``texts`` in batches of ``batch``."""
    from arts_metric.scoring.units import place_texts

    arts, elo = [], []
    start = time.perf_counter()
    for s in range(0, len(texts), batch):
        placed = place_texts(texts[s : s + batch], scorer, label="benchmark")
        arts.append(np.asarray(placed.arts, dtype=float))
        elo.append(np.asarray(placed.arts_elo, dtype=float))
    return np.concatenate(arts), np.concatenate(elo), time.perf_counter() - start


def _bare(texts: list[str], kind: str) -> dict[str, float]:
    """Bare sentence-transformers encoding of ``texts`` (paragraphs: of their sentences) on
    the GPU in batches of 32 and 512: texts per second (of ``texts``) and GPU busy share."""
    from arts_metric.judges.learned import embed_texts
    from arts_metric.text.sentences import sentence_units

    rows = [u for t in texts for u in sentence_units(t)] if kind == "paragraphs" else texts
    out: dict[str, float] = {"bare_rows": len(rows)}
    for batch in (32, 512):
        embed_texts(rows[:batch], device="cuda", batch_size=batch)  # warm-up
        with _Busy() as busy:
            start = time.perf_counter()
            embed_texts(rows, device="cuda", batch_size=batch)
            seconds = time.perf_counter() - start
        out[f"bare{batch}_rate"] = len(texts) / seconds
        out[f"bare{batch}_busy"] = busy.share
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=200_000)
    parser.add_argument("--paragraphs", type=int, default=20_000)
    parser.add_argument("--check", type=int, default=1000, help="texts of each kind also scored on the CPU")
    parser.add_argument("--batch", type=int, default=4096, help="texts per call (the values do not depend on it)")
    parser.add_argument("--write", action="store_true", help=f"also write {RESULTS.relative_to(RESULTS.parents[2])}")
    parser.add_argument(
        "--note", default="", help="a line written under the command line (how the machine was set up)"
    )
    args = parser.parse_args()

    import torch

    gpu = torch.cuda.is_available()
    name = torch.cuda.get_device_name(0) if gpu else "none"
    kinds = {"sentences": _sentences(args.sentences, repeat=True), "paragraphs": _paragraphs(args.paragraphs)}
    for kind, texts in kinds.items():
        distinct = len(set(texts))
        if args.batch > distinct:
            raise SystemExit(
                f"--batch {args.batch} is above the {distinct} distinct {kind}: a batch would repeat texts"
            )
    lines = [
        "# The learned judge on a GPU",
        "",
        f"`python benchmarks/gpu.py --sentences {args.sentences} --paragraphs {args.paragraphs} "
        f"--check {args.check} --batch {args.batch}`: {os.cpu_count()} CPUs, GPU: {name}; torch {torch.__version__}. "
        f"{args.batch} texts per call; the CPU uses the judge's default threads. "
        "Texts per second, higher = faster.",
        "",
    ]
    if args.note:
        lines += [args.note, ""]
    rows, record = [], {"gpu": name, "cpus": os.cpu_count(), "batch": args.batch}
    cpu_scorer = _scorer("cpu")
    gpu_scorer = _scorer("cuda") if gpu else None
    for kind, texts in kinds.items():
        check = texts[: args.check]
        _score(cpu_scorer, check[:8], args.batch)  # the encoder loaded once
        cpu_arts, cpu_elo, cpu_s = _score(cpu_scorer, check, args.batch)
        entry = {"texts": len(texts), "distinct": len(set(texts)), "cpu_rate": len(check) / cpu_s}
        if gpu_scorer is not None:
            _score(gpu_scorer, texts[: args.batch], args.batch)  # warm-up: kernels chosen, memory taken
            torch.cuda.reset_peak_memory_stats()
            with _Busy() as busy:
                arts, elo, seconds = _score(gpu_scorer, texts, args.batch)
            entry.update(
                gpu_rate=len(texts) / seconds,
                gpu_seconds=seconds,
                busy=busy.share,
                peak_gb=torch.cuda.max_memory_allocated() / 2**30,
                max_arts_diff=float(np.max(np.abs(arts[: len(check)] - cpu_arts))),
                max_elo_diff=float(np.max(np.abs(elo[: len(check)] - cpu_elo))),
            )
            # The same texts with PyTorch's reference ("math") attention kernel: how much of the
            # CPU/GPU difference the fused attention kernels account for.
            from torch.nn.attention import SDPBackend, sdpa_kernel

            with sdpa_kernel([SDPBackend.MATH]):
                m_arts, m_elo, _ = _score(gpu_scorer, check, args.batch)
            entry.update(
                math_arts_diff=float(np.max(np.abs(m_arts - cpu_arts))),
                math_elo_diff=float(np.max(np.abs(m_elo - cpu_elo))),
            )
            entry.update(_bare(texts, kind))
        record[kind] = entry
        rows.append((kind, entry))
        print(json.dumps({kind: entry}), flush=True)

    lines += [
        "| texts | rows (distinct) | GPU texts/s | GPU busy | GPU peak memory | CPU texts/s | GPU / CPU |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for kind, e in rows:
        if "gpu_rate" in e:
            lines.append(
                f"| {kind} | {e['texts']:,} ({e['distinct']:,}) | {e['gpu_rate']:,.0f} | {e['busy']:.0%} | "
                f"{e['peak_gb']:.1f} GB | {e['cpu_rate']:,.1f} | {e['gpu_rate'] / e['cpu_rate']:.0f}x |"
            )
        else:
            lines.append(f"| {kind} | {args.check:,} | no GPU | | | {e['cpu_rate']:,.1f} | |")
    if gpu:
        lines += [
            "",
            "Bare encoding of the same texts on the same GPU (sentence-transformers' `encode`; paragraphs: "
            "their sentences), texts per second and GPU busy, and the scoring path's rate against the faster:",
            "",
            "| texts | encoded rows | batches of 32 | busy | batches of 512 | busy | scoring / faster |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for kind, e in rows:
            best = max(e["bare32_rate"], e["bare512_rate"])
            lines.append(
                f"| {kind} | {e['bare_rows']:,} | {e['bare32_rate']:,.0f} | {e['bare32_busy']:.0%} | "
                f"{e['bare512_rate']:,.0f} | {e['bare512_busy']:.0%} | {e['gpu_rate'] / best:.2f}x |"
            )
    if gpu:
        lines += [
            "",
            f"CPU against GPU on the first {args.check:,} texts of each kind: largest difference "
            + ", ".join(f"{kind} {e['max_arts_diff']:.1e} in ARTS and {e['max_elo_diff']:.1e} Elo" for kind, e in rows)
            + '. With the reference ("math") attention kernel on the GPU: '
            + ", ".join(
                f"{kind} {e['math_arts_diff']:.1e} in ARTS and {e['math_elo_diff']:.1e} Elo" for kind, e in rows
            )
            + ".",
        ]
        per_gpu = {kind: e["gpu_rate"] for kind, e in rows}
        lines += [
            "",
            "PROJECTION (not measured): 10 million texts on N such GPUs, from the rates above "
            "and assuming perfect scaling:",
            "",
            "| GPUs | sentences | paragraphs |",
            "| ---: | ---: | ---: |",
        ]
        for n in (1, 4, 16):
            lines.append(
                f"| {n} | {1e7 / (per_gpu['sentences'] * n) / 3600:.2f} h | {1e7 / (per_gpu['paragraphs'] * n) / 3600:.2f} h |"
            )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
