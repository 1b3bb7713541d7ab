"""Deterministic, seeded match schedules for building ARTS datasets (paper section 3.3, 4.2).

Terminology, made precise (the paper says "4 matches per text"):

* ``matches_per_text = m`` means the schedule has ``m * N`` matches for ``N``
  texts. Every match involves two texts, so **every text appears in exactly
  ``2 * m`` matches** (the paper's pools: ``m = 4``, ``4 * N`` matches, every
  text appearing 8 times; ARTS94 has 376 matches).
* No text ever meets itself.
* Balanced: every text appears exactly ``2 * m`` times, and is the *first*
  text (``a``, shown on the left) in exactly ``m`` of them, so a judge's
  position bias cannot favour any text.
* Rounds: the schedule is ``2 * m`` rounds of ``N / 2`` matches, each round a
  random pairing in which every text plays once (as in the published ARTS
  schedules). A partial run therefore covers all texts evenly. With an odd
  ``N`` one match per round straddles two rounds.
* Repeated pairs (the same two texts meeting twice) are avoided (best effort,
  by a seeded local search): none once ``N > 2 * m``; in smaller pools, where
  repeats are forced, no two texts meet more than
  ``ceil(m * N / (N * (N - 1) / 2))`` times.

The same ``(N, matches_per_text, seed)`` always gives the same schedule (it
uses Python's :class:`random.Random`, whose seeded sequence is stable across
versions), so every rater, human or model, can be given the same pairs and
their decisions can be combined by majority vote.
"""

from __future__ import annotations

import json
import operator
import os
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Sequence

Pair = tuple[int, int]

DEFAULT_MATCHES_PER_TEXT = 4


def _key(x: int, y: int) -> tuple[int, int]:
    return (x, y) if x < y else (y, x)


