"""The options of int8 block quantization, against fp32, on ``arts``.

    .venv/bin/python benchmarks/int8_blocks.py [--n 1000] [--write]

Why ``precision="int8"`` quantizes MiniLM as it does (:mod:`arts_metric.judges.learned.int8`:
SmoothQuant with the package's calibration sentences, then ONNX Runtime's ``MatMulNBits``,
8-bit weights in blocks of 16 with a zero point each, accuracy level 4). Each row below
exports MiniLM once more (smoothed with strength ``alpha``, or not), quantizes it with one
set of options and scores ``n`` ARTS3000 texts (by default the 1,000 of
``benchmarks/throughput.py``; one text per forward pass: every scale of a block scheme
belongs to one row, so that gives each text its own values) with the learned judge
reading it; the columns are the largest and mean ``|arts - fp32 arts|`` and the number of
texts it moves by more than .005.
Accuracy level 4 quantizes each row's activations to int8 in blocks as long as the
weights' and sums the products in integers; level 0 keeps the activations in fp32 and
unpacks the weights in every call (the weights' own error, with none of int8's speed).
"fp32: ..." rows leave those matrices unquantized. Speeds are not compared here:
``benchmarks/int8_runtimes.py`` times the kept scheme. ``--write`` also writes
``benchmarks/results/int8_blocks.md``.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from int8_runtimes import EmbeddingJudge, one_text_per_pass  # noqa: E402

from arts_metric import data as arts_data  # noqa: E402
from arts_metric.judges.learned import LearnedJudge  # noqa: E402
from arts_metric.judges.learned.encoder import load_encoder, transformer  # noqa: E402
from arts_metric.judges.learned.int8 import (  # noqa: E402
    ALPHA,
    _export,
    activation_maxima,
    calibration_rows,
    one_thread_session,
    smoothed,
)
from arts_metric.scoring.api import score_texts  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "int8_blocks.md"

#: The MatMul nodes of the export that a "fp32: ..." row leaves unquantized.
MATRICES = {
    "feed-forward input": lambda name: "/intermediate/dense/" in name,
    "feed-forward output": lambda name: "/output/dense/" in name and "/attention/" not in name,
    "attention projections": lambda name: "/attention/self/" in name,
    "attention output": lambda name: "/attention/output/dense/" in name,
}
#: (row, smoothing strength or None, bits, block, zero points, accuracy level, matrices left
#: in fp32); the first is the kept scheme.
OPTIONS = [
    ("smoothed (alpha .65), 8-bit blocks of 16, zero points (kept)", ALPHA, 8, 16, True, 4, None),
    ("smoothed (alpha .5), 8-bit blocks of 16, zero points", 0.5, 8, 16, True, 4, None),
    ("smoothed (alpha .8), 8-bit blocks of 16, zero points", 0.8, 8, 16, True, 4, None),
    ("smoothed (alpha .65), 8-bit blocks of 32, zero points", ALPHA, 8, 32, True, 4, None),
    ("8-bit blocks of 16, zero points", None, 8, 16, True, 4, None),
    ("8-bit blocks of 32, zero points (release 0.4.2)", None, 8, 32, True, 4, None),
    ("8-bit blocks of 32, symmetric", None, 8, 32, False, 4, None),
    ("8-bit blocks of 64, symmetric", None, 8, 64, False, 4, None),
    ("8-bit blocks of 128, zero points", None, 8, 128, True, 4, None),
    ("4-bit blocks of 32, symmetric", None, 4, 32, False, 4, None),
    ("weights only: 8-bit blocks of 16, zero points, level 0", None, 8, 16, True, 0, None),
    ("weights only: smoothed, 8-bit blocks of 16, zero points, level 0", ALPHA, 8, 16, True, 0, None),
    *[(f"smoothed, 8-bit blocks of 16, zero points; fp32: {kind}", ALPHA, 8, 16, True, 4, kind) for kind in MATRICES],
]


def quantized(fp32: Path, bits: int, block: int, zero_points: bool, level: int, keep: str | None) -> bytes:
    """The ONNX model at ``fp32`` quantized by ``MatMulNBits`` with these options."""
    import onnx
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    model = onnx.load(str(fp32))
    names = [node.name for node in model.graph.node if node.op_type == "MatMul"]
    quantizer = MatMulNBitsQuantizer(
        model,
        bits=bits,
        block_size=block,
        is_symmetric=not zero_points,
        accuracy_level=level,
        nodes_to_exclude=[name for name in names if keep and MATRICES[keep](name)],
    )
    quantizer.process()
    return quantizer.model.model.SerializeToString()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    logging.getLogger("onnxruntime.quantization.matmul_nbits_quantizer").setLevel(logging.WARNING)

    rows = arts_data.load_pool_rows("arts3000")
    rng = np.random.default_rng(args.seed)
    texts = [rows[i]["text"] for i in rng.choice(len(rows), size=args.n, replace=False)]
    lines = [
        "# int8 block quantization: the options against fp32",
        "",
        f"`python benchmarks/int8_blocks.py --n {args.n}`: {args.n} ARTS3000 texts (seed {args.seed}), "
        "`arts` of `compute` at its defaults with the learned judge reading MiniLM quantized by ONNX Runtime's "
        '`MatMulNBits`, against fp32; "smoothed": SmoothQuant with the package\'s calibration sentences at '
        "strength alpha first. Level 4: activations in int8 blocks; level 0: fp32 activations.",
        "",
        "| options | max \\|Δ arts\\| | mean \\|Δ arts\\| | texts with \\|Δ arts\\| > .005 |",
        "| --- | ---: | ---: | ---: |",
    ]
    with warnings.catch_warnings(), tempfile.TemporaryDirectory() as work:
        warnings.simplefilter("ignore")
        fp32_arts = np.array(score_texts(texts, judge=LearnedJudge(device="cpu"), formulas=[])["arts"])
        model = transformer(6, "cpu")
        maxima = activation_maxima(model, calibration_rows(load_encoder("cpu").tokenizer))
        exports: dict[float | None, Path] = {}
        for label, alpha, *options in OPTIONS:
            if alpha not in exports:
                exports[alpha] = Path(work) / f"fp32-{alpha}.onnx"
                _export(model if alpha is None else smoothed(model, maxima, alpha), 6, exports[alpha])
            session = one_thread_session(quantized(exports[alpha], *options))

            def mean_last_layer(row: list[int], session=session) -> np.ndarray:
                (last,) = session.run(["h6"], {"input_ids": np.array([row], dtype=np.int64)})
                return last[0].mean(axis=0)

            judge = EmbeddingJudge(lambda texts, workers, f=mean_last_layer: one_text_per_pass(texts, workers, f))
            diff = np.abs(np.array(score_texts(texts, judge=judge, formulas=[])["arts"]) - fp32_arts)
            lines.append(f"| {label} | {diff.max():.4f} | {diff.mean():.5f} | {int(np.sum(diff > 0.005))} |")
            print(lines[-1], flush=True)
    lines += ["", f"Run time: {time.perf_counter() - start:.0f} s on this machine."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
