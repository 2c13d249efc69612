"""What webhooks tell us about staying in Meta's good books: opt-outs, template reviews, quality and tier.

Applied in the processor's transaction, after the messages and statuses of the same bodies.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database.models import Contact, Conversation
from backend.domain.account_events import (
    TEMPLATE_SYNC_CODES,
    AccountEvent,
    MarketingPreferenceEvent,
    QualityEvent,
    TemplateStatusEvent,
)
from backend.domain.opt_out import (
    PREFERENCE_RESUME,
    PREFERENCE_STOP,
    REASON_META_REFUSED,
    REASON_USER_PREFERENCES,
    STOPPED_MARKETING_CODE,
)
from backend.domain.states import FAILED
from backend.domain.templates import TemplateCatalog
from backend.domain.webhook_events import InboundMessageEvent, StatusEvent, first_error
from backend.inbox.contacts import contact_for_sender
from backend.outbox.number_health import record_reading
from backend.outbox.opt_outs import OPTED_IN_EVENT, opt_out_requests, record_opt_out
from backend.outbox.template_store import apply_status_update, request_template_sync
from backend.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class ComplianceOutcome:
    """What one batch's compliance events did."""

    opted_out: int = 0
    journal: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


class Compliance:
    """Turns customers' stop messages, preference and account webhooks and refusals into their effects."""

    def __init__(self, settings: Settings, templates: TemplateCatalog) -> None:
        self._settings = settings
        self._templates = templates

    def apply(
        self,
        session: Session,
        *,
        messages: Sequence[InboundMessageEvent],
        statuses: Sequence[StatusEvent],
        account_events: Sequence[AccountEvent],
        now: datetime,
    ) -> ComplianceOutcome:
        """Apply every effect of these fresh events (each event is applied once, by its key)."""
        outcome = ComplianceOutcome()
        for request in opt_out_requests(messages, self._settings):
            contact = self._contact(session, request.contact_wa_id)
            if contact is not None and self._opt_out(session, contact, request.reason, now, request.wamid):
                outcome.opted_out += 1
        for status in statuses:
            self._status(session, status, now, outcome)
        for event in account_events:
            if isinstance(event, MarketingPreferenceEvent):
                self._preference(session, event, now, outcome)
            elif isinstance(event, TemplateStatusEvent):
                outcome.journal.append(apply_status_update(session, event, now))
            elif isinstance(event, QualityEvent):
                entry = record_reading(
                    session,
                    quality_rating=event.quality_rating,
                    tier=event.tier,
                    source="webhook",
                    event=event.event,
                    now=now,
                )
                outcome.journal.append(entry)
        return outcome

    def _opt_out(
        self, session: Session, contact: Contact, reason: str, now: datetime, confirm_to: str | None = None
    ) -> bool:
        return record_opt_out(
            session,
            contact,
            reason=reason,
            now=now,
            settings=self._settings,
            templates=self._templates,
            confirm_to=confirm_to,
        )

    def _contact(self, session: Session, wa_id: str | None) -> Contact | None:
        if not wa_id:
            return None
        return session.scalar(select(Contact).where(Contact.wa_id == wa_id))

    def _status(
        self, session: Session, status: StatusEvent, now: datetime, outcome: ComplianceOutcome
    ) -> None:
        if status.status != FAILED:
            return
        code, _title, _details = first_error(status.errors)
        if code == STOPPED_MARKETING_CODE:
            contact = self._contact(session, status.recipient_id)
            if contact is not None and self._opt_out(session, contact, REASON_META_REFUSED, now):
                outcome.opted_out += 1
        elif code in TEMPLATE_SYNC_CODES:
            request_template_sync(session)

    def _preference(
        self, session: Session, event: MarketingPreferenceEvent, now: datetime, outcome: ComplianceOutcome
    ) -> None:
        if event.value == PREFERENCE_STOP:
            # A customer unknown so far is remembered, so the first marketing send to them is refused.
            contact = contact_for_sender(session, wa_id=event.wa_id, user_id=None, profile_name=None, now=now)
            if self._opt_out(session, contact, REASON_USER_PREFERENCES, now):
                outcome.opted_out += 1
        elif event.value == PREFERENCE_RESUME:
            known = self._contact(session, event.wa_id)
            # Meta's resume undoes Meta's stop only; a stop the customer wrote to us needs a supervisor.
            if known is not None and known.opted_out_reason == REASON_USER_PREFERENCES:
                known.opted_out_at = None
                known.opted_out_reason = None
                conversation_id = session.scalar(
                    select(Conversation.id).where(Conversation.contact_id == known.id)
                )
                outcome.journal.append(
                    (
                        OPTED_IN_EVENT,
                        {"wa_id": known.wa_id, "conversation_id": conversation_id, "was_opted_out": True},
                    )
                )
