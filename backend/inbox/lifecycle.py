"""A conversation's status: open, pending (waiting on the customer), resolved, snoozed until a time."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from backend.database.models import Conversation

OPEN = "open"
PENDING = "pending"
RESOLVED = "resolved"
SNOOZED = "snoozed"
STATUSES = (OPEN, PENDING, RESOLVED, SNOOZED)
# What GET /v1/conversations lists when no status is asked for: what still needs someone.
DEFAULT_LIST_STATUSES = (OPEN, PENDING)
STATUS_CHANGED = "conversation.status_changed"
# The actor of a change no person made (a customer's message, a snooze running out).
SYSTEM = "system"


def status_entry(conversation: Conversation, by: str, reason: str) -> tuple[str, dict[str, Any]]:
    """The journal entry announcing the conversation's current status."""
    until = conversation.snoozed_until
    return (
        STATUS_CHANGED,
        {
            "conversation_id": conversation.id,
            "status": conversation.status,
            "snoozed_until": until.isoformat().replace("+00:00", "Z") if until is not None else None,
            "by": by,
            "reason": reason,
        },
    )


def reopen_for_inbound(conversation: Conversation) -> tuple[str, dict[str, Any]] | None:
    """A customer's new message puts a resolved, pending or snoozed conversation back in front of agents."""
    if conversation.status == OPEN:
        return None
    conversation.status = OPEN
    conversation.snoozed_until = None
    return status_entry(conversation, SYSTEM, "customer_wrote")


def reopen_when_snooze_ends(conversation: Conversation, now: datetime) -> tuple[str, dict[str, Any]] | None:
    """A snoozed conversation whose time has come is open again."""
    until = conversation.snoozed_until
    if conversation.status != SNOOZED or until is None or until > now:
        return None
    conversation.status = OPEN
    conversation.snoozed_until = None
    return status_entry(conversation, SYSTEM, "snooze_ended")
