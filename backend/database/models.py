"""The whole schema as SQLAlchemy 2.0 typed models; migrations must match it exactly."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from backend.database.types import UtcDateTime

# One naming convention so SQLite and PostgreSQL agree on constraint names in migrations.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# BIGINT on PostgreSQL, but INTEGER on SQLite so the primary key stays the rowid alias.
BigIdentity = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    """Base of every model."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UtcDateTime(),
        dict[str, Any]: JSON(),
    }


class User(Base):
    """A person (or system) using the API: an agent or a supervisor."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    role: Mapped[str] = mapped_column(String(20))
    # SHA-256 of the token: tokens are long random strings, so a fast hash is enough.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime]
    disabled: Mapped[bool] = mapped_column(Boolean, default=False, server_default=text("false"))


class Contact(Base):
    """A customer, known by WhatsApp id and/or business-scoped user id."""

    __tablename__ = "contacts"

    id: Mapped[int] = mapped_column(primary_key=True)
    wa_id: Mapped[str | None] = mapped_column(String(32), unique=True)
    user_id: Mapped[str | None] = mapped_column(String(128), unique=True)
    number: Mapped[str | None] = mapped_column(String(20), index=True)
    profile_name: Mapped[str | None] = mapped_column(String(256))
    last_inbound_at: Mapped[datetime | None]
    window_closes_at: Mapped[datetime | None] = mapped_column(index=True)
    # Which window warnings were journaled, so each is journaled once per window opening.
    window_warning_sent_for: Mapped[datetime | None]
    window_closed_sent_for: Mapped[datetime | None]
    created_at: Mapped[datetime]
    # Opted out of marketing (a stop keyword, the opt-out button, Meta's preference webhook or 131050):
    # marketing sends are refused and queued ones cancelled; service messages still go.
    opted_out_at: Mapped[datetime | None]
    opted_out_reason: Mapped[str | None] = mapped_column(String(40))
    # The opt-out (its opted_out_at) whose confirmation was queued, so each is confirmed once.
    opt_out_confirmed_for: Mapped[datetime | None]
    # The latest opt-in by a supervisor, and how consent was given.
    opted_in_at: Mapped[datetime | None]
    opted_in_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    opted_in_note: Mapped[str | None] = mapped_column(Text)


class Conversation(Base):
    """The thread between the business and one contact (one per contact)."""

    __tablename__ = "conversations"

    id: Mapped[int] = mapped_column(primary_key=True)
    contact_id: Mapped[int] = mapped_column(ForeignKey("contacts.id"), unique=True)
    assignee_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    # open | pending (waiting on the customer) | resolved | snoozed (until snoozed_until)
    status: Mapped[str] = mapped_column(String(20), default="open", server_default=text("'open'"), index=True)
    snoozed_until: Mapped[datetime | None] = mapped_column(index=True)
    last_message_at: Mapped[datetime | None] = mapped_column(index=True)
    unread_count: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    # Indexed for reports: conversations opened in a period.
    created_at: Mapped[datetime] = mapped_column(index=True)


class Batch(Base):
    """A group of messages submitted together under one client reference."""

    __tablename__ = "batches"
    __table_args__ = (UniqueConstraint("created_by", "client_ref"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    client_ref: Mapped[str] = mapped_column(String(255))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime]
    message_count: Mapped[int] = mapped_column(Integer, default=0)
    duplicate_count: Mapped[int] = mapped_column(Integer, default=0)
    # Keys refused because their customer opted out of marketing, so a replay answers the same.
    opted_out_keys: Mapped[Any] = mapped_column(JSON, nullable=True)


class OutboxMessage(Base):
    """One business message: one row per business event, unique on its dedupe key."""

    __tablename__ = "outbox_messages"
    __table_args__ = (
        # Keeps the claim query flat as the backlog grows: per priority, due rows in (not_before, id) order.
        Index("ix_outbox_messages_due", "state", "priority", "not_before", "id"),
        Index("ix_outbox_messages_lease", "state", "lease_expires_at"),
        # The media uploader's idle check (does a queued row wait for a file?) without reading the backlog.
        Index("ix_outbox_messages_queued_media", "state", "media_id"),
        Index("ix_outbox_messages_recipient_sent", "to_number", "sent_at"),
        # The thread's messages and the work queue's candidates: a conversation's messages by time.
        Index("ix_outbox_messages_conversation_created", "conversation_id", "created_at"),
        # Reports: messages queued in a period, and agents' replies in a period.
        Index("ix_outbox_messages_created", "created_at", "purpose", "state"),
        Index("ix_outbox_messages_origin_created", "origin", "created_at", "created_by", "waiting_since"),
        # Reports: a conversation's last reply by a person before a moment, in one seek.
        Index("ix_outbox_messages_conversation_origin_created", "conversation_id", "origin", "created_at"),
    )

    id: Mapped[int] = mapped_column(BigIdentity, primary_key=True)
    dedupe_key: Mapped[str] = mapped_column(String(255), unique=True)
    to_number: Mapped[str] = mapped_column(String(20))
    purpose: Mapped[str] = mapped_column(String(64))
    # api (a business message: POST /v1/messages or a batch) | agent (a reply in a conversation) |
    # auto (the away message). Only business messages make a later unquoted reply a work item.
    origin: Mapped[str] = mapped_column(String(20), default="api", server_default=text("'api'"))
    priority: Mapped[int] = mapped_column(Integer, default=0)
    trigger_ref: Mapped[str | None] = mapped_column(String(255))
    kind: Mapped[str] = mapped_column(String(20))
    payload: Mapped[dict[str, Any]]
    # A file's public id (media.media_id): the claim takes the row only once Meta has the file.
    media_id: Mapped[str | None] = mapped_column(String(255), index=True)
    state: Mapped[str] = mapped_column(String(20), default="queued")
    hold_reason: Mapped[str | None] = mapped_column(String(40))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    wamid: Mapped[str | None] = mapped_column(String(255), unique=True)
    not_before: Mapped[datetime]
    lease_expires_at: Mapped[datetime | None]
    # The moment of the latest claim's send; counts customers reached for the messaging tier.
    last_attempt_at: Mapped[datetime | None] = mapped_column(index=True)
    claimed_by: Mapped[str | None] = mapped_column(String(100))
    last_error_code: Mapped[int | None]
    last_error_title: Mapped[str | None] = mapped_column(String(255))
    last_error_details: Mapped[str | None] = mapped_column(Text)
    business_initiated: Mapped[bool] = mapped_column(Boolean, default=True)
    urgent: Mapped[bool] = mapped_column(Boolean, default=False)
    # Marketing (its purpose says so, or its template's category is MARKETING): never to an opted-out contact.
    marketing: Mapped[bool] = mapped_column(Boolean, default=False, server_default=text("false"))
    reply_to: Mapped[str | None] = mapped_column(String(255))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    batch_id: Mapped[int | None] = mapped_column(ForeignKey("batches.id"), index=True)
    conversation_id: Mapped[int | None] = mapped_column(ForeignKey("conversations.id"), index=True)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    unknown_since: Mapped[datetime | None]
    accepted_at: Mapped[datetime | None]
    sent_at: Mapped[datetime | None]
    delivered_at: Mapped[datetime | None]
    read_at: Mapped[datetime | None]
    failed_at: Mapped[datetime | None]
    # An agent's reply: the customer's first message since the previous reply by a person (None when
    # nobody was waiting). The reply is then that message's first response, for reports.
    waiting_since: Mapped[datetime | None]


class SendDecision(Base):
    """A recorded decision about an outbox row: who or which rule decided what, and why."""

    __tablename__ = "send_decisions"

    id: Mapped[int] = mapped_column(BigIdentity, primary_key=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("outbox_messages.id"), index=True)
    decided_at: Mapped[datetime]
    actor: Mapped[str] = mapped_column(String(100))
    action: Mapped[str] = mapped_column(String(40))
    reason: Mapped[str] = mapped_column(Text)


class PacingSlot(Base):
    """The next moment a paced resource (a customer, the business number) may be used."""

    __tablename__ = "pacing_slots"

    key: Mapped[str] = mapped_column(String(80), primary_key=True)
    next_at: Mapped[datetime]


class InboundMessage(Base):
    """A message a customer sent us, stored once by wamid, attributed or in the work queue."""

    __tablename__ = "inbound_messages"
    __table_args__ = (
        Index("ix_inbound_messages_placement", "placement", "received_at"),
        # The customer's previous message, which decides whether a new one is a work item.
        Index("ix_inbound_messages_contact_sent", "contact_id", "sent_at"),
        # Reports: messages received in a period, and a conversation's first unanswered message.
        Index("ix_inbound_messages_received", "received_at", "conversation_id"),
        Index("ix_inbound_messages_conversation_received", "conversation_id", "received_at"),
    )

    id: Mapped[int] = mapped_column(BigIdentity, primary_key=True)
    wamid: Mapped[str] = mapped_column(String(255), unique=True)
    contact_id: Mapped[int] = mapped_column(ForeignKey("contacts.id"), index=True)
    conversation_id: Mapped[int] = mapped_column(ForeignKey("conversations.id"), index=True)
    type: Mapped[str] = mapped_column(String(40))
    text: Mapped[str | None] = mapped_column(Text)
    choice_kind: Mapped[str | None] = mapped_column(String(20))
    choice_id: Mapped[str | None] = mapped_column(String(256))
    choice_title: Mapped[str | None] = mapped_column(String(256))
    reaction_target: Mapped[str | None] = mapped_column(String(255), index=True)
    reaction_emoji: Mapped[str | None] = mapped_column(String(32))
    media_id: Mapped[str | None] = mapped_column(String(255))
    media_mime_type: Mapped[str | None] = mapped_column(String(100))
    caption: Mapped[str | None] = mapped_column(Text)
    context_id: Mapped[str | None] = mapped_column(String(255), index=True)
    # reply (quotes our message) | work_queue (nobody can tell which business message it answers) |
    # conversation (plain chat) | linked (by an agent) | new_topic (by an agent)
    placement: Mapped[str] = mapped_column(String(20))
    reply_to_message_id: Mapped[int | None] = mapped_column(ForeignKey("outbox_messages.id"), index=True)
    attributed_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    errors: Mapped[Any] = mapped_column(JSON, nullable=True)
    raw: Mapped[dict[str, Any]]
    sent_at: Mapped[datetime]
    received_at: Mapped[datetime]


class WebhookDelivery(Base):
    """A webhook body exactly as received, stored before we answer 200."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (Index("ix_webhook_deliveries_pending", "processed_at", "id"),)

    id: Mapped[int] = mapped_column(BigIdentity, primary_key=True)
    body: Mapped[bytes] = mapped_column(LargeBinary)
    signature: Mapped[str | None] = mapped_column(String(100))
    received_at: Mapped[datetime] = mapped_column(index=True)
    processed_at: Mapped[datetime | None]
    parse_error: Mapped[str | None] = mapped_column(Text)


