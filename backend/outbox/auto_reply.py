"""The away message: off by default; once per inbound message and once per window opening, via the outbox."""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy.orm import Session

from backend.database.models import Contact, Conversation
from backend.domain.messages import MessageError
from backend.domain.origins import ORIGIN_AUTO
from backend.domain.templates import TemplateCatalog
from backend.domain.webhook_events import InboundMessageEvent
from backend.domain.windows import within_business_hours
from backend.outbox.enqueue import MessageRequest, enqueue
from backend.settings import Settings

log = logging.getLogger(__name__)

AUTO_REPLY_PURPOSE = "auto_reply"


def auto_reply_key(wamid: str) -> str:
    """The dedupe key of the away message answering one inbound message."""
    return f"auto-reply:{wamid}"


class AutoReply:
    """Enqueues the away message for a message that opened a window outside business hours."""

    def __init__(self, settings: Settings, templates: TemplateCatalog) -> None:
        self._settings = settings
        self._templates = templates

    def __call__(
        self,
        session: Session,
        event: InboundMessageEvent,
        contact: Contact,
        conversation: Conversation,
        now: datetime,
    ) -> None:
        """Called only for the message that opened a window, so the key on its wamid is enough."""
        settings = self._settings
        if not settings.auto_reply_enabled or contact.number is None:
            return
        sent_at = event.sent_at or now
        if within_business_hours(sent_at, settings.business_hours, settings.business_timezone):
            return
        request = MessageRequest(
            dedupe_key=auto_reply_key(event.wamid),
            to=contact.number,
            purpose=AUTO_REPLY_PURPOSE,
            text=settings.auto_reply_text,
            reply_to=event.wamid,
            trigger_ref=event.wamid,
            origin=ORIGIN_AUTO,
        )
        try:
            enqueue(session, request, templates=self._templates, settings=settings, now=now)
        except MessageError as error:
            log.warning("no away message for %s: %s", event.wamid, error.message)
