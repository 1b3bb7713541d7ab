"""One build per folder at a time: an exclusive lock on ``OUT/.lock`` held for a whole build.

Two ``arts build`` runs on one folder would ask (and pay for) the same
matches twice. :class:`BuildLock` takes an exclusive ``flock`` on
``OUT/.lock`` without waiting: a second build is refused with
:class:`BuildInProgressError` naming the process that holds it. The kernel
releases the lock when the holder exits, however it exits (a crash or
``kill -9`` included), so a stale lock file never blocks the next run. The
rating server (``arts rate``) takes no lock: it writes its own rows while a
build runs (SQLite WAL).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

LOCK_NAME = ".lock"


class BuildInProgressError(RuntimeError):
    """Another process is building the same folder."""


class BuildLock:
    """Context manager: hold the build lock of ``out_dir`` (created if missing) for the ``with`` block.

    Raises :class:`BuildInProgressError` at once if another process holds it.
    The lock file keeps the holder's process id while it is held (empty after).
    """

    def __init__(self, out_dir: str | os.PathLike) -> None:
        self.path = Path(out_dir) / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> "BuildLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode("ascii", "replace").strip()
            os.close(fd)
            who = f"process {holder}" if holder.isdigit() else "another process"
            raise BuildInProgressError(
                f"{self.path.parent} is being built by {who} right now; wait for it to finish (a second build "
                "would ask the same matches again), then run this command again"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            os.ftruncate(self._fd, 0)  # no stale pid for the next reader
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "BuildLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
