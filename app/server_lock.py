"""Who uses this data folder: each `inbox serve` or `inbox worker` holds a lock file that a restore checks.

Each process locks a file of its own in `<data folder>/run/` (flock on POSIX, a locked byte range on
Windows), so several servers and workers can share a folder, and a process killed with kill -9 or a
power cut leaves nothing held: a file nobody holds is stale and removed. The file says who holds it.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import sys
from pathlib import Path
from typing import IO

from backend.settings import make_private_folder

RUN_FOLDER = "run"
LOCK_SUFFIX = ".lock"
# Windows locks a byte range others then cannot read: lock one far past the holder's line.
_WINDOWS_LOCK_OFFSET = 1 << 30


def _try_lock(handle: IO[str]) -> bool:
    """Take the file's lock without waiting; False when another process holds it."""
    if sys.platform == "win32":
        import msvcrt

        try:
            handle.seek(_WINDOWS_LOCK_OFFSET)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _unlock(handle: IO[str]) -> None:
    if sys.platform == "win32":
        import msvcrt

        with contextlib.suppress(OSError):
            handle.seek(_WINDOWS_LOCK_OFFSET)
            msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _open(path: Path) -> IO[str]:
    # Opened without truncating: the holder's line must stay readable to others.
    return os.fdopen(os.open(path, os.O_RDWR | os.O_CREAT, 0o600), "r+", encoding="utf-8")


class ProcessLock:
    """Held while this process serves, works on or restores a data folder."""

    def __init__(self, data_dir: Path, purpose: str) -> None:
        """`purpose` says what the holder does (`inbox serve`); it is written into the file for others."""
        slug = re.sub(r"[^a-z0-9]+", "-", purpose.lower()).strip("-")
        self.path = data_dir / RUN_FOLDER / f"{slug}-{os.getpid()}{LOCK_SUFFIX}"
        self._purpose = purpose
        self._handle: IO[str] | None = None

    def acquire(self) -> None:
        """Take this process's lock (nobody else has reason to hold it)."""
        make_private_folder(self.path.parent)
        handle = _open(self.path)
        if not _try_lock(handle):
            handle.close()
            raise OSError(f"{self.path} is locked by another process")
        handle.seek(0)
        handle.truncate()
        handle.write(f"{self._purpose} (pid {os.getpid()} on {socket.gethostname()})\n")
        handle.flush()
        self._handle = handle

    def release(self) -> None:
        """Give the lock back and remove the file."""
        if self._handle is None:
            return
        _unlock(self._handle)
        self._handle.close()
        self._handle = None
        self.path.unlink(missing_ok=True)

    def __enter__(self) -> ProcessLock:
        """Acquire on entry."""
        self.acquire()
        return self

    def __exit__(self, *_exc: object) -> None:
        """Release on exit."""
        self.release()


def holders(data_dir: Path, *, besides: ProcessLock | None = None) -> list[str]:
    """Who holds a lock on this data folder right now (their own words); stale files are removed."""
    folder = data_dir / RUN_FOLDER
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob(f"*{LOCK_SUFFIX}")):
        if besides is not None and path == besides.path:
            continue
        try:
            handle = _open(path)
        except OSError:
            continue
        with handle:
            handle.seek(0)
            holder = handle.read().strip() or path.name
            if not _try_lock(handle):
                found.append(holder)
                continue
            _unlock(handle)
        # Nobody held it: its process is gone.
        path.unlink(missing_ok=True)
    return found
