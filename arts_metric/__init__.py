"""ARTS: Assessing Readability & Text Simplicity.

Scores how hard a text is to understand by letting it play pairwise "which
text is harder?" matches against a reference pool rated with Elo. Scores are
in [0, 1]; **higher = harder**.

The usual entry point is ``evaluate.load("arts")``; the same scoring is
available directly:

>>> from arts_metric import score_texts
>>> score_texts(["The cat sat.", "The lessee shall indemnify the lessor."])["arts"]  # doctest: +SKIP

Public names are imported lazily so that ``import arts_metric`` stays cheap
(no torch, no model) until a judge is actually used.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.7.0"

_LAZY = {
    "score_texts": "arts_metric.scoring.api",
    "score_dataset": "arts_metric.scoring.bulk",
    "ScoringConfig": "arts_metric.scoring.config",
    "get_judge": "arts_metric.judges",
    "load_pool": "arts_metric.pool",
    "Pool": "arts_metric.pool",
    "place": "arts_metric.placement",
    "run_elo": "arts_metric.ratings.elo",
    "rank_scale": "arts_metric.ratings.elo",
    "compute_formulas": "arts_metric.text.formulas",
}

__all__ = ["__version__", *_LAZY]


def _check_registration() -> None:
    """Warn once, at import, when ``evaluate.load("arts")`` would not find this package's
    metric; silent when it would, when the ``arts`` command runs (its help says what to
    do) and when ``evaluate`` itself is loading the module script (it found it)."""
    import os
    import sys

    if os.path.basename(sys.argv[0] if sys.argv else "") in ("arts", "arts.exe", "-m"):
        return
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith("evaluate_modules."):
            return
        frame = frame.f_back
    from arts_metric.evaluate_module.registry import warn_if_unregistered

    warn_if_unregistered()


_check_registration()

from arts_metric import moved as _moved  # noqa: E402  (old module paths, kept for one release)

_moved.install()


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'arts_metric' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
