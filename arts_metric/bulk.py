"""Scoring a ``datasets.Dataset`` of one's own texts in bulk.

:func:`score_dataset` places every text of a column in a frozen pool (see
:mod:`arts_metric.placement`) batch by batch with ``Dataset.map`` (progress
bar from ``datasets``) and returns the dataset with four new columns:

- ``arts``: ARTS score in [0, 1], higher = harder (share of pool texts rated easier);
- ``arts_elo``: the same placement on the pool's Elo scale;
- ``interval``: ``[low, high]`` ARTS interval at ``level``, for judges placed
  by sampled pairwise decisions (``None`` for the learned judge, which plays
  every pool text: there is no sampling interval);
- ``judge_calls``: pairwise judge decisions spent on the row.

Rows whose text got no usable judge answer get ``None``. Long texts are cut
into sentence units exactly as ``compute()`` does: the settings are the same
:class:`arts_metric.config.ScoringConfig` (its ``formulas`` are not used here).
Judges that cost money keep their own cache, so an interrupted run resumes from it.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from arts_metric.config import ScoringConfig
from arts_metric.pool import Pool
from arts_metric.units import place_texts

COLUMNS = ("arts", "arts_elo", "interval", "judge_calls")


def _num(x: float) -> float | None:
    return None if x is None or math.isnan(float(x)) else float(x)


def score_dataset(
    dataset: Any,
    text_column: str = "text",
    *,
    batch_size: int = 1024,
    prefix: str = "",
    overwrite: bool = False,
    config: ScoringConfig | None = None,
    **settings: Any,
) -> Any:
    """Return ``dataset`` with ARTS score columns for ``text_column``.

    Args:
        dataset: a ``datasets.Dataset``.
        text_column: the column holding the texts (non-empty strings).
        batch_size: texts placed together (one adaptive calibration per batch).
        prefix: put before the new column names (e.g. ``"source_"``).
        overwrite: replace existing columns of the same names instead of raising.
        config, settings: the scoring settings (``judge=``, ``pool=``,
            ``placement=``, ``placement_options=``, ``long_texts=``, ...), fields of
            :class:`~arts_metric.config.ScoringConfig` applied over ``config``.
    """
    config = ScoringConfig.from_settings(settings, base=config)
    if not (hasattr(dataset, "column_names") and hasattr(dataset, "map")):
        raise ValueError(f"dataset must be a datasets.Dataset, got {type(dataset).__name__}")
    if text_column not in dataset.column_names:
        raise ValueError(f"dataset has no column {text_column!r}; columns: {', '.join(dataset.column_names)}")
    names = [prefix + c for c in COLUMNS]
    clash = [c for c in names if c in dataset.column_names]
    if clash and not overwrite:
        raise ValueError(f"dataset already has column(s) {', '.join(clash)}; pass overwrite=True or a prefix")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    judge_obj = config.make_judge()
    pool_obj: Pool = config.make_pool(judge_obj)
    if clash:
        dataset = dataset.remove_columns(clash)

    def score_batch(texts: list, indices: list[int]) -> dict[str, list]:
        for text, i in zip(texts, indices):
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"row {i}: column {text_column!r} must hold a non-empty string, got {text!r:.60}")
        label = f"{text_column} (batch from row {indices[0]})"
        placed = place_texts(texts, judge_obj, pool_obj, config, label=label)
        iv = placed["arts_interval"]
        if iv is None:
            intervals = [None] * len(texts)
        else:
            intervals = [None if math.isnan(lo) else [float(lo), float(hi)] for lo, hi in iv]
        return {
            names[0]: [_num(x) for x in placed["arts"]],
            names[1]: [_num(x) for x in placed["arts_elo"]],
            names[2]: intervals,
            names[3]: placed["calls_per_text"],
        }

    # An explicit fingerprint: datasets would otherwise hash the judge object. Every
    # setting that changes the scores is in it (two runs that differ must not share
    # a fingerprint: later maps would reuse each other's cache files); secrets are not.
    c = config
    judge_fp = {k: ("<secret>" if "key" in k.lower() else v) for k, v in c.judge_options.items()}
    key = json.dumps(
        [getattr(dataset, "_fingerprint", ""), judge_obj.name, judge_fp, pool_obj.name,
         hashlib.sha256(pool_obj.ratings.tobytes()).hexdigest(), c.placement,
         c.placement_options, text_column, prefix, c.long_texts, c.chunk_chars, c.split_above],
        sort_keys=True,
        default=str,
    )
    return dataset.map(
        score_batch,
        input_columns=[text_column],
        with_indices=True,
        batched=True,
        batch_size=batch_size,
        load_from_cache_file=False,
        new_fingerprint=hashlib.sha256(key.encode()).hexdigest()[:32],
        desc="ARTS placement",
    )
