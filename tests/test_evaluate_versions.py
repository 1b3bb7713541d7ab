"""The module script against the oldest ``evaluate`` release that ``pyproject.toml``
allows (installed beside the venv's newest by ``scripts/install.sh`` into
``.venv/evaluate-oldest``): its input and combine tests run there too."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
OLDEST = REPO / ".venv" / "evaluate-oldest"


def _lowest_allowed() -> str:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    spec = next(d for d in deps if d.startswith("evaluate"))
    return re.search(r">=\s*([0-9.]+)", spec).group(1)


@pytest.mark.slow
def test_the_module_script_works_with_the_oldest_evaluate_release():
    assert OLDEST.is_dir(), f"{OLDEST} is missing: run bash scripts/install.sh"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(OLDEST), str(REPO)]), "HF_HUB_OFFLINE": "1"}
    version = subprocess.run(
        [sys.executable, "-c", "import evaluate; print(evaluate.__version__)"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout.strip()
    assert version == _lowest_allowed()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_metric_inputs.py"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=550,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout
