"""Since when a customer has been waiting in a conversation: kept with each answer, for reports."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from backend.database.models import ConversationStatusChange, InboundMessage, OutboxMessage
from backend.domain.origins import ORIGIN_AGENT

RESOLVED = "resolved"


def _first_message_after(
    session: Session, conversation_id: int, after: datetime | None, now: datetime
) -> datetime | None:
    query = select(func.min(InboundMessage.received_at)).where(
        InboundMessage.conversation_id == conversation_id, InboundMessage.received_at <= now
    )
    if after is not None:
        query = query.where(InboundMessage.received_at > after)
    return session.scalar(query)


def waiting_for_reply(session: Session, conversation_id: int, now: datetime) -> datetime | None:
    """The customer's first message since the last reply by a person: what a reply now answers first."""
    last_reply = session.scalar(
        select(func.max(OutboxMessage.created_at)).where(
            OutboxMessage.conversation_id == conversation_id,
            OutboxMessage.origin == ORIGIN_AGENT,
            OutboxMessage.created_at <= now,
        )
    )
    return _first_message_after(session, conversation_id, last_reply, now)


def waiting_for_resolution(session: Session, conversation_id: int, now: datetime) -> datetime | None:
    """The customer's first message since the conversation was last resolved: what a resolution now closes."""
    last_resolution = session.scalar(
        select(func.max(ConversationStatusChange.at)).where(
            ConversationStatusChange.conversation_id == conversation_id,
            ConversationStatusChange.status == RESOLVED,
            ConversationStatusChange.at <= now,
        )
    )
    return _first_message_after(session, conversation_id, last_resolution, now)
