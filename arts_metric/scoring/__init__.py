"""The path of a score, each step a module: the settings (:mod:`~arts_metric.scoring.config`)
and the inputs (:mod:`~arts_metric.text.checks`) are checked, a :class:`~arts_metric.scoring.scorer.Scorer`
holds the judge, pool and placement, :mod:`~arts_metric.scoring.units` cuts texts into sentences,
places them and makes each text's score from its sentences', and :mod:`~arts_metric.scoring.api`
(``score_texts``) adds the formulas and assembles the result with its
:mod:`~arts_metric.scoring.signature`; :mod:`~arts_metric.scoring.bulk` scores a ``datasets.Dataset``.

``arts_metric.scoring.score_texts`` (the module of earlier releases) still works for one
release, with a ``DeprecationWarning``: import ``arts_metric.score_texts`` or
``arts_metric.scoring.api.score_texts``.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

#: The modules of this folder (found by the import system, never by the lookup below).
STEPS = ("api", "bulk", "config", "scorer", "signature", "units")


def __getattr__(name: str) -> Any:
    if name.startswith("__") or name in STEPS:
        raise AttributeError(f"module 'arts_metric.scoring' has no attribute {name!r}")
    api = importlib.import_module("arts_metric.scoring.api")
    if not hasattr(api, name):
        raise AttributeError(f"module 'arts_metric.scoring' has no attribute {name!r}")
    warnings.warn(
        f"arts_metric.scoring.{name} moved to arts_metric.scoring.api.{name}; import it from there "
        "(the old path goes in the next release)",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(api, name)
