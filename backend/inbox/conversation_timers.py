"""Conversation timers: snoozes that ran out reopen their conversation, expired presence is removed."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from sqlalchemy.exc import OperationalError

from backend.inbox.lifecycle import end_due_snoozes, snoozes_due
from backend.inbox.presence import presence_expired, remove_expired_presence
from backend.parts import BackendParts

log = logging.getLogger(__name__)

# A snooze ends within 5 s of its time, and a viewer who left disappears a moment after 30 s.
DEFAULT_INTERVAL_SECONDS = 1.0


@dataclass
class ConversationTimerResult:
    """What one step did: conversations reopened, conversations whose viewers expired."""

    snoozes_ended: int = 0
    presence_expired: int = 0


class ConversationTimers:
    """Worker ending due snoozes (journaled as the system's) and removing expired presence rows."""

    name = "conversation-timers"

    def __init__(self, parts: BackendParts, *, interval_seconds: float = DEFAULT_INTERVAL_SECONDS) -> None:
        self._database = parts.database
        self._clock = parts.clock
        self._turns = parts.write_turns
        self.interval_seconds = interval_seconds

    def run_once(self) -> ConversationTimerResult:
        """End every snooze that is due and remove every expired presence row, now."""
        now = self._clock()
        result = ConversationTimerResult()
        # Mostly nothing is due: a read first keeps this loop off SQLite's write lock.
        with self._database.reader() as session:
            ending, expiring = snoozes_due(session, now), presence_expired(session, now)
        if not (ending or expiring):
            return result
        with self._turns.background(), self._database.transaction() as session:
            if ending:
                result.snoozes_ended = len(end_due_snoozes(session, now))
            if expiring:
                result.presence_expired = len(remove_expired_presence(session, now))
        return result

    def run(self, stop: threading.Event) -> None:
        """Check every interval until stop is set."""
        while not stop.is_set():
            try:
                self.run_once()
            except OperationalError as error:
                log.warning("conversation timers paused, the database is unavailable: %s", error)
            except Exception:
                # The next step tries again; the loop must outlive one bad step.
                log.exception("a conversation timer step failed")
            stop.wait(self.interval_seconds)
