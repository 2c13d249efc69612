"""Enqueue: one outbox row per business event; the unique dedupe key makes a second enqueue a no-op."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend import counters
from backend.database.models import OutboxMessage
from backend.database.upsert import insert_ignoring_conflicts
from backend.domain import states
from backend.domain.messages import (
    KIND_TEMPLATE,
    MAX_TRIGGER_REF_LENGTH,
    RECIPIENT_OPTED_OUT,
    TEMPLATE_NOT_APPROVED,
    ButtonsRequest,
    CheckedMessage,
    MediaRequest,
    MessageError,
    TemplateRequest,
    check_dedupe_key,
    check_message,
    not_approved_message,
)
from backend.domain.opt_out import is_marketing
from backend.domain.origins import ORIGIN_AGENT, ORIGIN_API
from backend.domain.templates import APPROVED, TemplateCatalog
from backend.inbox.contacts import contact_for_number, conversation_for
from backend.inbox.waiting import waiting_for_reply
from backend.journal import journal
from backend.outbox.template_store import stored_status
from backend.settings import Settings


@dataclass(frozen=True)
class MessageRequest:
    """What a caller asks to send; exactly one of text, template or buttons."""

    dedupe_key: str
    to: str
    purpose: str
    text: str | None = None
    template: TemplateRequest | None = None
    buttons: ButtonsRequest | None = None
    media: MediaRequest | None = None
    reply_to: str | None = None
    trigger_ref: str | None = None
    not_before: datetime | None = None
    priority: int = 0
    created_by: int | None = None
    batch_id: int | None = None
    origin: str = ORIGIN_API


@dataclass(frozen=True)
class EnqueueResult:
    """The row for the key, and whether this call created it (False: the key existed)."""

    message: OutboxMessage
    created: bool


def check_request(request: MessageRequest, templates: TemplateCatalog) -> CheckedMessage:
    """Check a request without storing anything; raises MessageError."""
    check_dedupe_key(request.dedupe_key)
    if request.trigger_ref is not None and len(request.trigger_ref) > MAX_TRIGGER_REF_LENGTH:
        raise MessageError(
            "invalid_message", f"trigger_ref is longer than {MAX_TRIGGER_REF_LENGTH} characters"
        )
    if request.not_before is not None and request.not_before.tzinfo is None:
        raise MessageError("invalid_message", "not_before must carry a time zone (use ...Z for UTC)")
    return check_message(
        to=request.to,
        purpose=request.purpose,
        templates=templates,
        text=request.text,
        template=request.template,
        buttons=request.buttons,
        media=request.media,
    )


def enqueue(
    session: Session,
    request: MessageRequest,
    *,
    templates: TemplateCatalog,
    settings: Settings,
    now: datetime,
) -> EnqueueResult:
    """Store one outbox row for the request, or find the existing row of its dedupe key.

    The unique index on dedupe_key decides; there is no check-then-insert. A duplicate is
    counted as a dedupe rejection and changes nothing. A marketing message to a contact who opted
    out is refused (MessageError `recipient_opted_out`), unless its key already names a row.
    """
    checked = check_request(request, templates)
    if request.template is not None and settings.whatsapp_business_account_id:
        # The table holds what Meta said last, whichever process heard it (a catalog may be a second behind).
        name, language = request.template.name, request.template.language
        status = stored_status(session, name, language)
        if status is None:
            raise MessageError("invalid_template", f"there is no template {name!r} in language {language!r}")
        if status != APPROVED:
            raise MessageError(TEMPLATE_NOT_APPROVED, not_approved_message(name, language, status))
    contact = contact_for_number(session, checked.to_number, now)
    rule = settings.rule_for(request.purpose)
    marketing = is_marketing(purpose_marketing=rule.marketing, template_category=checked.template_category)
    if marketing and contact.opted_out_at is not None and not _key_exists(session, request.dedupe_key):
        raise MessageError(
            RECIPIENT_OPTED_OUT,
            f"{checked.to_number} opted out of marketing messages; "
            f"{request.purpose} is marketing, so it is not sent",
        )
    conversation = conversation_for(session, contact, now)
    by_person = request.origin == ORIGIN_AGENT
    outbox: Any = OutboxMessage.__table__
    # On the table, not the model: a batch enqueues a thousand rows, and the ORM's insert path cost
    # more per row than the insert itself, all of it inside the write transaction.
    statement = insert_ignoring_conflicts(
        session,
        outbox,
        ["dedupe_key"],
        dedupe_key=request.dedupe_key,
        to_number=checked.to_number,
        purpose=request.purpose,
        origin=request.origin,
        priority=request.priority,
        trigger_ref=request.trigger_ref,
        kind=checked.kind,
        payload=checked.payload,
        media_id=request.media.media_id if request.media is not None else None,
        state=states.QUEUED,
        attempts=0,
        not_before=request.not_before or now,
        business_initiated=checked.kind == KIND_TEMPLATE and request.reply_to is None,
        urgent=rule.urgent,
        marketing=marketing,
        reply_to=request.reply_to,
        created_by=request.created_by,
        batch_id=request.batch_id,
        conversation_id=conversation.id,
        created_at=now,
        updated_at=now,
        # A reply by a person answers the customer's first message since the previous one (reports).
        waiting_since=waiting_for_reply(session, conversation.id, now) if by_person else None,
    ).returning(outbox.c.id)
    inserted_id = session.execute(statement).scalar_one_or_none()
    if inserted_id is None:
        counters.bump(session, counters.DEDUPE_REJECTIONS)
        existing = session.scalars(
            select(OutboxMessage).where(OutboxMessage.dedupe_key == request.dedupe_key)
        ).one()
        return EnqueueResult(existing, created=False)
    message = session.get_one(OutboxMessage, inserted_id)
    journal(
        session,
        "message.queued",
        {
            "key": message.dedupe_key,
            "conversation_id": conversation.id,
            "purpose": message.purpose,
            "state": message.state,
        },
        now,
    )
    return EnqueueResult(message, created=True)


def _key_exists(session: Session, dedupe_key: str) -> bool:
    return session.scalar(select(OutboxMessage.id).where(OutboxMessage.dedupe_key == dedupe_key)) is not None
