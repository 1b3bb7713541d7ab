"""Griffe extension for the API reference: a default given as a constant shows its value.

A parameter declared ``n_resamples: int = DEFAULT_RESAMPLES`` reads
``n_resamples=DEFAULT_RESAMPLES`` in a signature, which tells a reader nothing. For a
default that names a module-level constant (an upper-case name, possibly dotted),
this extension imports the function's module and shows the constant's value instead
(``n_resamples=2000``). A default it cannot resolve is left as written.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from typing import Any

import griffe

ROOT = Path(__file__).resolve().parents[2]
#: A constant's name: upper case, digits and underscores, after an optional dotted prefix.
CONSTANT = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Z][A-Z0-9_]*")


def constant_value(module_path: str, expression: str) -> tuple[bool, Any]:
    """``(True, value)`` of ``expression`` (a constant's name) in module ``module_path``,
    ``(False, None)`` where it is not one or cannot be found."""
    if not CONSTANT.fullmatch(expression):
        return False, None
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    try:
        value: Any = importlib.import_module(module_path)
        for part in expression.split("."):
            value = getattr(value, part)
    except (ImportError, AttributeError):
        return False, None
    return True, value


class ConstantDefaults(griffe.Extension):
    """Replace each parameter default that names a constant by the constant's ``repr``."""

    def on_function(self, *, func: griffe.Function, **kwargs: Any) -> None:
        for parameter in func.parameters:
            if parameter.default is None:
                continue
            found, value = constant_value(func.module.path, str(parameter.default))
            if found:
                parameter.default = repr(value)
