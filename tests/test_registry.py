"""`arts register` and how a user learns that it is needed: the import of
``arts_metric`` warns (once, offline, at the user's line) while ``evaluate.load("arts")``
would not find this package's module script, ``arts --help`` says so, and
``python -m arts_metric register`` is the same one step."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arts_metric.evaluate_module.registry import module_script_path, register, registered_script, registration_problem

REPO = Path(__file__).resolve().parent.parent
ARTS = str(Path(sys.executable).parent / "arts")
# Sockets cut before anything is imported: the check must not need the network.
NO_NETWORK = textwrap.dedent(
    """
    import socket
    def refuse(*args, **kwargs):
        raise SystemExit("the registration check opened a socket")
    socket.socket.connect = refuse
    socket.create_connection = refuse
    """
)


def _env(modules: Path) -> dict:
    return {**os.environ, "HF_MODULES_CACHE": str(modules), "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}


def _import(modules: Path) -> subprocess.CompletedProcess:
    code = NO_NETWORK + "import arts_metric, sys\nprint('evaluate' in sys.modules)\n"
    return subprocess.run(
        [sys.executable, "-c", code], env=_env(modules), capture_output=True, text=True, timeout=120, cwd=REPO
    )


def test_import_warns_until_registered_then_is_silent(tmp_path):
    modules = tmp_path / "modules"
    proc = _import(modules)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"  # the check imports no evaluate (and no torch)
    line = "import arts_metric, sys"
    where = f"<string>:{(NO_NETWORK + line).count(chr(10)) + 1}"
    assert proc.stderr.startswith(f"{where}: NotRegisteredWarning: "), proc.stderr  # the user's line
    assert 'evaluate.load("arts") cannot find ARTS until it is registered' in proc.stderr
    assert "run `arts register` (or `python -m arts_metric register`) once" in proc.stderr

    register(modules / "evaluate_modules")
    proc = _import(modules)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr

    # an older copy registered later (a package downgrade or another environment) is named
    older = modules / "evaluate_modules" / "metrics" / "evaluate-metric--arts" / ("0" * 64)
    older.mkdir()
    (older / "arts.py").write_text("# another release\n")
    proc = _import(modules)
    assert "would load an older ARTS module script" in proc.stderr and str(older) in proc.stderr
    assert "again" in proc.stderr


def test_registration_problem_reads_the_cache_evaluate_reads(tmp_path):
    root = tmp_path / "evaluate_modules"
    assert registered_script(modules_root=root) is None
    assert "cannot find ARTS" in registration_problem(root)
    target = register(root)
    assert registered_script(modules_root=root) == target
    assert target.read_bytes() == module_script_path().read_bytes()
    assert registration_problem(root) is None


def test_help_and_python_m_give_the_one_step(tmp_path):
    modules = tmp_path / "modules"
    env = _env(modules)
    help_text = subprocess.run([ARTS, "--help"], env=env, capture_output=True, text=True, timeout=120)
    assert help_text.returncode == 0 and help_text.stderr == ""  # no import warning from the command itself
    flat = " ".join(help_text.stdout.split())
    assert "First step after installing" in flat and "run `arts register`" in flat
    proc = subprocess.run(
        [sys.executable, "-m", "arts_metric", "register"], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert registered_script(modules_root=modules / "evaluate_modules") is not None
    help_text = subprocess.run([ARTS, "--help"], env=env, capture_output=True, text=True, timeout=120)
    assert 'evaluate.load("arts") finds this metric' in " ".join(help_text.stdout.split())


@pytest.mark.parametrize("doc", ["README.md", "metric_card.md"])
def test_the_docs_say_the_step_and_the_failure_it_prevents(doc):
    text = " ".join((REPO / doc).read_text(encoding="utf-8").split())
    assert "Couldn't find a module script" in text, doc  # the failure a user meets, quoted
    assert "`import arts_metric` warns" in text and "`arts --help`" in text, doc
    if doc == "metric_card.md":  # the card's usage starts with the step
        usage = text.index("## How to Use")
        assert usage < text.index("run `arts register`") < text.index("```python", usage)
