"""A supervisor's decision about a row the outbox will not decide alone."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database.models import OutboxMessage, SendDecision
from backend.domain import states
from backend.journal import journal
from backend.outbox.journal_batch import journal_state_changes, state_change

Action = Literal["mark_sent", "resend", "cancel"]
ACTIONS: tuple[Action, ...] = ("mark_sent", "resend", "cancel")


class ResolutionError(Exception):
    """A decision that cannot be applied; `code` is `not_found` or `not_resolvable`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _allowed_from(action: Action) -> frozenset[str]:
    if action == "mark_sent":
        # Only where the message may really have gone out: the outcome is unknown.
        return frozenset({states.UNKNOWN, "sending_expired"})
    if action == "resend":
        return frozenset({states.UNKNOWN, "sending_expired", states.HELD, states.FAILED})
    return frozenset({states.QUEUED, states.UNKNOWN, "sending_expired", states.HELD})


def resolve_by_supervisor(
    session: Session, key: str, action: Action, actor: str, now: datetime
) -> OutboxMessage:
    """Apply a supervisor's decision to the row with dedupe key `key`, and record it.

    - `mark_sent`: the customer got it (seen on their phone): `unknown` or `sending` past its lease
      becomes `sent`.
    - `resend`: a new attempt under the same key: `unknown`, `sending` past its lease, `held` or
      `failed` goes back to `queued`, due now.
    - `cancel`: never send it: `queued`, `unknown`, `sending` past its lease or `held` becomes
      `cancelled`.
    A row in `sending` within its lease is in a worker's hands and is never touched; rows Meta has
    taken (accepted and after) and cancelled rows cannot be resolved. Raises ResolutionError.
    """
    if action not in ACTIONS:
        raise ResolutionError("not_resolvable", f"unknown action {action!r}")
    query = select(OutboxMessage).where(OutboxMessage.dedupe_key == key)
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update()
    message = session.scalars(query).one_or_none()
    if message is None:
        raise ResolutionError("not_found", f"there is no message with key {key!r}")
    situation = message.state
    if situation == states.SENDING:
        lease = message.lease_expires_at
        situation = "sending_expired" if lease is not None and lease < now else states.SENDING
    if situation not in _allowed_from(action):
        shown = "sending (within its lease)" if situation == states.SENDING else message.state
        raise ResolutionError(
            "not_resolvable", f"cannot {action.replace('_', ' ')} a message that is {shown}"
        )

    previous = message.state
    if action == "mark_sent":
        message.state = states.SENT
        message.sent_at = message.sent_at or now
        reason = f"{actor} confirmed the customer received it (was {previous})"
    elif action == "resend":
        message.state = states.QUEUED
        message.not_before = now
        message.claimed_by = None
        reason = f"{actor} asked for a new attempt under the same key (was {previous})"
    else:
        message.state = states.CANCELLED
        reason = f"{actor} cancelled it (was {previous})"
    message.hold_reason = None
    message.lease_expires_at = None
    message.unknown_since = None
    message.updated_at = now
    session.add(
        SendDecision(message_id=message.id, decided_at=now, actor=actor, action=action, reason=reason)
    )
    session.flush()
    journal_state_changes(
        session,
        [
            state_change(
                key=message.dedupe_key,
                conversation_id=message.conversation_id,
                state=message.state,
                previous_state=previous,
                wamid=message.wamid,
            )
        ],
        now,
    )
    journal(
        session, "supervisor.decision", {"key": key, "action": action, "actor": actor, "reason": reason}, now
    )
    return message
