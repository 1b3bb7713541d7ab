"""Where the learned judge runs: the torch device and, on the CPU, how many threads.

- :func:`resolve_device` turns ``"auto"`` into ``"cuda"`` when a CUDA GPU is
  visible to torch and ``"cpu"`` otherwise, and checks ``"cpu"`` / ``"cuda"`` /
  ``"cuda:N"``.
- :func:`cpu_threads` is the number of threads one process encodes with: how many
  encoder passes run at once, each on one torch thread. The default is every core
  this process may run on, shared among the processes the library starts to score
  together (``num_proc`` workers, Ray actors), and at least one; ``threads=``
  (``--threads``) overrides it, never above the process's share of the cores. Passes
  on threads of their own do not wait for each other: torch's threads inside one
  pass did, so on a busy machine a thread waiting for a core stalled every pass (a
  loaded 2-core machine encoded several times slower with 2 torch threads than with
  1, which is why releases up to 0.2 defaulted to half the cores).
- :func:`limit_threads` applies a thread count for the duration of a block and
  restores the caller's.

The thread count never changes a score: every forward pass has a fixed shape
(:func:`arts_metric.judges.learned.passes.encoder_passes`) and runs on one torch
thread, so scores are the same bit for bit with 1, 2 or 4 threads
(tests/test_device.py; a matrix kernel given several threads splits its sums by the
thread count).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator

DEVICES = ("auto", "cpu", "cuda")

_STATE = {"forked": False}


def _after_fork() -> None:
    _STATE["forked"] = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def resolve_device(device: str) -> str:
    """``"cpu"``, ``"cuda"`` or ``"cuda:N"`` for a device setting; ``"auto"`` = CUDA when available.

    Raises ``ValueError`` for any other value and for a CUDA device torch cannot see.
    """
    if not isinstance(device, str) or not (device in DEVICES or re.fullmatch(r"cuda:\d+", device)):
        raise ValueError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    if device == "cpu":
        return device
    import torch

    available = torch.cuda.is_available()
    if device == "auto":
        return "cuda" if available else "cpu"
    if not available:
        raise ValueError(f"device={device!r}, but torch sees no CUDA GPU (use device='cpu' or 'auto')")
    return device


def cpu_threads(requested: int | None = None, processes: int = 1) -> int:
    """Encoder threads (passes at once) for one of ``processes`` processes scoring together on
    this machine.

    The share of one process is ``usable_cores() // processes`` (at least 1); the
    default is that share, ``requested`` is used up to it. A process
    forked from another (``Dataset.map``'s workers) uses one thread: OpenMP's threads do
    not survive a fork, and more would hang its first forward pass.
    """
    if requested is not None and (isinstance(requested, bool) or not isinstance(requested, int) or requested < 1):
        raise ValueError(f"threads must be a positive integer or None, got {requested!r}")
    if isinstance(processes, bool) or not isinstance(processes, int) or processes < 1:
        raise ValueError(f"processes must be a positive integer, got {processes!r}")
    if _STATE["forked"]:
        return 1
    share = max(1, usable_cores() // processes)
    return min(requested, share) if requested is not None else share


@contextlib.contextmanager
def limit_threads(threads: int) -> Iterator[None]:
    """Run the block with ``threads`` torch threads, then restore the caller's count."""
    import torch

    before = torch.get_num_threads()
    if before != threads:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)
