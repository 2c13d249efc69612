"""The read side of the inbox: conversation lists, threads, the work queue and message resources."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from backend.database.models import (
    Batch,
    Contact,
    Conversation,
    ConversationLabel,
    InboundMessage,
    OutboxMessage,
    StatusEvent,
    User,
)
from backend.domain import states
from backend.domain.messages import preview_text
from backend.domain.send_errors import error_reason
from backend.domain.templates import TemplateCatalog
from backend.domain.windows import CLOSING_WARNING_BEFORE
from backend.inbox.labels import labels_of
from backend.inbox.lifecycle import DEFAULT_LIST_STATUSES
from backend.inbox.presence import live_viewers
from backend.inbox.search import conversation_ids_matching

VIEWS = ("mine", "unassigned", "all")
# closing: still open, closes within the hour (when the closing warning goes out).
WINDOWS = ("open", "closed", "closing")
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
        "marketing": row.marketing,
    }


def message_by_key(session: Session, key: str) -> OutboxMessage | None:
    """The outbox row with this dedupe key, or None."""
    return session.scalar(select(OutboxMessage).where(OutboxMessage.dedupe_key == key))


def _window_open(contact: Contact, now: datetime) -> bool:
    return contact.window_closes_at is not None and contact.window_closes_at > now


def _contact_resource(contact: Contact) -> dict[str, Any]:
    return {
        "wa_id": contact.wa_id,
        "number": contact.number,
        "name": contact.profile_name,
        "opted_out": contact.opted_out_at is not None,
        "opted_out_at": iso(contact.opted_out_at),
    }


def contact_resource(contact: Contact) -> dict[str, Any]:
    """The public form of a contact (GET /v1/contacts/{wa_id}), with its opt-out and latest opt-in."""
    return {
        **_contact_resource(contact),
        "opted_out_reason": contact.opted_out_reason,
        "opted_in_at": iso(contact.opted_in_at),
        "opted_in_note": contact.opted_in_note,
    }


def _conversation_resource(
    conversation: Conversation,
    contact: Contact,
    assignee: str | None,
    now: datetime,
    *,
    labels: list[str],
    viewers: list[dict[str, Any]],
) -> dict[str, Any]:
    return {
        "id": conversation.id,
        "contact": _contact_resource(contact),
        "assignee": assignee,
        "last_message_at": iso(conversation.last_message_at),
        "unread": conversation.unread_count,
        "window_closes_at": iso(contact.window_closes_at),
        "window_open": _window_open(contact, now),
        "status": conversation.status,
        "snoozed_until": iso(conversation.snoozed_until),
        "labels": labels,
        "viewers": viewers,
    }


def conversation_resources(
    session: Session, rows: Sequence[tuple[Conversation, Contact, str | None]], now: datetime
) -> list[dict[str, Any]]:
    """The public form of these conversations, with their labels and live viewers (two queries)."""
    conversation_ids = [conversation.id for conversation, _, _ in rows]
    labels = labels_of(session, conversation_ids)
    viewers = live_viewers(session, conversation_ids, now)
    return [
        _conversation_resource(
            conversation,
            contact,
            assignee,
            now,
            labels=labels[conversation.id],
            viewers=viewers[conversation.id],
        )
        for conversation, contact, assignee in rows
    ]


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
    statuses: tuple[str, ...] | None = DEFAULT_LIST_STATUSES,
    label: str | None = None,
    catalog: TemplateCatalog | None = None,
) -> Page:
    """Conversations, latest activity first, by view, status (None: any), label, window and search text."""
    query = (
        select(Conversation, Contact, User.name)
        .join(Contact, Contact.id == Conversation.contact_id)
        .outerjoin(User, User.id == Conversation.assignee_id)
    )
    if view == "mine":
        query = query.where(Conversation.assignee_id == user_id)
    elif view == "unassigned":
        query = query.where(Conversation.assignee_id.is_(None))
    if statuses is not None:
        query = query.where(Conversation.status.in_(statuses))
    if label is not None:
        query = query.where(
            select(ConversationLabel.conversation_id)
            .where(ConversationLabel.conversation_id == Conversation.id, ConversationLabel.label == label)
            .exists()
        )
    if window == "open":
        query = query.where(Contact.window_closes_at > now)
    elif window == "closed":
        query = query.where(or_(Contact.window_closes_at.is_(None), Contact.window_closes_at <= now))
    elif window == "closing":
        query = query.where(
            Contact.window_closes_at > now, Contact.window_closes_at <= now + CLOSING_WARNING_BEFORE
        )
    text = search.strip() if search else ""
    if text:
        pattern = _like_pattern(text)
        digits = "".join(ch for ch in text if ch.isdigit())
        matches = [func.lower(Contact.profile_name).like(pattern, escape="\\")]
        matches.append(func.lower(Contact.number).like(pattern, escape="\\"))
        matches.append(func.lower(Contact.wa_id).like(pattern, escape="\\"))
        if digits and digits != text:
            # "+1 650 555" finds +16505551234: compare digits only as well.
            matches.append(Contact.wa_id.like(f"%{digits}%"))
        matches.append(Conversation.id.in_(conversation_ids_matching(text)))
        query = query.where(or_(*matches))
    query = query.order_by(
        Conversation.last_message_at.is_(None),
        Conversation.last_message_at.desc(),
        Conversation.id.desc(),
    )
    rows = session.execute(query.offset(offset).limit(limit + 1)).all()
    page = [(conversation, contact, name) for conversation, contact, name in rows[:limit]]
    latest = _latest_texts(session, [conversation.id for conversation, _, _ in page], catalog)
    items = conversation_resources(session, page, now)
    for item in items:
        item["last_message"] = latest.get(item["id"])
    return Page(items, len(rows) > limit)


def _latest_texts(
    session: Session, conversation_ids: list[int], catalog: TemplateCatalog | None
) -> dict[int, str | None]:
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
                preview_text(outbound.kind, outbound.payload, catalog),
            )
    return {conversation_id: text for conversation_id, (_, text) in candidates.items()}


def conversation_detail(
    session: Session, conversation_id: int, now: datetime, catalog: TemplateCatalog | None = None
) -> dict[str, Any] | None:
    """One conversation with its contact, assignee, window and latest message, or None."""
    row = session.execute(
        select(Conversation, Contact, User.name)
        .join(Contact, Contact.id == Conversation.contact_id)
        .outerjoin(User, User.id == Conversation.assignee_id)
        .where(Conversation.id == conversation_id)
    ).first()
    if row is None:
        return None
    conversation, contact, name = row
    detail = conversation_resources(session, [(conversation, contact, name)], now)[0]
    # As in the list, so a desk updating one row live shows the same preview a reload would.
    detail["last_message"] = _latest_texts(session, [conversation_id], catalog).get(conversation_id)
    return detail


def supervisor_queue(
    session: Session, *, now: datetime, limit: int, offset: int, catalog: TemplateCatalog | None = None
) -> Page:
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
        item["body"] = preview_text(row.kind, row.payload, catalog)
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
