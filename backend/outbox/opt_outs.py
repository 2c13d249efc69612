"""Opting a contact out of marketing (and back in): the mark on the contact, queued marketing cancelled.

Every way a customer says stop (a keyword, the opt-out button, Meta's `user_preferences` webhook, a
131050 refusal, an agent on the customer's behalf) comes here, in the caller's transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, select
from sqlalchemy.orm import Session

from backend.database.models import Contact, Conversation, OutboxMessage
from backend.domain.account_events import TEMPLATE_SYNC_CODES
from backend.domain.messages import MessageError
from backend.domain.opt_out import (
    REASON_BUTTON,
    REASON_KEYWORD,
    REASON_META_REFUSED,
    STOPPED_MARKETING_CODE,
    is_opt_out_button,
    is_opt_out_text,
    keyword_set,
)
from backend.domain.origins import ORIGIN_AUTO
from backend.domain.outcomes import SendOutcome
from backend.domain.templates import TemplateCatalog
from backend.domain.transitions import OPT_OUT_CANCEL
from backend.domain.webhook_events import CHOICE_TEMPLATE_BUTTON, InboundMessageEvent
from backend.journal import journal
from backend.outbox.claim import ClaimedMessage
from backend.outbox.enqueue import MessageRequest, enqueue
from backend.outbox.state_writes import OUTBOX, RowRef, journal_transition, transition_update
from backend.outbox.template_store import request_template_sync
from backend.settings import Settings

log = logging.getLogger(__name__)

OPT_OUT_CONFIRMATION_PURPOSE = "opt_out_confirmation"
OPTED_OUT_EVENT = "contact.opted_out"
OPTED_IN_EVENT = "contact.opted_in"


def confirmation_key(contact_id: int, opted_out_at: datetime) -> str:
    """The dedupe key of the one confirmation of one opt-out."""
    return f"opt-out-confirmation:{contact_id}:{opted_out_at.isoformat()}"


@dataclass(frozen=True)
class OptOutRequest:
    """A customer's message that asks to stop marketing, and how it asked."""

    wamid: str
    contact_wa_id: str | None
    reason: str


def opt_out_requests(events: Iterable[InboundMessageEvent], settings: Settings) -> list[OptOutRequest]:
    """The messages among `events` that are only an opt-out keyword or a tap on the opt-out button."""
    keywords = keyword_set(settings.opt_out_keywords)
    found = []
    for event in events:
        if event.choice_kind == CHOICE_TEMPLATE_BUTTON and is_opt_out_button(event.choice_id):
            found.append(OptOutRequest(event.wamid, event.from_wa_id, REASON_BUTTON))
        elif event.type == "text" and is_opt_out_text(event.text, keywords):
            found.append(OptOutRequest(event.wamid, event.from_wa_id, REASON_KEYWORD))
    return found


_ROW_COLUMNS = (
    OutboxMessage.id,
    OutboxMessage.dedupe_key,
    OutboxMessage.conversation_id,
    OutboxMessage.state,
)


def cancel_queued_marketing(session: Session, number: str, now: datetime) -> list[str]:
    """Cancel the marketing rows to `number` that have not reached Meta; their keys."""
    query = select(*_ROW_COLUMNS).where(
        OutboxMessage.to_number == number,
        OutboxMessage.marketing.is_(True),
        OutboxMessage.state.in_(sorted(OPT_OUT_CANCEL.sources)),
    )
    if session.get_bind().dialect.name == "postgresql":
        # A claim holding one of them finishes first; its reservation is then cancelled here.
        query = query.with_for_update()
    return [ref.key for ref in _cancel(session, list(session.execute(query)), now)]


def _cancel(session: Session, rows: Sequence[Row[Any]], now: datetime) -> list[RowRef]:
    if not rows:
        return []
    by_id = {row.id: row for row in rows}
    cancelled = session.scalars(
        transition_update(OPT_OUT_CANCEL, now).where(OUTBOX.c.id.in_(sorted(by_id))).returning(OUTBOX.c.id)
    ).all()
    refs = [
        RowRef(
            key=by_id[i].dedupe_key,
            conversation_id=by_id[i].conversation_id,
            previous_state=by_id[i].state,
            wamid=None,
        )
        for i in sorted(cancelled)
    ]
    journal_transition(session, OPT_OUT_CANCEL, refs, now)
    return refs


def record_opt_out(
    session: Session,
    contact: Contact,
    *,
    reason: str,
    now: datetime,
    settings: Settings,
    templates: TemplateCatalog,
    confirm_to: str | None = None,
) -> bool:
    """Mark the contact opted out (once) and cancel its queued marketing; False if it already was.

    With `confirm_to` (the wamid of the customer's stop message) the configured confirmation is queued,
    once per opt-out: the customer's message just opened the window, so a free text may go.
    """
    if contact.opted_out_at is not None:
        return False
    contact.opted_out_at = now
    contact.opted_out_reason = reason
    session.flush()
    cancelled = cancel_queued_marketing(session, contact.number, now) if contact.number else []
    journal(
        session,
        OPTED_OUT_EVENT,
        {
            "wa_id": contact.wa_id,
            "conversation_id": _conversation_of(session, contact),
            "reason": reason,
            "cancelled": cancelled,
        },
        now,
    )
    text = settings.opt_out_confirmation_text
    if confirm_to is not None and text and contact.number and contact.opt_out_confirmed_for != now:
        contact.opt_out_confirmed_for = now
        request = MessageRequest(
            dedupe_key=confirmation_key(contact.id, now),
            to=contact.number,
            purpose=OPT_OUT_CONFIRMATION_PURPOSE,
            text=text,
            reply_to=confirm_to,
            trigger_ref=confirm_to,
            origin=ORIGIN_AUTO,
        )
        try:
            enqueue(session, request, templates=templates, settings=settings, now=now)
        except MessageError as error:
            log.warning("no opt-out confirmation for %s: %s", contact.wa_id, error.message)
    return True


def after_refusals(
    session: Session,
    results: Sequence[tuple[ClaimedMessage, SendOutcome]],
    *,
    settings: Settings,
    templates: TemplateCatalog,
    now: datetime,
) -> None:
    """What Meta's refusals of these sends tell us: a 131050 opts the customer out; a template code
    that says our copy is out of date asks for a sync."""
    for message, outcome in results:
        if outcome.code == STOPPED_MARKETING_CODE:
            contact = session.scalar(select(Contact).where(Contact.number == message.to_number).limit(1))
            if contact is not None:
                record_opt_out(
                    session,
                    contact,
                    reason=REASON_META_REFUSED,
                    now=now,
                    settings=settings,
                    templates=templates,
                )
        elif outcome.code in TEMPLATE_SYNC_CODES:
            request_template_sync(session)


def record_opt_in(session: Session, contact: Contact, *, user_id: int, note: str, now: datetime) -> bool:
    """Clear the contact's opt-out on a supervisor's word and record how consent was given."""
    was_opted_out = contact.opted_out_at is not None
    contact.opted_out_at = None
    contact.opted_out_reason = None
    contact.opted_in_at = now
    contact.opted_in_by = user_id
    contact.opted_in_note = note
    journal(
        session,
        OPTED_IN_EVENT,
        {
            "wa_id": contact.wa_id,
            "conversation_id": _conversation_of(session, contact),
            "was_opted_out": was_opted_out,
        },
        now,
    )
    return was_opted_out


def _conversation_of(session: Session, contact: Contact) -> int | None:
    # The desks refresh the conversation whose contact changed.
    return session.scalar(select(Conversation.id).where(Conversation.contact_id == contact.id))
