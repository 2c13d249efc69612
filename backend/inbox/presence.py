"""Who is viewing and typing in a conversation: rows that live 30 s unless refreshed."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from backend.database.models import ConversationPresence, User
from backend.journal import journal_many

# A desk refreshes its presence about every 10 s while the conversation is on screen.
PRESENCE_LIFETIME = timedelta(seconds=30)
PRESENCE_CHANGED = "presence.changed"


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def live_viewers(
    session: Session, conversation_ids: Iterable[int], now: datetime
) -> dict[int, list[dict[str, Any]]]:
    """The live viewers of each conversation (expired rows left out), earliest arrival first."""
    wanted = sorted(set(conversation_ids))
    viewers: dict[int, list[dict[str, Any]]] = {conversation_id: [] for conversation_id in wanted}
    if not wanted:
        return viewers
    rows = session.execute(
        select(ConversationPresence, User.name)
        .join(User, User.id == ConversationPresence.user_id)
        .where(ConversationPresence.conversation_id.in_(wanted), ConversationPresence.expires_at > now)
        .order_by(ConversationPresence.since, User.name)
    ).all()
    for presence, name in rows:
        viewers[presence.conversation_id].append(
            {"user": name, "typing": presence.typing, "since": _iso(presence.since)}
        )
    return viewers


def update_presence(
    session: Session,
    conversation_id: int,
    user_id: int,
    *,
    viewing: bool,
    typing: bool,
    now: datetime,
) -> list[dict[str, Any]]:
    """Mark the user as viewing (and typing) for 30 s, or gone; journal a change of who or of typing.

    The caller holds the conversation's row lock, so two refreshes of one user cannot both insert.
    """
    row = session.get(ConversationPresence, (conversation_id, user_id))
    live = row is not None and row.expires_at > now
    changed = False
    if not viewing:
        if row is not None:
            session.delete(row)
            changed = live
    elif row is None:
        session.add(
            ConversationPresence(
                conversation_id=conversation_id,
                user_id=user_id,
                typing=typing,
                since=now,
                expires_at=now + PRESENCE_LIFETIME,
            )
        )
        changed = True
    else:
        changed = not live or row.typing != typing
        if not live:
            # An expired row the sweeper has not removed yet: the user arrives anew.
            row.since = now
        row.typing = typing
        row.expires_at = now + PRESENCE_LIFETIME
    session.flush()
    viewers = live_viewers(session, [conversation_id], now)[conversation_id]
    if changed:
        journal_many(session, [presence_entry(conversation_id, viewers)], now)
    return viewers


def presence_entry(conversation_id: int, viewers: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """The journal entry announcing a conversation's viewers."""
    return (PRESENCE_CHANGED, {"conversation_id": conversation_id, "viewers": viewers})


def presence_expired(session: Session, now: datetime) -> bool:
    """Whether any presence row has expired (a cheap read before taking the write lock)."""
    found = session.scalar(
        select(ConversationPresence.conversation_id).where(ConversationPresence.expires_at <= now).limit(1)
    )
    return found is not None


def remove_expired_presence(session: Session, now: datetime) -> list[int]:
    """Delete expired presence rows and journal the viewers left; the conversations affected."""
    # A row refreshed meanwhile no longer matches when PostgreSQL re-checks it, and a row deleted by
    # another sweeper is not returned twice: each expiry is journaled once.
    removed = session.scalars(
        delete(ConversationPresence)
        .where(ConversationPresence.expires_at <= now)
        .returning(ConversationPresence.conversation_id)
        .execution_options(synchronize_session=False)
    ).all()
    conversation_ids = sorted(set(removed))
    if conversation_ids:
        viewers = live_viewers(session, conversation_ids, now)
        journal_many(
            session,
            [
                presence_entry(conversation_id, viewers[conversation_id])
                for conversation_id in conversation_ids
            ],
            now,
        )
    return conversation_ids
