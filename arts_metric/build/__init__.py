"""Building new ARTS datasets (paper sections 3-5): the public names of the build package.

One job per module:

| module | job |
| --- | --- |
| :mod:`~arts_metric.build.specs` | raters: ``RaterConfig``, ``parse_rater``, names, ``human:NAME`` logins, secret-free forms (``redact``) |
| :mod:`~arts_metric.build.inputs` | the texts: ``load_input``, row checks, fingerprints |
| :mod:`~arts_metric.build.store` | the SQLite file ``OUT/build.sqlite``: ``DecisionStore``, ``open_store`` |
| :mod:`~arts_metric.build.rankrate` | rank-and-rate batches and answer checks (README++) |
| :mod:`~arts_metric.build.aggregate` | majority vote, Elo, scores in [0, 1] (higher = harder), the report |
| :mod:`~arts_metric.build.pipeline` | ``prepare``, ``run_rater``, ``build``: the resumable pipeline (only answers stored) |
| :mod:`~arts_metric.build.lock` | one build per folder at a time: ``BuildLock``, ``BuildInProgressError`` |
| :mod:`~arts_metric.build.export` | the folder as a Hugging Face dataset: ``write_dataset``, ``verify_dataset``, ``push_to_hub`` |

The web rating interface (:mod:`arts_metric.web`) builds on this package, never
the other way round.
"""

from arts_metric.build.aggregate import BuildResult, IncompleteRatingsError, aggregate
from arts_metric.build.export import (
    PARQUET_PATH,
    PUBLISH_PATTERNS,
    dataset_card,
    history_paths,
    push_to_hub,
    verify_dataset,
    write_dataset,
)
from arts_metric.build.inputs import load_input, normalise_rows, texts_fingerprint
from arts_metric.build.lock import BuildInProgressError, BuildLock
from arts_metric.build.pipeline import build, prepare, run_rater
from arts_metric.build.rankrate import BATCH_SIZE, RankRate
from arts_metric.build.specs import (
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
from arts_metric.build.store import STORE_NAME, DecisionStore, now_iso, open_store

__all__ = [
    "BATCH_SIZE", "HUMAN_PREFIX", "PARQUET_PATH", "PUBLISH_PATTERNS", "STORE_NAME",
    "BuildInProgressError", "BuildLock", "BuildResult", "DecisionStore", "IncompleteRatingsError", "RankRate", "RaterConfig",
    "aggregate", "build", "dataset_card", "history_paths", "load_input", "normalise_rows", "now_iso",
    "open_store", "parse_rater", "prepare", "public_kwargs", "public_spec", "push_to_hub", "rater_id",
    "redact", "run_rater", "slug", "texts_fingerprint", "unique_names", "verify_dataset", "write_dataset",
]
