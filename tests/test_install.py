"""Installs outside this repository: the wheel built from this checkout in a
fresh virtual environment, and the Space folder of ``arts publish-space`` installed
from its own ``requirements.txt``, both scoring offline with no access to the repo.

The fresh environments get the third-party dependencies from the project's
``.venv`` (a read-only view: links to every distribution there except
``arts-metric`` itself, added to ``sys.path`` by a ``.pth`` line, so pip sees them
as installed), and install with ``--no-index``: honest about what is installed
from where, and fast. Everything runs with the network cut (``tests/offline_site``
copied out of the repo) from a working directory outside the repo.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import tomllib
from pathlib import Path

import pytest
from offline import ASSERT_OFFLINE, offline_env

from arts_metric import __version__
from arts_metric.space_app.publish import assemble_space, build_wheel, runtime_requirements

REPO = Path(__file__).resolve().parent.parent
OWN = ("arts_metric", "arts_metric-", "__editable__", "__pycache__")
PLAIN = "The dog ran to the park."
HARD = "Notwithstanding any provision to the contrary, the lessee shall indemnify the lessor."


@pytest.fixture(scope="module")
def outside(tmp_path_factory) -> dict:
    """A folder outside the repo with: a view of .venv's dependencies without
    arts-metric, an offline sitecustomize, and a fresh HF cache."""
    root = tmp_path_factory.mktemp("outside")
    view = root / "deps"
    view.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.startswith(OWN) and not entry.name.endswith(".pth"):
            (view / entry.name).symlink_to(entry)
    site = root / "offline_site"
    shutil.copytree(REPO / "tests" / "offline_site", site)
    return {"root": root, "view": view, "site": site}


def _fresh_venv(folder: Path, view: Path) -> Path:
    """A new venv (no pip of its own: the project's pip installs into it with --python)."""
    subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(purelib, "_deps_view.pth").write_text(f"{view}\n", encoding="utf-8")
    return python


def _pip(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc


def _offline_env(outside: dict, name: str) -> dict:
    home = outside["root"] / name
    return offline_env(home, outside["site"], drop=("PYTHONPATH", "VIRTUAL_ENV"), ARTS_CACHE_DIR=str(home / "cache"))


SCORE = ASSERT_OFFLINE + textwrap.dedent(
    f"""
    import json, sys, evaluate, arts_metric
    m = evaluate.load(sys.argv[1])
    out = m.compute(predictions=[{PLAIN!r}, {HARD!r}], sources=[{HARD!r}, {PLAIN!r}])
    print(json.dumps({{"arts": out["arts"], "delta": out["arts_delta"], "package": arts_metric.__file__}}))
    """
)


def _score(python: Path, target: str, cwd: Path, env: dict) -> dict:
    proc = subprocess.run(
        [str(python), "-c", SCORE, target], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["arts"][0] < out["arts"][1] and all(0.0 <= a <= 1.0 for a in out["arts"])
    assert out["delta"][0] > 0 > out["delta"][1]
    assert not Path(out["package"]).resolve().is_relative_to(REPO), out["package"]
    return out


def test_dependencies_are_ranges_not_pins():
    """pyproject.toml pinned torch==2.13.0 exactly, which conflicts with any other torch."""
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    assert not [d for d in deps if "==" in d], deps
    assert any(d.startswith("torch>=") for d in deps)
    assert "torch==2.13.0" in (REPO / "scripts" / "install.sh").read_text()  # this machine's CPU build


@pytest.mark.slow
def test_wheel_in_a_fresh_venv_scores_offline_after_arts_register(outside):
    """The docs' "From a wheel" (docs/install.md): pip install the wheel, `arts register`, then the
    bare name evaluate.load("arts") scores offline, from a folder outside the repo."""
    wheel = build_wheel(outside["root"] / "dist")
    assert wheel.name == f"arts_metric-{__version__}-py3-none-any.whl"
    assert not [r for r in runtime_requirements(wheel) if "==" in r]
    python = _fresh_venv(outside["root"] / "venv-wheel", outside["view"])
    work = outside["root"] / "work-wheel"
    work.mkdir()
    env = _offline_env(outside, "wheel")
    probe = subprocess.run([str(python), "-c", "import arts_metric"], cwd=work, env=env, capture_output=True)
    assert probe.returncode != 0  # the fresh venv sees the dependencies, not the package
    install = _pip(python, "install", "--no-index", str(wheel), cwd=work)  # dependencies resolved, none fetched
    assert "Requirement already satisfied: torch" in install.stdout
    arts = python.parent / "arts"
    subprocess.run([str(arts), "register", "--quiet"], check=True, cwd=work, env=env)
    out = _score(python, "arts", work, env)
    assert "venv-wheel" in out["package"]


@pytest.mark.slow
def test_space_installs_from_its_requirements_and_loads_offline(outside):
    """The Space pinned arts-metric==0.1.0, which no index serves; it now ships the package
    (unpacked from the wheel) and lists the package's dependencies."""
    space = assemble_space(outside["root"] / "spaces" / "arts")
    assert (space / "arts_metric" / "evaluate_module" / "arts.py").read_bytes() == (space / "arts.py").read_bytes()
    reqs = [
        line for line in (space / "requirements.txt").read_text().splitlines() if line and not line.startswith("#")
    ]
    assert not [r for r in reqs if "arts-metric" in r or "==" in r] and any(r.startswith("torch>=") for r in reqs)
    python = _fresh_venv(outside["root"] / "venv-space", outside["view"])
    install = _pip(python, "install", "--no-index", "-r", "requirements.txt", cwd=space)
    assert "Requirement already satisfied: torch" in install.stdout
    env = _offline_env(outside, "space")
    out = _score(python, str(space), space, env)  # a Space runs from its own folder
    assert Path(out["package"]).resolve().is_relative_to(space.resolve())
