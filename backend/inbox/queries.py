"""The read side of the inbox: conversation lists, threads, the work queue and message resources."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from backend.database.models import (
    Batch,
    Contact,
    Conversation,
    InboundMessage,
    OutboxMessage,
    StatusEvent,
    User,
)
from backend.domain import states
from backend.domain.messages import preview_text
from backend.domain.send_errors import error_reason
from backend.domain.templates import TemplateCatalog

VIEWS = ("mine", "unassigned", "all")
WINDOWS = ("open", "closed")
WORK_QUEUE = "work_queue"
MAX_EVIDENCE = 20


@dataclass(frozen=True)
class Page:
    """One page of a list and whether more follows."""

    items: list[dict[str, Any]]
    has_more: bool


def iso(moment: datetime | None) -> str | None:
    """ISO 8601 in UTC with a Z, or None."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def message_resource(row: OutboxMessage) -> dict[str, Any]:
    """The public form of an outbox row (GET /v1/messages/{key})."""
    error = None
    if row.last_error_code is not None or row.last_error_title is not None:
        error = {
            "code": row.last_error_code,
            "title": row.last_error_title,
            "details": row.last_error_details,
            "reason": error_reason(row.last_error_code, row.last_error_title).value,
        }
    return {
        "key": row.dedupe_key,
        "to": row.to_number,
        "purpose": row.purpose,
        "state": row.state,
        "wamid": row.wamid,
        "attempts": row.attempts,
        "error": error,
        "created_at": iso(row.created_at),
        "sent_at": iso(row.sent_at),
        "delivered_at": iso(row.delivered_at),
        "read_at": iso(row.read_at),
        "failed_at": iso(row.failed_at),
        "conversation_id": row.conversation_id,
        "reply_to": row.reply_to,
        "hold_reason": row.hold_reason,
        "trigger_ref": row.trigger_ref,
    }


def message_by_key(session: Session, key: str) -> OutboxMessage | None:
    """The outbox row with this dedupe key, or None."""
    return session.scalar(select(OutboxMessage).where(OutboxMessage.dedupe_key == key))


def _window_open(contact: Contact, now: datetime) -> bool:
    return contact.window_closes_at is not None and contact.window_closes_at > now


def _contact_resource(contact: Contact) -> dict[str, Any]:
    return {"wa_id": contact.wa_id, "number": contact.number, "name": contact.profile_name}


def _conversation_resource(
    conversation: Conversation, contact: Contact, assignee: str | None, now: datetime
) -> dict[str, Any]:
    return {
        "id": conversation.id,
        "contact": _contact_resource(contact),
        "assignee": assignee,
        "last_message_at": iso(conversation.last_message_at),
        "unread": conversation.unread_count,
        "window_closes_at": iso(contact.window_closes_at),
        "window_open": _window_open(contact, now),
    }


def _like_pattern(text: str) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def list_conversations(
    session: Session,
    *,
    view: str,
    user_id: int,
    window: str | None,
    search: str | None,
    now: datetime,
    limit: int,
    offset: int,
) -> Page:
    """Conversations, most recent activity first, filtered by view, window and a search text."""
    query = (
        select(Conversation, Contact, User.name)
        .join(Contact, Contact.id == Conversation.contact_id)
        .outerjoin(User, User.id == Conversation.assignee_id)
    )
    if view == "mine":
        query = query.where(Conversation.assignee_id == user_id)
    elif view == "unassigned":
        query = query.where(Conversation.assignee_id.is_(None))
    if window == "open":
        query = query.where(Contact.window_closes_at > now)
    elif window == "closed":
        query = query.where(or_(Contact.window_closes_at.is_(None), Contact.window_closes_at <= now))
    if search:
        pattern = _like_pattern(search.strip())
        digits = "".join(ch for ch in search if ch.isdigit())
        matches = [func.lower(Contact.profile_name).like(pattern, escape="\\")]
        matches.append(func.lower(Contact.number).like(pattern, escape="\\"))
        matches.append(func.lower(Contact.wa_id).like(pattern, escape="\\"))
        if digits and digits != search.strip():
            # "+1 650 555" finds +16505551234: compare digits only as well.
            matches.append(Contact.wa_id.like(f"%{digits}%"))
        query = query.where(or_(*matches))
    query = query.order_by(
        Conversation.last_message_at.is_(None),
        Conversation.last_message_at.desc(),
        Conversation.id.desc(),
    )
    rows = session.execute(query.offset(offset).limit(limit + 1)).all()
    page = rows[:limit]
    latest = _latest_texts(session, [conversation.id for conversation, _, _ in page])
    items = []
    for conversation, contact, name in page:
        item = _conversation_resource(conversation, contact, name, now)
        item["last_message"] = latest.get(conversation.id)
        items.append(item)
    return Page(items, len(rows) > limit)


