"""The repository's own programs, for tests: a script (``benchmarks/``, ``scripts/``) loaded as a
module, and the ``arts`` command line started in a child process."""

from __future__ import annotations

import importlib.util
import subprocess
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


def start_cli(args: list[str], env: dict) -> subprocess.Popen:
    """``arts ARGS`` (``python -m arts_metric.cli``) started from the repository root with
    ``env``, its stdout and stderr piped as text."""
    return subprocess.Popen(
        [sys.executable, "-m", "arts_metric.cli", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
