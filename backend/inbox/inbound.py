"""Inbound messages: stored once by wamid, threaded by context.id, placed in the thread or the work queue."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.orm import Session, aliased

from backend.database.models import Contact, Conversation, InboundMessage, OutboxMessage, StatusEvent
from backend.database.upsert import insert_ignoring_conflicts
from backend.domain import states
from backend.domain.origins import ORIGIN_AGENT, ORIGIN_API
from backend.domain.webhook_events import InboundMessageEvent
from backend.domain.windows import opens_a_window, window_closes_at
from backend.inbox.contacts import contact_for_sender, conversation_for
from backend.inbox.lifecycle import reopen_for_inbound
from backend.media.records import add_inbound_media
from backend.parts import WindowOpenedHook

log = logging.getLogger(__name__)

REPLY = "reply"
WORK_QUEUE = "work_queue"
CONVERSATION = "conversation"
LINKED = "linked"
NEW_TOPIC = "new_topic"
PLACEMENTS = (REPLY, WORK_QUEUE, CONVERSATION, LINKED, NEW_TOPIC)

_CHUNK = 500
# Meta's timestamps are whole seconds.
_TIMESTAMP_RESOLUTION = timedelta(seconds=1)


@dataclass
class InboundOutcome:
    """What a batch of inbound messages did."""

    stored: int = 0
    # Messages placed in the work queue: nobody can tell which business message they answer.
    work_items: int = 0
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
    """Store each message once, place it, reopen its contact's window; journal `inbound.received`."""
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
    # Messages naming neither one of ours to this contact nor one of its own: placed once stored.
    unplaced: set[str] = set()
    # The contact of every message of this batch so far, for reactions to one of them.
    batch_senders: dict[str, int] = {}
    for event in events:
        contact, conversation = senders.of(event)
        answered, crossed = _quoted(event, outbound, recipients, contact)
        conversation_id = conversation.id
        if answered is not None and answered.conversation_id is not None:
            conversation_id = answered.conversation_id
        reacted, reaction_crossed = _reaction_to_known(event, contact, batch_senders, inbound_targets)
        batch_senders.setdefault(event.wamid, contact.id)
        if answered is None and not reacted:
            unplaced.add(event.wamid)
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
                # A reaction to the customer's own message is chat; the rest is decided once stored.
                "placement": REPLY if answered is not None else CONVERSATION,
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
    # Each new file waits, pending, for the media fetcher; fetching it is never part of this transaction.
    add_inbound_media(session, [event for event in events if event.wamid in inserted], now)
    # Placed after the insert so that a customer's earlier message in this same batch counts as their
    # previous one, whatever order the batch holds them in.
    work_items = _place_in_work_queue(
        session, sorted(row_id for wamid, row_id in inserted.items() if wamid in unplaced)
    )
    _replace_work_items_written_later(
        session,
        [(row["contact_id"], row["sent_at"]) for row in rows if row["wamid"] in inserted],
        set(inserted.values()),
    )
    for row, (event, contact, conversation, answered, crossed) in zip(rows, facts, strict=True):
        row_id = inserted.pop(event.wamid, None)
        if row_id is None:
            continue
        if row_id in work_items:
            row["placement"] = WORK_QUEUE
            outcome.work_items += 1
        outcome.stored += 1
        if crossed:
            outcome.cross_contact_quotes += 1
            log.info(
                "inbound %s names %s, a message of another contact; filed as if it quoted nothing",
                event.wamid,
                event.context_id or event.reaction_target,
            )
        reopened = reopen_for_inbound(session, conversation, now)
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
                    "attributed": row["placement"] != WORK_QUEUE,
                    "placement": row["placement"],
                    "reply_to_key": answered.dedupe_key if answered is not None else None,
                    "type": event.type,
                },
            )
        )
    return outcome


def _insert_new(session: Session, rows: list[dict[str, Any]]) -> dict[str, int]:
    """Insert the rows whose wamid is new; their ids by wamid."""
    statement = insert_ignoring_conflicts(session, InboundMessage, ["wamid"]).returning(
        InboundMessage.wamid, InboundMessage.id
    )
    return {wamid: row_id for wamid, row_id in session.execute(statement, rows)}


def _place_in_work_queue(session: Session, unplaced: list[int]) -> set[int]:
    """Move the stored messages some business message may be the answer to into the work queue; their ids."""
    candidates = business_candidates(session, unplaced)
    work_items = sorted(row_id for row_id, messages in candidates.items() if messages)
    _set_placement(session, work_items, WORK_QUEUE)
    return set(work_items)


def _set_placement(session: Session, row_ids: list[int], placement: str) -> None:
    for start in range(0, len(row_ids), _CHUNK):
        session.execute(
            update(InboundMessage)
            .where(InboundMessage.id.in_(row_ids[start : start + _CHUNK]))
            .values(placement=placement)
        )


def _replace_work_items_written_later(
    session: Session, stored: list[tuple[int, datetime]], stored_ids: set[int]
) -> None:
    """Place again the work items their customers wrote after a message just stored (delivered late).

    Their previous message is now that one: the business messages before it no longer claim them.
    """
    earliest: dict[int, datetime] = {}
    for contact_id, sent_at in stored:
        earliest[contact_id] = min(sent_at, earliest.get(contact_id, sent_at))
    contact_ids = sorted(earliest)
    written_later: list[int] = []
    for start in range(0, len(contact_ids), _CHUNK):
        chunk = contact_ids[start : start + _CHUNK]
        items = session.execute(
            select(InboundMessage.id, InboundMessage.contact_id, InboundMessage.sent_at).where(
                InboundMessage.placement == WORK_QUEUE,
                InboundMessage.contact_id.in_(chunk),
                InboundMessage.sent_at > min(earliest[contact_id] for contact_id in chunk),
            )
        )
        written_later += [
            row_id
            for row_id, contact_id, sent_at in items
            if row_id not in stored_ids and sent_at > earliest[contact_id]
        ]
    if written_later:
        candidates = business_candidates(session, written_later)
        _set_placement(
            session, sorted(row_id for row_id, messages in candidates.items() if not messages), CONVERSATION
        )


