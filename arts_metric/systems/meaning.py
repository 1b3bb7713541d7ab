"""A guard against outputs that drop their source's content, from the MiniLM sentence
embeddings of the encoder the learned judge loads (offline).

Two checks per output:

- **unrelated**: the cosine similarity of the output to its source is below
  :data:`FLAG_BELOW`: the output shares little with its source.
- **cut short**: the output is closer to the first half of its source (in words)
  than to the whole source, by more than :data:`HEAD_OVER_WHOLE`, and closer to that
  first half than to the second, by more than :data:`HEAD_OVER_TAIL`: it keeps the
  beginning and drops the end (a system that keeps the first words of each source).
  Similarity alone misses this: a source's first nine words stay close to it.

It is a guard, not a meaning metric: a faithful but strongly reworded simplification
also scores lower than a light edit, and real simplifications that leave out a
clause are flagged too, so report a real meaning metric (e.g. BERTScore, SARI
against references) next to ARTS. ``benchmarks/meaning_guard.py`` measures how
often it flags real simplifications and truncated sources.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

#: Outputs whose similarity to their source is below this are flagged (they may have dropped content).
FLAG_BELOW = 0.5
#: Cut short: similarity to the source's first half minus similarity to the whole source above this ...
HEAD_OVER_WHOLE = 0.075
#: ... and similarity to the first half minus similarity to the second half above this.
HEAD_OVER_TAIL = 0.2

#: The caveat shown with the column.
SIMPLICITY_ONLY = (
    "ARTS measures how simple outputs are, not whether they keep their sources' meaning: a system that cuts "
    "its sources short can rank as simple as a good one, so report a meaning metric (e.g. BERTScore against "
    "the sources, or SARI with references) beside it"
)

MEANING_NOTE = (
    f"meaning kept: cosine similarity of each output to its source (MiniLM sentence embeddings, 1 = same "
    f"meaning, about 0 = unrelated), mean per system; in brackets the outputs flagged as possibly dropping "
    f"content: similarity below {FLAG_BELOW:g}, or cut short (much closer to the first half of its source than "
    "to its second half). A guard, not a meaning metric: strong rewrites score lower too and some faithful "
    "ones are flagged, so report a meaning metric beside ARTS"
)


#: Texts longer than this many words are embedded as the mean of chunks of at most this many
#: (the encoder reads only its first 256 word pieces); shorter texts are one chunk.
CHUNK_WORDS = 150


def _embed(texts: Sequence[str], device: str) -> np.ndarray:
    """Unit-length embeddings, ``(n, 384)`` float64: each text's chunk embeddings, averaged."""
    from arts_metric.judges.learned.encoder import sentence_embeddings

    chunks, owner = [], []
    for i, text in enumerate(texts):
        words = text.split()
        for start in range(0, max(1, len(words)), CHUNK_WORDS):
            chunks.append(" ".join(words[start : start + CHUNK_WORDS]) if len(words) > CHUNK_WORDS else text)
            owner.append(i)
    vectors = sentence_embeddings(chunks, device=device).astype(np.float64)
    out = np.zeros((len(texts), vectors.shape[1]))
    np.add.at(out, np.asarray(owner, dtype=int), vectors)
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def _halves(text: str) -> tuple[str, str]:
    words = text.split()
    cut = max(1, len(words) // 2)
    return " ".join(words[:cut]), " ".join(words[cut:])


def meaning_checks(outputs: Sequence[str], sources: Sequence[str], device: str = "cpu") -> pd.DataFrame:
    """Per output: ``similarity`` to its source (cosine, in [-1, 1], higher = closer),
    ``similarity_head`` and ``similarity_tail`` (to the first and second half of the
    source's words), ``unrelated``, ``cut_short`` and ``flagged`` (either).

    Each value is a function of the output and its source alone. Texts over
    :data:`CHUNK_WORDS` words are embedded chunk by chunk (the mean of the chunks'
    embeddings), so that the end of a long source counts too.

    Raises
    ------
    ValueError
        When there is not one output per source.
    """
    if len(outputs) != len(sources):
        raise ValueError(f"{len(outputs)} outputs for {len(sources)} sources")
    return _checks(_embed(list(outputs), device), _source_embeddings(sources, device))


def _source_embeddings(sources: Sequence[str], device: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Embeddings of each source, of its first half and of its second half (in words)."""
    heads, tails = zip(*(_halves(s) for s in sources)) if sources else ((), ())
    return _embed(list(sources), device), _embed(list(heads), device), _embed(list(tails), device)


def _checks(out: np.ndarray, source: tuple[np.ndarray, np.ndarray, np.ndarray]) -> pd.DataFrame:
    sim, head, tail = (np.einsum("ij,ij->i", emb, out) for emb in source)
    unrelated = sim < FLAG_BELOW
    cut_short = (head - sim > HEAD_OVER_WHOLE) & (head - tail > HEAD_OVER_TAIL)
    return pd.DataFrame(
        {
            "similarity": sim,
            "similarity_head": head,
            "similarity_tail": tail,
            "unrelated": unrelated,
            "cut_short": cut_short,
            "flagged": unrelated | cut_short,
        }
    )


def meaning_kept(outputs: Mapping[str, Sequence[str]], sources: Sequence[str], device: str = "cpu") -> pd.DataFrame:
    """Per system: ``meaning_kept`` (mean similarity of its outputs to their sources, in
    [-1, 1], higher = closer) and ``meaning_flagged`` (how many outputs
    :func:`meaning_checks` flags: unrelated to their source or cut short).

    Raises
    ------
    ValueError
        When a system's outputs are not one per source.
    """
    for name, texts in outputs.items():
        if len(texts) != len(sources):
            raise ValueError(f"system {name!r} has {len(texts)} outputs for {len(sources)} sources")
    source = _source_embeddings(list(sources), device)  # once for every system
    rows = []
    for name, texts in outputs.items():
        checks = _checks(_embed(list(texts), device), source)
        rows.append(
            {
                "system": name,
                "meaning_kept": float(checks["similarity"].mean()),
                "meaning_flagged": int(checks["flagged"].sum()),
            }
        )
    return pd.DataFrame(rows)
