"""Helpers for tests that start processes: whether one is still there."""

from __future__ import annotations

import os
from pathlib import Path


def process_gone(pid: int) -> bool:
    """Whether `pid` has ended (an unreaped zombie counts as ended: it runs nothing)."""
    stat = Path(f"/proc/{pid}/stat")
    if stat.parent.parent.exists() and Path("/proc/self").exists():
        try:
            text = stat.read_text()
        except OSError:
            return True
        # The state follows the command name in parentheses, which may itself hold spaces.
        return text.rsplit(")", 1)[1].split()[0] in ("Z", "X")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False
