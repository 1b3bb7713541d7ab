"""Rank-and-rate annotation on a build (README++, after Maddela et al. 2023): batches and answer checks.

A rater orders a batch of five texts from most to least readable (easiest
first), then rates each on the CEFR scale A1 (1) to C2 (6). Batches are
seeded (:func:`arts_metric.ratings.schedule.make_batches`) and the same for every
rater. Answers live in the build's store (:meth:`DecisionStore.record_rank`,
table ``rank_rate``), one row per (rater, batch), written on submit; a batch
already submitted is never asked again. ``arts build`` exports them beside the
dataset (``arts/rank_rate/``).
"""

from __future__ import annotations

from typing import Any, Sequence

from arts_metric.builder.store import DecisionStore
from arts_metric.ratings.schedule import make_batches
from arts_metric.text.cefr import CEFR_LEVELS

BATCH_SIZE = 5


def _index(x: Any) -> int:
    """A text index from JSON (an integer, or a digit string as in an object key); -1 for anything else."""
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    if isinstance(x, str) and x.isascii() and x.isdigit():
        return int(x)
    return -1  # never a text index: the caller's check fails and names the batch


class RankRate:
    """The rank-and-rate task of a build: its seeded batches, the next batch, checked submissions."""

    def __init__(self, store: DecisionStore, size: int = BATCH_SIZE) -> None:
        self.store = store
        store.init_rank_rate()
        seed = int(store.meta().get("seed", 0))
        self.batches = make_batches(len(store.texts()), size, seed)

    def next(self, rater: str, texts: Sequence[str]) -> dict:
        """Progress and the first batch this rater has not submitted (or ``batch: None``)."""
        done_set = self.store.ranked_batches(rater)
        done, total = len(done_set), len(self.batches)
        for i, batch in enumerate(self.batches):
            if i not in done_set:
                return {
                    "done": done,
                    "total": total,
                    "finished": False,
                    "batch": {"batch": i, "texts": [{"index": t, "text": texts[t]} for t in batch]},
                }
        return {"done": done, "total": total, "finished": True, "batch": None}

    def record(self, rater: str, body: dict) -> bool:
        """Validate and store one submitted batch ``{batch, order, cefr, elapsed_ms}``; False if submitted before."""
        try:
            b = int(body["batch"])
        except (KeyError, TypeError, ValueError):
            raise ValueError("rank needs an integer 'batch'") from None
        if not 0 <= b < len(self.batches):
            raise ValueError(f"no batch {b} (0..{len(self.batches) - 1})")
        expected = sorted(self.batches[b])
        order = body.get("order")
        if not isinstance(order, list) or sorted(_index(x) for x in order) != expected:
            raise ValueError(f"batch {b}: 'order' must list the texts {expected} once each, easiest first")
        cefr = body.get("cefr")
        if not isinstance(cefr, dict) or sorted(_index(k) for k in cefr) != expected:
            raise ValueError(f"batch {b}: 'cefr' must give a level for each of the texts {expected}")
        for k, v in cefr.items():
            if v not in CEFR_LEVELS:
                raise ValueError(f"batch {b}: text {k}: CEFR level {v!r} is not one of {', '.join(CEFR_LEVELS)}")
        elapsed = body.get("elapsed_ms")
        elapsed_s = float(elapsed) / 1000 if isinstance(elapsed, (int, float)) else None
        return self.store.record_rank(rater, b, order, cefr, elapsed_s)

    def undo(self, rater: str) -> int | None:
        """Take back this rater's last submitted batch (asked again next); returns it, None if none."""
        return self.store.undo_last_rank(rater)

    def history(self, rater: str) -> list[dict]:
        """Rows ``{batch, ranking (easiest first), cefr {index: level}, cefr_numeric, time}``."""
        return self.store.rank_history(rater)
