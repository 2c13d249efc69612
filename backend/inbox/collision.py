"""Collision control: a reply written against a thread that others have answered since is stopped."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from backend.database.models import OutboxMessage, User
from backend.domain.messages import preview_text
from backend.domain.origins import ORIGIN_AUTO
from backend.domain.templates import TemplateCatalog
from backend.inbox.queries import message_resource

# Enough to show what happened; a thread busier than that is plainly changed.
MAX_LISTED = 20


def sent_by_others_since(
    session: Session,
    conversation_id: int,
    *,
    user_id: int,
    seen_up_to: datetime,
    catalog: TemplateCatalog | None = None,
) -> list[dict[str, Any]]:
    """Messages others created in the conversation after `seen_up_to`, oldest first, with body and author."""
    rows = session.execute(
        select(OutboxMessage, User.name)
        .outerjoin(User, User.id == OutboxMessage.created_by)
        .where(
            OutboxMessage.conversation_id == conversation_id,
            OutboxMessage.created_at > seen_up_to,
            OutboxMessage.origin != ORIGIN_AUTO,
            or_(OutboxMessage.created_by.is_(None), OutboxMessage.created_by != user_id),
        )
        .order_by(OutboxMessage.created_at, OutboxMessage.id)
        .limit(MAX_LISTED)
    ).all()
    messages = []
    for row, author in rows:
        item = message_resource(row)
        item["body"] = preview_text(row.kind, row.payload, catalog)
        item["created_by"] = author
        messages.append(item)
    return messages
