"""Load one of the repository's scripts (``benchmarks/``, ``scripts/``) as a module, for tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent


def load_script(relpath: str) -> ModuleType:
    """Execute ``REPO / relpath`` as a module named after the file and return it.

    The module is registered in ``sys.modules`` first: dataclasses look their
    module up there while the file executes.
    """
    path = REPO / relpath
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
