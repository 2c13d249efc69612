"""`inbox logs`: the installation's log file, and what is added to it."""

from __future__ import annotations

import argparse
import sys
import time
from collections import deque
from pathlib import Path
from typing import TextIO

from app.cli_errors import FAILURE_STATUS, CommandError
from app.commands.common import settings_from
from app.log_files import log_path

FOLLOW_POLL_SECONDS = 0.25


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox logs`."""
    parser = subcommands.add_parser(
        "logs",
        help="show the log (<data folder>/logs/inbox.log)",
        description="Print the end of the log file; with --follow, keep printing lines as they are written.",
    )
    parser.add_argument("--follow", "-f", action="store_true", help="keep printing new lines (Ctrl+C ends)")
    parser.add_argument(
        "--lines", "-n", type=int, default=100, metavar="N", help="lines to show (default 100)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the last lines, then follow the file across rotations if asked."""
    settings = settings_from(args)
    path = log_path(settings.data_dir)
    if not path.is_file() and not args.follow:
        raise CommandError(f"there is no log yet at {path}", exit_status=FAILURE_STATUS)
    out = sys.stdout
    position = 0
    if path.is_file():
        with path.open("r", encoding="utf-8", errors="replace") as handle:
            for line in deque(handle, maxlen=max(args.lines, 0)):
                out.write(line)
            position = handle.tell()
        out.flush()
    if args.follow:
        follow(path, position, out)
    return 0


def follow(path: Path, position: int, out: TextIO, *, stop_after: float | None = None) -> None:
    """Print what is appended to `path` from `position`; a rotated file is read to its end, then the next."""
    deadline = None if stop_after is None else time.monotonic() + stop_after
    handle: TextIO | None = None
    identity: tuple[int, int] | None = None
    try:
        while deadline is None or time.monotonic() < deadline:
            current = _identity(path)
            if handle is None and current is not None:
                handle = path.open("r", encoding="utf-8", errors="replace")
                handle.seek(position)
                identity = current
            if handle is not None:
                _copy(handle, out)
                if current is not None and current != identity:
                    # Rotated: the old file (now inbox.log.1) is finished; the new one starts at 0.
                    handle.close()
                    handle, position = None, 0
                    continue
            time.sleep(FOLLOW_POLL_SECONDS)
    finally:
        if handle is not None:
            handle.close()


def _copy(handle: TextIO, out: TextIO) -> None:
    chunk = handle.read()
    if chunk:
        out.write(chunk)
        out.flush()


def _identity(path: Path) -> tuple[int, int] | None:
    """Which file a name points to now (device, inode; on Windows the creation time stands in)."""
    try:
        status = path.stat()
    except FileNotFoundError:
        return None
    if status.st_ino:
        return (status.st_dev, status.st_ino)
    return (status.st_dev, int(status.st_ctime_ns))
