"""Inbound messages: stored once by wamid, threaded by context.id, unattributed ones into the work queue."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from backend.database.models import Contact, Conversation, InboundMessage, OutboxMessage
from backend.database.upsert import dialect_insert
from backend.domain.webhook_events import InboundMessageEvent
from backend.domain.windows import opens_a_window, window_closes_at
from backend.inbox.contacts import contact_for_sender, conversation_for

log = logging.getLogger(__name__)

ATTRIBUTED = "attributed"
UNATTRIBUTED = "unattributed"
LINKED = "linked"
NEW_TOPIC = "new_topic"

_CHUNK = 500

# Called for a message that opened a new window: (session, event, contact, conversation, now).
WindowOpenedHook = Callable[[Session, InboundMessageEvent, Contact, Conversation, datetime], None]


@dataclass
class InboundOutcome:
    """What a batch of inbound messages did."""

    stored: int = 0
    unattributed: int = 0
    journal: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def _by_wamid(session: Session, model: Any, wamids: set[str]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    values = sorted(wamids)
    for start in range(0, len(values), _CHUNK):
        chunk = values[start : start + _CHUNK]
        for row in session.scalars(select(model).where(model.wamid.in_(chunk))):
            found[row.wamid] = row
    return found


def store_inbound(
    session: Session,
    events: list[InboundMessageEvent],
    now: datetime,
    *,
    on_window_opened: WindowOpenedHook | None = None,
) -> InboundOutcome:
    """Store each message once, attribute it, reopen its contact's window; journal `inbound.received`."""
    outcome = InboundOutcome()
    if not events:
        return outcome
    targets = {event.context_id for event in events if event.context_id}
    targets |= {event.reaction_target for event in events if event.reaction_target}
    outbound = _by_wamid(session, OutboxMessage, targets)
    inbound_targets = _by_wamid(session, InboundMessage, targets - outbound.keys())
    senders = _Senders(session, events, now)

    rows: list[dict[str, Any]] = []
    facts: list[tuple[InboundMessageEvent, Contact, Conversation, OutboxMessage | None]] = []
    batch_wamids: set[str] = set()
    for event in events:
        contact, conversation = senders.of(event)
        answered, conversation_id = _attribution(event, outbound, conversation)
        known = answered is not None or _reaction_to_known(event, batch_wamids, inbound_targets)
        batch_wamids.add(event.wamid)
        rows.append(
            {
                "wamid": event.wamid,
                "contact_id": contact.id,
                "conversation_id": conversation_id,
                "type": event.type,
                "text": event.text,
                "choice_kind": event.choice_kind,
                "choice_id": event.choice_id,
                "choice_title": event.choice_title,
                "reaction_target": event.reaction_target,
                "reaction_emoji": event.reaction_emoji,
                "media_id": event.media_id,
                "media_mime_type": event.media_mime_type,
                "caption": event.caption,
                "context_id": event.context_id,
                "attribution": ATTRIBUTED if known else UNATTRIBUTED,
                "reply_to_message_id": answered.id if answered is not None else None,
                "attributed_by": None,
                "errors": event.errors,
                "raw": event.raw,
                "sent_at": event.sent_at or now,
                "received_at": now,
            }
        )
        facts.append((event, contact, conversation, answered))

    # A message kept longer than its event key is already stored: the insert skips it, nothing changes.
    inserted = _insert_new(session, rows)
    for row, (event, contact, conversation, answered) in zip(rows, facts, strict=True):
        if event.wamid not in inserted:
            continue
        outcome.stored += 1
        if row["attribution"] == UNATTRIBUTED:
            outcome.unattributed += 1
        sent_at: datetime = row["sent_at"]
        if event.opens_window:
            opened = opens_a_window(contact.window_closes_at, sent_at)
            if contact.last_inbound_at is None or sent_at > contact.last_inbound_at:
                contact.last_inbound_at = sent_at
                contact.window_closes_at = window_closes_at(sent_at)
            if opened and on_window_opened is not None:
                on_window_opened(session, event, contact, conversation, now)
            conversation.unread_count = (conversation.unread_count or 0) + 1
            if conversation.last_message_at is None or sent_at > conversation.last_message_at:
                conversation.last_message_at = sent_at
        outcome.journal.append(
            (
                "inbound.received",
                {
                    "wamid": event.wamid,
                    "conversation_id": row["conversation_id"],
                    "attributed": row["attribution"] == ATTRIBUTED,
                    "reply_to_key": answered.dedupe_key if answered is not None else None,
                    "type": event.type,
                },
            )
        )
    return outcome


