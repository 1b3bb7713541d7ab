"""int8 MiniLM for the learned judge: three int8 encoders against fp32, on speed and on ``arts``.

    .venv/bin/python benchmarks/int8_runtimes.py [--n 1000] [--repeats 3] [--write]

On ``n`` ARTS3000 texts (the same draw as ``benchmarks/throughput.py``), one thread per
pass, as many passes at once as there are cores:

- ``torch, dynamic``: torch's own dynamic quantization
  (``torch.ao.quantization.quantize_dynamic`` on every ``nn.Linear``, weights per output
  channel);
- ``onnxruntime, dynamic``: ONNX export and ONNX Runtime's dynamic quantization (weights
  per output channel, activations per tensor), what ``precision="int8"`` ran up to
  release 0.4.1;
- ``onnxruntime, smoothed 8-bit blocks``: what ``precision="int8"`` runs
  (:mod:`arts_metric.judges.learned.int8`: the same export after SmoothQuant, ONNX Runtime's
  block quantizer, 8-bit weights and activations in blocks of 16; release 0.4.2 ran blocks
  of 32 without smoothing, which ``benchmarks/int8_blocks.py`` still measures).

The two dynamic encoders take one text per forward pass: their activation scales are
taken over the whole pass, so a pass of several texts would make them change each
other's values. The blocks' scales belong to one row, so texts of one length share
a call (the script checks that each text keeps the bits it gets alone).

Speed: sentence embeddings per second against bare fp32 encoding (sentence-transformers'
``encode``, padded batches of 64), interleaved, best of ``repeats``. Accuracy: ``arts`` of
``compute`` at its defaults with each encoder against fp32 (largest and mean absolute
difference over the ``n`` texts), and the Spearman correlation of ``arts`` with the ARTS94
human majority (as ``benchmarks/learned_judge_accuracy.py`` scores it). ``--write`` also
writes ``benchmarks/results/int8_runtimes.md``.
"""

from __future__ import annotations

import argparse
import copy
import os
import tempfile
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from arts_metric import data as arts_data
from arts_metric.device import limit_threads, usable_cores
from arts_metric.judges.learned import LearnedJudge, embed_texts, load_encoder, sentence_embeddings
from arts_metric.ratings.elo import ratings_from_history
from arts_metric.scoring.api import score_texts

RESULTS = Path(__file__).resolve().parent / "results" / "int8_runtimes.md"


def torch_int8_model():
    """MiniLM with every ``nn.Linear`` dynamically quantized by torch (per-channel weights)."""
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.ao.quantization is deprecated
        return torch.ao.quantization.quantize_dynamic(
            copy.deepcopy(load_encoder("cpu")[0].auto_model),
            {torch.nn.Linear: torch.ao.quantization.per_channel_dynamic_qconfig},
            dtype=torch.qint8,
        )


def one_text_per_pass(texts: list[str], workers: int, mean_last_layer) -> np.ndarray:
    """Sentence embeddings (mean of the last layer, unit length), one text per forward pass,
    ``workers`` passes at once on one thread each; ``mean_last_layer(row)`` is the mean of
    MiniLM's last hidden state, ``(384,)``, for one text's word-piece ids."""
    enc = load_encoder("cpu")
    ids = enc.tokenizer(texts, truncation=True, max_length=enc.max_seq_length)["input_ids"]
    with limit_threads(1), ThreadPoolExecutor(workers) as pool:
        mean = np.stack(list(pool.map(mean_last_layer, ids)))
    return (mean / np.linalg.norm(mean, axis=1, keepdims=True)).astype(np.float32)


def torch_int8_embeddings(model, texts: list[str], workers: int) -> np.ndarray:
    """:func:`one_text_per_pass` with torch's int8 ``model``."""
    import torch

    def mean_last_layer(row: list[int]) -> np.ndarray:
        with torch.inference_mode():
            x = torch.tensor([row])
            out = model(input_ids=x, attention_mask=torch.ones_like(x), token_type_ids=torch.zeros_like(x))
            return out.last_hidden_state.mean(dim=1)[0].numpy()

    return one_text_per_pass(texts, workers, mean_last_layer)


