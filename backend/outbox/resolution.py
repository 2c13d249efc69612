"""A supervisor's decision about a row the outbox will not decide alone."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database.models import OutboxMessage, SendDecision
from backend.domain import states
from backend.domain.transitions import supervisor_decision
from backend.journal import journal
from backend.outbox.state_writes import OUTBOX, RowRef, journal_transition, transition_update

Action = Literal["mark_sent", "resend", "cancel"]
ACTIONS: tuple[Action, ...] = ("mark_sent", "resend", "cancel")


class ResolutionError(Exception):
    """A decision that cannot be applied; `code` is `not_found` or `not_resolvable`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def resolve_by_supervisor(
    session: Session, key: str, action: Action, actor: str, now: datetime
) -> OutboxMessage:
    """Apply a supervisor's decision to the row with dedupe key `key`, and record it.

    - `mark_sent`: the customer got it (seen on their phone): `unknown` or `sending` past its lease
      becomes `sent`.
    - `resend`: a new attempt under the same key: `unknown`, `sending` past its lease or `held` goes
      back to `queued`, due now.
    - `cancel`: never send it: `queued`, `unknown`, `sending` past its lease or `held` becomes
      `cancelled`.
    A row in `sending` within its lease is in a worker's hands and is never touched; rows Meta has
    taken (accepted and after), `failed` and `cancelled` rows are final. Raises ResolutionError.
    """
    if action not in ACTIONS:
        raise ResolutionError("not_resolvable", f"unknown action {action!r}")
    query = select(OutboxMessage).where(OutboxMessage.dedupe_key == key)
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update()
    message = session.scalars(query).one_or_none()
    if message is None:
        raise ResolutionError("not_found", f"there is no message with key {key!r}")
    previous = message.state
    lease = message.lease_expires_at
    lease_expired = lease is not None and lease < now
    transition = supervisor_decision(action, state=previous, lease_expired=lease_expired)
    if transition is None:
        shown = "sending (within its lease)" if previous == states.SENDING and not lease_expired else previous
        raise ResolutionError(
            "not_resolvable", f"cannot {action.replace('_', ' ')} a message that is {shown}"
        )

    if action == "mark_sent":
        reason = f"{actor} confirmed the customer received it (was {previous})"
    elif action == "resend":
        reason = f"{actor} asked for a new attempt under the same key (was {previous})"
    else:
        reason = f"{actor} cancelled it (was {previous})"
    session.execute(transition_update(transition, now).where(OUTBOX.c.id == message.id))
    session.refresh(message)
    session.add(
        SendDecision(message_id=message.id, decided_at=now, actor=actor, action=action, reason=reason)
    )
    session.flush()
    journal_transition(
        session,
        transition,
        [
            RowRef(
                key=message.dedupe_key,
                conversation_id=message.conversation_id,
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
