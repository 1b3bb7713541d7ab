"""The build pipeline: texts -> seeded schedule -> raters -> majority -> Elo -> scores -> dataset folder.

The paper's method (sections 3-5) as one resumable pipeline:

1. **Texts** from a file, a ``datasets`` dataset or a built-in pool
   (:func:`arts_metric.builder.inputs.load_input`).
2. **Schedule**: :func:`arts_metric.ratings.schedule.make_schedule` (``matches_per_text
   * N`` matches, every text in ``2 * matches_per_text`` of them), or a fixed
   one (e.g. a published ``pairs/*.json``).
3. **Raters**: any judge spec (``openai:<model>``, ``history:<path>``,
   ``learned``, ...) with keyword arguments such as ``persona=medical``, and
   humans (``human:<name>``) who rate in the web interface
   (:mod:`arts_metric.web`). Every rater gets the same schedule.
4. **Majority** of the raters per match, ties broken with a seeded coin
   (:func:`arts_metric.ratings.agreement.majority_vote`).
5. **Elo** over the majority in schedule order (winner = harder text, K=16,
   start 1200), then **scores** ``(rank - 1) / (N - 1)`` in [0, 1], higher =
   harder (:func:`arts_metric.ratings.elo.rank_scale`); :mod:`arts_metric.builder.aggregate`.
6. **Export** of the folder as a Hugging Face dataset (:mod:`arts_metric.builder.export`).

Everything a rater decides is written to ``OUT/build.sqlite`` (SQLite, WAL) as
one row per (rater, match) the moment it is made. Only answers are stored: an
invalid answer (the model answered, unusably) is a decision like any other,
while a request that failed after its retries, or that a budget
(``max_requests``, ``max_cost``) did not send, leaves no row. Running the same
build again continues where it stopped: it asks exactly the matches without a
stored answer, never one that has one. The export refuses while any rater
has matches without an answer, unless ``allow_incomplete``.

One build per folder at a time (:class:`arts_metric.builder.lock.BuildLock`);
secrets in rater specs never reach the store, the exported files or a message
(:mod:`arts_metric.builder.specs`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from arts_metric import __version__
from arts_metric.builder.aggregate import BuildResult, IncompleteRatingsError, aggregate
from arts_metric.builder.asking import ask
from arts_metric.builder.export import write_dataset
from arts_metric.builder.inputs import load_input, normalise_rows
from arts_metric.builder.lock import BuildLock
from arts_metric.builder.specs import HUMAN_PREFIX, RaterConfig, parse_rater, public_spec, redact, slug, unique_names
from arts_metric.builder.store import STORE_NAME, DecisionStore, now_iso
from arts_metric.judges.base import Decision, is_unanswered
from arts_metric.ratings.schedule import (
    DEFAULT_MATCHES_PER_TEXT,
    check_matches_per_text,
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
    it is :func:`make_schedule(len(rows), matches_per_text, seed)`, and
    ``matches_per_text`` may be at most ``len(rows) - 1``
    (:func:`arts_metric.ratings.schedule.max_matches_per_text`).
    """
    rows = normalise_rows(rows, "text", "id", source or "rows")
    n = len(rows)
    if pairs is None:
        check_matches_per_text(n, matches_per_text)
        sched = make_schedule(n, matches_per_text, seed)
        schedule_desc = {"kind": "seeded", "matches_per_text": matches_per_text, "seed": seed}
    else:
        sched = validate_schedule(pairs, n)
        h = hashlib.sha256(json.dumps([list(p) for p in sched]).encode()).hexdigest()
        schedule_desc = {"kind": "fixed", "sha256": h}
    store = DecisionStore(Path(out_dir) / STORE_NAME)
    try:
        store.initialise(
            rows,
            sched,
            {
                "schedule": schedule_desc,
                "schedule_stats": schedule_stats(sched, n),
                "seed": seed,
                "source": source,
                "created": now_iso(),
                "arts_metric_version": __version__,
            },
        )
    except Exception:
        store.close()
        raise
    return store


