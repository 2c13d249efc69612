"""What agents read of customers' messages: a conversation's thread, and the work queue with candidates."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database.models import Contact, ConversationNote, InboundMessage, MediaFile, OutboxMessage, User
from backend.domain.messages import preview_text
from backend.domain.templates import TemplateCatalog
from backend.inbox.inbound import WORK_QUEUE, business_candidates, went_out_at
from backend.inbox.notes import note_resource
from backend.inbox.queries import Page, iso, message_resource
from backend.media.records import media_by_ids, media_resource

# Thread items of one moment keep this order: what we sent, what the customer sent, then notes.
_OUTBOUND, _INBOUND, _NOTE = 0, 1, 2


def inbound_resource(row: InboundMessage, media: dict[str, MediaFile] | None = None) -> dict[str, Any]:
    """The public form of an inbound message; a photo, voice note or file has `media` (rows in `media`)."""
    resource: dict[str, Any] = {
        "direction": "inbound",
        "wamid": row.wamid,
        "type": row.type,
        "text": row.text if row.text is not None else row.caption,
        "choice": row.choice_id,
        "choice_title": row.choice_title,
        "context_id": row.context_id,
        "attributed": row.placement != WORK_QUEUE,
        "placement": row.placement,
        "reaction": row.reaction_emoji,
        "received_at": iso(row.received_at),
    }
    if row.media_id:
        found = (media or {}).get(row.media_id)
        resource["media"] = media_resource(found, row.media_id, row.media_mime_type, row.caption)
    return resource


def media_for(session: Session, rows: list[InboundMessage]) -> dict[str, MediaFile]:
    """The media rows of these messages, by media id."""
    return media_by_ids(session, [row.media_id for row in rows if row.media_id])


def _outbound_item(
    row: OutboxMessage, replies: list[dict[str, Any]], catalog: TemplateCatalog | None
) -> dict[str, Any]:
    item = message_resource(row)
    item.update(
        {
            "direction": "outbound",
            "kind": row.kind,
            "body": preview_text(row.kind, row.payload, catalog),
            "replies": replies,
        }
    )
    return {"direction": "outbound", **item}


def thread(
    session: Session,
    conversation_id: int,
    *,
    limit: int,
    offset: int,
    catalog: TemplateCatalog | None = None,
) -> Page:
    """The conversation in time order: our messages with their replies, the customer's others, notes."""
    outbound_times = session.execute(
        select(OutboxMessage.id, OutboxMessage.created_at).where(
            OutboxMessage.conversation_id == conversation_id
        )
    ).all()
    # Replies and linked messages sit under the message they answer; everything else stands alone.
    inbound_times = session.execute(
        select(InboundMessage.id, InboundMessage.received_at).where(
            InboundMessage.conversation_id == conversation_id,
            InboundMessage.reply_to_message_id.is_(None),
        )
    ).all()
    note_times = session.execute(
        select(ConversationNote.id, ConversationNote.created_at).where(
            ConversationNote.conversation_id == conversation_id
        )
    ).all()
    ordered = sorted(
        [(at, _OUTBOUND, row_id) for row_id, at in outbound_times]
        + [(at, _INBOUND, row_id) for row_id, at in inbound_times]
        + [(at, _NOTE, row_id) for row_id, at in note_times]
    )
    window = ordered[offset : offset + limit]
    outbound_ids = [row_id for _, kind, row_id in window if kind == _OUTBOUND]
    inbound_ids = [row_id for _, kind, row_id in window if kind == _INBOUND]
    note_ids = [row_id for _, kind, row_id in window if kind == _NOTE]
    outbound = {
        row.id: row
        for row in session.scalars(select(OutboxMessage).where(OutboxMessage.id.in_(outbound_ids)))
    }
    inbound = {
        row.id: row
        for row in session.scalars(select(InboundMessage).where(InboundMessage.id.in_(inbound_ids)))
    }
    notes: dict[int, dict[str, Any]] = {}
    if note_ids:
        for note, author in session.execute(
            select(ConversationNote, User.name)
            .join(User, User.id == ConversationNote.author_id)
            .where(ConversationNote.id.in_(note_ids))
        ):
            notes[note.id] = {"direction": "note", **note_resource(note, author)}
    replies: dict[int, list[dict[str, Any]]] = {row_id: [] for row_id in outbound_ids}
    if outbound_ids:
        reply_rows = session.scalars(
            select(InboundMessage)
            .where(InboundMessage.reply_to_message_id.in_(outbound_ids))
            .order_by(InboundMessage.received_at, InboundMessage.id)
        )
        reply_list = list(reply_rows)
        reply_media = media_for(session, reply_list)
        for reply in reply_list:
            assert reply.reply_to_message_id is not None
            replies[reply.reply_to_message_id].append(inbound_resource(reply, reply_media))
    inbound_media = media_for(session, list(inbound.values()))
    items = []
    for _, kind, row_id in window:
        if kind == _OUTBOUND:
            items.append(_outbound_item(outbound[row_id], replies[row_id], catalog))
        elif kind == _INBOUND:
            items.append(inbound_resource(inbound[row_id], inbound_media))
        else:
            items.append(notes[row_id])
    return Page(items, len(ordered) > offset + limit)


def candidate_resource(message: OutboxMessage, catalog: TemplateCatalog | None) -> dict[str, Any]:
    """A business message a work item may answer, as the agent chooses among them."""
    return {
        "key": message.dedupe_key,
        "wamid": message.wamid,
        "purpose": message.purpose,
        "body": preview_text(message.kind, message.payload, catalog),
        "sent_at": iso(message.sent_at or went_out_at(message)),
    }


def work_queue(session: Session, *, limit: int, offset: int, catalog: TemplateCatalog | None = None) -> Page:
    """Messages nobody can tell which business message they answer, oldest first, with the candidates."""
    rows = session.execute(
        select(InboundMessage, Contact)
        .join(Contact, Contact.id == InboundMessage.contact_id)
        .where(InboundMessage.placement == WORK_QUEUE)
        .order_by(InboundMessage.received_at, InboundMessage.id)
        .offset(offset)
        .limit(limit + 1)
    ).all()
    page = rows[:limit]
    candidates = business_candidates(session, [inbound.id for inbound, _ in page])
    items = [
        {
            "wamid": inbound.wamid,
            "conversation_id": inbound.conversation_id,
            "from": contact.number or contact.wa_id or contact.user_id,
            "name": contact.profile_name,
            "type": inbound.type,
            "text": inbound.text if inbound.text is not None else inbound.caption,
            "context_id": inbound.context_id,
            "received_at": iso(inbound.received_at),
            "placement": inbound.placement,
            "candidates": [candidate_resource(message, catalog) for message in candidates[inbound.id]],
        }
        for inbound, contact in page
    ]
    return Page(items, len(rows) > limit)
