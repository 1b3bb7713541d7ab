"""Child processes without the network, for tests: the environment that keeps every
Hugging Face library offline, and the check a child runs that its sockets are cut."""

from __future__ import annotations

import os
from pathlib import Path

#: A sitecustomize that cuts the network, so a fresh interpreter starts with no network
#: and no warmed caches.
OFFLINE_SITE = Path(__file__).resolve().parent / "offline_site"

#: Python lines that end the child process when huggingface.co can be reached.
ASSERT_OFFLINE = """\
import socket
try:
    socket.create_connection(("huggingface.co", 443), timeout=2)
    raise SystemExit("network was reachable: the test is not offline")
except OSError:
    pass
"""


def offline_env(home: Path, site: Path = OFFLINE_SITE, drop: tuple[str, ...] = (), **more: str) -> dict[str, str]:
    """This process's environment less ``drop``, with the Hugging Face hub, datasets,
    evaluate and transformers offline, their module cache and home under ``home``,
    ``PYTHONPATH`` = ``site`` and the variables ``more``."""
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_EVALUATE_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        HF_MODULES_CACHE=str(home / "modules"),
        HF_HOME=str(home / "hf_home"),
        PYTHONPATH=str(site),
        **more,
    )
    return env
