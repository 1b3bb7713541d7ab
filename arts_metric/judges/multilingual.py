"""The offline judge of a language other than English (spec ``multilingual:fr``, ...).

French, Hindi and Russian (version 1): a linear model over
:mod:`arts_metric.judges.multilingual_features` (hashed character n-grams, length and word
length, and for French and Russian the bundled Universal Sentence Encoder
Multilingual), fitted as a pairwise logistic model on pairs of README++ training
sentences of different CEFR levels. Arabic (version 2): the same linear features plus
:func:`~arts_metric.judges.multilingual_features.arabic_shape_features`, and an RBF kernel on
the sentence embedding and the standardised shape features, fitted by kernel ridge
regression on the CEFR levels of the training sentences and scaled so that score
differences are calibrated log-odds on held-out pairs. Both are put on their pool's
Elo scale (``scripts/train_language_judges.py``). The weights ship in
``arts_metric/resources/language_judges/<code>.npz`` (arrays only; Arabic's include
the training sentences' embeddings and standardised shapes as the kernel's support
points, the sentences themselves ship in the pool) with ``<code>.json`` (what they are).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Sequence

import numpy as np
from scipy.spatial.distance import cdist
from scipy.special import expit

from arts_metric.judges.base import PointwiseJudge
from arts_metric.judges.multilingual_features import (
    arabic_shape_features,
    encoder_features,
    ngram_features,
    shape_features,
)
from arts_metric.languages import OTHER_LANGUAGES, check_language, language_name
from arts_metric.text.checks import check_text_list

WEIGHTS_FOLDER = "language_judges"


@dataclass(frozen=True)
class LanguageModel:
    """A language's fitted judge: ``latent = ngrams @ ngram_weight + encoder @ encoder_weight
    + standardised shape @ shape_weight`` (+ standardised Arabic shape @ arabic_shape_weight
    + sum_i dual_coef_i exp(-gamma |z - support_i|^2) with ``z`` = the encoder's embedding
    and ``kernel_shape_scale`` times the standardised shapes, where the weights have them);
    ``elo = elo_intercept + temperature * latent``."""

    language: str
    version: str
    ngram_index: np.ndarray
    ngram_weight: np.ndarray
    encoder_weight: np.ndarray | None
    shape_mean: np.ndarray
    shape_scale: np.ndarray
    shape_weight: np.ndarray
    elo_intercept: float
    temperature: float
    meta: dict[str, Any]
    arabic_shape_mean: np.ndarray | None = None
    arabic_shape_scale: np.ndarray | None = None
    arabic_shape_weight: np.ndarray | None = None
    support: np.ndarray | None = None
    dual_coef: np.ndarray | None = None
    kernel_gamma: float = 0.0
    kernel_shape_scale: float = 0.0

    def latent(self, texts: list[str]) -> np.ndarray:
        ngrams = ngram_features(texts)
        dense = np.zeros(ngrams.shape[1])
        dense[self.ngram_index] = self.ngram_weight
        out = ngrams @ dense
        shape = (shape_features(texts) - self.shape_mean) / self.shape_scale
        out += shape @ self.shape_weight
        if self.encoder_weight is not None:
            encoded = encoder_features(texts).astype(np.float64)
            out += encoded @ self.encoder_weight
        if self.arabic_shape_weight is not None:
            arabic = (arabic_shape_features(texts) - self.arabic_shape_mean) / self.arabic_shape_scale
            # Row by row (elementwise product, then a sum per row): a text's value never
            # depends on the other texts scored with it.
            out += (arabic * self.arabic_shape_weight).sum(axis=1)
            if self.support is not None:
                z = np.hstack([encoded, self.kernel_shape_scale * shape, self.kernel_shape_scale * arabic])
                kernel = np.exp(-self.kernel_gamma * cdist(z, self.support, "sqeuclidean"))
                out += (kernel * self.dual_coef).sum(axis=1)
        return np.asarray(out, dtype=np.float64)

    def predict(self, texts: list[str]) -> np.ndarray:
        """Elo points on the language's pool scale (higher = harder)."""
        return self.elo_intercept + self.temperature * self.latent(texts)


