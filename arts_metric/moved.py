"""Module paths of earlier releases, kept for one release: ``import arts_metric.elo``
still works, warns (``DeprecationWarning``) and gives the module at its new path,
the same object (so a name set on one is set on the other).

The package was grouped by role in release 0.6: the rating maths under
:mod:`arts_metric.ratings`, a text under :mod:`arts_metric.text`, the scoring path under :mod:`arts_metric.scoring`.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

#: Old module path -> new module path.
MOVED: dict[str, str] = {
    "arts_metric.elo": "arts_metric.ratings.elo",
    "arts_metric.bradley_terry": "arts_metric.ratings.bradley_terry",
    "arts_metric.schedule": "arts_metric.ratings.schedule",
    "arts_metric.stats": "arts_metric.ratings.stats",
    "arts_metric.agreement": "arts_metric.ratings.agreement",
    "arts_metric.directions": "arts_metric.ratings.directions",
    "arts_metric.textio": "arts_metric.text.reading",
    "arts_metric.segment": "arts_metric.text.sentences",
    "arts_metric.features": "arts_metric.text.features",
    "arts_metric.readability": "arts_metric.text.formulas",
    "arts_metric.cefr": "arts_metric.text.cefr",
    "arts_metric.wordless": "arts_metric.text.wordless",
    "arts_metric.config": "arts_metric.scoring.config",
    "arts_metric.scorer": "arts_metric.scoring.scorer",
    "arts_metric.units": "arts_metric.scoring.units",
    "arts_metric.signature": "arts_metric.scoring.signature",
    "arts_metric.bulk": "arts_metric.scoring.bulk",
    "arts_metric.inputs": "arts_metric.text.checks",
    "arts_metric.registry": "arts_metric.evaluate_module.registry",
    "arts_metric.space": "arts_metric.space_app.publish",
    "arts_metric.languages.judge": "arts_metric.judges.multilingual",
    "arts_metric.languages.features": "arts_metric.judges.multilingual_features",
}


class _MovedLoader(importlib.abc.Loader):
    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec):  # the default module; exec_module swaps it for the real one
        return None

    def exec_module(self, module) -> None:
        warnings.warn(
            f"{module.__name__} moved to {self.new}; import it from there (the old path goes in the next release)",
            DeprecationWarning,
            stacklevel=2,
        )
        sys.modules[module.__name__] = importlib.import_module(self.new)


class MovedFinder(importlib.abc.MetaPathFinder):
    """Finds the old paths of :data:`MOVED` (and only those)."""

    def find_spec(self, fullname: str, path=None, target=None):
        new = MOVED.get(fullname)
        return None if new is None else importlib.util.spec_from_loader(fullname, _MovedLoader(new))


def install() -> None:
    """Put :class:`MovedFinder` on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, MovedFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedFinder())
