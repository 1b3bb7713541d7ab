"""The learned judge: MiniLM plus cheap features to a latent difficulty on the
GPT-4 Elo scale, with a close-pair head for near-paraphrases."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from scipy.special import expit

from arts_metric.device import cpu_threads, resolve_device
from arts_metric.judges.base import Decision, PointwiseJudge
from arts_metric.judges.learned.close_pair import close_pair_inputs, word_overlap
from arts_metric.judges.learned.encoder import MAX_WORD_PIECES, layer_means, load_encoder, sentence_embeddings
from arts_metric.judges.learned.int8 import check_precision
from arts_metric.judges.learned.model import VERSIONS, default_weights_dir, load_model
from arts_metric.text.checks import check_text_list
from arts_metric.text.features import text_features

#: MiniLM reads at most 256 word pieces (254 plus [CLS]/[SEP]); English runs at
#: about 4.4 characters per word piece (median over the ARTS pools), so 1000
#: characters keep typical texts whole. Longer texts are cut with a warning.
MAX_CHARS = 1000


class LearnedJudge(PointwiseJudge):
    """Offline pointwise judge: MiniLM + cheap features -> GPT-4 Elo estimate.

    ``score`` returns Elo points on the scale of the GPT-4 ARTS3000 run (1200 =
    average, higher = harder); ``prob_harder`` turns two scores into
    P(first harder) with the fitted temperature; ``compare_close`` judges
    near-paraphrases (an output against its source) with the pair-aware head.

    Parameters
    ----------
    weights : None (the shipped :data:`DEFAULT_VERSION`, name ``learned``), a shipped
        version ``"v1"`` ... ``"v4"`` (name ``learned:v1`` ...), or a folder written by
        ``scripts/train_learned_judge.py`` (name ``learned:<folder>``).
    device : where MiniLM runs: ``"auto"`` (default: a CUDA GPU when torch sees one, else
        the CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``. On a GPU, scores differ from the
        CPU's in the last digits (within 5e-6 in ARTS, a few thousandths of an Elo point) and
        the signature names the device.
    threads : encoder passes run at once on the CPU, each on one torch thread (default:
        every core this process may use, shared among the workers the library starts; see
        :func:`arts_metric.device.cpu_threads`). Never changes a score, bit for bit.
    precision : ``"fp32"`` (default) or ``"int8"``: MiniLM in 8-bit integers (smoothed,
        then weights and activations in blocks of 16), run by ONNX Runtime on the CPU
        (``device="auto"`` then means the CPU; a GPU device is an error); every scale
        belongs to one word piece, so a score still depends on its text alone. On 2 CPU
        cores ``compute`` ran about 1.2x faster than in fp32; ``arts`` moved by up to .0050
        (mean .0010) on 1,000 ARTS3000 texts with learned-4 (.0042 with learned-1), and the
        signature says ``+int8``. Needs ``onnxruntime``, ``onnx`` and
        ``onnx_ir`` (``pip install 'arts-metric[int8]'``); see
        :mod:`arts_metric.judges.learned.int8`.
    progress : show a progress bar (default: for 2,000 texts or more).
    """

    name = "learned"
    max_chars = MAX_CHARS

    def __init__(
        self,
        weights: str | os.PathLike | None = None,
        device: str = "auto",
        threads: int | None = None,
        progress: bool | None = None,
        precision: str = "fp32",
    ) -> None:
        super().__init__()
        if weights is not None and str(weights) in VERSIONS:
            self.model = load_model(default_weights_dir(str(weights)))
        else:
            self.model = load_model(weights)
        self.precision = check_precision(precision)
        if precision == "int8" and device == "auto":
            device = "cpu"  # int8 runs on the CPU
        self.device = resolve_device(device)
        if precision == "int8" and self.device != "cpu":
            raise ValueError(f"precision='int8' runs on the CPU; got device={device!r} (use device='cpu' or 'auto')")
        cpu_threads(threads)  # checks the value
        self.threads = threads
        #: Processes that score on this machine at once (set by callers that start workers).
        self.processes = 1
        self.progress = progress
        self.temperature = self.model.temperature
        if weights is not None:
            self.name = f"learned:{weights}"

    @property
    def signature(self) -> str:
        """The model version (``learned-4``); for weights outside the package, also the first
        12 hex digits of their sha256; on a device other than the CPU, the device (its
        kernels round differently); in int8, ``+int8``. What :mod:`arts_metric.scoring.signature` names."""
        shipped = {str(default_weights_dir(v).resolve()) for v in VERSIONS}
        own = self.model.folder and str(Path(self.model.folder).resolve()) not in shipped
        out = f"{self.model.version}#{self.model.meta['weights_sha256'][:12]}" if own else self.model.version
        out = out if self.device == "cpu" else f"{out}@{self.device}"
        return out if self.precision == "fp32" else f"{out}+{self.precision}"

    @property
    def encoder(self) -> Any:
        return load_encoder(self.device)

    def _prepare(self, texts: Sequence[str]) -> list[str]:
        """Validate texts and cut overlong ones to ``max_chars`` (with a warning)."""
        out = []
        for i, text in enumerate(check_text_list(texts, "texts")):
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

    def share_cores(self, processes: int) -> None:
        """Score as one of ``processes`` processes on this machine: at most
        ``usable_cores() // processes`` threads (:func:`arts_metric.device.cpu_threads`)."""
        cpu_threads(processes=processes)  # checks the value
        self.processes = processes

    @property
    def threads_in_use(self) -> int:
        """The encoder passes this judge runs at once on the CPU (each on one torch thread)."""
        return cpu_threads(self.threads, self.processes)

    def _show_progress(self, n: int) -> bool:
        return bool(self.progress if self.progress is not None else n >= 2000)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """MiniLM sentence embeddings as the judge reads them (:func:`sentence_embeddings`,
        batch-independent), ``(n, 384)`` float32, unit length."""
        texts = list(texts)
        return sentence_embeddings(
            texts, self.device, self._show_progress(len(texts)), self.threads_in_use, self.precision
        )

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
        rep = self._represent(texts)
        return np.hstack([rep, text_features(texts)])

    def _represent(self, texts: list[str]) -> np.ndarray:
        """MiniLM's part of the model inputs (:attr:`threads_in_use` passes at once on the CPU)."""
        if self.model.layers is None:
            return self.embed(texts)
        return layer_means(
            texts,
            self.model.layers,
            self.device,
            self._show_progress(len(texts)),
            self.threads_in_use,
            self.precision,
        )

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
        ARTS300/3000, learned-4's head judges the source harder 77% of the time against
        65% for the pointwise difference (learned-1's: 74% against 68%; ``close_pair_head``
        in ``model.json``). Antisymmetric: ``P(a, b) = 1 - P(b, a)``.
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
    ``learned:v1`` ... ``learned:v4`` -> that shipped version (learned-1 reproduces the
    published numbers); ``learned:PATH`` -> weights in folder PATH (``model.json`` +
    weights as written by ``scripts/train_learned_judge.py``)."""
    from arts_metric.options import convert_options, option_types

    # Options may come as text (a build's --rater 'learned progress=false'): converted by their declared types.
    kwargs = convert_options(kwargs, option_types(LearnedJudge, exclude=("weights",)), "the learned judge")
    rest = rest.strip()
    return LearnedJudge(weights=rest or None, **kwargs)