def dynamic_ort_session():
    """ONNX Runtime session (one thread) of MiniLM quantized dynamically (weights per
    output channel, activations to uint8 per tensor at run time)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from arts_metric.judges.learned.encoder import transformer
    from arts_metric.judges.learned.int8 import _export, one_thread_session

    with tempfile.TemporaryDirectory() as work:
        fp32, int8 = Path(work) / "fp32.onnx", Path(work) / "int8.onnx"
        _export(transformer(6, "cpu"), 6, fp32)
        quantize_dynamic(
            str(fp32),
            str(int8),
            per_channel=True,
            weight_type=QuantType.QInt8,
            extra_options={"MatMulConstBOnly": True},  # attention's activation products stay fp32
        )
        return one_thread_session(int8.read_bytes())


def dynamic_ort_embeddings(session, texts: list[str], workers: int) -> np.ndarray:
    """:func:`one_text_per_pass` with an ONNX Runtime ``session`` of MiniLM."""
    return one_text_per_pass(
        texts,
        workers,
        lambda row: session.run(["h6"], {"input_ids": np.array([row], dtype=np.int64)})[0][0].mean(axis=0),
    )


class EmbeddingJudge(LearnedJudge):
    """The learned judge (learned-1) reading the embeddings of ``embed(texts, workers)``."""

    def __init__(self, embed) -> None:
        super().__init__(device="cpu")
        self.embed_with = embed

    def embed(self, texts):
        return self.embed_with(list(texts), self.threads_in_use)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()[0]

    rows = arts_data.load_pool_rows("arts3000")
    rng = np.random.default_rng(args.seed)
    texts = [rows[i]["text"] for i in rng.choice(len(rows), size=args.n, replace=False)]
    workers = usable_cores()
    model = torch_int8_model()
    dynamic = dynamic_ort_session()
    judges = {
        "fp32": LearnedJudge(device="cpu"),
        "torch, dynamic": EmbeddingJudge(lambda texts, workers: torch_int8_embeddings(model, texts, workers)),
        "onnxruntime, dynamic": EmbeddingJudge(lambda texts, workers: dynamic_ort_embeddings(dynamic, texts, workers)),
        "onnxruntime, smoothed 8-bit blocks": LearnedJudge(device="cpu", precision="int8"),
    }
    blocks = sentence_embeddings(texts, workers=workers, precision="int8")
    same_bits = all(
        np.array_equal(sentence_embeddings([texts[i]], precision="int8")[0], blocks[i]) for i in range(0, args.n, 10)
    )

    encoders = {
        "bare fp32 encode": lambda: embed_texts(texts),
        "fp32 (judge's passes)": lambda: sentence_embeddings(texts, workers=workers),
        "torch, dynamic": lambda: torch_int8_embeddings(model, texts, workers),
        "onnxruntime, dynamic": lambda: dynamic_ort_embeddings(dynamic, texts, workers),
        "onnxruntime, smoothed 8-bit blocks": lambda: sentence_embeddings(texts, workers=workers, precision="int8"),
    }
    for run in encoders.values():  # warm-up (and the int8 model's first build)
        run()
    best = {k: float("inf") for k in encoders}
    for _ in range(args.repeats):
        for key, run in encoders.items():
            t0 = time.perf_counter()
            run()
            best[key] = min(best[key], time.perf_counter() - t0)
    rate = {k: args.n / v for k, v in best.items()}

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        arts = {k: np.array(score_texts(texts, judge=j, formulas=[])["arts"]) for k, j in judges.items()}
        a94 = arts_data.load_pool_rows("arts94")
        human = ratings_from_history(len(a94), arts_data.load_history("arts94", "human", "majority"))
        t94 = [r["text"] for r in a94]
        rho = {k: spearmanr(score_texts(t94, judge=j, formulas=[])["arts"], human)[0] for k, j in judges.items()}

    lines = [
        "# int8 MiniLM: torch and ONNX Runtime against fp32",
        "",
        f"`python benchmarks/int8_runtimes.py --n {args.n} --repeats {args.repeats}`: {args.n} ARTS3000 texts, "
        f"{workers} CPU cores (load average {load:.1f} at the start), one text per pass in the dynamic encoders, one thread per pass, "
        f"{workers} passes at once; best of {args.repeats}, interleaved. Sentence embeddings per second against "
        "bare fp32 encoding (sentence-transformers' `encode`); `arts` of `compute` at its defaults against fp32; "
        'Spearman of `arts` with the ARTS94 human majority. Smoothed 8-bit blocks (`precision="int8"`): texts of one '
        f"length share a call; every tenth text's embedding equal bit for bit to the text encoded alone: {same_bits}.",
        "",
        "| encoder | texts/s | / bare fp32 | max \\|Δ arts\\| | mean \\|Δ arts\\| | ARTS94 Spearman |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    base = rate["bare fp32 encode"]
    for key in encoders:
        judge = {"fp32 (judge's passes)": "fp32"}.get(key, key)
        if judge in arts:
            diff = np.abs(arts[judge] - arts["fp32"])
            acc = f"{diff.max():.4f} | {diff.mean():.4f} | {rho[judge]:.4f}"
        else:
            acc = "- | - | -"
        lines.append(f"| {key} | {rate[key]:.1f} | {rate[key] / base:.2f}x | {acc} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
