"""Canned replies: saved texts agents insert by /shortcut, {{name}} and {{number}} filled from the contact."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.database.models import CannedReply, Contact, Conversation
from backend.journal import journal

SHORTCUT_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,32}")
MAX_TITLE_LENGTH = 100
MAX_TEXT_LENGTH = 4096
CHANGED = "canned_replies.changed"
FIELDS = ("shortcut", "title", "text")


class CannedReplyError(ValueError):
    """A canned reply refused or not found; `code` is the API error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def check_fields(fields: dict[str, Any]) -> dict[str, str]:
    """The given shortcut, title and text once each is valid, or CannedReplyError invalid_canned_reply."""
    checked: dict[str, str] = {}
    if "shortcut" in fields:
        shortcut = fields["shortcut"]
        if not isinstance(shortcut, str) or not SHORTCUT_PATTERN.fullmatch(shortcut):
            raise CannedReplyError(
                "invalid_canned_reply", "shortcut must be 1 to 32 letters, digits, '_' or '-'."
            )
        checked["shortcut"] = shortcut
    if "title" in fields:
        checked["title"] = _checked_text("title", fields["title"], MAX_TITLE_LENGTH)
    if "text" in fields:
        checked["text"] = _checked_text("text", fields["text"], MAX_TEXT_LENGTH)
    return checked


def _checked_text(name: str, value: object, limit: int) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise CannedReplyError(
            "invalid_canned_reply", f"{name} must be 1 to {limit} characters, not all blank."
        )
    return value


def canned_resource(row: CannedReply) -> dict[str, Any]:
    """The public form of a canned reply."""
    return {
        "id": row.id,
        "shortcut": row.shortcut,
        "title": row.title,
        "text": row.text,
        "updated_at": _iso(row.updated_at),
    }


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def list_canned(session: Session) -> list[CannedReply]:
    """Every canned reply, by shortcut."""
    return list(session.scalars(select(CannedReply).order_by(CannedReply.shortcut, CannedReply.id)))


def fill(text: str, contact: Contact) -> str:
    """The text with {{name}} and {{number}} replaced from the contact (no name: its number)."""
    number = contact.number or contact.wa_id or ""
    return text.replace("{{name}}", contact.profile_name or number).replace("{{number}}", number)


def contact_of(session: Session, conversation_id: int) -> Contact | None:
    """The contact of a conversation, or None when there is no such conversation."""
    return session.scalar(
        select(Contact)
        .join(Conversation, Conversation.contact_id == Contact.id)
        .where(Conversation.id == conversation_id)
    )


def _shortcut_taken(session: Session, shortcut: str, other_than: int | None) -> bool:
    query = select(CannedReply.id).where(CannedReply.shortcut == shortcut)
    if other_than is not None:
        query = query.where(CannedReply.id != other_than)
    return session.scalar(query.limit(1)) is not None


def _refuse_taken(shortcut: str) -> CannedReplyError:
    return CannedReplyError("shortcut_taken", f"Another canned reply already uses the shortcut {shortcut!r}.")


def _flush(session: Session, shortcut: str) -> None:
    # The unique index decides between two writers racing for one shortcut.
    try:
        with session.begin_nested():
            session.flush()
    except IntegrityError:
        raise _refuse_taken(shortcut) from None


def create_canned(session: Session, fields: dict[str, Any], *, user_id: int, now: datetime) -> CannedReply:
    """Add a canned reply from shortcut, title and text (all required)."""
    missing = [name for name in FIELDS if name not in fields]
    if missing:
        raise CannedReplyError("invalid_canned_reply", f"Give {', '.join(missing)}.")
    checked = check_fields(fields)
    if _shortcut_taken(session, checked["shortcut"], None):
        raise _refuse_taken(checked["shortcut"])
    row = CannedReply(**checked, created_by=user_id, created_at=now, updated_at=now)
    session.add(row)
    _flush(session, checked["shortcut"])
    journal(session, CHANGED, {}, now)
    return row


def update_canned(session: Session, canned_id: int, fields: dict[str, Any], *, now: datetime) -> CannedReply:
    """Change the given fields of a canned reply (at least one of shortcut, title, text)."""
    if not any(name in fields for name in FIELDS):
        raise CannedReplyError("invalid_canned_reply", "Give at least one of shortcut, title or text.")
    checked = check_fields(fields)
    row = session.get(CannedReply, canned_id, with_for_update=True)
    if row is None:
        raise CannedReplyError("not_found", "There is no canned reply with this id.")
    if "shortcut" in checked and _shortcut_taken(session, checked["shortcut"], canned_id):
        raise _refuse_taken(checked["shortcut"])
    for name, value in checked.items():
        setattr(row, name, value)
    row.updated_at = now
    _flush(session, row.shortcut)
    journal(session, CHANGED, {}, now)
    return row


def delete_canned(session: Session, canned_id: int, *, now: datetime) -> None:
    """Remove a canned reply."""
    result = session.execute(delete(CannedReply).where(CannedReply.id == canned_id))
    if result.rowcount == 0:  # type: ignore[attr-defined]
        raise CannedReplyError("not_found", "There is no canned reply with this id.")
    journal(session, CHANGED, {}, now)
