"""Warnings that point at the user's line.

A warning raised deep in the scoring would otherwise name a line of this
package, of ``evaluate``, or of the copy of the module script that ``evaluate``
keeps in its modules cache. :func:`warn` attributes it to the first caller
outside those: the line of the user's code that asked for the scores.
"""

from __future__ import annotations

import sys
import warnings

#: Module-name prefixes of library frames that a warning skips.
LIBRARY_MODULES = ("arts_metric", "evaluate", "evaluate_modules")


def _is_library(frame) -> bool:
    name = frame.f_globals.get("__name__", "")
    if frame.f_code.co_filename.startswith("<frozen importlib"):
        return True  # the import machinery, between an import statement and the module it runs
    return any(name == prefix or name.startswith(prefix + ".") for prefix in LIBRARY_MODULES)


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """Issue ``message`` as a warning located at the first frame outside :data:`LIBRARY_MODULES`
    (the usual ``warnings`` filters and once-per-location registry apply)."""
    frame = sys._getframe(1)
    while frame.f_back is not None and _is_library(frame):
        frame = frame.f_back
    registry = frame.f_globals.setdefault("__warningregistry__", {})
    warnings.warn_explicit(
        message,
        category,
        frame.f_code.co_filename,
        frame.f_lineno,
        module=frame.f_globals.get("__name__"),
        registry=registry,
    )