class ProcessedEvent(Base):
    """The key of a webhook event whose effects are committed; the same key never runs twice."""

    __tablename__ = "processed_events"

    id: Mapped[int] = mapped_column(BigIdentity, primary_key=True)
    event_key: Mapped[str] = mapped_column(String(400), unique=True)
    delivery_id: Mapped[int | None] = mapped_column(BigInteger)
    processed_at: Mapped[datetime] = mapped_column(index=True)


class StatusEvent(Base):
    """A status webhook as received, kept for evidence even when the wamid is not ours."""

    __tablename__ = "status_events"

    id: Mapped[int] = mapped_column(BigIdentity, primary_key=True)
    wamid: Mapped[str] = mapped_column(String(255), index=True)
    status: Mapped[str] = mapped_column(String(20))
    occurred_at: Mapped[datetime]
    recipient_id: Mapped[str | None] = mapped_column(String(64))
    callback_data: Mapped[str | None] = mapped_column(String(512), index=True)
    message_id: Mapped[int | None] = mapped_column(ForeignKey("outbox_messages.id"), index=True)
    errors: Mapped[Any] = mapped_column(JSON, nullable=True)
    received_at: Mapped[datetime]


class JournalEntry(Base):
    """One change for live clients; `seq` only grows, in commit order."""

    __tablename__ = "journal"

    seq: Mapped[int] = mapped_column(BigIdentity, primary_key=True)
    type: Mapped[str] = mapped_column(String(60))
    at: Mapped[datetime] = mapped_column(index=True)
    data: Mapped[dict[str, Any]]


