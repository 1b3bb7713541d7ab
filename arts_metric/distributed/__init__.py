"""Scoring beyond one process: Ray Data actors over a cluster (or this machine).

- :func:`score_ray_dataset`: the score columns of :func:`arts_metric.scoring.bulk.score_dataset`
  added to a ``ray.data.Dataset``;
- :func:`score_files`: input files scored shard by shard into an output folder,
  skipping shards written by an earlier run (``arts score --engine ray``).

Ray is an optional extra (``pip install 'arts-metric[ray]'``): importing this
package does not import Ray; calling these functions does.
"""

from __future__ import annotations

from typing import Any

__all__ = ["score_files", "score_ray_dataset"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from arts_metric.distributed import ray_data

        return getattr(ray_data, name)
    raise AttributeError(f"module 'arts_metric.distributed' has no attribute {name!r}")
