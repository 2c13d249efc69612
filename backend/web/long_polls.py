"""How many long-polls may wait at once; past that, one answers at once instead of holding a thread."""

from __future__ import annotations

import threading

# Desks waiting on GET /v1/events at once; the HTTP server keeps a thread for each, beside its others.
LONG_POLL_SLOTS = 64


class LongPollSlots:
    """A count of waiting long-polls with a limit; taking a slot never blocks."""

    def __init__(self, limit: int) -> None:
        if limit < 0:
            raise ValueError("the number of long-poll slots cannot be negative")
        self.limit = limit
        self._lock = threading.Lock()
        self._taken = 0
        self._closing = threading.Event()

    @property
    def closing(self) -> bool:
        """Whether the server is stopping: waiting long-polls answer now and no new one waits."""
        return self._closing.is_set()

    def close(self) -> None:
        """Let every waiting long-poll answer with what it has, so a stopping server frees its threads."""
        self._closing.set()

    @property
    def taken(self) -> int:
        """How many long-polls are waiting now."""
        with self._lock:
            return self._taken

    def try_take(self) -> bool:
        """Take a slot if one is free; False at once when all are taken."""
        with self._lock:
            if self._taken >= self.limit or self._closing.is_set():
                return False
            self._taken += 1
            return True

    def give_back(self) -> None:
        """Free a slot taken with `try_take`."""
        with self._lock:
            if self._taken <= 0:
                raise RuntimeError("a long-poll slot was given back that was never taken")
            self._taken -= 1
