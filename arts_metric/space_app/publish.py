"""Assemble the Hugging Face Space folder that publishes the metric itself.

A metric Space holds the ``evaluate`` module script named after the Space
(``arts.py`` for a Space called ``arts``), a ``README.md`` whose YAML header
configures the Space (here: the repository's ``metric_card.md``), the Gradio
``app.py`` with the files it shows (:data:`APP_FILES`: the example inputs and
the measured agreement tables), the package itself and a ``requirements.txt``.

The package ships inside the folder as ``arts_metric/``, unpacked from the
wheel built from this checkout (:func:`build_wheel`): no index serves
``arts-metric``, and a Gradio Space installs ``requirements.txt`` *before* the
Space's other files are copied in (the file is mounted alone), so a
requirement pointing at a wheel in the folder could not be installed there.
``requirements.txt`` therefore lists the package's runtime dependencies (the
ranges of its metadata), and the app imports the package from its own folder
(the working directory of a Space). ``evaluate.load(DIR)`` works on the
folder itself, offline (:func:`check_space`). ``evaluate`` looks for
``DIR/<folder name>.py``, so the folder is best named like the Space
(``.../arts``); the script is written under that name.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from arts_metric import __version__

DEFAULT_NAME = "arts"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")


def source_root() -> Path:
    """The repository checkout holding ``metric_card.md`` and ``app.py`` (beside the package)."""
    return Path(__file__).resolve().parents[2]


def _front_matter(text: str) -> dict:
    import yaml

    m = re.match(r"^---\n(.*?)\n---\n", text, flags=re.S)
    if not m:
        return {}
    data = yaml.safe_load(m.group(1))
    return data if isinstance(data, dict) else {}


#: Files and folders of a checkout that ``app.py`` reads, copied to the same relative paths in the Space.
APP_FILES = (
    "examples",
    "benchmarks/results/arts94_metrics.md",
    "benchmarks/results/learned_judge_accuracy.md",
    "benchmarks/results/documents.md",
    "benchmarks/results/judge_probes.md",
)
#: Extras of the package that ``app.py`` needs beyond the Gradio of the Space's SDK (``plot``: its figures).
APP_EXTRAS = ("plot",)

#: Files of a checkout that a wheel is built from (beside the ``arts_metric`` package).
BUILD_FILES = ("pyproject.toml", "README.md", "LICENSE")


def build_wheel(out_dir: str | os.PathLike, source: str | os.PathLike | None = None) -> Path:
    """Build the package's wheel from the checkout ``source`` (default: beside the
    installed package) into ``out_dir`` and return its path. Runs ``pip wheel``
    without dependencies, build isolation or network, on a copy of the sources
    (pip would otherwise write ``build/`` and ``*.egg-info`` into the checkout)."""
    root = Path(source) if source is not None else source_root()
    missing = [name for name in (*BUILD_FILES, "arts_metric") if not (root / name).exists()]
    if missing:
        raise ValueError(f"{root} is not a checkout of arts-metric (missing {', '.join(missing)}); pass source=...")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="arts-wheel-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for name in BUILD_FILES:
            shutil.copy2(root / name, src / name)
        shutil.copytree(
            root / "arts_metric", src / "arts_metric", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
        before = set(out.glob("arts_metric-*.whl"))
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--no-build-isolation",
                "--no-index",
                "--quiet",
                "--wheel-dir",
                str(out),
                str(src),
            ],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise ValueError(f"building the wheel failed: {(proc.stderr or proc.stdout).strip()[-2000:]}")
    wheel = out / f"arts_metric-{__version__}-py3-none-any.whl"
    if not wheel.is_file():
        raise ValueError(f"pip wheel wrote no {wheel.name} (new files: {sorted(set(out.glob('*.whl')) - before)})")
    return wheel


def runtime_requirements(wheel: str | os.PathLike, extras: tuple[str, ...] = ()) -> list[str]:
    """The wheel's ``Requires-Dist`` entries outside any extra (its runtime dependencies, with
    their ranges), then those of ``extras`` without their ``extra == ...`` marker."""
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        lines = z.read(meta).decode("utf-8").splitlines()
    entries = [line.split(":", 1)[1].strip() for line in lines if line.startswith("Requires-Dist:")]
    core = [e for e in entries if "extra ==" not in e]
    wanted = []
    for extra in extras:
        marker = re.compile(rf"""^(.*?);\s*extra\s*==\s*["']{re.escape(extra)}["']\s*$""")
        found = [m.group(1).strip() for m in map(marker.match, entries) if m]
        if not found:
            raise ValueError(f"the wheel {Path(wheel).name} declares no extra {extra!r}")
        wanted += found
    return core + [r for r in wanted if r not in core]


def requirements_txt(requirements: list[str], version: str = __version__) -> str:
    """``requirements.txt`` of the Space: the runtime dependencies of the package."""
    return (
        f"# Runtime dependencies of arts-metric {version} and of its app's extras {', '.join(APP_EXTRAS)} (from its\n"
        "# wheel's metadata; gradio comes with the Space's SDK). The package itself is\n"
        "# the arts_metric/ folder beside this file, unpacked from that wheel: a Space installs this file\n"
        "# before its other files are copied in, so it cannot point at a file of the Space.\n"
        + "".join(f"{r}\n" for r in requirements)
    )


def assemble_space(
    out_dir: str | os.PathLike,
    name: str | None = None,
    source: str | os.PathLike | None = None,
    overwrite: bool = False,
) -> Path:
    """Write the Space folder: ``<name>.py`` (module script), ``README.md`` (from
    ``metric_card.md``), ``app.py`` and the files it shows (:data:`APP_FILES`),
    ``arts_metric/`` (the package, unpacked from the wheel built from ``source``) and
    ``requirements.txt`` (its runtime dependencies and the app's extras, :data:`APP_EXTRAS`).

    ``name`` is the Space's name and so the script's (default: the folder's
    name). ``source`` is the checkout with ``metric_card.md``, ``app.py`` and the
    package's sources (default: beside the installed package). An existing
    non-empty folder is refused unless ``overwrite``; files of ours in it are then replaced.
    """
    out = Path(out_dir)
    name = name or out.resolve().name or DEFAULT_NAME
    if not _NAME.match(name) or name.endswith(".py"):
        raise ValueError(
            f"space name {name!r} must be letters, digits, '.', '-' or '_' (it names the script {name}.py)"
        )
    root = Path(source) if source is not None else source_root()
    card, app = root / "metric_card.md", root / "app.py"
    for f in (card, app):
        if not f.is_file():
            raise ValueError(
                f"{f} not found: publish-space needs a source checkout with metric_card.md and app.py "
                "(pass source=... / --source)"
            )
    missing = [rel for rel in APP_FILES if not (root / rel).exists()]
    if missing:
        raise ValueError(f"{root} lacks {', '.join(missing)}, which app.py shows (pass source=... / --source)")
    card_text = card.read_text(encoding="utf-8")
    meta = _front_matter(card_text)
    if meta.get("app_file", "app.py") != "app.py" or "sdk" not in meta:
        raise ValueError(f"{card}: the YAML header must set `sdk:` and `app_file: app.py` for a Space")
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise ValueError(f"{out} exists and is not empty; choose a new folder or pass overwrite=True (--force)")
    with tempfile.TemporaryDirectory(prefix="arts-space-") as tmp:
        wheel = build_wheel(tmp, root)
        out.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(out / "arts_metric", ignore_errors=True)
        with zipfile.ZipFile(wheel) as z:
            z.extractall(out, [m for m in z.namelist() if m.startswith("arts_metric/")])
        requirements = runtime_requirements(wheel, APP_EXTRAS)
    script = out / "arts_metric" / "evaluate_module" / "arts.py"
    if not script.is_file():
        raise ValueError(f"the wheel built from {root} has no module script arts_metric/evaluate_module/arts.py")
    shutil.copyfile(script, out / f"{name}.py")
    (out / "README.md").write_text(card_text, encoding="utf-8")
    shutil.copyfile(app, out / "app.py")
    for rel in APP_FILES:
        target = out / rel
        if (root / rel).is_dir():
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(root / rel, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".*"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / rel, target)
    (out / "requirements.txt").write_text(requirements_txt(requirements), encoding="utf-8")
    return out


def check_space(out_dir: str | os.PathLike) -> Any:
    """``evaluate.load(out_dir)`` from the local files (no network needed) and return the module.

    ``evaluate`` copies the script into its modules cache
    (``evaluate.config.HF_MODULES_CACHE``, set by ``$HF_MODULES_CACHE``).
    """
    import evaluate

    out = Path(out_dir)
    script = out / f"{out.resolve().name}.py"
    if not script.is_file():
        raise ValueError(f"{script} not found: evaluate.load(DIR) needs the module script named after the folder")
    return evaluate.load(str(out))


def push_space(out_dir: str | os.PathLike, repo_id: str, token: str | None = None, private: bool | None = None) -> Any:
    """Upload the folder as a Gradio Space (``HfApi.create_repo(repo_type="space", space_sdk="gradio")``
    then ``upload_folder``). Needs network and a write token. The Space's name
    (after the slash) must equal the script's name for ``evaluate.load(repo_id)``."""
    from huggingface_hub import HfApi

    out = Path(out_dir)
    space_name = repo_id.rsplit("/", 1)[-1]
    if not (out / f"{space_name}.py").is_file():
        raise ValueError(
            f"{out} has no {space_name}.py: evaluate.load({repo_id!r}) would not find the script; "
            f"assemble the folder with name={space_name!r}"
        )
    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
    return api.upload_folder(
        folder_path=str(out), repo_id=repo_id, repo_type="space", commit_message=f"ARTS metric {__version__}"
    )
