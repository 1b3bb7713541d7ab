"""Throughput of ``compute()`` against bare MiniLM encoding, measured in the same run.

    .venv/bin/python benchmarks/throughput.py [--n 1000] [--repeats 3]

Scores ``n`` ARTS3000 texts (read from the ARTS data at run time) with
``evaluate.load(<module script>).compute`` (learned judge, default pool, three
formulas) and encodes the same texts with the bare MiniLM model
(sentence-transformers' own ``encode``, padded batches of 64 and of 32, its
default: the full six-layer sentence embedding, whatever the judge reads); prints texts
per second for each and the ratio to the faster (goal: compute >= 1.0x the encoder).
Also: the judge's own batch-independent encoder
(:func:`arts_metric.judges.learned.sentence_embeddings`) against the bare one
for ``n`` and for 100 texts, and the word pieces each computes beyond the
texts' own (filler copies vs padding). All runs are interleaved and the best
of ``repeats`` is kept for each, so a noisy shared machine hurts them alike.

int8: the judge's encoder with ``precision="int8"`` (MiniLM in int8 on ONNX Runtime,
one text per pass) against the same bare fp32 encoding (goal >= 2.0x), ``compute`` with
it, and the largest difference of its ``arts`` from fp32's over the ``n`` texts.

Paragraphs: ``--paragraphs`` (default 300) texts of 50-300 words, Cochrane abstracts and
plain-language summaries and SciTLDR abstracts of the development sets (read at run time
from ``../shared/dev`` or ``$ARTS_DEV_DIR``), scored by ``compute()`` (cut into
sentences, every sentence placed) against bare MiniLM encoding of the same paragraphs'
*sentences* (the default splitter's units: the work a paragraph needs; goal >= 0.9x),
and, for reference, against bare encoding of the paragraphs themselves (which reads at
most 256 word pieces of each, so it flatters ``compute``) and ``compute(long_texts="team")``,
release 0.2's rule (texts up to 400 characters judged whole), in the same run.
``--write`` also writes what it prints to ``benchmarks/results/throughput.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import evaluate
import numpy as np

from arts_metric.data import find_dev_dir, load_pool_rows
from arts_metric.device import usable_cores
from arts_metric.evaluate_module.registry import module_script_path
from arts_metric.judges import get_judge, learned
from arts_metric.judges.learned import embed_texts, sentence_embeddings
from arts_metric.text.sentences import sentence_units

RESULTS = Path(__file__).resolve().parent / "results" / "throughput.md"


def text_arguments(description: str, results: Path) -> argparse.Namespace:
    """The command line of the speed benchmarks: how many texts and paragraphs, repeats, seed."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--paragraphs", type=int, default=300)
    parser.add_argument("--dev-dir", default=None, help="development sets (default $ARTS_DEV_DIR or ../shared/dev)")
    parser.add_argument("--write", action="store_true", help=f"also write the output to {results}")
    return parser.parse_args()


