"""Building new ARTS datasets (paper sections 3-5): the public names of the build package.

One job per module:

| module | job |
| --- | --- |
| :mod:`~arts_metric.builder.specs` | raters: ``RaterConfig``, ``parse_rater``, names, ``human:NAME`` logins, secret-free forms (``redact``) |
| :mod:`~arts_metric.builder.inputs` | the texts: ``load_input``, row checks, fingerprints |
| :mod:`~arts_metric.builder.store` | the SQLite file ``OUT/build.sqlite``: ``DecisionStore``, ``open_store`` |
| :mod:`~arts_metric.builder.rankrate` | rank-and-rate batches and answer checks (README++) |
| :mod:`~arts_metric.builder.aggregate` | majority vote, Elo, scores in [0, 1] (higher = harder), the report |
| :mod:`~arts_metric.builder.asking` | asking a machine rater, each answer handed on (and committed) as it arrives: ``ask`` |
| :mod:`~arts_metric.builder.pipeline` | ``prepare``, ``run_rater``, ``build``: the resumable pipeline (only answers stored) |
| :mod:`~arts_metric.builder.lock` | one build per folder at a time: ``BuildLock``, ``BuildInProgressError`` |
| :mod:`~arts_metric.builder.export` | the folder as a Hugging Face dataset: ``write_dataset``, ``verify_dataset``, ``push_to_hub`` |

The web rating interface (:mod:`arts_metric.web`) builds on this package, never
the other way round.
"""

from arts_metric.builder.aggregate import BuildResult, IncompleteRatingsError, aggregate
from arts_metric.builder.export import (
    PARQUET_PATH,
    PUBLISH_PATTERNS,
    dataset_card,
    history_paths,
    push_to_hub,
    verify_dataset,
    write_dataset,
)
from arts_metric.builder.inputs import load_input, normalise_rows, texts_fingerprint
from arts_metric.builder.lock import BuildInProgressError, BuildLock
from arts_metric.builder.pipeline import build, prepare, run_rater
from arts_metric.builder.rankrate import BATCH_SIZE, RankRate
from arts_metric.builder.specs import (
    HUMAN_PREFIX,
    RaterConfig,
    parse_rater,
    public_kwargs,
    public_spec,
    rater_id,
    redact,
    slug,
    unique_names,
)
from arts_metric.builder.store import STORE_NAME, DecisionStore, now_iso, open_store

__all__ = [
    "BATCH_SIZE",
    "HUMAN_PREFIX",
    "PARQUET_PATH",
    "PUBLISH_PATTERNS",
    "STORE_NAME",
    "BuildInProgressError",
    "BuildLock",
    "BuildResult",
    "DecisionStore",
    "IncompleteRatingsError",
    "RankRate",
    "RaterConfig",
    "aggregate",
    "build",
    "dataset_card",
    "history_paths",
    "load_input",
    "normalise_rows",
    "now_iso",
    "open_store",
    "parse_rater",
    "prepare",
    "public_kwargs",
    "public_spec",
    "push_to_hub",
    "rater_id",
    "redact",
    "run_rater",
    "slug",
    "texts_fingerprint",
    "unique_names",
    "verify_dataset",
    "write_dataset",
]
