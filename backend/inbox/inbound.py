"""Inbound messages: stored once by wamid, threaded by context.id, unattributed ones into the work queue."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from backend.database.models import Contact, Conversation, InboundMessage, OutboxMessage, StatusEvent
from backend.database.upsert import dialect_insert
from backend.domain.webhook_events import InboundMessageEvent
from backend.domain.windows import opens_a_window, window_closes_at
from backend.inbox.contacts import contact_for_sender, conversation_for
from backend.inbox.lifecycle import reopen_for_inbound
from backend.parts import WindowOpenedHook

log = logging.getLogger(__name__)

REPLY = "reply"
WORK_QUEUE = "work_queue"
CONVERSATION = "conversation"
LINKED = "linked"
NEW_TOPIC = "new_topic"
PLACEMENTS = (REPLY, WORK_QUEUE, CONVERSATION, LINKED, NEW_TOPIC)

_CHUNK = 500

# Called for a message that opened a new window: (session, event, contact, conversation, now).


@dataclass
class InboundOutcome:
    """What a batch of inbound messages did."""

    stored: int = 0
    unattributed: int = 0
    # Replies and reactions naming a message that went to another contact, filed as if unquoted.
    cross_contact_quotes: int = 0
    journal: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


@dataclass
class Recipient:
    """Who one message of ours went to, as far as we know."""

    contact_id: int | None
    number: str
    # The recipient ids Meta's status webhooks gave for it (a wa_id or a business-scoped user id).
    reported_ids: set[str] = field(default_factory=set)

    def is_contact(self, contact: Contact) -> bool:
        """Whether the message went to this contact (a quote of it may file a reply under it)."""
        if self.contact_id == contact.id:
            return True
        # The same number under another contact row (a wa_id written differently from its E.164 form).
        if contact.number is not None and contact.number == self.number:
            return True
        # Meta names the account that received the message: some countries' wa_ids differ from the
        # number we sent to (a mobile prefix added or dropped), and that account is still the customer.
        return any(identity in self.reported_ids for identity in (contact.wa_id, contact.user_id) if identity)


def recipients_of(session: Session, messages: list[OutboxMessage]) -> dict[int, Recipient]:
    """Who each of these messages of ours went to, by message id, in two queries per chunk."""
    recipients = {message.id: Recipient(None, message.to_number) for message in messages}
    conversation_ids = sorted({message.conversation_id for message in messages if message.conversation_id})
    contact_of: dict[int, int] = {}
    for start in range(0, len(conversation_ids), _CHUNK):
        chunk = conversation_ids[start : start + _CHUNK]
        threads = select(Conversation.id, Conversation.contact_id).where(Conversation.id.in_(chunk))
        contact_of.update({row.id: row.contact_id for row in session.execute(threads)})
    for message in messages:
        if message.conversation_id is not None:
            recipients[message.id].contact_id = contact_of.get(message.conversation_id)
    message_ids = sorted(recipients)
    for start in range(0, len(message_ids), _CHUNK):
        chunk = message_ids[start : start + _CHUNK]
        reports = select(StatusEvent.message_id, StatusEvent.recipient_id).where(
            StatusEvent.message_id.in_(chunk), StatusEvent.recipient_id.is_not(None)
        )
        for message_id, recipient_id in session.execute(reports):
            if message_id is not None and recipient_id is not None:
                recipients[message_id].reported_ids.add(recipient_id)
    return recipients


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
    recipients = recipients_of(session, list(outbound.values()))
    inbound_targets = _by_wamid(session, InboundMessage, targets - outbound.keys())
    senders = _Senders(session, events, now)

    rows: list[dict[str, Any]] = []
    facts: list[tuple[InboundMessageEvent, Contact, Conversation, OutboxMessage | None, bool]] = []
    # The contact of every message of this batch so far, for reactions to one of them.
    batch_senders: dict[str, int] = {}
    for event in events:
        contact, conversation = senders.of(event)
        answered, crossed = _quoted(event, outbound, recipients, contact)
        conversation_id = conversation.id
        if answered is not None and answered.conversation_id is not None:
            conversation_id = answered.conversation_id
        reacted, reaction_crossed = _reaction_to_known(event, contact, batch_senders, inbound_targets)
        known = answered is not None or reacted
        batch_senders.setdefault(event.wamid, contact.id)
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
                "placement": REPLY if known else WORK_QUEUE,
                "reply_to_message_id": answered.id if answered is not None else None,
                "attributed_by": None,
                "errors": event.errors,
                "raw": event.raw,
                "sent_at": event.sent_at or now,
                "received_at": now,
            }
        )
        facts.append((event, contact, conversation, answered, crossed or reaction_crossed))

    # A message kept longer than its event key is already stored: the insert skips it, nothing changes.
    inserted = _insert_new(session, rows)
    for row, (event, contact, conversation, answered, crossed) in zip(rows, facts, strict=True):
        if event.wamid not in inserted:
            continue
        outcome.stored += 1
        if row["placement"] == WORK_QUEUE:
            outcome.unattributed += 1
        if crossed:
            outcome.cross_contact_quotes += 1
            log.info(
                "inbound %s names %s, a message of another contact; filed as if it quoted nothing",
                event.wamid,
                event.context_id or event.reaction_target,
            )
        reopened = reopen_for_inbound(conversation)
        if reopened is not None:
            outcome.journal.append(reopened)
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
                    "attributed": row["placement"] == REPLY,
                    "placement": row["placement"],
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


def _quoted(
    event: InboundMessageEvent,
    outbound: dict[str, OutboxMessage],
    recipients: dict[int, Recipient],
    contact: Contact,
) -> tuple[OutboxMessage | None, bool]:
    """(our message this one answers by context.id or reaction, whether it named another contact's)."""
    target = event.context_id or event.reaction_target
    answered = outbound.get(target) if target is not None else None
    if answered is None:
        return None, False
    if not recipients[answered.id].is_contact(contact):
        # A quote of a message sent to someone else says nothing about where this reply belongs (and
        # must not put it in that customer's thread): it is filed as if it quoted nothing.
        return None, True
    return answered, False


def _reaction_to_known(
    event: InboundMessageEvent,
    contact: Contact,
    batch_senders: dict[str, int],
    inbound_targets: dict[str, InboundMessage],
) -> tuple[bool, bool]:
    """(attached, crossed): a reaction to the sender's own message attaches to it, needing no agent."""
    target = event.reaction_target
    if target is None:
        return False, False
    if target in batch_senders:
        sender_id = batch_senders[target]
    elif target in inbound_targets:
        sender_id = inbound_targets[target].contact_id
    else:
        return False, False
    # A reaction to what another contact sent is filed as if it named nothing, and reported.
    return sender_id == contact.id, sender_id != contact.id