def _hard(p: float | None) -> float | None:
    """A judge's P(a harder) -> 1.0 (a harder), 0.0 (b harder) or None (an invalid answer / exact tie)."""
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
    """Ask one machine rater every match it has no stored answer for, storing each answer as it arrives.

    ``batch_size`` pairs are asked at a time. An ``openai:`` judge sends them
    concurrently and each answer is committed the moment it comes back
    (:mod:`arts_metric.builder.asking`), so a killed run loses only the
    requests in flight, with or without the judge's own cache; other judges
    answer a batch at once and it is committed then.

    A pair the judge returns as :data:`~arts_metric.judges.base.UNANSWERED`
    (failed after retries, or not sent within ``max_requests``/``max_cost``)
    is not stored: the next run asks exactly these (a warning says how many).
    An invalid answer (``None``, or P = 0.5 exactly, e.g. both orders
    contradicting) is stored as a NULL decision and counts as decided;
    ``retry_invalid`` asks those again (an ``openai:`` judge answers them from
    its cache unless given ``retry_invalid=true`` itself). Returns the judge's
    info (name, prompt version, stats, ``missing``: matches still without an
    answer).
    """
    with _without_secrets([cfg.secrets()]):
        return _run_rater(store, cfg, batch_size, retry_invalid, progress, data_dir)


