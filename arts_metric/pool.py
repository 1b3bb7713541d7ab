"""Reference pools: texts whose difficulty is already known, as frozen Elo ratings.

A pool is the ruler of ARTS: a new text's score is its rank position among the
pool's ratings. Built-in pools (``arts94``, ``arts300``, ``arts3000``) ship with
this package as ratings and judge scores only (no texts: the texts keep their
corpora's licences); their texts are read from the ARTS data folder only when a
judge needs to see them (an LLM judge playing pool texts).

Your own pool is a path (``.jsonl``, ``.json``, ``.csv``, ``.parquet``), a
``datasets.Dataset`` or a list of dicts with a ``text`` field and optionally an
``elo`` field (the reference rating, higher = harder). Without ``elo`` the pool
is rated by the chosen judge on a seeded match schedule (the paper's method:
4 x N matches, every text plays 8), and those ratings are frozen.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from arts_metric import data as arts_data
from arts_metric.languages import POOL_NAMES as LANGUAGE_POOL_NAMES
from arts_metric.languages.pools import pool_fields
from arts_metric.ratings.elo import K_FACTOR, START_RATING, run_elo
from arts_metric.text.reading import read_rows

if TYPE_CHECKING:
    from arts_metric.judges.base import Judge

DEFAULT_POOL = "arts3000"


@dataclass
class Pool:
    """A frozen reference pool.

    Attributes
    ----------
    name : str
        ``arts3000`` etc., or a label for a user pool.
    ids : list of str
        One identifier per text.
    ratings : numpy.ndarray
        Reference Elo rating per text (higher = harder); never changed by scoring.
    texts : list of str or None
        The texts, or ``None`` for a built-in pool whose texts were not loaded yet.
    judge_scores : dict[str, numpy.ndarray]
        Latent scores of the pool texts by pointwise judges, keyed by judge name.
    reference : str
        Where the ratings come from (e.g. a history file).
    data_dir : str or None
        The ARTS data folder a built-in pool's texts are read from (default
        ``$ARTS_DATA_DIR`` or ``../shared/arts``).
    """

    name: str
    ids: list[str]
    ratings: np.ndarray
    texts: list[str] | None = None
    judge_scores: dict[str, np.ndarray] = field(default_factory=dict)
    reference: str = ""
    data_dir: str | None = None

    def __post_init__(self) -> None:
        self.ratings = np.asarray(self.ratings, dtype=float)
        if len(self.ids) != len(self.ratings):
            raise ValueError(f"pool {self.name}: {len(self.ids)} ids but {len(self.ratings)} ratings")
        if len(self.ratings) < 2:
            raise ValueError(f"pool {self.name}: a pool needs at least 2 texts")
        self._sorted = np.sort(self.ratings)

    def __len__(self) -> int:
        return len(self.ratings)

    def get_texts(self) -> list[str]:
        """The pool's texts; for a built-in pool they are read from the ARTS data folder."""
        if self.texts is None:
            rows = arts_data.load_pool_rows(self.name, self.data_dir)
            by_id = {r["id"]: r["text"] for r in rows}
            missing = [i for i in self.ids if i not in by_id]
            if missing:
                raise ValueError(f"pool {self.name}: ARTS data lacks ids {missing[:5]}")
            self.texts = [by_id[i] for i in self.ids]
        return self.texts

    def arts_of_rating(self, ratings: Sequence[float] | np.ndarray) -> np.ndarray:
        """ARTS score of ratings on this pool's scale: the share of pool texts rated
        lower (easier), ties counted half. In [0, 1], higher = harder."""
        r = np.asarray(ratings, dtype=float)
        below = np.searchsorted(self._sorted, r, side="left")
        not_above = np.searchsorted(self._sorted, r, side="right")
        out = (below + not_above) / (2.0 * len(self._sorted))
        return np.where(np.isnan(r), np.nan, out)


def _resource_pool(name: str) -> dict:
    path = resources.files("arts_metric") / "resources" / "pools" / f"{name}.json"
    if not path.is_file():
        raise FileNotFoundError(
            f"shipped ratings for pool {name!r} are missing ({path}); regenerate them with "
            "`python scripts/train_learned_judge.py`"
        )
    return json.loads(path.read_text(encoding="utf-8"))


