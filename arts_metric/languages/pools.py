"""The built-in pools of the languages other than English: ``readmepp_ar``,
``readmepp_fr``, ``readmepp_hi`` and ``readmepp_ru``.

Each holds README++'s train and validation sentences of its language (Naous et al.
2024, MIT licence: see ``resources/language_pools/LICENSE-README++``), shipped with
the texts, their human CEFR levels, their Elo ratings and the language judge's
scores of them. The ratings are on the Elo scale of the English ARTS pools: the
ARTS method (start 1200, K = 16, a seeded schedule of 4 x N matches) with each
match decided by the human CEFR levels, equal levels a draw
(``scripts/train_language_judges.py``).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

import numpy as np

from arts_metric.languages import POOL_NAMES


@lru_cache(maxsize=8)
def _read(name: str) -> dict:
    if name not in POOL_NAMES:
        raise ValueError(f"unknown language pool {name!r}; known: {', '.join(POOL_NAMES)}")
    path = resources.files("arts_metric") / "resources" / "language_pools" / f"{name}.json"
    if not path.is_file():
        raise FileNotFoundError(
            f"the shipped pool {name!r} is missing ({path}); regenerate it with `python scripts/train_language_judges.py`"
        )
    return json.loads(path.read_text(encoding="utf-8"))


def pool_fields(name: str) -> dict:
    """The fields of the built-in pool ``name`` (``readmepp_fr`` ...) for
    :class:`~arts_metric.pool.Pool`: ``ids``, ``ratings`` (Elo), ``texts``,
    ``judge_scores`` and ``reference``, fresh arrays each call (placement may add judge
    scores to a pool). :func:`arts_metric.pool.load_pool` builds the pool from them."""
    meta = _read(name)
    return {
        "ids": list(meta["ids"]),
        "ratings": np.asarray(meta["elo"], dtype=float),
        "texts": list(meta["texts"]),
        "judge_scores": {k: np.asarray(v, dtype=float) for k, v in meta.get("judge_scores", {}).items()},
        "reference": meta.get("reference", ""),
    }


def pool_levels(name: str) -> np.ndarray:
    """The human CEFR level (1 = A1 ... 6 = C2) of each text of pool ``name``."""
    return np.asarray(_read(name)["cefr"], dtype=int)
