"""The learned judge's weights: the kernel model from a text's inputs to its latent
difficulty, the shipped versions, and loading them (no pickles)."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path

import numpy as np

from arts_metric.judges.learned.close_pair import CLOSE_FEATURE_NAMES
from arts_metric.text.features import FEATURE_NAMES

#: Version folders under ``arts_metric/resources`` (``judge="learned:v1"`` / ``"learned:v2"``).
VERSIONS: dict[str, str] = {
    "v1": "learned_judge",
    "v2": "learned_judge_v2",
    "v3": "learned_judge_v3",
    "v4": "learned_judge_v4",
}
#: What ``judge="learned"`` loads: learned-4, which reads a text's words and ideas rather than
#: its length (benchmarks/judge_probes.py); the earlier versions stay selectable (``learned:v3``, ...).
DEFAULT_VERSION = "v4"
MODEL_VERSION = "learned-1"  # the version written by the v1 training path (kept for reproduction)
#: The kernel head reads its standardised inputs (and its support vectors) on a grid of
#: multiples of ``HEAD_GRID``, clipped to ``±HEAD_CLIP``: every product and every partial
#: sum of the distance matrix product is then a multiple of 2**-24 below 2**24 in size
#: (at most 48 significant bits), exact in float64, so any BLAS kernel, thread count or
#: summation order gives the same bits and a text's score cannot depend on the rows
#: computed with it. The rounding moves scores by a few thousandths of an Elo point
#: (at most 0.0031 on ARTS94).
HEAD_GRID = 2.0**-12
HEAD_CLIP = 2.0**7 - HEAD_GRID


def _on_head_grid(a: np.ndarray) -> np.ndarray:
    return np.round(np.clip(a, -HEAD_CLIP, HEAD_CLIP) / HEAD_GRID) * HEAD_GRID


#: numpy's einsum cuts a reduction longer than its buffer (8,192 elements) into pieces whose
#: boundaries depend on the number of rows, so a sum over more support rows than that would
#: depend on the batch; :meth:`LearnedModel.predict` sums such pieces itself, in a fixed order.
_EINSUM_REDUCTION = 8192

_LOCK = threading.Lock()
_MODELS: dict[str, "LearnedModel"] = {}


def default_weights_dir(version: str | None = None) -> Path:
    """Folder of the shipped weights of ``version`` (``"v1"``, ``"v2"``; default
    :data:`DEFAULT_VERSION`)."""
    version = version or DEFAULT_VERSION
    if version not in VERSIONS:
        raise ValueError(f"learned judge: unknown version {version!r}; shipped: {', '.join(VERSIONS)}")
    return Path(str(resources.files("arts_metric") / "resources" / VERSIONS[version]))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class LearnedModel:
    """Weights of the learned judge (see ``scripts/train_learned_judge.py``).

    ``score(x) = intercept + z @ linear_coef + sum_i dual_coef[i] * exp(-gamma * |zw - support[i]|^2)``
    with ``z = (x - x_mean) / x_scale`` the standardised ``[representation, features]``
    row and ``zw`` the same with the feature block multiplied by ``feature_weight``.
    The representation is the sentence embedding (``layers`` None, learned-1) or the
    mean-pooled hidden states of MiniLM ``layers`` (learned-2, learned-3). ``close_coef`` (None if
    the weights have no head) are the logistic weights of the close-pair head over :data:`CLOSE_FEATURE_NAMES`,
    used for pairs with :func:`word_overlap` at least ``close_min_overlap``.
    """

    x_mean: np.ndarray
    x_scale: np.ndarray
    support: np.ndarray
    dual_coef: np.ndarray
    linear_coef: np.ndarray
    intercept: float
    gamma: float
    feature_weight: float
    temperature: float
    meta: dict
    layers: tuple[int, ...] | None = None
    close_coef: np.ndarray | None = None
    close_min_overlap: float = 1.0
    folder: str = ""  # where the weights were read from ("" for weights built in memory)

    @property
    def version(self) -> str:
        return str(self.meta.get("model_version", MODEL_VERSION))

    @property
    def n_repr(self) -> int:
        """Columns of the representation block (before the cheap features)."""
        return len(self.x_mean) - len(FEATURE_NAMES)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "LearnedModel":
        """Load ``model.json`` + its weights file (``.npz`` or ``.safetensors``) from a folder
        (or the JSON file itself); the weights' sha256 must match the JSON."""
        path = Path(path).expanduser()
        json_path = path / "model.json" if path.is_dir() else path
        if not json_path.is_file():
            raise FileNotFoundError(
                f"learned judge weights not found at {json_path}; regenerate them with "
                "`python scripts/train_learned_judge.py`"
            )
        meta = json.loads(json_path.read_text(encoding="utf-8"))
        weights_path = json_path.parent / meta["weights_file"]
        digest = _sha256(weights_path)
        if digest != meta["weights_sha256"]:
            raise ValueError(f"{weights_path}: sha256 {digest} does not match model.json ({meta['weights_sha256']})")
        if tuple(meta["feature_names"]) != FEATURE_NAMES:
            raise ValueError(
                f"{json_path}: weights were trained with features {meta['feature_names']}, "
                f"this code computes {list(FEATURE_NAMES)}"
            )
        keys = ("x_mean", "x_scale", "support", "dual_coef", "linear_coef")
        if weights_path.suffix == ".safetensors":
            from safetensors.numpy import load_file

            raw = load_file(str(weights_path))
        else:
            with np.load(weights_path, allow_pickle=False) as z:
                raw = {k: z[k] for k in z.files}
        missing = [k for k in keys if k not in raw]
        if missing:
            raise ValueError(f"{weights_path}: missing arrays {missing}")
        arrays = {k: raw[k].astype(np.float64) for k in keys}
        hp = meta["model"]
        close = meta.get("close_pair_head")
        if close is not None and tuple(close["inputs"]) != CLOSE_FEATURE_NAMES:
            raise ValueError(
                f"{json_path}: close-pair head inputs {close['inputs']} differ from {list(CLOSE_FEATURE_NAMES)}"
            )
        layers = meta.get("inputs", {}).get("encoder_layers")
        return cls(
            **arrays,
            intercept=float(hp["intercept"]),
            gamma=float(hp["gamma"]),
            feature_weight=float(hp["feature_weight"]),
            temperature=float(meta["temperature"]),
            meta=meta,
            layers=tuple(int(k) for k in layers) if layers else None,
            close_coef=np.asarray(close["coef"], dtype=np.float64) if close else None,
            close_min_overlap=float(close["min_overlap"]) if close else 1.0,
            folder=str(json_path.parent),
        )

    @cached_property
    def _grid_support(self) -> tuple[np.ndarray, np.ndarray]:
        """The support vectors on the head grid and their squared norms (once per model)."""
        support = _on_head_grid(self.support)
        return support, np.einsum("ij,ij->i", support, support)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Latent difficulty (Elo points, higher = harder) of raw ``[representation, features]`` rows."""
        x = np.asarray(x, dtype=np.float64)
        out = np.empty(len(x))
        support, s2 = self._grid_support
        # Row-wise reductions are numpy's own loops (einsum), the same for every row;
        # the one BLAS product is exact (HEAD_GRID). Blocks of 256 rows keep the kernel
        # matrix in the CPU cache (a third faster than 2048 on 2,300 rows).
        for start in range(0, len(x), 256):
            z = (x[start : start + 256] - self.x_mean) / self.x_scale
            zw = z.copy()
            zw[:, self.n_repr :] *= self.feature_weight
            zw = _on_head_grid(zw)
            # squared distances via the expansion |a|^2 + |b|^2 - 2ab
            d2 = np.einsum("ij,ij->i", zw, zw)[:, None] + s2[None, :] - 2.0 * (zw @ support.T)
            k = np.exp(-self.gamma * np.maximum(d2, 0.0))
            dual = sum(
                np.einsum("ij,j->i", k[:, c : c + _EINSUM_REDUCTION], self.dual_coef[c : c + _EINSUM_REDUCTION])
                for c in range(0, k.shape[1], _EINSUM_REDUCTION)
            )
            out[start : start + len(z)] = self.intercept + np.einsum("ij,j->i", z, self.linear_coef) + dual
        return out


def load_model(path: str | os.PathLike | None = None) -> LearnedModel:
    """Weights from ``path`` (default: the shipped default version), cached per resolved path."""
    key = str(Path(path).expanduser().resolve() if path else default_weights_dir())
    with _LOCK:
        model = _MODELS.get(key)
        if model is None:
            model = LearnedModel.load(key)
            _MODELS[key] = model
        return model
