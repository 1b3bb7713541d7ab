"""The pool view of a system comparison: every output placed in the reference pool
exactly as ``compute()`` places it, as per-output measures by system.

All outputs (and the sources, for ``arts_delta``) go through one
:func:`arts_metric.scoring.api.score_texts` call with the comparison's
:class:`~arts_metric.scoring.config.ScoringConfig`, so a system's per-output ``arts``
are the numbers ``compute(predictions=that_system's_outputs)`` returns
(identical texts are placed once).
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arts_metric.judges import Judge
from arts_metric.pool import Pool
from arts_metric.scoring.api import score_texts
from arts_metric.scoring.config import ScoringConfig
from arts_metric.systems.inputs import Entries
from arts_metric.text.formulas import HIGHER_IS_HARDER

_ITEM = re.compile(r"\b(predictions|sources|texts)\[(\d+)\]")


@dataclass
class PoolScores:
    """Per-output measures of every entry.

    Attributes
    ----------
    values : measure name -> ``(n_inputs, n_entries)`` array (NaN = no usable score).
        ``arts`` and ``arts_elo`` (higher = harder), ``arts_delta`` with sources
        (``source arts - arts``: positive = output easier), one array per formula.
    harder : measure name -> True if a higher value means a harder text.
    info : what the scoring reports besides the scores (``judge_calls``, ``invalid``,
        ``placement``, ``pool``).
    """

    values: dict[str, np.ndarray]
    harder: dict[str, bool]
    info: dict[str, Any] = field(default_factory=dict)


def _name_item(message: str, entries: Entries) -> str:
    """Point an error about ``predictions[k]`` / ``texts[k]`` of the joint call at the
    entry and input it came from."""
    n, names = entries.n_inputs, entries.names

    def where(m: re.Match) -> str:
        k = int(m.group(2))
        if m.group(1) == "sources" or k >= n * len(names):
            return f"sources[{k % n}]"
        return f"outputs[{names[k // n]!r}][{k % n}]"

    return _ITEM.sub(where, message)


def score_entries(entries: Entries, config: ScoringConfig, judge: Judge, pool: Pool) -> PoolScores:
    """Place every entry's outputs in ``pool`` with ``judge`` and the settings of ``config``
    (built objects, so that the other views share them)."""
    n, k = entries.n_inputs, len(entries.names)
    predictions = [t for texts in entries.outputs for t in texts]
    sources = None if entries.sources is None else list(entries.sources) * k
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = score_texts(predictions, sources=sources, config=config, judge=judge, pool=pool)
        except ValueError as exc:
            raise ValueError(_name_item(str(exc), entries)) from None
    # passed on (outside the recording block) naming the system and input, not the joint call's index
    for w in caught:
        warnings.warn_explicit(_name_item(str(w.message), entries), w.category, w.filename, w.lineno, source=w.source)

    def table(key: str) -> np.ndarray:
        return np.asarray(res[key], dtype=float).reshape(k, n).T

    values = {"arts": table("arts"), "arts_elo": table("arts_elo")}
    harder = {"arts": True, "arts_elo": True}
    if sources is not None:
        values["arts_delta"] = table("arts_delta")
        harder["arts_delta"] = False
        if "p_output_easier" in res:  # judges with a close-pair method (the learned judge)
            values["p_output_easier"] = table("p_output_easier")
            harder["p_output_easier"] = False
    for name in config.formulas:
        values[name] = table(name)
        harder[name] = HIGHER_IS_HARDER[name]
    info = {
        "pool": res["pool"],
        "placement": res["placement"],
        "judge_calls": res["judge_calls"],
        "invalid": res["invalid"],
    }
    return PoolScores(values=values, harder=harder, info=info)
