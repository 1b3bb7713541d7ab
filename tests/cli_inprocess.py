"""`arts` commands run inside the test process: :func:`arts_metric.cli.main`, the function the
console script calls, with stdin, stdout and stderr of its own and Python's default warning
filters, so that the judge and the pools load once per test process rather than once per
command. Tests of what only a fresh process shows (the console script itself, a real stdin
pipe, thread settings, a killed run) start the real ``arts`` command instead."""

from __future__ import annotations

import io
import subprocess
import sys
import warnings
from contextlib import redirect_stderr, redirect_stdout
from unittest import mock

from arts_metric.cli import main

#: The warning filters of a fresh interpreter (``python -W`` and ``-X dev`` not given).
DEFAULT_FILTERS = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, ""),
    ("ignore", PendingDeprecationWarning, ""),
    ("ignore", ImportWarning, ""),
    ("ignore", ResourceWarning, ""),
)


def arts(*args: str, stdin: str | bytes | None = None) -> subprocess.CompletedProcess:
    """Run ``arts ARGS`` in this process; the result reads as ``subprocess.run(..., text=True)``'s:
    ``returncode`` (argparse's exit 2 included), ``stdout`` and ``stderr`` as text."""
    raw = stdin.encode("utf-8") if isinstance(stdin, str) else (stdin or b"")
    fake_stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings():
        warnings.resetwarnings()
        for action, category, module in DEFAULT_FILTERS:
            warnings.filterwarnings(action, category=category, module=module)
        with mock.patch.object(sys, "stdin", fake_stdin), redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's usage errors
                code = exc.code if isinstance(exc.code, int) else 1
    return subprocess.CompletedProcess(["arts", *args], code, out.getvalue(), err.getvalue())