def _latest_texts(session: Session, conversation_ids: list[int]) -> dict[int, str | None]:
    """The text of each conversation's latest message, inbound or outbound (four queries a page)."""
    if not conversation_ids:
        return {}
    newest_inbound = (
        select(func.max(InboundMessage.id))
        .where(InboundMessage.conversation_id.in_(conversation_ids))
        .group_by(InboundMessage.conversation_id)
    )
    newest_outbound = (
        select(func.max(OutboxMessage.id))
        .where(OutboxMessage.conversation_id.in_(conversation_ids))
        .group_by(OutboxMessage.conversation_id)
    )
    candidates: dict[int, tuple[datetime, str | None]] = {}
    for inbound in session.scalars(select(InboundMessage).where(InboundMessage.id.in_(newest_inbound))):
        text = inbound.text if inbound.text is not None else inbound.caption
        candidates[inbound.conversation_id] = (
            inbound.received_at,
            text or inbound.choice_title or inbound.type,
        )
    for outbound in session.scalars(select(OutboxMessage).where(OutboxMessage.id.in_(newest_outbound))):
        assert outbound.conversation_id is not None
        known = candidates.get(outbound.conversation_id)
        if known is None or outbound.created_at > known[0]:
            candidates[outbound.conversation_id] = (
                outbound.created_at,
                preview_text(outbound.kind, outbound.payload),
            )
    return {conversation_id: text for conversation_id, (_, text) in candidates.items()}


def conversation_detail(session: Session, conversation_id: int, now: datetime) -> dict[str, Any] | None:
    """One conversation with its contact, assignee and window, or None."""
    row = session.execute(
        select(Conversation, Contact, User.name)
        .join(Contact, Contact.id == Conversation.contact_id)
        .outerjoin(User, User.id == Conversation.assignee_id)
        .where(Conversation.id == conversation_id)
    ).first()
    if row is None:
        return None
    conversation, contact, name = row
    return _conversation_resource(conversation, contact, name, now)


def inbound_resource(row: InboundMessage) -> dict[str, Any]:
    """The public form of an inbound message."""
    return {
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
    """The conversation in time order: outbound messages with their replies, other inbound at the top."""
    outbound_times = session.execute(
        select(OutboxMessage.id, OutboxMessage.created_at).where(
            OutboxMessage.conversation_id == conversation_id
        )
    ).all()
    inbound_times = session.execute(
        select(InboundMessage.id, InboundMessage.received_at).where(
            InboundMessage.conversation_id == conversation_id,
            InboundMessage.reply_to_message_id.is_(None),
        )
    ).all()
    ordered = sorted(
        [(at, 0, row_id) for row_id, at in outbound_times] + [(at, 1, row_id) for row_id, at in inbound_times]
    )
    window = ordered[offset : offset + limit]
    outbound_ids = [row_id for _, kind, row_id in window if kind == 0]
    inbound_ids = [row_id for _, kind, row_id in window if kind == 1]
    outbound = {
        row.id: row
        for row in session.scalars(select(OutboxMessage).where(OutboxMessage.id.in_(outbound_ids)))
    }
    inbound = {
        row.id: row
        for row in session.scalars(select(InboundMessage).where(InboundMessage.id.in_(inbound_ids)))
    }
    replies: dict[int, list[dict[str, Any]]] = {row_id: [] for row_id in outbound_ids}
    if outbound_ids:
        reply_rows = session.scalars(
            select(InboundMessage)
            .where(InboundMessage.reply_to_message_id.in_(outbound_ids))
            .order_by(InboundMessage.received_at, InboundMessage.id)
        )
        for reply in reply_rows:
            assert reply.reply_to_message_id is not None
            replies[reply.reply_to_message_id].append(inbound_resource(reply))
    items = [
        _outbound_item(outbound[row_id], replies[row_id], catalog)
        if kind == 0
        else inbound_resource(inbound[row_id])
        for _, kind, row_id in window
    ]
    return Page(items, len(ordered) > offset + limit)


def work_queue(session: Session, *, limit: int, offset: int) -> Page:
    """Inbound messages no one has attributed yet, oldest first."""
    rows = session.execute(
        select(InboundMessage, Contact)
        .join(Contact, Contact.id == InboundMessage.contact_id)
        .where(InboundMessage.placement == WORK_QUEUE)
        .order_by(InboundMessage.received_at, InboundMessage.id)
        .offset(offset)
        .limit(limit + 1)
    ).all()
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
        }
        for inbound, contact in rows[:limit]
    ]
    return Page(items, len(rows) > limit)


