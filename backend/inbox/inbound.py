"""Inbound messages: stored once by wamid, threaded by context.id, unattributed ones into the work queue."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database.models import Contact, Conversation, InboundMessage, OutboxMessage
from backend.database.upsert import insert_ignoring_conflicts
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
    contacts: dict[tuple[str | None, str | None], Contact] = {}
    conversations: dict[int, Conversation] = {}
    batch_inbound: dict[str, dict[str, Any]] = {}

    for event in events:
        sender = (event.from_wa_id, event.from_user_id)
        contact = contacts.get(sender)
        if contact is None:
            contact = contact_for_sender(
                session,
                wa_id=event.from_wa_id,
                user_id=event.from_user_id,
                profile_name=event.profile_name,
                now=now,
            )
            contacts[sender] = contact
        conversation = conversations.get(contact.id)
        if conversation is None:
            conversation = conversation_for(session, contact, now)
            conversations[contact.id] = conversation
        sent_at = event.sent_at or now

        answered, conversation_id = _attribution(event, outbound, conversation)
        known = answered is not None or _reaction_to_known(event, batch_inbound, inbound_targets)
        attribution = ATTRIBUTED if known else UNATTRIBUTED
        row = {
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
            "attribution": attribution,
            "reply_to_message_id": answered.id if answered is not None else None,
            "attributed_by": None,
            "errors": event.errors,
            "raw": event.raw,
            "sent_at": sent_at,
            "received_at": now,
        }
        inserted = session.execute(
            insert_ignoring_conflicts(session, InboundMessage, ["wamid"], **row)
        ).rowcount  # type: ignore[attr-defined]
        if not inserted:
            # Kept longer than its event key: already stored, so nothing changes.
            continue
        batch_inbound[event.wamid] = row
        outcome.stored += 1
        if attribution == UNATTRIBUTED:
            outcome.unattributed += 1

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
                    "conversation_id": conversation_id,
                    "attributed": attribution == ATTRIBUTED,
                    "reply_to_key": answered.dedupe_key if answered is not None else None,
                    "type": event.type,
                },
            )
        )
    return outcome


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
    event: InboundMessageEvent,
    batch_inbound: dict[str, dict[str, Any]],
    inbound_targets: dict[str, InboundMessage],
) -> bool:
    """A reaction to a message the customer sent us attaches to it; it needs no agent to file it."""
    target = event.reaction_target
    return target is not None and (target in batch_inbound or target in inbound_targets)