def benchmark_texts(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """``args.n`` ARTS3000 texts and ``args.paragraphs`` development paragraphs, drawn with ``args.seed``."""
    rows = load_pool_rows("arts3000")
    rng = np.random.default_rng(args.seed)
    texts = [rows[i]["text"] for i in rng.choice(len(rows), size=args.n, replace=False)]
    return texts, dev_paragraphs(args.dev_dir, args.paragraphs, rng)


def main() -> None:
    args = text_arguments(__doc__.splitlines()[0], RESULTS)
    load = os.getloadavg()
    texts, paragraphs = benchmark_texts(args)
    metric = evaluate.load(str(module_script_path()))
    judge = get_judge("learned")
    # Warm-up: load the model, the dictionaries and the shipped pool once.
    embed_texts(texts[:32])
    metric.compute(predictions=texts[:32])
    int8 = {"precision": "int8"}
    metric.compute(predictions=texts[:32], judge_options=int8)  # builds the int8 model at first use

    paragraph_sentences = [u for p in paragraphs for u in sentence_units(p)]
    small = texts[:100]
    times: dict[str, list[float]] = {
        k: []
        for k in (
            "encode",
            "encode32",
            "ours",
            "int8",
            "compute",
            "compute_int8",
            "encode100",
            "ours100",
            "encode_par",
            "encode_par_sent",
            "encode_par_sent32",
            "compute_par",
            "team_par",
        )
    }
    arts: dict[str, list[float]] = {}
    for _ in range(args.repeats):
        for key, run in (
            ("encode", lambda: embed_texts(texts)),
            ("encode32", lambda: embed_texts(texts, batch_size=32)),
            ("ours", lambda: sentence_embeddings(texts, workers=usable_cores())),
            ("int8", lambda: sentence_embeddings(texts, workers=usable_cores(), precision="int8")),
            ("compute", lambda: metric.compute(predictions=texts)),
            ("compute_int8", lambda: metric.compute(predictions=texts, judge_options=int8)),
            ("encode100", lambda: embed_texts(small)),
            ("ours100", lambda: sentence_embeddings(small, workers=usable_cores())),
            ("encode_par", lambda: embed_texts(paragraphs)),
            ("encode_par_sent", lambda: embed_texts(paragraph_sentences)),
            ("encode_par_sent32", lambda: embed_texts(paragraph_sentences, batch_size=32)),
            ("compute_par", lambda: metric.compute(predictions=paragraphs)),
            ("team_par", lambda: metric.compute(predictions=paragraphs, long_texts="team")),
        ):
            t0 = time.perf_counter()
            out = run()
            times[key].append(time.perf_counter() - t0)
            if key in ("compute", "compute_int8"):
                assert len(out["arts"]) == args.n
                arts[key] = out["arts"]
    size = {
        "encode100": len(small),
        "ours100": len(small),
        "encode_par": len(paragraphs),
        "encode_par_sent": len(paragraphs),  # paragraphs/s: all their sentences encoded
        "encode_par_sent32": len(paragraphs),
        "compute_par": len(paragraphs),
        "team_par": len(paragraphs),
    }
    rate = {k: size.get(k, args.n) / min(v) for k, v in times.items()}
    lines: list[str] = []
    say = lines.append  # everything shown is also what --write writes
    say(
        f"texts: {args.n} ARTS3000 texts, best of {args.repeats}; default judge {judge.model.version}; "
        f"{usable_cores()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the start"
    )
    say(
        f"bare MiniLM encoding : {rate['encode']:8.1f} texts/s in batches of 64, {rate['encode32']:8.1f} texts/s "
        "in batches of 32 (sentence-transformers' default)"
    )
    say(f"compute() (judge + fkgl, fre, dale_chall): {rate['compute']:8.1f} texts/s")
    bare = max(rate["encode"], rate["encode32"])
    say(
        f"ratio compute / encoding: {rate['compute'] / bare:.2f}x the faster of the two (goal >= 1.00x); "
        f"{rate['compute'] / rate['encode']:.2f}x batches of 64, {rate['compute'] / rate['encode32']:.2f}x batches of 32"
    )
    delta = np.abs(np.array(arts["compute_int8"]) - np.array(arts["compute"]))
    say(
        f"int8 (precision='int8'): encoder {rate['int8']:8.1f} texts/s, {rate['int8'] / bare:.2f}x bare "
        f"encoding (goal >= 2.00x); compute() {rate['compute_int8']:8.1f} texts/s, "
        f"{rate['compute_int8'] / rate['compute']:.2f}x fp32 compute(); |arts - fp32 arts| max {delta.max():.4f}, "
        f"mean {delta.mean():.4f}"
    )
    # The judge's batch-independent encoder (fixed-shape passes) against the bare one.
    say(
        f"judge's encoder / bare encoding: {rate['ours'] / bare:.2f}x for {args.n} texts, "
        f"{rate['ours100'] / rate['encode100']:.2f}x for {len(small)}"
    )
    ids = judge.encoder.tokenizer(texts, truncation=True, max_length=judge.encoder.max_seq_length)["input_ids"]
    lengths = np.array([len(x) for x in ids])
    passes = sum(len(full) * len(ids[full[0]]) for _, full in learned.encoder_passes(lengths))
    ordered = np.sort(lengths)[::-1]
    padded = sum(int(ordered[s]) * len(ordered[s : s + 64]) for s in range(0, len(ordered), 64))
    n_words = [len(p.split()) for p in paragraphs]
    say(
        f"paragraphs: {len(paragraphs)} Cochrane and SciTLDR texts of {min(n_words)}-{max(n_words)} words "
        f"(median {int(np.median(n_words))}), {len(paragraph_sentences) / len(paragraphs):.1f} sentences each on "
        "average"
    )
    bare_sent = max(rate["encode_par_sent"], rate["encode_par_sent32"])
    say(
        f"  bare MiniLM encoding of their sentences : {rate['encode_par_sent']:8.1f} paragraphs/s in batches of 64, "
        f"{rate['encode_par_sent32']:8.1f} in batches of 32"
    )
    say(f"  compute()                               : {rate['compute_par']:8.1f} paragraphs/s")
    say(
        f"  ratio compute / encoding of the sentences: {rate['compute_par'] / bare_sent:.2f}x the faster "
        "(goal >= 0.90x)"
    )
    say(
        f"  for reference: bare encoding of the paragraphs whole (at most 256 word pieces each) "
        f"{rate['encode_par']:8.1f} paragraphs/s, compute / that: {rate['compute_par'] / rate['encode_par']:.2f}x"
    )
    say(
        f'  compute(long_texts="team"), release 0.2\'s rule: {rate["team_par"]:8.1f} paragraphs/s; '
        f"default / team: {rate['compute_par'] / rate['team_par']:.2f}x (every text is cut into its sentences "
        "now, short ones included)"
    )
    say(
        f"word pieces computed beyond the texts' own: judge's passes {passes / lengths.sum() - 1:.0%}, "
        f"sorted padded batches of 64 {padded / lengths.sum() - 1:.0%}"
    )
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.write:
        RESULTS.write_text("# Throughput\n\n```\n" + text + "```\n", encoding="utf-8")


def dev_paragraphs(dev_dir: str | None, n: int, rng: np.random.Generator) -> list[str]:
    """``n`` texts of 50-300 words drawn at random from the Cochrane abstracts and
    plain-language summaries and the SciTLDR abstracts of the development sets."""
    dev = find_dev_dir(dev_dir)
    texts = []
    for line in (dev / "cochrane_pls_val.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        texts += [row["abstract"], row["plain_language_summary"]]
    for line in (dev / "scitldr_dev.jsonl").read_text(encoding="utf-8").splitlines():
        texts.append(json.loads(line)["abstract"])
    texts = [t for t in texts if isinstance(t, str) and 50 <= len(t.split()) <= 300]
    return [texts[i] for i in rng.choice(len(texts), size=min(n, len(texts)), replace=False)]


if __name__ == "__main__":
    main()
