"""Throughput of ``compute()`` against bare MiniLM encoding, measured in the same run.

    .venv/bin/python benchmarks/throughput.py [--n 1000] [--repeats 3]

Scores ``n`` ARTS3000 texts (read from the ARTS data at run time) with
``evaluate.load(<module script>).compute`` (learned judge, default pool, three
formulas) and encodes the same texts with the bare MiniLM model
(sentence-transformers' own ``encode``, padded batches of 64: the full
six-layer sentence embedding, whatever the judge reads); prints texts
per second for both and their ratio (goal: compute >= 0.7x the encoder).
Also: the judge's own batch-independent encoder
(:func:`arts_metric.judges.learned.sentence_embeddings`) against the bare one
for ``n`` and for 100 texts, and the word pieces each computes beyond the
texts' own (filler copies vs padding). All runs are interleaved and the best
of ``repeats`` is kept for each, so a noisy shared machine hurts them alike.

Paragraphs: ``--paragraphs`` (default 300) texts of 50-300 words, the Cochrane
abstracts and plain-language summaries of the development sets (read at run time
from ``../shared/dev`` or ``$ARTS_DEV_DIR``), scored by ``compute()`` (cut into
sentences, every sentence placed) against bare MiniLM encoding of the same
paragraphs (which reads at most 256 word pieces of each); goal >= 0.5x; and against
``compute(long_texts="team")``, release 0.2's rule (texts up to 400 characters judged
whole), in the same run.
"""

from __future__ import annotations

import argparse
import json
import time

import evaluate
import numpy as np

from arts_metric.data import find_dev_dir, load_pool_rows
from arts_metric.device import usable_cores
from arts_metric.judges import get_judge, learned
from arts_metric.judges.learned import embed_texts, sentence_embeddings
from arts_metric.registry import module_script_path
from arts_metric.segment import split_sentences


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--paragraphs", type=int, default=300)
    parser.add_argument("--dev-dir", default=None, help="development sets (default $ARTS_DEV_DIR or ../shared/dev)")
    args = parser.parse_args()

    rows = load_pool_rows("arts3000")
    rng = np.random.default_rng(args.seed)
    texts = [rows[i]["text"] for i in rng.choice(len(rows), size=args.n, replace=False)]
    metric = evaluate.load(str(module_script_path()))
    judge = get_judge("learned")
    # Warm-up: load the model, the dictionaries and the shipped pool once.
    embed_texts(texts[:32])
    metric.compute(predictions=texts[:32])

    paragraphs = _paragraphs(args.dev_dir, args.paragraphs, rng)
    small = texts[:100]
    times: dict[str, list[float]] = {
        k: [] for k in ("encode", "ours", "compute", "encode100", "ours100", "encode_par", "compute_par", "team_par")
    }
    for _ in range(args.repeats):
        for key, run in (
            ("encode", lambda: embed_texts(texts)),
            ("ours", lambda: sentence_embeddings(texts, workers=usable_cores())),
            ("compute", lambda: metric.compute(predictions=texts)),
            ("encode100", lambda: embed_texts(small)),
            ("ours100", lambda: sentence_embeddings(small, workers=usable_cores())),
            ("encode_par", lambda: embed_texts(paragraphs)),
            ("compute_par", lambda: metric.compute(predictions=paragraphs)),
            ("team_par", lambda: metric.compute(predictions=paragraphs, long_texts="team")),
        ):
            t0 = time.perf_counter()
            out = run()
            times[key].append(time.perf_counter() - t0)
            if key == "compute":
                assert len(out["arts"]) == args.n
    size = {
        "encode100": len(small),
        "ours100": len(small),
        "encode_par": len(paragraphs),
        "compute_par": len(paragraphs),
        "team_par": len(paragraphs),
    }
    rate = {k: size.get(k, args.n) / min(v) for k, v in times.items()}
    print(f"texts: {args.n} ARTS3000 texts, best of {args.repeats}; default judge {judge.model.version}")
    print(f"bare MiniLM encoding : {rate['encode']:8.1f} texts/s")
    print(f"compute() (judge + fkgl, fre, dale_chall): {rate['compute']:8.1f} texts/s")
    print(f"ratio compute / encoding: {rate['compute'] / rate['encode']:.2f}x (goal >= 0.70x)")
    # The judge's batch-independent encoder (fixed-shape passes) against the bare one.
    print(
        f"judge's encoder / bare encoding: {rate['ours'] / rate['encode']:.2f}x for {args.n} texts, "
        f"{rate['ours100'] / rate['encode100']:.2f}x for {len(small)}"
    )
    ids = judge.encoder.tokenizer(texts, truncation=True, max_length=judge.encoder.max_seq_length)["input_ids"]
    lengths = np.array([len(x) for x in ids])
    passes = sum(len(full) * len(ids[full[0]]) for _, full in learned.encoder_passes(lengths))
    ordered = np.sort(lengths)[::-1]
    padded = sum(int(ordered[s]) * len(ordered[s : s + 64]) for s in range(0, len(ordered), 64))
    n_words = [len(p.split()) for p in paragraphs]
    print(
        f"paragraphs: {len(paragraphs)} Cochrane texts of {min(n_words)}-{max(n_words)} words "
        f"(median {int(np.median(n_words))}), {np.mean([len(split_sentences(p)) for p in paragraphs]):.1f} "
        "sentences each on average"
    )
    print(f"  bare MiniLM encoding : {rate['encode_par']:8.1f} paragraphs/s")
    print(f"  compute()            : {rate['compute_par']:8.1f} paragraphs/s")
    print(f"  ratio compute / encoding: {rate['compute_par'] / rate['encode_par']:.2f}x (goal >= 0.50x)")
    print(
        f'  compute(long_texts="team"), release 0.2\'s rule: {rate["team_par"]:8.1f} paragraphs/s; '
        f"default / team: {rate['compute_par'] / rate['team_par']:.2f}x (every text is cut into its sentences "
        "now, short ones included)"
    )
    print(
        f"word pieces computed beyond the texts' own: judge's passes {passes / lengths.sum() - 1:.0%}, "
        f"sorted padded batches of 64 {padded / lengths.sum() - 1:.0%}"
    )


def _paragraphs(dev_dir: str | None, n: int, rng: np.random.Generator) -> list[str]:
    """``n`` Cochrane abstracts and plain-language summaries of 50-300 words, drawn at random."""
    path = find_dev_dir(dev_dir) / "cochrane_pls_val.jsonl"
    texts = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        texts += [row["abstract"], row["plain_language_summary"]]
    texts = [t for t in texts if 50 <= len(t.split()) <= 300]
    return [texts[i] for i in rng.choice(len(texts), size=min(n, len(texts)), replace=False)]


if __name__ == "__main__":
    main()
