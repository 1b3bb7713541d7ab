"""A guard against outputs that drop their source's content: the cosine similarity of
an output's MiniLM sentence embedding to its source's (the encoder the learned judge
loads, offline).

It is a guard, not a meaning metric: a faithful but strongly reworded simplification
also scores lower than a light edit, so report a real meaning metric (e.g. BERTScore,
SARI against references) next to ARTS. Outputs below :data:`FLAG_BELOW` share little
with their source and are counted as flagged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

#: Outputs whose similarity to their source is below this are flagged (they may have dropped content).
FLAG_BELOW = 0.5

#: The caveat shown with the column.
SIMPLICITY_ONLY = (
    "ARTS measures how simple outputs are, not whether they keep their sources' meaning: a system that cuts "
    "its sources short can rank as simple as a good one, so report a meaning metric (e.g. BERTScore against "
    "the sources, or SARI with references) beside it"
)

MEANING_NOTE = (
    f"meaning kept: cosine similarity of each output to its source (MiniLM sentence embeddings, 1 = same "
    f"meaning, about 0 = unrelated), mean per system; in brackets the outputs below {FLAG_BELOW:g}, which may "
    "have dropped content. A guard, not a meaning metric: strong rewrites score lower too, so report a "
    "meaning metric beside ARTS"
)


def meaning_kept(outputs: Mapping[str, Sequence[str]], sources: Sequence[str], device: str = "cpu") -> pd.DataFrame:
    """Per system: ``meaning_kept`` (mean similarity of its outputs to their sources, in
    [-1, 1], higher = closer) and ``meaning_flagged`` (how many are below :data:`FLAG_BELOW`).

    Raises
    ------
    ValueError
        When a system's outputs are not one per source.
    """
    from arts_metric.judges.learned.encoder import sentence_embeddings

    for name, texts in outputs.items():
        if len(texts) != len(sources):
            raise ValueError(f"system {name!r} has {len(texts)} outputs for {len(sources)} sources")
    src = sentence_embeddings(list(sources), device=device)
    rows = []
    for name, texts in outputs.items():
        sim = np.einsum("ij,ij->i", sentence_embeddings(list(texts), device=device), src, dtype=np.float64)
        rows.append(
            {"system": name, "meaning_kept": float(sim.mean()), "meaning_flagged": int((sim < FLAG_BELOW).sum())}
        )
    return pd.DataFrame(rows)
