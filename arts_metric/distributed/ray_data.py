"""Scoring with Ray Data: a pool of actors, each holding the judge and the reference pool.

:func:`score_ray_dataset` adds the score columns of
:func:`arts_metric.scoring.bulk.score_dataset` to a ``ray.data.Dataset`` with
``map_batches`` over an actor pool; :func:`score_files` scores input files
shard by shard into an output folder (what ``arts score --engine ray`` runs).
Each actor loads the judge and the pool once. On a cluster with GPUs every
actor takes one GPU (``num_gpus=1``) and the learned judge runs on it; on CPUs
an actor takes ``threads`` CPUs and encodes with that many torch threads.

A row's values are a function of its text and the settings only, so the
number of actors and the batch size never change them (bit for bit on CPU).
Ray restarts an actor that dies and runs its batch again; a shard's output
file is complete or absent, so no row is lost or written twice.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from arts_metric.distributed.shards import (
    FORMATS,
    Shard,
    check_manifest,
    input_files,
    plan_shards,
    read_shard,
    shard_path,
    write_shard,
)
from arts_metric.llm.report import stats_since, sum_stats
from arts_metric.scoring.bulk import COLUMNS, score_columns
from arts_metric.scoring.config import ScoringConfig

#: Texts placed together by one actor call (the values do not depend on it).
BATCH_SIZE = 256


def _ray() -> Any:
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError:
        raise ImportError(
            "scoring on Ray needs Ray Data: pip install 'arts-metric[ray]' (or pip install 'ray[data]')"
        ) from None
    return ray


def _learned(config: ScoringConfig) -> bool:
    return isinstance(config.judge, str) and config.judge.strip().split(":")[0] == "learned"


def _scorer(config: ScoringConfig, threads: int, device: str | None) -> Any:
    """The actor's judge, pool and placement (built once per actor)."""
    from arts_metric.scoring.scorer import Scorer

    if _learned(config):
        options = dict(config.judge_options)
        if options.get("threads") is None:
            options["threads"] = threads
        if device is not None:
            options.setdefault("device", device)
        config = config.replace(judge_options=options)
    return Scorer.prepare(config)


class BatchScorer:
    """``map_batches`` callable: the score columns of a batch's ``text_column`` (pandas batches)."""

    def __init__(self, config: ScoringConfig, text_column: str, prefix: str, threads: int, device: str | None) -> None:
        self.scorer = _scorer(config, threads, device)
        self.text_column, self.prefix = text_column, prefix

    def __call__(self, batch: Any) -> Any:
        texts = batch[self.text_column].tolist()
        ids = batch["id"].tolist() if "id" in batch.columns else None
        labels = (
            [f"row id={i!r}: column {self.text_column!r}" for i in ids]
            if ids
            else [f"a row: column {self.text_column!r}"] * len(texts)
        )
        cols = score_columns(texts, self.scorer, labels, self.text_column, self.prefix)
        out = batch.copy()
        for name, values in cols.items():
            out[name] = values
        return out


class ShardScorer:
    """``map_batches`` callable over shard descriptions: reads, scores and writes each shard."""

    def __init__(
        self, config: ScoringConfig, field: str, out_dir: str, fmt: str, threads: int, device: str | None
    ) -> None:
        self.scorer = _scorer(config, threads, device)
        self.field, self.out_dir, self.fmt = field, out_dir, fmt

    def __call__(self, batch: dict[str, Any]) -> dict[str, list]:
        done: dict[str, list] = {"index": [], "rows": [], "signature": [], "judge_stats": []}
        for values in zip(*(batch[k] for k in Shard.__dataclass_fields__)):
            shard = Shard(*(v.item() if hasattr(v, "item") else v for v in values))
            before = self.scorer.judge.stats.as_dict()
            texts, rows = read_shard(shard, self.field)
            for start in range(0, len(texts), BATCH_SIZE):
                part = texts[start : start + BATCH_SIZE]
                labels = [f"{shard.path} line {r['source_line']}" for r in rows[start : start + BATCH_SIZE]]
                cols = score_columns(part, self.scorer, labels, f"{shard.path} from line {shard.first_line}")
                for j, row in enumerate(rows[start : start + BATCH_SIZE]):
                    row.update({c: cols[c][j] for c in COLUMNS})
            write_shard(rows, shard_path(self.out_dir, shard.index, self.fmt), self.fmt)
            done["index"].append(shard.index)
            done["rows"].append(len(rows))
            done["signature"].append(self.scorer.signature)
            done["judge_stats"].append(json.dumps(stats_since(before, self.scorer.judge.stats.as_dict())))
        return done


