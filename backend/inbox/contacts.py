"""Contacts and their conversation (one per contact), found or created on first contact."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database.models import Contact, Conversation
from backend.database.upsert import insert_ignoring_conflicts
from backend.domain.phone import InvalidNumberError, normalize_number, wa_id_for


def contact_for_number(session: Session, e164: str, now: datetime) -> Contact:
    """The contact with this number, created if new (safe against a concurrent creator)."""
    wa_id = wa_id_for(e164)
    contact = session.scalar(select(Contact).where(Contact.wa_id == wa_id))
    if contact is None:
        session.execute(
            insert_ignoring_conflicts(
                session, Contact.__table__, ["wa_id"], wa_id=wa_id, number=e164, created_at=now
            )
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
                Conversation.__table__,
                ["contact_id"],
                contact_id=contact.id,
                unread_count=0,
                created_at=now,
            )
        )
        conversation = session.scalars(
            select(Conversation).where(Conversation.contact_id == contact.id)
        ).one()
    return conversation


def contact_for_sender(
    session: Session,
    *,
    wa_id: str | None,
    user_id: str | None,
    profile_name: str | None,
    now: datetime,
) -> Contact:
    """The contact who sent an inbound message, by WhatsApp id or business-scoped user id, created if new.

    A sender known only by a business-scoped user id (no phone number) is a contact too.
    """
    contact = _find_sender(session, wa_id, user_id)
    if contact is None:
        number = _number_of(wa_id)
        if wa_id:
            values = {"wa_id": wa_id, "user_id": None if _user_id_taken(session, user_id) else user_id}
            session.execute(
                insert_ignoring_conflicts(
                    session,
                    Contact,
                    ["wa_id"],
                    number=number,
                    profile_name=profile_name,
                    created_at=now,
                    **values,
                )
            )
        else:
            session.execute(
                insert_ignoring_conflicts(
                    session, Contact, ["user_id"], user_id=user_id, profile_name=profile_name, created_at=now
                )
            )
        contact = _find_sender(session, wa_id, user_id)
        assert contact is not None
    if profile_name and contact.profile_name != profile_name:
        contact.profile_name = profile_name
    if user_id and contact.user_id is None and not _user_id_taken(session, user_id):
        contact.user_id = user_id
    return contact


def _find_sender(session: Session, wa_id: str | None, user_id: str | None) -> Contact | None:
    if wa_id:
        contact = session.scalar(select(Contact).where(Contact.wa_id == wa_id))
        if contact is not None:
            return contact
    if user_id:
        return session.scalar(select(Contact).where(Contact.user_id == user_id))
    return None


def _user_id_taken(session: Session, user_id: str | None) -> bool:
    if not user_id:
        return False
    return session.scalar(select(Contact.id).where(Contact.user_id == user_id)) is not None


def _number_of(wa_id: str | None) -> str | None:
    if not wa_id:
        return None
    try:
        return normalize_number(wa_id)
    except InvalidNumberError:
        return None