def _read_model(code: str) -> LanguageModel:
    folder = resources.files("arts_metric") / "resources" / WEIGHTS_FOLDER
    meta_path, weights_path = folder / f"{code}.json", folder / f"{code}.npz"
    if not meta_path.is_file() or not weights_path.is_file():
        raise FileNotFoundError(
            f"the {language_name(code)} judge's weights are missing ({weights_path}); "
            "regenerate them with `python scripts/train_language_judges.py`"
        )
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    raw = weights_path.read_bytes()
    if hashlib.sha256(raw).hexdigest() != meta["weights_sha256"]:
        raise ValueError(f"the {language_name(code)} judge's weights {weights_path} do not match their sha256")
    with np.load(weights_path, allow_pickle=False) as z:
        arrays = {k: np.asarray(z[k]) for k in z.files}
    return LanguageModel(
        language=code,
        version=meta["version"],
        ngram_index=arrays["ngram_index"].astype(np.int64),
        ngram_weight=arrays["ngram_weight"].astype(np.float64),
        encoder_weight=arrays["encoder_weight"].astype(np.float64) if "encoder_weight" in arrays else None,
        shape_mean=arrays["shape_mean"].astype(np.float64),
        shape_scale=arrays["shape_scale"].astype(np.float64),
        shape_weight=arrays["shape_weight"].astype(np.float64),
        elo_intercept=float(meta["elo_intercept"]),
        temperature=float(meta["temperature"]),
        meta=meta,
        **_optional_parts(arrays, meta),
    )


def _optional_parts(arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> dict[str, Any]:
    """The Arabic shape features and the RBF kernel, for weights that have them (Arabic from version 2)."""
    out: dict[str, Any] = {}
    if "arabic_shape_weight" in arrays:
        for key in ("arabic_shape_mean", "arabic_shape_scale", "arabic_shape_weight"):
            out[key] = arrays[key].astype(np.float64)
    if "support" in arrays:
        if "arabic_shape_weight" not in arrays or "encoder_weight" not in arrays:
            raise ValueError(f"{meta['language']}: a kernel judge needs the encoder and the Arabic shape features")
        kernel = meta["features"]["kernel"]
        out.update(
            support=arrays["support"].astype(np.float64),
            dual_coef=arrays["dual_coef"].astype(np.float64),
            kernel_gamma=float(kernel["gamma"]),
            kernel_shape_scale=float(kernel["shape_scale"]),
        )
    return out


_MODELS: dict[str, LanguageModel] = {}


def load_language_model(code: str) -> LanguageModel:
    """The shipped judge of language ``code`` (read once per process)."""
    code = check_language(code)
    if code not in OTHER_LANGUAGES:
        raise ValueError(f"no multilingual judge for {code!r}: English's offline judge is 'learned'")
    if code not in _MODELS:
        _MODELS[code] = _read_model(code)
    return _MODELS[code]


class LanguageJudge(PointwiseJudge):
    """Offline pointwise judge of one language other than English.

    ``score`` gives Elo points on the scale of that language's README++ pool
    (higher = harder); ``prob_harder`` turns two scores into P(first harder) with
    the fitted temperature. Runs on the CPU, with no network.

    Parameters
    ----------
    language : ``"ar"``, ``"fr"``, ``"hi"`` or ``"ru"``.
    """

    max_chars = 2000
    progress = False

    def __init__(self, language: str) -> None:
        super().__init__()
        self.model = load_language_model(language)
        self.language = self.model.language
        self.name = f"multilingual:{self.language}"
        self.temperature = self.model.temperature

    @property
    def signature(self) -> str:
        """``multilingual-fr-1``, ``multilingual-ar-2``: the language and the weights' version."""
        return f"multilingual-{self.language}-{self.model.version}"

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "language": self.language, "version": self.model.version}

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """Latent difficulty per text in Elo points of the language's pool (higher = harder).
        Duplicate texts are read once."""
        texts = check_text_list(texts, "texts")
        self.stats.calls += len(texts)
        if not texts:
            return np.zeros(0)
        unique = list(dict.fromkeys(texts))
        scores = dict(zip(unique, self.model.predict(unique)))
        return np.array([scores[t] for t in texts], dtype=float)

    def prob_harder(self, score_a: np.ndarray, score_b: np.ndarray) -> np.ndarray:
        """P(a harder than b) = logistic((score_a - score_b) / T), T in Elo points; NaN propagates."""
        return expit((np.asarray(score_a, dtype=float) - np.asarray(score_b, dtype=float)) / self.temperature)


def from_spec(rest: str, **kwargs: Any) -> LanguageJudge:
    """``multilingual:fr`` -> the shipped French judge (likewise ``ar``, ``hi``, ``ru``)."""
    if kwargs:
        raise ValueError(f"the multilingual judge takes no options, got {', '.join(sorted(kwargs))}")
    if not rest.strip():
        raise ValueError(f"give the language: multilingual:<code>, one of {', '.join(OTHER_LANGUAGES)}")
    return LanguageJudge(rest)