def _repair(pairs: list[list[int]], n: int, rng: random.Random, round_size: int) -> None:
    """Swap partners until no pair is a self-match and repeats are gone where possible.

    A swap exchanges the second text of a bad pair with one text of another
    pair, so every text keeps its number of appearances. Partners are looked
    for in the same round first (keeps rounds intact), then anywhere. Swaps
    that do not make things worse are accepted at random (a seeded local
    search, so it cannot get stuck on one arrangement).
    """
    count = Counter(_key(x, y) for x, y in pairs)
    # Most times any two texts may meet: 1 when the pool is large enough,
    # otherwise the fewest repeats that the number of matches forces.
    cap = -(-len(pairs) // (n * (n - 1) // 2))

    def excess(keys: set) -> int:
        return sum(10**6 * count[q] if q[0] == q[1] else max(count[q] - cap, 0) for q in keys)

    def bad(k: int) -> bool:
        x, y = pairs[k]
        return x == y or count[_key(x, y)] > cap

    for sweep in range(60):
        todo = [k for k in range(len(pairs)) if bad(k)]
        if not todo:
            return
        for k in todo:
            for attempt in range(60):
                if not bad(k):
                    break
                r0 = (k // round_size) * round_size
                if sweep < 10 and attempt < 40:
                    j = rng.randrange(r0, min(r0 + round_size, len(pairs)))
                else:
                    j = rng.randrange(len(pairs))
                if j == k:
                    continue
                side = rng.randrange(2)
                (x, y), (u, v) = pairs[k], pairs[j]
                nk = [x, pairs[j][side]]
                nj = [y, v] if side == 0 else [u, y]
                keys = {_key(x, y), _key(u, v), _key(*nk), _key(*nj)}
                before = excess(keys)
                for q, d in ((_key(x, y), -1), (_key(u, v), -1), (_key(*nk), 1), (_key(*nj), 1)):
                    count[q] += d
                after = excess(keys)
                if after < before or (after == before and rng.random() < 0.5):
                    pairs[k], pairs[j] = nk, nj
                else:  # undo
                    for q, d in ((_key(x, y), 1), (_key(u, v), 1), (_key(*nk), -1), (_key(*nj), -1)):
                        count[q] += d
    if any(x == y for x, y in pairs):  # cannot happen for n >= 2; never return a self-match
        raise RuntimeError("could not remove every self-match from the schedule")


def _euler_orient(pairs: list[list[int]], n: int) -> None:
    """Orient every pair so that each text is first in exactly half of its matches.

    Every text has an even number of appearances, so each connected component
    of the match multigraph has an Euler circuit; walking it and orienting each
    edge in walking direction gives in-degree = out-degree everywhere
    (Hierholzer's algorithm, iterative).
    """
    adj: list[list[int]] = [[] for _ in range(n)]
    for e, (x, y) in enumerate(pairs):
        adj[x].append(e)
        adj[y].append(e)
    used = [False] * len(pairs)
    ptr = [0] * n
    for start in range(n):
        if ptr[start] >= len(adj[start]):
            continue
        stack = [(start, -1)]
        while stack:
            v, _ = stack[-1]
            while ptr[v] < len(adj[v]) and used[adj[v][ptr[v]]]:
                ptr[v] += 1
            if ptr[v] == len(adj[v]):
                stack.pop()
                continue
            e = adj[v][ptr[v]]
            used[e] = True
            x, y = pairs[e]
            w = y if x == v else x
            pairs[e] = [v, w]  # walked from v to w: v is first
            stack.append((w, e))


def make_schedule(n: int, matches_per_text: int = DEFAULT_MATCHES_PER_TEXT, seed: int = 0) -> list[Pair]:
    """A deterministic schedule of ``matches_per_text * n`` matches ``(a, b)`` over texts ``0..n-1``.

    Every text appears in exactly ``2 * matches_per_text`` matches, as ``a`` in
    exactly ``matches_per_text`` of them; no text meets itself; the matches come
    in ``2 * matches_per_text`` rounds in which every text plays once (see the
    module docstring). The same arguments always give the same schedule.
    """
    if not isinstance(n, int) or n < 2:
        raise ValueError(f"a schedule needs at least 2 texts, got n={n!r}")
    if not isinstance(matches_per_text, int) or matches_per_text < 1:
        raise ValueError(f"matches_per_text must be a positive integer, got {matches_per_text!r}")
    rng = random.Random(f"arts-schedule:{n}:{matches_per_text}:{int(seed)}")
    seq: list[int] = []
    for _ in range(2 * matches_per_text):
        perm = list(range(n))
        rng.shuffle(perm)
        seq.extend(perm)
    pairs = [[seq[i], seq[i + 1]] for i in range(0, len(seq), 2)]
    _repair(pairs, n, rng, round_size=max(n // 2, 1))
    _euler_orient(pairs, n)
    return [(int(a), int(b)) for a, b in pairs]


def max_matches_per_text(n: int) -> int:
    """The largest ``matches_per_text`` that makes sense for ``n`` texts: ``n - 1``.

    Every text is the first (left) text of ``matches_per_text`` matches and
    has only ``n - 1`` others to meet, so beyond ``n - 1`` some text must be
    shown against the same text, the same way round, more than once: the same
    question again, which adds nothing (an LLM judge's cache answers it
    identically). Up to ``(n - 1) // 2`` no two texts meet twice at all.
    """
    return max(int(n) - 1, 0)


def check_matches_per_text(n: int, matches_per_text: int) -> None:
    """ValueError unless ``1 <= matches_per_text <= max_matches_per_text(n)``, saying the maximum."""
    if not isinstance(matches_per_text, int) or isinstance(matches_per_text, bool) or matches_per_text < 1:
        raise ValueError(f"matches per text must be a positive integer, got {matches_per_text!r}")
    most = max_matches_per_text(n)
    if matches_per_text > most:
        raise ValueError(
            f"{matches_per_text} matches per text is more than {n} texts allow: each text would be shown "
            f"first against the same text more than once; the maximum is {most} for {n} texts "
            f"({(n - 1) // 2} without any two texts meeting twice)"
        )


def validate_schedule(pairs: Sequence[Sequence[int]], n: int) -> list[Pair]:
    """Check that every match names two different texts in ``0..n-1``; return it as tuples.

    Raises ValueError naming the first offending match.
    """
    out: list[Pair] = []
    for i, p in enumerate(pairs):
        try:
            # operator.index: integers only (a float 1.7 or a string "12" is not a text index)
            a, b = (operator.index(x) for x in p)
        except (TypeError, ValueError):
            raise ValueError(f"match {i}: not a pair of text indices: {p!r}") from None
        if not (0 <= a < n and 0 <= b < n):
            raise ValueError(f"match {i}: text index out of range 0..{n - 1}: {p!r}")
        if a == b:
            raise ValueError(f"match {i}: text {a} is scheduled against itself")
        out.append((a, b))
    return out


def schedule_stats(pairs: Sequence[Pair], n: int) -> dict:
    """Appearance counts of a schedule: per-text totals, times first, self-matches, repeats."""
    total = Counter()
    first = Counter()
    for a, b in pairs:
        total[a] += 1
        total[b] += 1
        first[a] += 1
    keys = Counter(_key(a, b) for a, b in pairs)
    return {
        "texts": n,
        "matches": len(pairs),
        "appearances_min": min(total[i] for i in range(n)) if n else 0,
        "appearances_max": max(total[i] for i in range(n)) if n else 0,
        "first_min": min(first[i] for i in range(n)) if n else 0,
        "first_max": max(first[i] for i in range(n)) if n else 0,
        "self_matches": sum(a == b for a, b in pairs),
        "repeated_pairs": sum(c - 1 for c in keys.values() if c > 1),
    }


def save_schedule(path: str | os.PathLike, pairs: Sequence[Pair]) -> None:
    """Write a schedule in the ARTS pairs format (``[[a, b], ...]``, as ``pairs/arts94_pairs.json``)."""
    Path(path).write_text(json.dumps([[int(a), int(b)] for a, b in pairs]) + "\n", encoding="utf-8")


def load_schedule(path: str | os.PathLike, n: int | None = None) -> list[Pair]:
    """Read a schedule: the ARTS pairs format (``[[a, b], ...]``) or, from a
    ``.jsonl`` history, the ``(a, b)`` of its rows in order (to replay recorded
    histories on their own schedule). Validated against ``n`` texts when given."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        if Path(path).suffix.lower() in (".jsonl", ".ndjson"):
            raw = [[r["a"], r["b"]] for r in (json.loads(x) for x in text.splitlines() if x.strip())]
        else:
            raw = json.loads(text)
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"cannot read schedule {path}: {exc!r}") from None
    if not isinstance(raw, list):
        raise ValueError(f"schedule {path}: expected a JSON list of [a, b] pairs")
    try:
        if n is None:
            # the texts the file names; a malformed match is reported by validate_schedule
            n = 1 + max((max(p) for p in validate_schedule(raw, sys.maxsize)), default=-1)
        return validate_schedule(raw, n)
    except ValueError as exc:
        raise ValueError(f"schedule {path}: {exc}") from None


def make_batches(n: int, size: int = 5, seed: int = 0) -> list[list[int]]:
    """Seeded random batches of ``size`` texts for rank-and-rate annotation (README++: batches of 5).

    Every text is in exactly one batch; when ``n`` is not a multiple of
    ``size`` the last batch is shorter, and a leftover single text joins the
    batch before it (a batch of one cannot be ranked). Deterministic per seed.
    """
    if not isinstance(n, int) or n < 2:
        raise ValueError(f"batches need at least 2 texts, got n={n!r}")
    if not isinstance(size, int) or size < 2:
        raise ValueError(f"batch size must be an integer >= 2, got {size!r}")
    order = list(range(n))
    random.Random(f"arts-batches:{n}:{size}:{int(seed)}").shuffle(order)
    batches = [order[i : i + size] for i in range(0, n, size)]
    if len(batches) > 1 and len(batches[-1]) == 1:
        batches[-2].extend(batches.pop())
    return batches
