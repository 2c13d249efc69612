"""Enqueue: one outbox row per business event; the unique dedupe key makes a second enqueue a no-op."""

from __future__ import annotations

from collections.abc import Sequence
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
from backend.inbox.contacts import contact_refs_for_numbers, conversation_ids_for
from backend.inbox.waiting import waiting_for_reply
from backend.journal import journal_many
from backend.outbox.state_writes import OUTBOX
from backend.outbox.template_store import stored_status
from backend.settings import PurposeRule, Settings


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
    [placed] = enqueue_many(session, [request], templates=templates, settings=settings, now=now)
    if isinstance(placed, MessageError):
        raise placed
    return EnqueueResult(session.get_one(OutboxMessage, placed.id), created=placed.created)


@dataclass(frozen=True)
class Placed:
    """Where one request of `enqueue_many` went: the id of its key's row, and whether the call created it."""

    id: int
    created: bool


def enqueue_many(
    session: Session,
    requests: Sequence[MessageRequest],
    *,
    templates: TemplateCatalog,
    settings: Settings,
    now: datetime,
) -> list[Placed | MessageError]:
    """`enqueue` for each request in order, in a few statements for the whole list (a batch of up to 1,000).

    Each request gets its Placed, or the MessageError `recipient_opted_out` that `enqueue` would raise
    (one customer's opt-out does not fail the others); any other MessageError is raised, and the
    caller's transaction must then not commit. A key given twice is created once, then a duplicate.
    """
    checked = [check_request(request, templates) for request in requests]
    if settings.whatsapp_business_account_id:
        _check_templates_approved(session, requests)
    contacts = contact_refs_for_numbers(session, [message.to_number for message in checked], now)
    known = _ids_of_keys(session, [request.dedupe_key for request in requests])
    outcomes: list[Placed | MessageError | None] = [None] * len(requests)
    new: list[tuple[int, PurposeRule, bool]] = []  # (index, rule, marketing) of the rows to insert, in order
    duplicates: list[int] = []
    taken: set[str] = set(known)
    for index, (request, message) in enumerate(zip(requests, checked, strict=True)):
        rule = settings.rule_for(request.purpose)
        marketing = is_marketing(
            purpose_marketing=rule.marketing, template_category=message.template_category
        )
        if request.dedupe_key in taken:
            duplicates.append(index)
        elif marketing and contacts[message.to_number].opted_out:
            outcomes[index] = MessageError(
                RECIPIENT_OPTED_OUT,
                f"{message.to_number} opted out of marketing messages; "
                f"{request.purpose} is marketing, so it is not sent",
            )
        else:
            taken.add(request.dedupe_key)
            new.append((index, rule, marketing))
    conversations = conversation_ids_for(
        session, [contacts[checked[index].to_number].id for index, _, _ in new], now
    )
    answered: set[int] = set()
    rows: list[dict[str, Any]] = []
    for index, rule, marketing in new:
        request, message = requests[index], checked[index]
        conversation_id = conversations[contacts[message.to_number].id]
        # A reply by a person answers the customer's first message since the previous one (reports);
        # a second reply in the same call answers nothing new.
        waiting_since = None
        if request.origin == ORIGIN_AGENT and conversation_id not in answered:
            answered.add(conversation_id)
            waiting_since = waiting_for_reply(session, conversation_id, now)
        rows.append(
            _row(
                request,
                message,
                now=now,
                urgent=rule.urgent,
                marketing=marketing,
                conversation_id=conversation_id,
                waiting_since=waiting_since,
            )
        )
    inserted = _insert_new(session, rows)
    journal_many(
        session,
        [
            (
                "message.queued",
                {
                    "key": row["dedupe_key"],
                    "conversation_id": row["conversation_id"],
                    "purpose": row["purpose"],
                    "state": states.QUEUED,
                },
            )
            for row in rows
            if row["dedupe_key"] in inserted
        ],
        now,
    )
    for index, _, _ in new:
        key = requests[index].dedupe_key
        if key in inserted:
            outcomes[index] = Placed(inserted[key], created=True)
        else:
            # Another writer inserted this key in the meantime (PostgreSQL): its row is the message.
            duplicates.append(index)
    if duplicates:
        counters.bump(session, counters.DEDUPE_REJECTIONS, len(duplicates))
        ids = {**known, **inserted}
        ids.update(
            _ids_of_keys(
                session, [requests[i].dedupe_key for i in duplicates if requests[i].dedupe_key not in ids]
            )
        )
        for index in duplicates:
            outcomes[index] = Placed(ids[requests[index].dedupe_key], created=False)
    placed = [outcome for outcome in outcomes if outcome is not None]
    assert len(placed) == len(requests), "every request is placed or refused"
    return placed


def _check_templates_approved(session: Session, requests: Sequence[MessageRequest]) -> None:
    """Raise for the first template request whose template Meta has not approved.

    The table holds what Meta said last, whichever process heard it (a catalog may be a second behind).
    """
    statuses: dict[tuple[str, str], str | None] = {}
    for request in requests:
        if request.template is None:
            continue
        name, language = request.template.name, request.template.language
        if (name, language) not in statuses:
            statuses[name, language] = stored_status(session, name, language)
        status = statuses[name, language]
        if status is None:
            raise MessageError("invalid_template", f"there is no template {name!r} in language {language!r}")
        if status != APPROVED:
            raise MessageError(TEMPLATE_NOT_APPROVED, not_approved_message(name, language, status))


def _row(
    request: MessageRequest,
    message: CheckedMessage,
    *,
    now: datetime,
    urgent: bool,
    marketing: bool,
    conversation_id: int,
    waiting_since: datetime | None,
) -> dict[str, Any]:
    return {
        "dedupe_key": request.dedupe_key,
        "to_number": message.to_number,
        "purpose": request.purpose,
        "origin": request.origin,
        "priority": request.priority,
        "trigger_ref": request.trigger_ref,
        "kind": message.kind,
        "payload": message.payload,
        "media_id": request.media.media_id if request.media is not None else None,
        "state": states.QUEUED,
        "attempts": 0,
        "not_before": request.not_before or now,
        "business_initiated": message.kind == KIND_TEMPLATE and request.reply_to is None,
        "urgent": urgent,
        "marketing": marketing,
        "reply_to": request.reply_to,
        "created_by": request.created_by,
        "batch_id": request.batch_id,
        "conversation_id": conversation_id,
        "created_at": now,
        "updated_at": now,
        "waiting_since": waiting_since,
    }


def _insert_new(session: Session, rows: list[dict[str, Any]]) -> dict[str, int]:
    """Insert the rows, leaving out any whose key exists by now; the id of each inserted one, by key."""
    if not rows:
        return {}
    # On the table, not the model: the ORM's insert path cost more per row than the insert itself,
    # all of it inside the write transaction. The unique index on dedupe_key decides, not a check.
    statement = insert_ignoring_conflicts(session, OUTBOX, ["dedupe_key"]).returning(
        OUTBOX.c.dedupe_key, OUTBOX.c.id
    )
    return {key: id_ for key, id_ in session.execute(statement, rows).all()}


def _ids_of_keys(session: Session, keys: list[str]) -> dict[str, int]:
    if not keys:
        return {}
    rows = session.execute(
        select(OUTBOX.c.dedupe_key, OUTBOX.c.id).where(OUTBOX.c.dedupe_key.in_(keys))
    ).all()
    return {key: id_ for key, id_ in rows}
