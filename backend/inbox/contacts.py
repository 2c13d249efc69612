"""Contacts and their conversation (one per contact), found or created on first contact."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database.models import Contact, Conversation
from backend.database.upsert import insert_ignoring_conflicts
from backend.domain.phone import InvalidNumberError, normalize_number, wa_id_for


@dataclass(frozen=True)
class ContactRef:
    """What enqueueing needs of a contact: its id and whether it opted out of marketing."""

    id: int
    opted_out: bool


def contact_refs_for_numbers(
    session: Session, numbers: Iterable[str], now: datetime
) -> dict[str, ContactRef]:
    """The contact of each E.164 number, by number, creating the new ones (safe against a concurrent creator).

    A few statements for any number of numbers: a batch of a thousand messages finds or creates its
    contacts inside its write transaction, where a statement per number cost more than the inserts.
    """
    wanted = {wa_id_for(number): number for number in numbers}
    if not wanted:
        return {}
    found = _contacts_by_wa_id(session, list(wanted))
    # In one order for every writer, so two batches creating the same contacts cannot deadlock.
    missing = sorted(wa_id for wa_id in wanted if wa_id not in found)
    if missing:
        session.execute(
            insert_ignoring_conflicts(session, Contact.__table__, ["wa_id"]),
            [{"wa_id": wa_id, "number": wanted[wa_id], "created_at": now} for wa_id in missing],
        )
        found.update(_contacts_by_wa_id(session, missing))
    return {number: found[wa_id] for wa_id, number in wanted.items()}


def _contacts_by_wa_id(session: Session, wa_ids: list[str]) -> dict[str, ContactRef]:
    rows = session.execute(
        select(Contact.wa_id, Contact.id, Contact.opted_out_at).where(Contact.wa_id.in_(wa_ids))
    ).all()
    return {
        wa_id: ContactRef(id=id_, opted_out=opted_out_at is not None)
        for wa_id, id_, opted_out_at in rows
        if wa_id is not None
    }


def contact_for_number(session: Session, e164: str, now: datetime) -> Contact:
    """The contact with this number, created if new (safe against a concurrent creator)."""
    return session.get_one(Contact, contact_refs_for_numbers(session, [e164], now)[e164].id)


def conversation_ids_for(session: Session, contact_ids: Iterable[int], now: datetime) -> dict[int, int]:
    """The conversation id of each contact, by contact id, creating those there are not yet."""
    wanted = sorted(set(contact_ids))  # in one order for every writer, as contacts are
    if not wanted:
        return {}
    found = _conversations_of(session, wanted)
    missing = [contact_id for contact_id in wanted if contact_id not in found]
    if missing:
        session.execute(
            insert_ignoring_conflicts(session, Conversation.__table__, ["contact_id"]),
            [{"contact_id": contact_id, "unread_count": 0, "created_at": now} for contact_id in missing],
        )
        found.update(_conversations_of(session, missing))
    return found


def _conversations_of(session: Session, contact_ids: list[int]) -> dict[int, int]:
    rows = session.execute(
        select(Conversation.contact_id, Conversation.id).where(Conversation.contact_id.in_(contact_ids))
    ).all()
    return {contact_id: id_ for contact_id, id_ in rows}


def conversation_for(session: Session, contact: Contact, now: datetime) -> Conversation:
    """The contact's conversation, created if there is none (safe against a concurrent creator)."""
    return session.get_one(Conversation, conversation_ids_for(session, [contact.id], now)[contact.id])


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
