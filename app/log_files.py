"""The log file of an installation: `<data folder>/logs/inbox.log`, rotated by size, shared by its processes.

Only one process writes the file, so rotation never races: the supervisor of `inbox serve` or
`inbox worker` owns the handler, and each child sends its lines over a socket of its own (no shared lock).
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import socket
from io import TextIOWrapper
from pathlib import Path

from backend.settings import PRIVATE_FILE_MODE, make_private_folder, tighten

LOG_FOLDER = "logs"
LOG_FILE_NAME = "inbox.log"
MAX_BYTES = 10 * 1024 * 1024
BACKUP_COUNT = 5
LINE_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(processName)s]: %(message)s"


def log_path(data_dir: Path) -> Path:
    """Where the installation's log file lives."""
    return data_dir / LOG_FOLDER / LOG_FILE_NAME


class InstallationLogHandler(logging.handlers.RotatingFileHandler):
    """The rotating file handler of one data folder (a type of its own, so it is attached once)."""

    def __init__(
        self, data_dir: Path, *, max_bytes: int = MAX_BYTES, backup_count: int = BACKUP_COUNT
    ) -> None:
        """Open (creating, readable by this user only) the data folder's log file."""
        path = log_path(data_dir)
        make_private_folder(data_dir)
        make_private_folder(path.parent)
        _create_private(path)
        super().__init__(path, maxBytes=max_bytes, backupCount=backup_count, encoding="utf-8", delay=False)
        self.setFormatter(logging.Formatter(LINE_FORMAT))

    def write_line(self, line: str) -> None:
        """Write a line another process formatted already, rotating first if it would overflow."""
        record = logging.makeLogRecord({"msg": line})
        self.acquire()
        try:
            if self.stream is None:
                self.stream = self._open()
            if self.maxBytes > 0 and self.stream.tell() + len(line) + 1 >= self.maxBytes:
                self.doRollover()
            self.stream.write(line + "\n")
            self.flush()
        except Exception:
            self.handleError(record)
        finally:
            self.release()

    def _open(self) -> TextIOWrapper:
        """Open the file; one created by a rotation is made private before anything is written to it."""
        _create_private(Path(self.baseFilename))
        return super()._open()


class LineSender(logging.Handler):
    """In a child process: each record as one formatted line to the supervisor, never waiting for it.

    A full socket (the supervisor busy or gone) keeps the unsent rest for the next record, up to
    MAX_PENDING_BYTES; beyond that the lines are dropped rather than slowing the child's work.
    """

    MAX_PENDING_BYTES = 1 << 20

    def __init__(self, destination: socket.socket) -> None:
        """Send to `destination`, the child's end of its own socket pair."""
        super().__init__()
        destination.setblocking(False)
        self._destination = destination
        self._pending = b""
        self.setFormatter(logging.Formatter(LINE_FORMAT))

    def emit(self, record: logging.LogRecord) -> None:
        """Send the record's line (called under the handler's lock)."""
        try:
            data = self._pending + (self.format(record) + "\n").encode("utf-8", "replace")
        except Exception:
            self.handleError(record)
            return
        try:
            sent = self._destination.send(data)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            self._pending = b""
            return
        self._pending = data[sent:]
        if len(self._pending) > self.MAX_PENDING_BYTES:
            self._pending = b""


def _create_private(path: Path) -> None:
    """Create the file readable by its owner only if it is missing; restrict it if it is too open."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_FILE_MODE))
    except FileExistsError:
        tighten(path, PRIVATE_FILE_MODE)


def attach_log_file(data_dir: Path) -> InstallationLogHandler:
    """Make the root logger write to the data folder's log file too; the handler (one per process)."""
    root = logging.getLogger()
    path = log_path(data_dir)
    for handler in list(root.handlers):
        if isinstance(handler, InstallationLogHandler):
            if Path(handler.baseFilename) == path.absolute():
                return handler
            # Another data folder (a second command in one process, as tests run them): the newest wins.
            root.removeHandler(handler)
            handler.close()
    handler = InstallationLogHandler(data_dir)
    root.addHandler(handler)
    return handler