def user_error(exc: BaseException) -> str | None:
    """The message of the ``ValueError`` (bad input or settings) behind a Ray error, or None."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, ValueError) and not type(exc).__module__.startswith("ray"):
            return str(exc).split("\nFailed to apply UDF")[0]  # Ray Data appends its retry note
        cause = getattr(exc, "cause", None)
        exc = cause if isinstance(cause, BaseException) else (exc.__cause__ or exc.__context__)
    return None


def _raise_own_errors(dataset: Any) -> Any:
    """``dataset`` whose failing batch raises the actor's own exception (a ValueError naming
    the file and line), not Ray Data's wrapper that hides it."""
    dataset.context.raise_original_map_exception = True
    return dataset


def _resources(ray: Any, threads: int, device: str | None) -> tuple[str | None, float]:
    """(device for the judge, GPUs per actor): a GPU each when the cluster has GPUs and the device allows."""
    gpus = ray.cluster_resources().get("GPU", 0)
    if device in (None, "auto") and gpus > 0:
        return "cuda", 1.0
    if device is not None and device.startswith("cuda"):
        return "cuda", 1.0
    return ("cpu" if device in (None, "auto") else device), 0.0


def _actor_count(ray: Any, actors: int | None, threads: int, num_gpus: float) -> int:
    if actors is not None:
        if isinstance(actors, bool) or not isinstance(actors, int) or actors < 1:
            raise ValueError(f"actors must be a positive integer, got {actors!r}")
        return actors
    res = ray.cluster_resources()
    if num_gpus:
        return max(1, int(res.get("GPU", 1)))
    return max(1, int(res.get("CPU", 1)) // threads)


def _ask_shared_questions(config: ScoringConfig) -> tuple[str, dict[str, Any]]:
    """Build the scorer in the driver and ask here, once, what every actor would otherwise ask
    at the same moment: the ratings of an unrated pool of one's own (when the scorer is built)
    and the placement's calibration pairs. Their answers go to the judge's cache, where the
    actors find them (on one machine, or on a cache folder every node reaches), so the actors
    do not pay for them again. Returns the signature and the judge's counters of these questions."""
    from arts_metric.scoring.scorer import Scorer

    scorer = Scorer.prepare(config)
    scorer.ask_calibration()
    return scorer.signature, scorer.judge.stats.as_dict()


def _check_budget(config: ScoringConfig, actors: int) -> None:
    from arts_metric.llm.budget import Budget

    if actors > 1 and not isinstance(config.judge, str):
        budget = getattr(config.judge, "budget", None)
        if isinstance(budget, Budget) and budget.limited:
            raise ValueError(
                f"{actors} actors with a judge limited by max_requests / max_cost: every actor would get "
                "the whole limit; use actors=1"
            )


def score_ray_dataset(
    dataset: Any,
    text_column: str = "text",
    *,
    actors: int | None = None,
    threads: int = 1,
    device: str | None = None,
    batch_size: int = BATCH_SIZE,
    prefix: str = "",
    config: ScoringConfig | None = None,
    **settings: Any,
) -> Any:
    """Return ``dataset`` (a ``ray.data.Dataset``) with the ARTS score columns of
    :func:`arts_metric.scoring.bulk.score_dataset` for ``text_column`` (lazy, as Ray Data is).

    A source that reads data (``ray.data.read_*``) needs a CPU of its own beside
    the actors' CPUs.

    Parameters
    ----------
    dataset : ray.data.Dataset
        A dataset with a column of non-empty strings.
    text_column : str
        The column holding the texts.
    actors : int or None
        Actors scoring at once (default: one per GPU of the cluster, else its
        CPUs // ``threads``).
    threads : int
        CPUs per actor, and the learned judge's torch threads.
    device : str or None
        The learned judge's device (default: ``"cuda"`` when the cluster has
        GPUs, else ``"cpu"``).
    batch_size : int
        Texts per actor call (the values do not depend on it).
    prefix : str
        Put before the new column names.
    config : ScoringConfig or None
        The scoring settings to start from (default: every default).
    **settings
        Fields of :class:`~arts_metric.scoring.config.ScoringConfig` applied over
        ``config``, as for :func:`arts_metric.scoring.bulk.score_dataset`.

    Returns
    -------
    ray.data.Dataset
        ``dataset`` with ``arts`` (in [0, 1], higher = harder), ``arts_elo``,
        ``interval`` and ``judge_calls`` per row (``prefix`` before their names).
    """
    ray = _ray()
    config = ScoringConfig.from_settings(settings, base=config)
    if text_column not in dataset.columns():
        raise ValueError(f"dataset has no column {text_column!r}; columns: {', '.join(dataset.columns())}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    device, num_gpus = _resources(ray, threads, device)
    size = _actor_count(ray, actors, threads, num_gpus)
    _check_budget(config, size)
    if not _learned(config):
        _ask_shared_questions(config)
    return _raise_own_errors(dataset).map_batches(
        BatchScorer,
        fn_constructor_kwargs=dict(
            config=config, text_column=text_column, prefix=prefix, threads=threads, device=device
        ),
        batch_size=batch_size,
        batch_format="pandas",
        compute=ray.data.ActorPoolStrategy(size=size),
        num_cpus=threads,
        num_gpus=num_gpus,
    )


def score_files(
    inputs: list[str],
    out_dir: str,
    *,
    field: str = "text",
    fmt: str = "parquet",
    shard_rows: int = 10_000,
    actors: int | None = None,
    threads: int = 1,
    device: str | None = None,
    config: ScoringConfig | None = None,
    progress: Callable[[int, int], Any] | None = None,
) -> dict[str, Any]:
    """Score the texts of ``inputs`` (files or folders of ``.txt`` / ``.jsonl`` / ``.parquet``) on the
    connected Ray cluster into ``out_dir``, one ``part-NNNNN.<fmt>`` file per shard.

    Shards whose file exists (from an earlier run of the same inputs and settings) are skipped.
    ``progress(rows_done, rows_total)`` is called as shards finish. Returns counts of
    ``shards``, ``skipped`` (already written), ``rows`` and ``rows_scored`` (in this run),
    the ``signature`` of the scores (:mod:`arts_metric.scoring.signature`) and ``judge_stats``: the
    judge counters of the shards written in this run, summed over the actors (an LLM judge's
    requests sent and judgments obtained; see :func:`arts_metric.llm.report.request_summary`).
    ``ValueError`` naming the file and line for input that cannot be scored.
    """
    ray = _ray()

    if fmt not in FORMATS:
        raise ValueError(f"output format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    config = config or ScoringConfig()
    files = input_files(inputs)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    shards = plan_shards(files, shard_rows)
    signature, driver_stats = _ask_shared_questions(config)  # the settings, read in the driver (on its device)
    check_manifest(
        out,
        {
            "signature": signature,
            "inputs": [str(p) for p in files],
            "field": field,
            "shard_rows": shard_rows,
            "format": fmt,
        },
    )
    todo = [s for s in shards if not shard_path(out, s.index, fmt).exists()]
    total = sum(s.rows for s in shards)
    done = total - sum(s.rows for s in todo)
    counts: dict[str, Any] = {
        "shards": len(shards),
        "skipped": len(shards) - len(todo),
        "rows": total,
        "rows_scored": 0,
        "signature": signature,
        "judge_stats": driver_stats,
    }
    if progress:
        progress(done, total)
    if not todo:
        return counts
    device, num_gpus = _resources(ray, threads, device)
    size = min(_actor_count(ray, actors, threads, num_gpus), len(todo))
    _check_budget(config, size)
    ds = _raise_own_errors(ray.data.from_items([s.as_row() for s in todo], override_num_blocks=len(todo)))
    results = ds.map_batches(
        ShardScorer,
        fn_constructor_kwargs=dict(
            config=config, field=field, out_dir=str(out), fmt=fmt, threads=threads, device=device
        ),
        batch_size=1,
        compute=ray.data.ActorPoolStrategy(size=size),
        num_cpus=threads,
        num_gpus=num_gpus,
    )
    try:
        for row in results.iter_rows():
            done += int(row["rows"])
            counts["rows_scored"] += int(row["rows"])
            counts["signature"] = row["signature"]  # as the actors scored (their device named)
            counts["judge_stats"] = sum_stats([counts["judge_stats"], json.loads(row["judge_stats"])])
            if progress:
                progress(done, total)
    except Exception as exc:
        message = user_error(exc)
        if message is None:
            raise
        raise ValueError(message) from None
    return counts
