"""Internal notes in a conversation's thread: seen by the team, never sent to WhatsApp."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database.models import ConversationNote, User
from backend.journal import journal

MAX_NOTE_LENGTH = 4000
NOTE_ADDED = "note.added"


class NoteError(ValueError):
    """A note that cannot be added as given; the message says why."""


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def check_note_text(raw: object) -> str:
    """The note's text, stripped, if it is 1 to 4,000 characters of text; else NoteError."""
    if not isinstance(raw, str):
        raise NoteError("text must be a string.")
    text = raw.strip()
    if not 1 <= len(text) <= MAX_NOTE_LENGTH:
        raise NoteError(f"A note is 1 to {MAX_NOTE_LENGTH} characters (not counting spaces around it).")
    return text


def _starts_name(text: str, position: int, name: str) -> bool:
    """Whether `name` is written at `position`, whole (not the start of a longer word)."""
    end = position + len(name)
    if text[position:end].casefold() != name.casefold():
        return False
    return end == len(text) or not (text[end].isalnum() or text[end] == "_")


def mentioned_names(text: str, names: list[str]) -> list[str]:
    """The names written as @name in the text, in order of first mention, each once.

    Names may hold spaces ("@Dana Smith"): at each @ the longest name written there counts. An @
    inside a word (an e-mail address) mentions no one.
    """
    by_length = sorted(names, key=len, reverse=True)
    found: list[str] = []
    position = text.find("@")
    while position != -1:
        if position == 0 or not (text[position - 1].isalnum() or text[position - 1] == "_"):
            name = next((name for name in by_length if _starts_name(text, position + 1, name)), None)
            if name is not None and name not in found:
                found.append(name)
        position = text.find("@", position + 1)
    return found


def note_resource(note: ConversationNote, author: str) -> dict[str, Any]:
    """The public form of a note (POST /v1/conversations/{id}/notes)."""
    return {"id": note.id, "author": author, "text": note.text, "created_at": _iso(note.created_at)}


def add_note(
    session: Session, conversation_id: int, *, author_id: int, author: str, text: str, now: datetime
) -> dict[str, Any]:
    """Store a checked note, mentioning enabled users by @name; journal `note.added`."""
    enabled = list(session.scalars(select(User.name).where(User.disabled.is_(False)).order_by(User.name)))
    mentions = mentioned_names(text, enabled) if "@" in text else []
    note = ConversationNote(
        conversation_id=conversation_id,
        author_id=author_id,
        text=text,
        mentions=mentions,
        created_at=now,
    )
    session.add(note)
    session.flush()
    journal(
        session,
        NOTE_ADDED,
        {"conversation_id": conversation_id, "id": note.id, "author": author, "mentions": mentions},
        now,
    )
    return note_resource(note, author)
