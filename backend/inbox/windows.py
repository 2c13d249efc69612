"""Window timers: journal `window.closing` 1 h before a 24 h window closes, `window.closed` when it does."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from backend.database.models import Contact, Conversation, InboundMessage, OutboxMessage, User
from backend.domain import states
from backend.domain.origins import ORIGIN_AUTO
from backend.domain.windows import CLOSING_WARNING_BEFORE
from backend.journal import journal
from backend.parts import BackendParts

log = logging.getLogger(__name__)

DEFAULT_INTERVAL_SECONDS = 15.0
BATCH = 500


@dataclass
class WindowTimerResult:
    """How many warnings and closings one step journaled."""

    closing: int = 0
    closed: int = 0


def iso(moment: datetime) -> str:
    """An aware UTC time as ISO 8601 with Z."""
    return moment.isoformat().replace("+00:00", "Z")


def _not_sent_for(sent_for: Any, closes: Any) -> Any:
    return or_(sent_for.is_(None), sent_for != closes)


def unanswered(session: Session, conversation_ids: list[int]) -> set[int]:
    """The conversations whose customer wrote last: their latest inbound is newer than our latest answer.

    The away message and messages that never went out are no answer.
    """
    if not conversation_ids:
        return set()
    latest_inbound: dict[int, datetime | None] = {
        conversation_id: at
        for conversation_id, at in session.execute(
            select(InboundMessage.conversation_id, func.max(InboundMessage.received_at))
            .where(InboundMessage.conversation_id.in_(conversation_ids))
            .group_by(InboundMessage.conversation_id)
        )
    }
    latest_outbound: dict[int | None, datetime | None] = {
        conversation_id: at
        for conversation_id, at in session.execute(
            select(OutboxMessage.conversation_id, func.max(OutboxMessage.created_at))
            .where(
                OutboxMessage.conversation_id.in_(conversation_ids),
                OutboxMessage.origin != ORIGIN_AUTO,
                OutboxMessage.state.not_in([states.FAILED, states.CANCELLED]),
            )
            .group_by(OutboxMessage.conversation_id)
        )
    }
    found = set()
    for conversation_id, inbound_at in latest_inbound.items():
        outbound_at = latest_outbound.get(conversation_id)
        if inbound_at is not None and (outbound_at is None or inbound_at > outbound_at):
            found.add(conversation_id)
    return found


class WindowTimers:
    """Worker journaling each window's closing warning and its closing, once per window opening."""

    name = "window-timers"

    def __init__(self, parts: BackendParts, *, interval_seconds: float = DEFAULT_INTERVAL_SECONDS) -> None:
        self._database = parts.database
        self._clock = parts.clock
        self.interval_seconds = interval_seconds

    def run_once(self) -> WindowTimerResult:
        """Journal every warning and closing that is due now."""
        now = self._clock()
        result = WindowTimerResult()
        entries: list[tuple[str, dict[str, Any]]] = []
        with self._database.transaction() as session:
            closes = Contact.window_closes_at
            due = session.execute(
                select(Contact, Conversation.id, User.name)
                .join(Conversation, Conversation.contact_id == Contact.id)
                .outerjoin(User, User.id == Conversation.assignee_id)
                .where(
                    closes.is_not(None),
                    or_(
                        and_(closes <= now, _not_sent_for(Contact.window_closed_sent_for, closes)),
                        and_(
                            closes > now,
                            closes <= now + CLOSING_WARNING_BEFORE,
                            _not_sent_for(Contact.window_warning_sent_for, closes),
                        ),
                    ),
                )
                .order_by(closes)
                .limit(BATCH)
                # Several worker processes on PostgreSQL: each contact's timer is journaled by one.
                .with_for_update(skip_locked=True, of=Contact)
            ).all()
            warned = [
                conversation_id
                for contact, conversation_id, _ in due
                if contact.window_closes_at is not None and contact.window_closes_at > now
            ]
            waiting = unanswered(session, warned)
            for contact, conversation_id, assignee in due:
                closes_at = contact.window_closes_at
                assert closes_at is not None
                if closes_at <= now:
                    # Closed: warn no more for this window, whether or not the warning went out in time.
                    contact.window_closed_sent_for = closes_at
                    contact.window_warning_sent_for = closes_at
                    entries.append(("window.closed", {"conversation_id": conversation_id}))
                    result.closed += 1
                elif contact.window_warning_sent_for != closes_at:
                    contact.window_warning_sent_for = closes_at
                    entries.append(
                        (
                            "window.closing",
                            {
                                "conversation_id": conversation_id,
                                "closes_at": iso(closes_at),
                                # The assignee is told an hour ahead when the customer still waits.
                                "assignee": assignee,
                                "unanswered": conversation_id in waiting,
                            },
                        )
                    )
                    result.closing += 1
            session.flush()
            for event_type, data in entries:  # journal last: it may take the journal lock
                journal(session, event_type, data, now)
        return result

    def run(self, stop: threading.Event) -> None:
        """Check every interval until stop is set."""
        while not stop.is_set():
            try:
                self.run_once()
            except OperationalError as error:
                log.warning("window timers paused, the database is unavailable: %s", error)
            stop.wait(self.interval_seconds)
