"""Make the bare name ``evaluate.load("arts")`` resolve offline.

``evaluate.load("arts")`` looks for ``./arts/arts.py``, then asks the Hub for
``evaluate-metric/arts``; when that fails (offline, or no such Space) it falls
back to the newest cached copy in
``$HF_MODULES_CACHE/evaluate_modules/metrics/evaluate-metric--arts/<hash>/arts.py``.
:func:`register` writes our module script there, in the same layout that
``evaluate`` itself writes when it caches a module, keyed by the script's
SHA-256 so that upgrading the package registers the new script as the newest.
Nothing is downloaded; nothing is executed.
"""

from __future__ import annotations

import hashlib
import os
import sys
from importlib import resources
from pathlib import Path

MODULE_NAME = "arts"


def module_script_path() -> Path:
    """Path of the shipped module script (pass it to ``evaluate.load`` directly if you like)."""
    return Path(str(resources.files("arts_metric") / "evaluate_module" / "arts.py"))


#: The one step that makes ``evaluate.load("arts")`` find this package's metric.
REGISTER_STEP = "`arts register` (or `python -m arts_metric register`)"


class NotRegisteredWarning(UserWarning):
    """``evaluate.load("arts")`` will not find the metric (or finds an older copy) until ``arts register``."""


def _modules_root() -> Path:
    """``$HF_MODULES_CACHE/evaluate_modules``, worked out as ``evaluate.config`` does, without importing it."""
    config = sys.modules.get("evaluate.config")
    if config is not None:
        return Path(config.HF_MODULES_CACHE) / "evaluate_modules"
    xdg = os.getenv("XDG_CACHE_HOME", "~/.cache")
    home = os.path.expanduser(os.getenv("HF_HOME", os.path.join(xdg, "huggingface")))
    return Path(os.getenv("HF_MODULES_CACHE", os.path.join(home, "modules"))) / "evaluate_modules"


def registered_script(name: str = MODULE_NAME, modules_root: str | os.PathLike | None = None) -> Path | None:
    """The cached module script that ``evaluate.load(name)`` falls back to (the newest), or None."""
    cached = (Path(modules_root) if modules_root else _modules_root()) / "metrics" / f"evaluate-metric--{name}"
    try:
        scripts = [p / f"{name}.py" for p in cached.iterdir() if len(p.name) == 64 and (p / f"{name}.py").is_file()]
    except OSError:
        return None
    return max(scripts, key=lambda p: p.stat().st_mtime, default=None)


def registration_problem(modules_root: str | os.PathLike | None = None) -> str | None:
    """What is wrong with the registration (a sentence for the user), or None when
    ``evaluate.load("arts")`` resolves to this package's module script. Reads two small
    files; imports nothing and touches no network."""
    found = registered_script(MODULE_NAME, modules_root)
    if found is None:
        return f'evaluate.load("arts") cannot find ARTS until it is registered: run {REGISTER_STEP} once'
    if found.read_bytes() != module_script_path().read_bytes():
        return f'evaluate.load("arts") would load an older ARTS module script ({found}): run {REGISTER_STEP} again'
    return None


def warn_if_unregistered() -> None:
    """A :class:`NotRegisteredWarning` (at the importer's line) if :func:`registration_problem` finds one."""
    problem = registration_problem()
    if problem is not None:
        from arts_metric.userwarnings import warn

        warn(problem, NotRegisteredWarning)


def register(modules_root: str | os.PathLike | None = None) -> Path:
    """Install the module script where ``evaluate`` finds cached modules; returns its path.

    Idempotent. ``modules_root`` defaults to ``$HF_MODULES_CACHE/evaluate_modules``.
    """
    return register_script(module_script_path(), MODULE_NAME, modules_root)


def register_script(script: str | os.PathLike, name: str, modules_root: str | os.PathLike | None = None) -> Path:
    """Cache the module script ``script`` under the bare name ``name`` (what
    ``evaluate.load(name)`` falls back to offline), exactly as ``evaluate`` caches a
    canonical module: ``metrics/evaluate-metric--<name>/<sha256>/<name>.py``. Returns its path."""
    root = Path(modules_root) if modules_root else _modules_root()
    source = Path(script).read_bytes()
    digest = hashlib.sha256(source).hexdigest()
    cached = root / "metrics" / f"evaluate-metric--{name}"
    target_dir = cached / digest
    target_dir.mkdir(parents=True, exist_ok=True)
    for folder in (root, root / "metrics", cached, target_dir):
        (folder / "__init__.py").touch(exist_ok=True)
    target = target_dir / f"{name}.py"
    if not target.is_file() or target.read_bytes() != source:
        target.write_bytes(source)
    # evaluate picks the most recently modified hash folder: make ours the newest.
    os.utime(target)
    return target