def _run_rater(
    store: DecisionStore,
    cfg: RaterConfig,
    batch_size: int,
    retry_invalid: bool,
    progress: bool,
    data_dir: str | os.PathLike | None,
) -> dict:
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
        store.clear_legacy_nulls(cfg.name)
    elif store.legacy_nulls(cfg.name):
        warnings.warn(
            f"rater {cfg.name}: {store.legacy_nulls(cfg.name)} stored decisions without an answer were written by "
            "an arts-metric version that stored failed requests like invalid answers; they count as invalid. "
            "Add --retry-invalid (retry_invalid=True) to ask them again (an openai: judge answers the truly "
            "invalid ones from its cache, without a request)",
            RuntimeWarning,
            stacklevel=3,
        )
    todo = store.missing(cfg.name)
    if not todo:
        return {**store.rater_info(cfg.name), "missing": 0}
    texts = store.texts()
    owned = cfg.judge is None  # close only judges we made
    try:
        context = JudgeContext(texts=texts, data_dir=data_dir)
        judge = get_judge(cfg.spec, context=context, **cfg.kwargs) if owned else cfg.judge
    except TypeError as exc:
        raise ValueError(
            redact(
                f"rater {cfg.name!r}: judge {public_spec(cfg.spec)!r} does not accept {sorted(cfg.kwargs)}: {exc}",
                cfg.secrets(),
            )
        ) from None
    step = len(todo) if judge.preferred_batch is None else batch_size
    bar = tqdm(
        total=len(pairs),
        initial=len(pairs) - len(todo),
        desc=f"rater {cfg.name}",
        unit="match",
        disable=not progress,
        file=sys.stderr,
    )
    try:
        with judge.quiet():  # the build shows one bar per rater
            for start in range(0, len(todo), step):
                batch = todo[start : start + step]
                answered = 0

                def keep(m: int, p: Decision, seconds: float) -> None:
                    nonlocal answered
                    if is_unanswered(p):  # failed or not sent: no row, asked again next run
                        return
                    s = _hard(p)
                    a, b = pairs[m]
                    harder = None if s is None else (a if s == 1.0 else b)
                    store.record(cfg.name, m, harder, None if p is None else float(p), seconds)
                    answered += 1
                    bar.update(1)

                ask(judge, [(m, (texts[pairs[m][0]], texts[pairs[m][1]])) for m in batch], keep)
                if not answered and judge.describe().get("stats", {}).get("stopped"):
                    break  # the judge's budget is spent: the remaining batches would go unasked too
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
    missing = len(store.missing(cfg.name))
    if missing:
        warnings.warn(
            f"rater {cfg.name}: {missing} of {len(pairs)} matches have no answer (requests failed after "
            "their retries, or were not sent within max_requests/max_cost); run the build again to ask "
            "exactly these",
            RuntimeWarning,
            stacklevel=3,
        )
    return {**info, "missing": missing}


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
    allow_incomplete: bool = False,
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
    answer. If any rater lacks answers (a human still rating, or requests
    that failed or were not sent), :class:`IncompleteRatingsError` is raised
    after everything is saved, and nothing is exported: run again to
    continue. ``allow_incomplete`` exports anyway, leaving those matches out
    of that rater's votes; the card and ``report.json`` say how many are
    missing per rater. The folder is then exported
    (:func:`arts_metric.builder.export.write_dataset`).

    ``out_dir`` is locked for the whole run
    (:class:`~arts_metric.builder.lock.BuildInProgressError` if another build
    holds it). No API key or URL password given in a rater reaches the
    folder or an exception's message.
    """
    cfgs: list[RaterConfig] = []
    for r in raters:
        cfgs.extend(parse_rater(r) if isinstance(r, str) else [r])
    with _without_secrets(c.secrets() for c in cfgs):
        if not cfgs:
            raise ValueError("give at least one rater (e.g. --rater openai:gpt-4o or --rater human:alice)")
        out = Path(out_dir)
        if out.exists() and not out.is_dir():
            raise ValueError(f"the build folder {out} is a file; give a new folder or an existing build folder")
        rows, desc = load_input(source, text_column, id_column, split, data_dir)
        if pairs is None:  # checked before anything is created in the folder
            check_matches_per_text(len(rows), matches_per_text)
        with BuildLock(out):
            store = prepare(out, rows, matches_per_text, seed, pairs, source=desc)
            try:
                cfgs, nobody = _expand_humans(store, cfgs)
                for c in cfgs:
                    store.add_rater(c)
                for c in cfgs:
                    if not c.is_human:
                        run_rater(
                            store,
                            c,
                            batch_size=batch_size,
                            retry_invalid=retry_invalid,
                            progress=progress,
                            data_dir=data_dir,
                        )
                if nobody and not (allow_incomplete and cfgs):
                    raise IncompleteRatingsError(f"no human has rated in {out} yet (human:*)")
                result = aggregate(store, [c.name for c in cfgs], seed=seed, allow_incomplete=allow_incomplete)
                dataset_name = name or _default_name(source)
                store.set_meta(name=dataset_name, last_build=now_iso(), **({"command": command} if command else {}))
                write_dataset(result, store, name=dataset_name, license=license, language=language)
                return result
            finally:
                store.close()


def _expand_humans(store: DecisionStore, cfgs: list[RaterConfig]) -> tuple[list[RaterConfig], bool]:
    """``human:*`` as the humans who have rated in the web interface on this build, every person
    once, names made unique. Returns the raters and whether ``human:*`` found nobody."""
    expanded: list[RaterConfig] = []
    nobody = False
    for c in cfgs:
        if c.is_human and c.spec == f"{HUMAN_PREFIX}:*":
            humans = [r for r in store.raters() if r["spec"].split(":", 1)[0] == HUMAN_PREFIX]
            nobody = nobody or not humans
            # each keeps the group given to them by name earlier, unless human:* sets one
            expanded.extend(
                RaterConfig(r["spec"], r["name"], r["group"] if c.group == HUMAN_PREFIX else c.group) for r in humans
            )
        else:
            expanded.append(c)
    # a person is one rater however often they are named (human:alice and human:*)
    seen_humans: set[str] = set()
    expanded = [c for c in expanded if not c.is_human or not (c.name in seen_humans or seen_humans.add(c.name))]
    return unique_names(expanded), nobody


@contextmanager
def _without_secrets(secret_lists: Iterable[Sequence[str]]) -> Iterator[None]:
    """Re-raise an exception of the block with the given secrets (and any API key or URL password)
    masked in its message; the original, which may quote them, is not chained."""
    secrets = sorted({x for xs in secret_lists for x in xs}, key=len, reverse=True)
    try:
        yield
    except Exception as exc:
        clean = redact(str(exc), secrets)
        if clean == str(exc):
            raise
        try:
            scrubbed = type(exc)(clean)
        except Exception:  # an exception type that takes other arguments
            scrubbed = RuntimeError(clean)
        raise scrubbed from None


def _default_name(source: Any) -> str:
    if isinstance(source, (str, os.PathLike)):
        return slug(Path(source).stem) or "arts-dataset"
    return "arts-dataset"