def _insert_new(session: Session, rows: list[dict[str, Any]]) -> set[str]:
    statement = (
        dialect_insert(session, InboundMessage)
        .on_conflict_do_nothing(index_elements=["wamid"])
        .returning(InboundMessage.wamid)
    )
    return set(session.scalars(statement, rows))


class _Senders:
    """The contacts and conversations of a batch's senders, read in a few queries, created when new."""

    def __init__(self, session: Session, events: list[InboundMessageEvent], now: datetime) -> None:
        self._session = session
        self._now = now
        # On PostgreSQL another processor may be updating the same contact's window: take turns.
        lock = session.get_bind().dialect.name == "postgresql"
        wa_ids = sorted({event.from_wa_id for event in events if event.from_wa_id})
        user_ids = sorted({event.from_user_id for event in events if event.from_user_id})
        self.by_wa_id: dict[str, Contact] = {}
        self.by_user_id: dict[str, Contact] = {}
        for start in range(0, max(len(wa_ids), len(user_ids)), _CHUNK):
            query = (
                select(Contact)
                .where(
                    or_(
                        Contact.wa_id.in_(wa_ids[start : start + _CHUNK]),
                        Contact.user_id.in_(user_ids[start : start + _CHUNK]),
                    )
                )
                .order_by(Contact.id)
            )
            for contact in session.scalars(query.with_for_update() if lock else query):
                self._remember(contact)
        self.conversations: dict[int, Conversation] = {}
        contact_ids = sorted(
            {contact.id for contact in self.by_wa_id.values()}
            | {contact.id for contact in self.by_user_id.values()}
        )
        for start in range(0, len(contact_ids), _CHUNK):
            threads = (
                select(Conversation)
                .where(Conversation.contact_id.in_(contact_ids[start : start + _CHUNK]))
                .order_by(Conversation.id)
            )
            for conversation in session.scalars(threads.with_for_update() if lock else threads):
                self.conversations[conversation.contact_id] = conversation

    def _remember(self, contact: Contact) -> None:
        if contact.wa_id:
            self.by_wa_id[contact.wa_id] = contact
        if contact.user_id:
            self.by_user_id[contact.user_id] = contact

    def of(self, event: InboundMessageEvent) -> tuple[Contact, Conversation]:
        """The sender's contact (profile name and business-scoped id kept current) and conversation."""
        wa_id, user_id = event.from_wa_id, event.from_user_id
        contact = (self.by_wa_id.get(wa_id) if wa_id else None) or (
            self.by_user_id.get(user_id) if user_id else None
        )
        if contact is None:
            contact = contact_for_sender(
                self._session, wa_id=wa_id, user_id=user_id, profile_name=event.profile_name, now=self._now
            )
            self._remember(contact)
        else:
            if event.profile_name and contact.profile_name != event.profile_name:
                contact.profile_name = event.profile_name
            if user_id and contact.user_id is None and user_id not in self.by_user_id:
                contact.user_id = user_id
                self._remember(contact)
        conversation = self.conversations.get(contact.id)
        if conversation is None:
            conversation = conversation_for(self._session, contact, self._now)
            self.conversations[contact.id] = conversation
        return contact, conversation


def _attribution(
    event: InboundMessageEvent,
    outbound: dict[str, OutboxMessage],
    conversation: Conversation,
) -> tuple[OutboxMessage | None, int]:
    """The outbound message this one answers (by context.id, or the reacted-to message) and its thread."""
    target = event.context_id or event.reaction_target
    if target is None:
        return None, conversation.id
    answered = outbound.get(target)
    if answered is not None:
        return answered, answered.conversation_id or conversation.id
    return None, conversation.id


def _reaction_to_known(
    event: InboundMessageEvent, batch_wamids: set[str], inbound_targets: dict[str, InboundMessage]
) -> bool:
    """A reaction to a message the customer sent us attaches to it; it needs no agent to file it."""
    target = event.reaction_target
    return target is not None and (target in batch_wamids or target in inbound_targets)
