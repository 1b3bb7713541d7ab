"""Scoring a ``datasets.Dataset`` of one's own texts in bulk.

:func:`score_dataset` places every text of a column in a frozen pool (see
:mod:`arts_metric.placement`) batch by batch with ``Dataset.map`` (progress
bar from ``datasets``) and returns the dataset with four new columns:

- ``arts``: ARTS score in [0, 1], higher = harder (share of pool texts rated easier);
- ``arts_elo``: the same placement on the pool's Elo scale;
- ``interval``: ``[low, high]`` ARTS interval at ``level``, for judges placed
  by sampled pairwise decisions (``None`` for the learned judge, which plays
  every pool text: there is no sampling interval);
- ``judge_calls``: judge calls spent on the row's own text (a placement's
  calibration and a pointwise judge's scoring of the pool are shared, so
  they are in no row).

A text without a word (:mod:`arts_metric.text.wordless`: punctuation, digits or
symbols only, or a letter alone) is not sent to the judge: it gets ``arts``
1.0 (the hardest end), ``arts_elo`` at the top of the pool's scale, no
interval and 0 judge calls, with a warning naming its row, as in ``compute()``.

Rows whose text got no usable judge answer get ``None`` (also rows whose
judge request failed: a rerun fills them in from the judge's cache and new
requests). Long texts are cut into sentence units exactly as ``compute()``
does: the settings are the same :class:`arts_metric.scoring.config.ScoringConfig`
(its ``formulas`` are not used here). Judges that cost money keep their own
cache, so an interrupted run resumes from it.

A row's values depend on its text and the settings only: the same with any
``batch_size``, in any order and with any ``num_proc`` (each text's placement
draws from its own random stream, see :mod:`arts_metric.placement.streams`).
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from arts_metric.llm.budget import Budget
from arts_metric.pool import Pool
from arts_metric.scoring.config import ScoringConfig
from arts_metric.scoring.scorer import Scorer, split_settings
from arts_metric.scoring.units import place_texts
from arts_metric.text.wordless import RULE, WORDLESS_ARTS, top_rating, wordless_indices
from arts_metric.userwarnings import warn as warn_user

COLUMNS = ("arts", "arts_elo", "interval", "judge_calls")


def _num(x: float) -> float | None:
    return None if x is None or math.isnan(float(x)) else float(x)


def score_columns(texts: list, scorer: Scorer, labels: list[str], label: str, prefix: str = "") -> dict[str, list]:
    """The score columns (:data:`COLUMNS`, each name after ``prefix``) of ``texts``, placed together
    with ``scorer``; ``labels[i]`` names text ``i`` in the error for an empty or non-string text,
    ``label`` names the batch in warnings."""
    for text, where in zip(texts, labels):
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{where}: the text is empty, missing or not a string ({text!r:.60})")
    fixed = wordless_indices(texts)
    if fixed:
        shown = "; ".join(labels[i] for i in fixed[:10]) + (f" and {len(fixed) - 10} more" if len(fixed) > 10 else "")
        warn_user(f"texts without a word (fewer than two letters in a row) {RULE}: {shown}")
    keep = sorted(set(range(len(texts))) - set(fixed))
    arts: list = [WORDLESS_ARTS] * len(texts)
    elo: list = [top_rating(scorer.pool.ratings)] * len(texts)
    intervals: list = [None] * len(texts)  # no placement: no sampling interval
    calls = [0] * len(texts)
    if keep:
        placed = place_texts([texts[i] for i in keep], scorer, names=[f"{label}[{i}]" for i in keep])
        iv = placed.arts_interval
        for k, i in enumerate(keep):
            arts[i], elo[i], calls[i] = _num(placed.arts[k]), _num(placed.arts_elo[k]), placed.calls_per_text[k]
            if iv is not None and not math.isnan(iv[k][0]):
                intervals[i] = [float(iv[k][0]), float(iv[k][1])]
    names = [prefix + c for c in COLUMNS]
    return {names[0]: arts, names[1]: elo, names[2]: intervals, names[3]: calls}


def score_dataset(
    dataset: Any,
    text_column: str = "text",
    *,
    batch_size: int = 1024,
    num_proc: int | None = None,
    prefix: str = "",
    overwrite: bool = False,
    config: ScoringConfig | None = None,
    **settings: Any,
) -> Any:
    """Return ``dataset`` with ARTS score columns for ``text_column``.

    Parameters
    ----------
    dataset : datasets.Dataset
        The dataset to score.
    text_column : str
        The column holding the texts (non-empty strings).
    batch_size : int
        Texts placed together (per call to the judge; the values do not depend on it).
    num_proc : int or None
        Worker processes (``Dataset.map``'s ``num_proc``); None or 1 = this
        process. Each worker gets its own copy of the judge, so a judge with a
        ``max_requests`` / ``max_cost`` limit needs ``num_proc=1``; the learned
        judge's workers share the cores (at most ``cores // num_proc`` torch
        threads each), so ``num_proc`` processes never run more threads than cores.
    prefix : str
        Put before the new column names (e.g. ``"source_"``).
    overwrite : bool
        Replace existing columns of the same names instead of raising.
    config : ScoringConfig or None
        The scoring settings to start from (default: every default).
    **settings
        Fields of :class:`~arts_metric.scoring.config.ScoringConfig` (``judge=``, ``pool=``,
        ``placement=``, ``placement_options=``, ``long_texts=``, ...) applied over
        ``config``; ``judge=`` may be a built Judge and ``pool=`` a built Pool, used
        as they are.

    Returns
    -------
    datasets.Dataset
        ``dataset`` with the columns ``arts``, ``arts_elo``, ``interval`` and
        ``judge_calls`` added (``prefix`` before their names).
    """
    config, built = split_settings(settings, base=config)
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
    if num_proc is not None and (isinstance(num_proc, bool) or not isinstance(num_proc, int) or num_proc < 1):
        raise ValueError(f"num_proc must be a positive integer or None, got {num_proc!r}")
    judge_obj = built["judge"] if "judge" in built else config.make_judge()
    budget = getattr(judge_obj, "budget", None)
    if (num_proc or 1) > 1 and isinstance(budget, Budget) and budget.limited:
        raise ValueError(
            f"num_proc={num_proc} with a judge limited by max_requests / max_cost: every worker process "
            "would get the whole limit; use num_proc=1"
        )
    scorer = Scorer.prepare(config, judge_obj, built.get("pool"))
    if (num_proc or 1) > 1:
        scorer.ask_calibration()  # here, once: the workers read the answers from the judge's cache
    pool_obj: Pool = scorer.pool
    if clash:
        dataset = dataset.remove_columns(clash)

    def score_batch(texts: list, indices: list[int]) -> dict[str, list]:
        labels = [f"row {i}: column {text_column!r}" for i in indices]
        return score_columns(texts, scorer, labels, f"{text_column} (batch from row {indices[0]})", prefix)

    # An explicit fingerprint: datasets would otherwise hash the judge object. The
    # signature names every setting that changes the scores (two runs that differ must
    # not share a fingerprint: later maps would reuse each other's cache files), and no
    # secret; the pool's ratings are hashed too, for pools that share a name.
    key = json.dumps(
        [
            getattr(dataset, "_fingerprint", ""),
            scorer.signature,
            hashlib.sha256(pool_obj.ratings.tobytes()).hexdigest(),
            text_column,
            prefix,
        ]
    )
    # Workers share the cores: each runs at most cores // num_proc torch threads.
    share = getattr(judge_obj, "share_cores", None)
    before = getattr(judge_obj, "processes", 1)
    if share is not None and (num_proc or 1) > 1:
        share(num_proc)
    try:
        return _map(dataset, score_batch, text_column, batch_size, num_proc, key)
    finally:
        if share is not None:
            share(before)


def _map(dataset: Any, fn: Any, text_column: str, batch_size: int, num_proc: int | None, key: str) -> Any:
    return dataset.map(
        fn,
        input_columns=[text_column],
        with_indices=True,
        batched=True,
        batch_size=batch_size,
        num_proc=num_proc if (num_proc or 1) > 1 else None,
        load_from_cache_file=False,
        new_fingerprint=hashlib.sha256(key.encode()).hexdigest()[:32],
        desc="ARTS placement",
    )
