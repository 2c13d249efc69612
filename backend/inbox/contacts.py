"""Contacts and their conversation (one per contact), found or created on first contact."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database.models import Contact, Conversation
from backend.database.upsert import insert_ignoring_conflicts
from backend.domain.phone import wa_id_for


def contact_for_number(session: Session, e164: str, now: datetime) -> Contact:
    """The contact with this number, created if new (safe against a concurrent creator)."""
    wa_id = wa_id_for(e164)
    contact = session.scalar(select(Contact).where(Contact.wa_id == wa_id))
    if contact is None:
        session.execute(
            insert_ignoring_conflicts(session, Contact, ["wa_id"], wa_id=wa_id, number=e164, created_at=now)
        )
        contact = session.scalars(select(Contact).where(Contact.wa_id == wa_id)).one()
    return contact


def conversation_for(session: Session, contact: Contact, now: datetime) -> Conversation:
    """The contact's conversation, created if there is none (safe against a concurrent creator)."""
    conversation = session.scalar(select(Conversation).where(Conversation.contact_id == contact.id))
    if conversation is None:
        session.execute(
            insert_ignoring_conflicts(
                session,
                Conversation,
                ["contact_id"],
                contact_id=contact.id,
                state="open",
                unread_count=0,
                created_at=now,
            )
        )
        conversation = session.scalars(
            select(Conversation).where(Conversation.contact_id == contact.id)
        ).one()
    return conversation