class PendingJournalEntry(Base):
    """A committed journal entry waiting for its `seq` (PostgreSQL); the sequencer moves it into `journal`.

    Numbering after commit keeps seq order equal to visibility order without a lock shared by every
    writer. SQLite has a single writer and journals directly, so there the table stays empty.
    """

    __tablename__ = "journal_pending"

    id: Mapped[int] = mapped_column(BigIdentity, primary_key=True)
    type: Mapped[str] = mapped_column(String(60))
    at: Mapped[datetime]
    data: Mapped[dict[str, Any]]


class Counter(Base):
    """A named count kept since the database was created (dedupe rejections, duplicate webhooks...)."""

    __tablename__ = "counters"

    name: Mapped[str] = mapped_column(String(60), primary_key=True)
    value: Mapped[int] = mapped_column(BigInteger, default=0)


class IdempotencyRecord(Base):
    """A request's Idempotency-Key, its fingerprint and its first answer."""

    __tablename__ = "idempotency_records"
    __table_args__ = (UniqueConstraint("user_id", "key"),)

    id: Mapped[int] = mapped_column(BigIdentity, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    key: Mapped[str] = mapped_column(String(255))
    method: Mapped[str] = mapped_column(String(10))
    path: Mapped[str] = mapped_column(String(512))
    fingerprint: Mapped[str] = mapped_column(String(64))
    # in_progress until the first answer is stored, then done.
    state: Mapped[str] = mapped_column(String(20))
    locked_until: Mapped[datetime | None]
    response_status: Mapped[int | None]
    response_body: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(index=True)


class ConversationLabel(Base):
    """A label on a conversation ("vip", "refund"), for filtering."""

    __tablename__ = "conversation_labels"

    conversation_id: Mapped[int] = mapped_column(ForeignKey("conversations.id"), primary_key=True)
    label: Mapped[str] = mapped_column(String(40), primary_key=True, index=True)
    added_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    added_at: Mapped[datetime]


class ConversationPresence(Base):
    """Who is viewing (and typing in) a conversation; a row counts until expires_at."""

    __tablename__ = "conversation_presence"

    conversation_id: Mapped[int] = mapped_column(ForeignKey("conversations.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    typing: Mapped[bool] = mapped_column(Boolean, default=False)
    since: Mapped[datetime]
    expires_at: Mapped[datetime] = mapped_column(index=True)


class ConversationNote(Base):
    """An internal note in a conversation's thread; never sent to WhatsApp."""

    __tablename__ = "conversation_notes"
    __table_args__ = (Index("ix_conversation_notes_thread", "conversation_id", "created_at"),)

    id: Mapped[int] = mapped_column(BigIdentity, primary_key=True)
    conversation_id: Mapped[int] = mapped_column(ForeignKey("conversations.id"))
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    text: Mapped[str] = mapped_column(Text)
    # The user names the note mentions with @name, each notified once.
    mentions: Mapped[Any] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime]


class CannedReply(Base):
    """A saved reply agents insert with /shortcut; {{name}} and {{number}} are filled from the contact."""

    __tablename__ = "canned_replies"

    id: Mapped[int] = mapped_column(primary_key=True)
    shortcut: Mapped[str] = mapped_column(String(32), unique=True)
    title: Mapped[str] = mapped_column(String(100))
    text: Mapped[str] = mapped_column(Text)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class ConversationStatusChange(Base):
    """One change of a conversation's status, with who made it (None: the system); reports read these."""

    __tablename__ = "conversation_status_changes"
    __table_args__ = (
        Index("ix_conversation_status_changes_conversation_status_at", "conversation_id", "status", "at"),
    )

    id: Mapped[int] = mapped_column(BigIdentity, primary_key=True)
    conversation_id: Mapped[int] = mapped_column(ForeignKey("conversations.id"))
    previous_status: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    at: Mapped[datetime] = mapped_column(index=True)
    # A resolution: the customer's first message since the previous resolution (None if they wrote none).
    waiting_since: Mapped[datetime | None]


class WebhookSubscription(Base):
    """A shop system's endpoint that gets the journal's events POSTed, signed (Standard Webhooks)."""

    __tablename__ = "webhook_subscriptions"

    id: Mapped[int] = mapped_column(primary_key=True)
    url: Mapped[str] = mapped_column(Text)
    # Event types (or ["*"]) this endpoint wants.
    events: Mapped[Any] = mapped_column(JSON)
    description: Mapped[str | None] = mapped_column(String(500))
    # whsec_ + base64 of the signing key; needed to sign, so kept as given out.
    secret: Mapped[str] = mapped_column(String(100))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime]
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    disabled_at: Mapped[datetime | None]
    disabled_reason: Mapped[str | None] = mapped_column(String(255))
    # The last journal seq fanned out into deliveries; events after it are still to be looked at.
    cursor_seq: Mapped[int] = mapped_column(BigInteger, default=0)


class OutgoingDelivery(Base):
    """One journal event to one subscription: its fixed body, id, attempts and outcome."""

    __tablename__ = "outgoing_deliveries"
    __table_args__ = (
        UniqueConstraint("subscription_id", "seq"),
        # The subscription's oldest pending delivery, which goes before every later one.
        Index("ix_outgoing_deliveries_head", "subscription_id", "state", "seq"),
    )

    id: Mapped[int] = mapped_column(BigIdentity, primary_key=True)
    subscription_id: Mapped[int] = mapped_column(ForeignKey("webhook_subscriptions.id"))
    seq: Mapped[int] = mapped_column(BigInteger)
    type: Mapped[str] = mapped_column(String(60))
    # The webhook-id header: the same on every attempt and redelivery of this delivery.
    webhook_id: Mapped[str] = mapped_column(String(64), unique=True)
    body: Mapped[str] = mapped_column(Text)
    # pending | delivered | failed
    state: Mapped[str] = mapped_column(String(20))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_status: Mapped[int | None]
    last_error: Mapped[str | None] = mapped_column(String(255))
    next_attempt_at: Mapped[datetime | None]
    # Retries stop (and the subscription is disabled) this long after the first attempt.
    retry_since: Mapped[datetime | None]
    created_at: Mapped[datetime]
    delivered_at: Mapped[datetime | None]


class ReleaseRecord(Base):
    """A version of the product that ran on this database, with the schema revision it brought."""

    __tablename__ = "release_history"

    id: Mapped[int] = mapped_column(BigIdentity, primary_key=True)
    version: Mapped[str] = mapped_column(String(40))
    revision: Mapped[str] = mapped_column(String(40))
    recorded_at: Mapped[datetime]


class BackupRecord(Base):
    """A backup archive taken of this database: when, where, why and how large."""

    __tablename__ = "backup_runs"

    id: Mapped[int] = mapped_column(BigIdentity, primary_key=True)
    taken_at: Mapped[datetime] = mapped_column(index=True)
    # `manual`, `daily`, `pre_upgrade` or `pre_restore`.
    reason: Mapped[str] = mapped_column(String(20))
    archive: Mapped[str] = mapped_column(Text)
    size_bytes: Mapped[int] = mapped_column(BigInteger)


class MediaFile(Base):
    """A photo, voice note, video, document or sticker: a customer's (fetched from Meta) or one we upload.

    `media_id` is the public id: Meta's media id for a customer's file, our own for an upload. The bytes
    live in the data folder's media store under `content_hash`, so a file sent twice is kept once.
    """

    __tablename__ = "media"
    __table_args__ = (Index("ix_media_due", "state", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(BigIdentity, primary_key=True)
    media_id: Mapped[str] = mapped_column(String(255), unique=True)
    # inbound (a customer sent it) | outbound (uploaded through POST /v1/media)
    direction: Mapped[str] = mapped_column(String(10))
    mime_type: Mapped[str | None] = mapped_column(String(100))
    # Meta's sha256 of a customer's file (base64), checked against what is downloaded.
    sha256: Mapped[str | None] = mapped_column(String(100))
    # Lower-case hex SHA-256 of the stored bytes: their name in the media store.
    content_hash: Mapped[str | None] = mapped_column(String(64), index=True)
    filename: Mapped[str | None] = mapped_column(String(255))
    size: Mapped[int | None] = mapped_column(BigInteger)
    # How long a voice note, audio file or video lasts, read from its headers once kept; null for other
    # files, for one whose length cannot be read (AMR, a broken file) and for files kept before 0009.
    duration_seconds: Mapped[float | None] = mapped_column(Float)
    # pending (not downloaded yet) | stored | failed (after the last try; `error` says why)
    state: Mapped[str] = mapped_column(String(20))
    error: Mapped[str | None] = mapped_column(Text)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime | None]
    # A fetcher holds a pending row until then; another may take it after (a crashed fetcher).
    lease_expires_at: Mapped[datetime | None]
    # Meta's id of an uploaded file and when it was uploaded: reused for sends while it is valid.
    graph_media_id: Mapped[str | None] = mapped_column(String(255))
    graph_uploaded_at: Mapped[datetime | None]
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(index=True)
    stored_at: Mapped[datetime | None]


class MessageTemplate(Base):
    """A message template as Meta knows it (synced from the business account), with its review status."""

    __tablename__ = "message_templates"
    __table_args__ = (UniqueConstraint("name", "language"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(512))
    language: Mapped[str] = mapped_column(String(20))
    # APPROVED, PAUSED, REJECTED, PENDING, DISABLED... as Meta writes it.
    status: Mapped[str] = mapped_column(String(40))
    category: Mapped[str | None] = mapped_column(String(40))
    body: Mapped[str] = mapped_column(Text)
    parameter_count: Mapped[int] = mapped_column(Integer, default=0)
    meta_id: Mapped[str | None] = mapped_column(String(64))
    # Why Meta paused, rejected or disabled it, when it said.
    status_reason: Mapped[str | None] = mapped_column(Text)
    updated_at: Mapped[datetime]


class NumberHealth(Base):
    """One reading of the business number's quality rating and messaging limit (a webhook or a read)."""

    __tablename__ = "number_health"

    id: Mapped[int] = mapped_column(BigIdentity, primary_key=True)
    recorded_at: Mapped[datetime] = mapped_column(index=True)
    # GREEN, YELLOW, RED, UNKNOWN (Meta's quality rating), when the reading had one.
    quality_rating: Mapped[str | None] = mapped_column(String(20))
    # Meta's name of the messaging limit (TIER_250, TIER_2K, ..., TIER_UNLIMITED), when the reading had one.
    messaging_tier: Mapped[str | None] = mapped_column(String(40))
    # webhook (phone_number_quality_update) | read (GET of the phone number)
    source: Mapped[str] = mapped_column(String(20))
    # The webhook's event (UPGRADE, DOWNGRADE, FLAGGED, UNFLAGGED...), when it came from one.
    event: Mapped[str | None] = mapped_column(String(40))
