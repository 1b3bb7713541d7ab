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
from importlib import resources
from pathlib import Path

MODULE_NAME = "arts"


def module_script_path() -> Path:
    """Path of the shipped module script (pass it to ``evaluate.load`` directly if you like)."""
    return Path(str(resources.files("arts_metric") / "evaluate_module" / "arts.py"))


def _modules_root() -> Path:
    from evaluate import config

    return Path(os.environ.get("HF_MODULES_CACHE", config.HF_MODULES_CACHE)) / "evaluate_modules"


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