@lru_cache(maxsize=8)
def _builtin_pool(name: str) -> Pool:
    meta = _resource_pool(name)
    return Pool(
        name=name,
        ids=list(meta["ids"]),
        ratings=np.asarray(meta["elo"], dtype=float),
        judge_scores={k: np.asarray(v, dtype=float) for k, v in meta.get("judge_scores", {}).items()},
        reference=meta.get("reference", ""),
    )


def pool_from_rows(rows: Sequence[dict], name: str = "custom", judge: Judge | None = None, seed: int = 0) -> Pool:
    """Build a pool from dicts with ``text`` and optional ``id`` / ``elo``.

    Without ``elo`` in every row, ``judge`` rates the pool on a seeded schedule.
    """
    if len(rows) < 2:
        raise ValueError(f"pool {name}: a pool needs at least 2 texts, got {len(rows)}")
    texts, ids, elos = [], [], []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or "text" not in row:
            raise ValueError(f"pool {name}: row {i} has no 'text' field: {row!r:.80}")
        text = row["text"]
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"pool {name}: row {i} has an empty or non-string text: {text!r:.80}")
        texts.append(text)
        ids.append(str(row.get("id", i)))
        elos.append(row.get("elo"))
    if all(e is not None and not (isinstance(e, float) and np.isnan(e)) for e in elos):
        ratings = np.asarray(elos, dtype=float)
        reference = "elo column"
    else:
        if judge is None:
            raise ValueError(f"pool {name}: rows lack an 'elo' rating and no judge was given to rate them")
        ratings = rate_texts(texts, judge, seed=seed)
        reference = f"rated by {judge.name} on a seeded schedule (seed={seed})"
    return Pool(name=name, ids=ids, ratings=ratings, texts=texts, reference=reference)


def rate_texts(
    texts: Sequence[str], judge: "Judge", matches_per_text: int = 4, seed: int = 0, k: float = K_FACTOR
) -> np.ndarray:
    """Rate a set of texts from scratch the ARTS way: a seeded schedule of
    ``matches_per_text * N`` matches (every text plays ``2 * matches_per_text``),
    decided by ``judge``, then Elo in schedule order. A match the judge gave no
    answer to (a failure, not an unusable answer) raises ``ValueError``."""
    from arts_metric.judges.base import is_unanswered
    from arts_metric.ratings.schedule import make_schedule

    n = len(texts)
    pairs = make_schedule(n, matches_per_text, seed)
    decisions = judge.compare([(texts[a], texts[b]) for a, b in pairs])
    missing = sum(is_unanswered(d) for d in decisions)
    if missing:  # Elo is order dependent: ratings without them would not be the pool's ratings
        raise ValueError(
            f"rating the pool: {missing} of {len(pairs)} matches got no answer from judge {judge.name} "
            "(failed or not asked); run again: the judge's cache keeps the answers it got"
        )
    return run_elo(n, ((a, b, d) for (a, b), d in zip(pairs, decisions)), k=k, start=START_RATING)


def load_pool(
    spec: str | os.PathLike | Pool | Sequence[dict] | Any = DEFAULT_POOL,
    judge: Judge | None = None,
    data_dir: str | os.PathLike | None = None,
) -> Pool:
    """Resolve ``pool=`` arguments: a built-in name, a path, a ``datasets.Dataset``,
    a list of dicts, or a :class:`Pool` (returned as is)."""
    if isinstance(spec, Pool):
        return spec
    if isinstance(spec, str) and spec in LANGUAGE_POOL_NAMES:
        return Pool(name=spec, **pool_fields(spec))
    if isinstance(spec, str) and spec in arts_data.BUILTIN_POOLS:
        pool = _builtin_pool(spec)
        if data_dir is not None:
            pool.data_dir = str(data_dir)
        return pool
    if isinstance(spec, (str, os.PathLike)):
        path = Path(spec).expanduser()
        if not path.is_file():
            raise ValueError(
                f"pool {str(spec)!r} is neither a built-in pool ({', '.join(arts_data.BUILTIN_POOLS)}) nor a file"
            )
        return pool_from_rows(read_rows(path), name=path.stem, judge=judge)
    if hasattr(spec, "column_names") and hasattr(spec, "to_list"):  # datasets.Dataset
        return pool_from_rows(
            spec.to_list(), name=getattr(spec, "info", None) and spec.info.dataset_name or "dataset", judge=judge
        )
    if isinstance(spec, Sequence):
        return pool_from_rows(list(spec), judge=judge)
    raise ValueError(f"unsupported pool {spec!r}: give a name, a path, a datasets.Dataset or a list of dicts")
