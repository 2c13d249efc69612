"""The work queue's way out: an agent links an unattributed reply to a message, or marks it a new topic."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database.models import Contact, InboundMessage, OutboxMessage
from backend.inbox.inbound import LINKED, NEW_TOPIC, recipients_of
from backend.journal import journal


class AttributionError(Exception):
    """An attribution we refuse; `code` is `not_found` or `invalid_attribution`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def attribute_inbound(
    session: Session,
    wamid: str,
    *,
    message_key: str | None,
    new_topic: bool,
    user_id: int,
    now: datetime,
) -> InboundMessage:
    """File an inbound message under one of our messages (by its key) or as a new topic; journaled."""
    if (message_key is None) == (not new_topic):
        raise AttributionError("invalid_attribution", "give exactly one of message_key or new_topic")
    inbound = session.scalar(select(InboundMessage).where(InboundMessage.wamid == wamid))
    if inbound is None:
        raise AttributionError("not_found", f"no inbound message {wamid}")
    if message_key is not None:
        message = session.scalar(select(OutboxMessage).where(OutboxMessage.dedupe_key == message_key))
        if message is None:
            raise AttributionError("not_found", f"no message with key {message_key}")
        contact = session.get_one(Contact, inbound.contact_id)
        # The same rule as a quote: a reply is filed only under a message its sender received.
        if not recipients_of(session, [message])[message.id].is_contact(contact):
            raise AttributionError("invalid_attribution", "that message was sent to another contact")
        inbound.reply_to_message_id = message.id
        inbound.placement = LINKED
        if message.conversation_id is not None:
            inbound.conversation_id = message.conversation_id
    else:
        inbound.reply_to_message_id = None
        inbound.placement = NEW_TOPIC
    inbound.attributed_by = user_id
    journal(
        session,
        "inbound.attributed",
        {
            "wamid": inbound.wamid,
            "conversation_id": inbound.conversation_id,
            "message_key": message_key,
            "new_topic": new_topic,
        },
        now,
    )
    return inbound
