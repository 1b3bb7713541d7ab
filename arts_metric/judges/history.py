"""A judge that answers from a recorded ARTS history (no model, no HTTP).

``history:PATH`` reads a history file (``{"match", "a", "b", "harder"}`` rows);
``history:POOL/JUDGE/RUN`` (e.g. ``history:arts94/gpt-4-1106-preview/pairwise-run1``)
reads one from the ARTS data folder. The judge needs the pool's texts (index
order) to map texts back to indices: ``texts=[...]``, or ``pool="arts94"``, or
the caller's :class:`~arts_metric.judges.base.JudgeContext` texts (a build's
inputs), or the pool the ``POOL/JUDGE/RUN`` form implies, in this order.

For a pair of texts it returns the recorded decision for that ordered pair, or
the flipped decision of the reversed pair. When a pair was recorded more than
once, the k-th time it is asked within one :meth:`compare` call gets the k-th
record, so replaying a whole schedule in one call reproduces the history's
Elo ratings exactly. Unknown pairs and recorded ``null`` decisions are None
(counted in ``stats.invalid``; unknown ones also in ``stats.extra["unknown_pairs"]``).
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence

from arts_metric import data as arts_data
from arts_metric.judges.base import Decision, Judge, JudgeContext
from arts_metric.options import convert_options, option_types


class HistoryJudge(Judge):
    """Replays recorded decisions (see module docstring). ``texts[i]`` is pool text ``i``."""

    #: A repeated pair gets its k-th record only within one compare() call: ask everything at once.
    preferred_batch = None

    def __init__(self, matches: Sequence[arts_data.Match], texts: Sequence[str], name: str = "history") -> None:
        super().__init__()
        self.name = name
        self.texts = list(texts)
        self._index: dict[str, list[int]] = defaultdict(list)
        for i, t in enumerate(self.texts):
            if not isinstance(t, str):
                raise ValueError(f"texts[{i}] must be a string, got {type(t).__name__}")
            self._index[t].append(i)
            if t.strip() != t:
                self._index[t.strip()].append(i)
        self._records: dict[tuple[int, int], list[float | None]] = defaultdict(list)
        for m in matches:
            for idx in (m.a, m.b):
                if not 0 <= idx < len(self.texts):
                    raise ValueError(
                        f"{name}: match {m.match} names text {idx}, but there are {len(self.texts)} texts"
                    )
            self._records[(m.a, m.b)].append(m.outcome_a)

    def _indices(self, text: str) -> list[int]:
        return self._index.get(text) or self._index.get(text.strip()) or []

    def compare(self, pairs: Sequence[tuple[str, str]]) -> list[Decision]:
        seen: dict[tuple[int, int], int] = defaultdict(int)
        out: list[Decision] = []
        unknown = 0
        for i, pair in enumerate(pairs):
            if isinstance(pair, str) or len(pair) != 2:
                raise ValueError(f"pairs[{i}] must be a pair of two texts, got {pair!r}")
            for j, t in enumerate(pair):
                if not isinstance(t, str):
                    raise ValueError(f"pairs[{i}][{j}] must be a string, got {type(t).__name__}")
            decision, found = self._lookup(pair[0], pair[1], seen)
            if not found:
                unknown += 1
            out.append(decision)
        self.stats.calls += len(out)
        self.stats.cached += len(out) - unknown
        self.stats.invalid += sum(d is None for d in out)
        self.stats.extra["unknown_pairs"] = self.stats.extra.get("unknown_pairs", 0) + unknown
        return out

    def _lookup(self, a: str, b: str, seen: dict) -> tuple[Decision, bool]:
        # Texts that occur twice in a pool give several index candidates; the first
        # candidate pair with a record wins.
        for ia in self._indices(a):
            for ib in self._indices(b):
                for key, flip in (((ia, ib), False), ((ib, ia), True)):
                    recs = self._records.get(key)
                    if recs:
                        k = seen[key]
                        seen[key] += 1
                        s = recs[k % len(recs)]
                        return (None if s is None else (1.0 - s if flip else s)), True
        return None, False


def _resolve(rest: str, data_dir: Any) -> tuple[Path, str | None]:
    path = Path(rest).expanduser()
    if path.is_file():
        return path, None
    parts = rest.strip("/").split("/")
    if len(parts) == 3:
        pool, judge, run = parts
        candidate = arts_data.find_data_dir(data_dir) / "histories" / pool / judge / f"{run}.jsonl"
        if candidate.is_file():
            return candidate, pool
    raise ValueError(f"history {rest!r} is neither a file nor POOL/JUDGE/RUN in the ARTS data")


def from_spec(
    rest: str,
    texts: Sequence[str] | None = None,
    pool: str | None = None,
    data_dir: str | os.PathLike | None = None,
    context: JudgeContext | None = None,
    **kwargs: Any,
) -> HistoryJudge:
    """Factory for ``get_judge("history:...")``; option values may be given as text."""
    if kwargs:
        raise ValueError(
            f"unknown options for the history judge: {', '.join(sorted(kwargs))} (known: {', '.join(OPTION_TYPES)})"
        )
    if not rest:
        raise ValueError("the history judge needs a file: 'history:PATH' or 'history:POOL/JUDGE/RUN'")
    given = convert_options({"texts": texts, "pool": pool, "data_dir": data_dir}, OPTION_TYPES, "the history judge")
    texts, pool, data_dir = given["texts"], given["pool"], given["data_dir"]
    if context is not None:
        if texts is None and pool is None:
            texts = context.texts
        if data_dir is None:
            data_dir = context.data_dir
    path, implied_pool = _resolve(rest, data_dir)
    rows = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}, line {n}: not valid JSON ({exc.msg})") from None
    matches = arts_data.parse_history(rows, source=str(path))
    if texts is None:
        pool = pool or implied_pool
        if pool is None:
            raise ValueError("the history judge needs the pool texts: texts=[...] (index order) or pool='arts94'")
        texts = [r["text"] for r in arts_data.load_pool_rows(pool, data_dir)]
    return HistoryJudge(matches, texts, name=f"history:{rest}")


#: The history judge's options and their declared types.
OPTION_TYPES = option_types(from_spec, exclude=("rest", "context"))
