"""The build pipeline: texts -> seeded schedule -> raters -> majority -> Elo -> scores -> dataset folder.

The paper's method (sections 3-5) as one resumable pipeline:

1. **Texts** from a file, a ``datasets`` dataset or a built-in pool
   (:func:`arts_metric.build.inputs.load_input`).
2. **Schedule**: :func:`arts_metric.schedule.make_schedule` (``matches_per_text
   * N`` matches, every text in ``2 * matches_per_text`` of them), or a fixed
   one (e.g. a published ``pairs/*.json``).
3. **Raters**: any judge spec (``openai:<model>``, ``history:<path>``,
   ``learned``, ...) with keyword arguments such as ``persona=medical``, and
   humans (``human:<name>``) who rate in the web interface
   (:mod:`arts_metric.web`). Every rater gets the same schedule.
4. **Majority** of the raters per match, ties broken with a seeded coin
   (:func:`arts_metric.agreement.majority_vote`).
5. **Elo** over the majority in schedule order (winner = harder text, K=16,
   start 1200), then **scores** ``(rank - 1) / (N - 1)`` in [0, 1], higher =
   harder (:func:`arts_metric.elo.rank_scale`); :mod:`arts_metric.build.aggregate`.
6. **Export** of the folder as a Hugging Face dataset (:mod:`arts_metric.build.export`).

Everything a rater decides is written to ``OUT/build.sqlite`` (SQLite, WAL) as
one row per (rater, match) the moment it is made. Running the same build again
continues where it stopped: matches already decided are never asked again.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from arts_metric import __version__
from arts_metric.build.aggregate import BuildResult, IncompleteRatingsError, aggregate
from arts_metric.build.export import write_dataset
from arts_metric.build.inputs import load_input, normalise_rows
from arts_metric.build.specs import HUMAN_PREFIX, RaterConfig, parse_rater, slug, unique_names
from arts_metric.build.store import STORE_NAME, DecisionStore, now_iso
from arts_metric.schedule import (
    DEFAULT_MATCHES_PER_TEXT,
    make_schedule,
    schedule_stats,
    validate_schedule,
)


def prepare(
    out_dir: str | os.PathLike,
    rows: Sequence[dict],
    matches_per_text: int = DEFAULT_MATCHES_PER_TEXT,
    seed: int = 0,
    pairs: Sequence[Sequence[int]] | None = None,
    source: str = "",
) -> DecisionStore:
    """Create (or reopen and check) the build folder: texts, schedule and metadata in the store.

    ``rows`` are dicts with ``text`` and optionally ``id`` (as from :func:`load_input`).

    ``pairs`` fixes the schedule (e.g. a published ``pairs/*.json``); otherwise
    it is :func:`make_schedule(len(rows), matches_per_text, seed)`.
    """
    rows = normalise_rows(rows, "text", "id", source or "rows")
    n = len(rows)
    if pairs is None:
        sched = make_schedule(n, matches_per_text, seed)
        schedule_desc = {"kind": "seeded", "matches_per_text": matches_per_text, "seed": seed}
    else:
        sched = validate_schedule(pairs, n)
        h = hashlib.sha256(json.dumps([list(p) for p in sched]).encode()).hexdigest()
        schedule_desc = {"kind": "fixed", "sha256": h}
    store = DecisionStore(Path(out_dir) / STORE_NAME)
    try:
        store.initialise(rows, sched, {
            "schedule": schedule_desc,
            "schedule_stats": schedule_stats(sched, n),
            "seed": seed,
            "source": source,
            "created": now_iso(),
            "arts_metric_version": __version__,
        })
    except Exception:
        store.close()
        raise
    return store


def _hard(p: float | None) -> float | None:
    """A judge's P(a harder) -> 1.0 (a harder), 0.0 (b harder) or None (no usable answer / exact tie)."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return None
    if p > 0.5:
        return 1.0
    if p < 0.5:
        return 0.0
    return None


def run_rater(
    store: DecisionStore,
    cfg: RaterConfig,
    batch_size: int = 32,
    retry_invalid: bool = False,
    progress: bool = True,
    data_dir: str | os.PathLike | None = None,
) -> dict:
    """Ask one machine rater every undecided match of the schedule, storing each batch as it returns.

    ``batch_size`` pairs go to ``judge.compare`` at a time (an ``openai:``
    judge sends them concurrently); decisions are committed per batch. A run
    killed mid-batch loses only that batch's unstored decisions, and an
    ``openai:`` judge does not pay for them twice: its own SQLite cache keeps
    every answer as it arrives, so the rerun reads them from there. Matches
    decided earlier are skipped; ``retry_invalid`` asks again where the stored
    answer was unusable (NULL: no answer, or P = 0.5 exactly, e.g. both orders
    contradicting). Returns the judge's info (name, prompt version, stats).
    """
    from tqdm.auto import tqdm

    from arts_metric.judges import JudgeContext, get_judge

    if cfg.is_human:
        raise ValueError(f"rater {cfg.name!r} is a human: they rate in the web interface (`arts rate`)")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    store.add_rater(cfg)
    pairs = store.pairs()
    if retry_invalid:
        store.forget(cfg.name, [r["match"] for r in store.history(cfg.name) if r["harder"] is None])
    done = store.decided(cfg.name)
    todo = [m for m in range(len(pairs)) if m not in done]
    if not todo:
        return store.rater_info(cfg.name)
    texts = store.texts()
    owned = cfg.judge is None  # close only judges we made
    try:
        context = JudgeContext(texts=texts, data_dir=data_dir)
        judge = get_judge(cfg.spec, context=context, **cfg.kwargs) if owned else cfg.judge
    except TypeError as exc:
        raise ValueError(f"rater {cfg.name!r}: judge {cfg.spec!r} does not accept {sorted(cfg.kwargs)}: {exc}") from None
    step = len(todo) if judge.preferred_batch is None else batch_size
    bar = tqdm(total=len(pairs), initial=len(pairs) - len(todo), desc=f"rater {cfg.name}",
               unit="match", disable=not progress, file=sys.stderr)
    try:
        with judge.quiet():  # the build shows one bar per rater
            for start in range(0, len(todo), step):
                batch = todo[start:start + step]
                t0 = time.perf_counter()
                answers = judge.compare([(texts[pairs[m][0]], texts[pairs[m][1]]) for m in batch])
                if len(answers) != len(batch):
                    raise RuntimeError(f"judge {cfg.spec} returned {len(answers)} answers for {len(batch)} pairs")
                per = (time.perf_counter() - t0) / len(batch)
                for m, p in zip(batch, answers):
                    s = _hard(p)
                    a, b = pairs[m]
                    harder = None if s is None else (a if s == 1.0 else b)
                    store.record(cfg.name, m, harder, None if p is None else float(p), per)
                bar.update(len(batch))
    finally:
        bar.close()
        info = judge.describe()
        prev = store.rater_info(cfg.name)
        if "stats" in prev and "stats" in info:  # accumulate across resumed runs
            for k, v in prev["stats"].items():
                if isinstance(v, (int, float)) and isinstance(info["stats"].get(k), (int, float)):
                    info["stats"][k] += v
        store.set_rater_info(cfg.name, info)
        if owned:
            judge.close()
    return info


def build(
    source: Any,
    raters: Sequence[RaterConfig | str],
    out_dir: str | os.PathLike,
    matches_per_text: int = DEFAULT_MATCHES_PER_TEXT,
    seed: int = 0,
    pairs: Sequence[Sequence[int]] | None = None,
    name: str | None = None,
    text_column: str = "text",
    id_column: str = "id",
    split: str = "train",
    batch_size: int = 32,
    retry_invalid: bool = False,
    license: str = "unknown",
    language: str | None = None,
    progress: bool = True,
    data_dir: str | os.PathLike | None = None,
    command: str | None = None,
) -> BuildResult:
    """Run the whole pipeline (module docstring) and write ``out_dir`` as a dataset.

    ``raters`` are :class:`RaterConfig` or CLI strings (``"openai:gpt-4o
    persona=medical runs=3"``); ``human:*`` stands for every human who rated
    in the web interface. Machine raters run first and are stored as they
    decide; if a human has not finished, :class:`IncompleteRatingsError` is
    raised after the machine raters are saved (rerun later to continue).
    The folder is then exported (:func:`arts_metric.build.export.write_dataset`).
    """
    cfgs: list[RaterConfig] = []
    for r in raters:
        cfgs.extend(parse_rater(r) if isinstance(r, str) else [r])
    if not cfgs:
        raise ValueError("give at least one rater (e.g. --rater openai:gpt-4o or --rater human:alice)")
    rows, desc = load_input(source, text_column, id_column, split, data_dir)
    out = Path(out_dir)
    store = prepare(out, rows, matches_per_text, seed, pairs, source=desc)
    try:
        # human:* expands to the humans who have used the web interface on this build
        expanded: list[RaterConfig] = []
        nobody = False
        for c in cfgs:
            if c.is_human and c.spec == f"{HUMAN_PREFIX}:*":
                humans = [r for r in store.raters() if r["spec"].split(":", 1)[0] == HUMAN_PREFIX]
                nobody = nobody or not humans
                # each keeps the group given to them by name earlier, unless human:* sets one
                expanded.extend(RaterConfig(r["spec"], r["name"], r["group"] if c.group == HUMAN_PREFIX else c.group)
                                for r in humans)
            else:
                expanded.append(c)
        # a person is one rater however often they are named (human:alice and human:*)
        seen_humans: set[str] = set()
        expanded = [c for c in expanded if not c.is_human or not (c.name in seen_humans or seen_humans.add(c.name))]
        cfgs = unique_names(expanded)
        for c in cfgs:
            store.add_rater(c)
        for c in cfgs:
            if not c.is_human:
                run_rater(store, c, batch_size=batch_size, retry_invalid=retry_invalid,
                          progress=progress, data_dir=data_dir)
        if nobody:
            raise IncompleteRatingsError(f"no human has rated in {out} yet (human:*)")
        result = aggregate(store, [c.name for c in cfgs], seed=seed)
        dataset_name = name or _default_name(source)
        store.set_meta(name=dataset_name, last_build=now_iso(), **({"command": command} if command else {}))
        write_dataset(result, store, name=dataset_name, license=license, language=language)
        return result
    finally:
        store.close()


def _default_name(source: Any) -> str:
    if isinstance(source, (str, os.PathLike)):
        return slug(Path(source).stem) or "arts-dataset"
    return "arts-dataset"