def supervisor_queue(session: Session, *, now: datetime, limit: int, offset: int) -> Page:
    """Rows a person must decide on: unknown, held, and `sending` past its lease; with evidence."""
    stuck_sending = and_(
        OutboxMessage.state == states.SENDING,
        OutboxMessage.lease_expires_at.is_not(None),
        OutboxMessage.lease_expires_at < now,
    )
    rows = list(
        session.scalars(
            select(OutboxMessage)
            .where(or_(OutboxMessage.state.in_([states.UNKNOWN, states.HELD]), stuck_sending))
            .order_by(OutboxMessage.created_at, OutboxMessage.id)
            .offset(offset)
            .limit(limit + 1)
        )
    )
    page = rows[:limit]
    evidence: dict[int, list[dict[str, Any]]] = {row.id: [] for row in page}
    by_key = {row.dedupe_key: row.id for row in page}
    if page:
        events = session.scalars(
            select(StatusEvent)
            .where(
                or_(
                    StatusEvent.message_id.in_(list(evidence)),
                    StatusEvent.callback_data.in_(list(by_key)),
                )
            )
            .order_by(StatusEvent.received_at, StatusEvent.id)
        )
        for event in events:
            owner = (
                event.message_id if event.message_id in evidence else by_key.get(event.callback_data or "")
            )
            if owner is not None and len(evidence[owner]) < MAX_EVIDENCE:
                evidence[owner].append(
                    {
                        "wamid": event.wamid,
                        "status": event.status,
                        "callback_data": event.callback_data,
                        "occurred_at": iso(event.occurred_at),
                        "received_at": iso(event.received_at),
                    }
                )
    names: dict[int, str | None] = {}
    conversation_ids = {row.conversation_id for row in page if row.conversation_id is not None}
    if conversation_ids:
        names = {
            conversation_id: name
            for conversation_id, name in session.execute(
                select(Conversation.id, Contact.profile_name)
                .join(Contact, Contact.id == Conversation.contact_id)
                .where(Conversation.id.in_(conversation_ids))
            )
        }
    items = []
    for row in page:
        item = message_resource(row)
        item["body"] = preview_text(row.kind, row.payload)
        item["name"] = names.get(row.conversation_id) if row.conversation_id is not None else None
        reason = row.state
        if row.state == states.SENDING:
            reason = "sending_past_lease"
        item.update(
            {
                "reason": reason,
                "age_seconds": round((now - row.created_at).total_seconds(), 3),
                "unknown_since": iso(row.unknown_since),
                "lease_expires_at": iso(row.lease_expires_at),
                "last_error": item["error"],
                "evidence": evidence[row.id],
            }
        )
        items.append(item)
    return Page(items, len(rows) > limit)


def batch_progress(session: Session, batch_id: int) -> dict[str, Any] | None:
    """A batch with its messages counted by state, or None."""
    batch = session.get(Batch, batch_id)
    if batch is None:
        return None
    counts = {state: 0 for state in states.ALL_STATES}
    for state, count in session.execute(
        select(OutboxMessage.state, func.count())
        .where(OutboxMessage.batch_id == batch_id)
        .group_by(OutboxMessage.state)
    ):
        counts[state] = int(count)
    return {
        "batch_id": batch.id,
        "client_ref": batch.client_ref,
        "created_at": iso(batch.created_at),
        "queued": batch.message_count,
        "duplicates": batch.duplicate_count,
        "total": sum(counts.values()),
        "states": counts,
    }