def went_out_at(message: OutboxMessage) -> datetime:
    """When a message of ours left for the customer: Meta accepted it (else sent it; else we created it)."""
    return message.accepted_at or message.sent_at or message.created_at


def business_candidates(session: Session, inbound_ids: Sequence[int]) -> dict[int, list[OutboxMessage]]:
    """The business messages each stored inbound message may answer, newest first.

    Those Meta accepted in its conversation after the customer's previous message (or ever, for their
    first) and before this one, unless an agent replied in the conversation after them: the customer
    then answers the agent. One query per 500 messages, whatever their history.
    """
    found: dict[int, list[OutboxMessage]] = {row_id: [] for row_id in inbound_ids}
    ordered = sorted(found)
    for start in range(0, len(ordered), _CHUNK):
        near = _outbound_near(session, ordered[start : start + _CHUNK])
        for row_id, (since, before, messages) in near.items():
            found[row_id] = _unanswered_business(messages, since, before)
    return found


def _written_by(sent_at: datetime, received_at: datetime) -> datetime:
    """The moment a customer's message surely existed by, on our clock as far as we can tell.

    Meta's timestamps are whole seconds, so the message may be up to a second younger than its stamp;
    and it existed when we received it.
    """
    return min(sent_at + _TIMESTAMP_RESOLUTION, received_at)


def _outbound_near(
    session: Session, inbound_ids: list[int]
) -> dict[int, tuple[datetime | None, datetime, list[OutboxMessage]]]:
    """By inbound id: when the customer's previous message surely existed (None for a first message),
    when this one did, and our business messages Meta accepted and agent replies in its conversation
    that may lie between (a superset: `_unanswered_business` decides)."""
    this = aliased(InboundMessage)
    earlier = aliased(InboundMessage)
    previous = aliased(InboundMessage)
    # The customer's previous message: the latest they wrote before this one, whenever it arrived.
    previous_id = (
        select(earlier.id)
        .where(
            earlier.contact_id == this.contact_id,
            or_(earlier.sent_at < this.sent_at, and_(earlier.sent_at == this.sent_at, earlier.id < this.id)),
        )
        .order_by(earlier.sent_at.desc(), earlier.id.desc())
        .limit(1)
        .correlate(this)
        .scalar_subquery()
    )
    placed = (
        select(
            this.id.label("inbound_id"),
            this.conversation_id,
            this.sent_at,
            this.received_at,
            previous_id.label("previous_id"),
        )
        .where(this.id.in_(inbound_ids))
        .subquery()
    )
    first = placed.c.previous_id.is_(None)
    went_out = func.coalesce(OutboxMessage.accepted_at, OutboxMessage.sent_at, OutboxMessage.created_at)
    business = and_(
        OutboxMessage.origin == ORIGIN_API,
        # Accepted by Meta: a message still queued, refused or lost has not reached the customer.
        or_(OutboxMessage.wamid.is_not(None), OutboxMessage.sent_at.is_not(None)),
        OutboxMessage.state != states.FAILED,
        or_(first, went_out >= previous.sent_at, went_out >= previous.received_at),
    )
    agent_reply = and_(
        OutboxMessage.origin == ORIGIN_AGENT,
        or_(
            first,
            OutboxMessage.created_at >= previous.sent_at,
            OutboxMessage.created_at >= previous.received_at,
        ),
    )
    query = (
        select(
            placed.c.inbound_id,
            placed.c.sent_at,
            placed.c.received_at,
            previous.sent_at,
            previous.received_at,
            OutboxMessage,
        )
        .select_from(placed)
        .outerjoin(previous, previous.id == placed.c.previous_id)
        .join(OutboxMessage, OutboxMessage.conversation_id == placed.c.conversation_id)
        # Nothing created after we received the message can have come before it.
        .where(OutboxMessage.created_at < placed.c.received_at, or_(business, agent_reply))
    )
    near: dict[int, tuple[datetime | None, datetime, list[OutboxMessage]]] = {}
    for row in session.execute(query):
        inbound_id, sent_at, received_at, previous_sent_at, previous_received_at, message = row
        if inbound_id not in near:
            since = None
            if previous_sent_at is not None:
                since = _written_by(previous_sent_at, previous_received_at)
            near[inbound_id] = (since, _written_by(sent_at, received_at), [])
        near[inbound_id][2].append(message)
    return near


def _unanswered_business(
    messages: list[OutboxMessage], since: datetime | None, before: datetime
) -> list[OutboxMessage]:
    """The business messages out in [since, before) and after the last agent reply created by then."""
    replied = [message.created_at for message in messages if message.origin == ORIGIN_AGENT]
    last_reply = max((moment for moment in replied if moment < before), default=None)
    claims = [
        message
        for message in messages
        if message.origin == ORIGIN_API
        and (since is None or went_out_at(message) >= since)
        and went_out_at(message) < before
        and (last_reply is None or went_out_at(message) >= last_reply)
    ]
    return sorted(claims, key=lambda message: (went_out_at(message), message.id), reverse=True)


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
